"""What every file the grader writes has in common: text that always encodes, written whole.

Why: the texts come from students (names, their exceptions' messages) and may hold lone
surrogates; a file is written beside its place and renamed over it, so a reader sees the old file
or the new one, never half of one. The gradebook, the LMS exports and the feedback pages use it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any


def encodable(value: Any) -> str:
    """Any value as encodable text: lone surrogates and the like become backslash escapes."""
    text = "" if value is None else str(value)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def write_whole(path: Path, text: str) -> None:
    """Write `text` to a new file beside `path`, then rename it over `path` (never half-written)."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
