"""nbgrader's cell metadata on exercise notebooks, so an nbgrader course can release them as is.

Why: nbgrader grades "grade cells" and restores "locked" cells from its database before it
runs a submission; it learns which cells are which from each cell's `metadata.nbgrader`
(schema version 3). `toolsys exercises` writes it from the same markers it makes stubs from:

- a check cell (`check("2.1", answer)` alone): a grade cell worth the exercise's points, locked;
- a cell holding a stub: a solution cell, the student's answer;
- every other code cell: locked (read-only), so a submission is run with the cells as released;
- markdown cells: nothing.

It also writes what nbgrader's own `generate_assignment` adds (0.9.6: `ComputeChecksums`,
`LockCells`): each marked cell's checksum and type, and `deletable`/`editable` flags, so the
release nbgrader makes from an exercise notebook is that notebook. While nbgrader runs it, a
check shows the points it earned (see `toolsys.checks.points`).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbformat import NotebookNode

SCHEMA_VERSION = 3
_ID = re.compile(r"\d+\.\d+")


def check_id(source: str) -> str | None:
    """The exercise id of a check cell (its whole code is `check("2.1", ...)`), else None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    first = call.args[0] if call.args else None
    if call.func.id != "check" or not isinstance(first, ast.Constant):
        return None
    return first.value if isinstance(first.value, str) and _ID.fullmatch(first.value) else None


def checksum(cell: Mapping[str, Any]) -> str:
    """The checksum nbgrader computes for a marked cell (`nbgrader.utils.compute_checksum`)."""
    meta = cell["metadata"]["nbgrader"]
    grade, solution = bool(meta.get("grade")), bool(meta.get("solution"))
    locked = False if solution else grade or bool(meta.get("locked"))
    digest = hashlib.md5(usedforsecurity=False)
    for part in (cell["source"], cell["cell_type"], str(grade), str(solution), str(locked)):
        digest.update(part.encode("utf-8"))
    digest.update(meta["grade_id"].encode("utf-8"))
    if grade:
        digest.update(str(float(meta["points"])).encode("utf-8"))
    return digest.hexdigest()


def mark(notebook: NotebookNode, answers: Mapping[int, Sequence[str]]) -> None:
    """Write nbgrader metadata on every code cell of an exercise notebook, in place.

    `answers` maps the index of each cell holding stubs to the exercise ids of its stubs.
    """
    from toolsys.checks.points import points

    taken: set[str] = set()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        exercise = check_id(cell.source)
        if index in answers:
            kind, name = "solution", "answer-" + "-".join(dict.fromkeys(answers[index]))
        elif exercise is not None:
            kind, name = "grade", f"check-{exercise}"
        else:
            kind, name = "locked", f"cell-{index + 1}"
        grade_id = _unique(name.replace(".", "_"), taken)
        meta: dict[str, Any] = {
            "grade": kind == "grade",
            "grade_id": grade_id,
            "locked": kind != "solution",
            "schema_version": SCHEMA_VERSION,
            "solution": kind == "solution",
            "task": False,
        }
        if kind == "grade":
            meta["points"] = points(exercise or "")
        cell.metadata["nbgrader"] = meta
        meta |= {"checksum": checksum(cell), "cell_type": cell.cell_type}
        cell.metadata["nbgrader"] = meta
        cell.metadata["deletable"] = False
        if kind != "solution":
            cell.metadata["editable"] = False


def _unique(name: str, taken: set[str]) -> str:
    found, number = name, 1
    while found in taken:
        number += 1
        found = f"{name}-{number}"
    taken.add(found)
    return found
