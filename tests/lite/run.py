"""Run notebooks in Pyodide under Node and classify their cells (used by tests/lite/lite_*.py).

python -m tests.lite.run notebooks/00_welcome.ipynb ...   # prints one line per cell
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.lite import compare

ROOT = compare.ROOT
HERE = Path(__file__).resolve().parent
PYODIDE = ROOT / "docs" / "node_modules" / "pyodide"
SITE_PACKAGES = ROOT / "_site" / "pyodide-env" / "site-packages"
RAW = ROOT / "_site" / "pyodide-outputs"
# What a learner's first cell does in the browser edition (docs/lite/README.md): import toolsys.
BOOTSTRAP = "import toolsys"
# The files a notebook finds next to it, as in the JupyterLite site (docs/lite/build.py).
DRIVE = ["notebooks", "exercises", "solutions", "tests/data/petstore-openapi.yaml"]


def run(notebooks: list[str], *, timeout: float = 900) -> dict[str, Any]:
    """Run each notebook (a path relative to the repository) in one Pyodide; the raw results.

    With no notebook it only loads Pyodide (and compiles the site-packages once, see
    pyodide.mjs), so that parallel runs after it do not each compile them."""
    with tempfile.TemporaryDirectory() as tmp:
        drive = Path(tmp) / "drive"
        for name in DRIVE:
            source, target = ROOT / name, drive / name
            if source.is_dir():
                shutil.copytree(source, target)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, target)
        out = Path(tmp) / "out.json"
        job = {
            "pyodide": str(PYODIDE),
            "site_packages": str(SITE_PACKAGES),
            "drive": str(drive),
            "runner": str(HERE / "in_pyodide.py"),
            "compile": not any(SITE_PACKAGES.glob("toolsys/__pycache__/*.pyc")),
            "out": str(out),
            "env": {"TOOLSYS_OFFLINE": "1", "PYTHONHASHSEED": "0", "HOME": "/home/pyodide"},
            "bootstrap": BOOTSTRAP,
            "notebooks": [
                {"path": f"/drive/{nb}", "cwd": f"/drive/{Path(nb).parent}"} for nb in notebooks
            ],
        }
        (Path(tmp) / "job.json").write_text(json.dumps(job))
        node = shutil.which("node") or "node"
        done = subprocess.run(
            [node, str(HERE / "pyodide.mjs"), str(Path(tmp) / "job.json")],
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
        sys.stderr.write(done.stderr)
        if done.returncode != 0 or not out.exists():  # Pyodide died (a fatal error): say so
            crashed = f"node exited with {done.returncode}: {done.stderr[-2000:]}"
            return {"results": [{"path": nb, "crashed": crashed} for nb in notebooks]}
        if notebooks:  # kept for a look after a failure
            RAW.mkdir(parents=True, exist_ok=True)
            name = "+".join(nb.replace("/", "-").removesuffix(".ipynb") for nb in notebooks)
            shutil.copy(out, RAW / f"{name}.json")
        return json.loads(out.read_text())


def classified(notebooks: list[str], *, jobs: int = 2) -> dict[str, list[dict[str, Any]]]:
    """notebook -> its code cells with their kind (see tests/lite/compare.py).

    Each notebook runs in a Pyodide of its own, `jobs` at a time, as each notebook of the
    JupyterLite site gets a kernel of its own: nothing one notebook leaves behind (a module, a
    registered exercise, a Pyodide fatal error that ends that interpreter) reaches the next."""
    run([])
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        raws = list(pool.map(lambda nb: run([nb]), notebooks))
    found = {}
    for nb, raw in zip(notebooks, raws, strict=True):
        (result,) = raw["results"]
        committed = json.loads((ROOT / nb).read_text())
        if "crashed" in result:
            rows = [{"index": -1, "kind": "differs", "detail": result["crashed"][-2000:]}]
        else:
            rows = compare.cells(committed, result)
        found[nb] = rows
    return found


if __name__ == "__main__":
    os.chdir(ROOT)
    for nb, rows in classified(sys.argv[1:]).items():
        for row in rows:
            print(nb, row["index"], row["kind"], row["detail"][:400])
