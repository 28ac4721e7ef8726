"""The lessons with widgets run again in any order a student is likely to try, in one kernel:
each cell twice in a row (running a cell again), then, after the whole lesson has run, each
widget's cell and the cell after it once more (scrolling back up after Run All). The browser
tests do the same with the widgets clicked in between."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolsys.grading import execute

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# 08 has the most state to keep straight (a database, a log file, paused runs); 06's and 12's
# widget cells are re-run in the browser tests. (All three passed this test when it was written.)
LESSONS = ["08_governance"]
WIDGET = re.compile(r"\b(TraceView|ApprovalPanel|ShopDashboard|Playground|Inspector)\(")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_cell_runs_again_right_after_itself_and_a_widget_after_the_whole_lesson(
    lesson: str,
) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    path = NOTEBOOKS / f"{lesson}.ipynb"
    source = nbformat.read(path, as_version=4)
    code = [cell.source for cell in source.cells if cell.cell_type == "code"]
    runs = [(i, f"run {n} of code cell {i}") for i in range(len(code)) for n in (1, 2)]
    widgets = [i for i, text in enumerate(code) if WIDGET.search(text)]
    assert widgets, f"{lesson} shows no widget"
    again = sorted({j for i in widgets for j in (i, i + 1) if j < len(code)})
    runs += [(i, f"code cell {i} after the whole lesson") for i in again]
    twice = new_notebook(cells=[new_code_cell(code[i]) for i, _ in runs])
    twice.metadata = source.metadata
    execute(twice, path.parent, timeout=240, allow_errors=True)
    failed = [
        f"{label}: "
        + (output.get("ename", "stderr") + ": " + (output.get("evalue") or output.get("text", "")))[
            :300
        ]
        for (_, label), cell in zip(runs, twice.cells, strict=True)
        for output in cell.outputs
        if output.output_type == "error" or output.get("name") == "stderr"
    ]
    assert not failed, f"{lesson}:\n" + "\n".join(failed)
