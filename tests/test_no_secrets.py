"""Nothing committed looks like a real API key: demos use short, obviously fake values."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).parent.parent
KEY_LIKE = re.compile(r"sk-[A-Za-z0-9_-]{20,}")


def test_no_tracked_file_contains_something_shaped_like_an_openai_key() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    offenders = [
        name
        for name in tracked
        if name.endswith((".py", ".ipynb", ".md", ".yml", ".toml", ".json"))
        and KEY_LIKE.search((ROOT / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert offenders == []
