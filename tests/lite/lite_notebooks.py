"""`make test-lite`: the browser chapters' lessons and solutions, run in Pyodide under Node.

Not collected by `make test` (the file name does not start with test_): it needs Node, the npm
`pyodide` package (`npm ci --prefix docs`) and the browser wheels (docs/lite/build.py), and it
takes a few minutes. Every code cell's outputs are compared with the committed ones as nbval
would (tests/lite/compare.py); the cells that cannot run in the browser are listed, with the
reason, in docs/lite/browser.toml, and the README's browser table is made from the same run.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.lite import run

ROOT = run.ROOT
CONFIG = tomllib.loads((ROOT / "docs" / "lite" / "browser.toml").read_text())
OUTSIDE = set(CONFIG["not_in_browser"])
LESSONS = sorted(
    str(p.relative_to(ROOT))
    for folder in ("notebooks", "solutions")
    for p in (ROOT / folder).glob("*.ipynb")
    if p.name[:2] not in OUTSIDE
)
KNOWN: dict[str, dict[str, str]] = CONFIG["cells"]
LABEL = {"notebooks": "lesson", "solutions": "solution"}


@pytest.fixture(scope="session")
def measured() -> dict[str, list[dict[str, Any]]]:
    """Every lesson and solution, each in a Pyodide of its own, two at a time (two cores)."""
    return run.classified(LESSONS)


@pytest.mark.parametrize("notebook", LESSONS)
def test_cells_run_in_the_browser_as_committed(notebook: str, measured: dict) -> None:
    known = KNOWN.get(notebook, {})
    surprises = [
        f"cell {row['index']}: {row['detail']}"
        for row in measured[notebook]
        if row["kind"] == "differs" and str(row["index"]) not in known
    ]
    assert not surprises, "\n".join(surprises)


@pytest.mark.parametrize("notebook", sorted(KNOWN))
def test_cells_listed_as_not_running_still_do_not(notebook: str, measured: dict) -> None:
    kinds = {str(row["index"]): row["kind"] for row in measured[notebook]}
    runs_now = [index for index in KNOWN[notebook] if kinds.get(index) != "differs"]
    assert not runs_now, f"{notebook}: cells {runs_now} run now: delete them from browser.toml"


def table(measured: dict[str, list[dict[str, Any]]]) -> str:
    """The README's browser table: per chapter, how many code cells run as committed."""
    lines = [
        "| chapter | lesson cells that run | plots (skipped here) | solution cells that run "
        "| what does not run in the browser |",
        "|---|---:|---:|---:|---|",
    ]
    chapters = sorted({Path(n).name[:2] for n in (ROOT / "notebooks").glob("*.ipynb")})
    for chapter in chapters:
        if chapter in OUTSIDE:
            lines.append(f"| {chapter} | — | — | — | {CONFIG['not_in_browser'][chapter]} |")
            continue
        cells = {}
        for folder in ("notebooks", "solutions"):
            (name,) = [n for n in measured if n.startswith(f"{folder}/{chapter}_")]
            cells[folder] = (name, measured[name])
        counts = []
        for folder in ("notebooks", "solutions"):
            rows = cells[folder][1]
            ran = sum(r["kind"] in ("same", "skipped") for r in rows)
            counts.append(f"{ran}/{len(rows)}")
        plots = sum(r["kind"] == "plot" for r in cells["notebooks"][1])
        reasons = [
            f"{LABEL[folder]} cell {i}: {why}"
            for folder in ("notebooks", "solutions")
            for i, why in KNOWN.get(cells[folder][0], {}).items()
        ]
        shown = "; ".join(reasons) or "everything runs"
        lines.append(f"| {chapter} | {counts[0]} | {plots} | {counts[1]} | {shown} |")
    return "\n".join(lines) + "\n"


def test_the_readme_table_is_the_measured_one(measured: dict) -> None:
    made = table(measured)
    (ROOT / "_site").mkdir(exist_ok=True)
    (ROOT / "_site" / "browser-table.md").write_text(made)
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"<!-- browser table -->\n(.*?)<!-- end browser table -->", readme, re.S)
    assert found, "README.md has no <!-- browser table --> ... <!-- end browser table --> block"
    assert found[1] == made, (
        "README's browser table is not the measured one: _site/browser-table.md"
    )
