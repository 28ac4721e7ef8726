"""`import toolsys` stays light: the heavy front-end libraries load only when used."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("openai", "httpx2", "ipywidgets", "matplotlib", "mcp", "nbclient", "IPython")


def test_import_toolsys_does_not_import_heavy_libraries() -> None:
    code = (
        f"import sys, json, toolsys; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_core_modules_never_import_higher_layers() -> None:
    code = (
        "import sys, json, toolsys; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('toolsys'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    for higher in (
        "toolsys.loop",
        "toolsys.models",
        "toolsys.widgets",
        "toolsys.checks",
        "toolsys.cli",
        "toolsys.tools",
    ):
        assert higher not in loaded
