"""Grade notebooks: each in its own sandboxed kernel, every check's verdict collected and checked.

Why: an instructor with forty submissions needs one table (student × exercise) and no surprises
when one notebook does not parse, kills its kernel, loops forever or attacks the grader. Each
notebook runs in a fresh `python3` kernel of the current environment inside a `Sandbox`; its
verdicts come from a log `toolsys.checks.check` signs with a key made for that notebook.
`grade_notebook` never raises: whatever goes wrong is that notebook's status and problem.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsys import _platform
from toolsys.grading._kernel import KernelStartError, run_graded
from toolsys.grading._sandbox import Sandbox, isolation
from toolsys.grading._verdicts import read_verdicts
from toolsys.grading.hidden import HiddenCases
from toolsys.grading.submissions import Submission, UsageError, read_notebook

if TYPE_CHECKING:
    from nbformat import NotebookNode

DEFAULT_TIMEOUT = 120.0
"""Seconds one notebook may run, kernel start excluded."""
PROBLEM_LIMIT = 300
"""Characters kept of a problem text (a cell's error message is the student's to choose)."""

_CHECK_CALL = re.compile(r"""check\(\s*["'](\d+\.\d+)["']""")


@dataclass
class NotebookGrade:
    """The outcome of running one notebook: its status and the verdicts its checks reported.

    `verdicts` are the visible checks', `hidden` the hidden cases' (each with its "case" name);
    every verdict carries its "points" (what it is worth, earned only when it passed). `notes`
    are what the instructor should know (a retried kernel start, dropped output); `rejected` are
    verdict-log lines that did not count, and mean the notebook did not pass.
    """

    path: Path
    student: str
    status: str = "ran"  # ran | unparsable | crashed | timeout
    problem: str = ""
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    hidden: list[dict[str, Any]] = field(default_factory=list)

    @property
    def all_passed(self) -> bool:
        return (
            self.status == "ran"
            and not self.rejected
            and all(v["status"] == "passed" for v in [*self.verdicts, *self.hidden])
        )


def grade_notebook(
    path: Path,
    student: str,
    *,
    folder: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    hidden: HiddenCases | None = None,
) -> NotebookGrade:
    """Run one exercise notebook on a copy of its submission and collect its verdicts.

    With `hidden`, the instructor's hidden cases run after each visible check. Never raises for
    a bad notebook or a failing kernel: they become the grade's status. Raises ValueError for a
    `timeout` that is not a finite number of seconds, at least 1, and UsageError when a root
    grader could only run the submission as root (see `Isolation.refusal`).
    """
    _check_timeout(timeout)
    _check_isolation()
    hidden = hidden or HiddenCases()
    grade = NotebookGrade(path, student)
    try:
        notebook = read_notebook(path)
    except Exception as exc:  # not JSON, not a notebook, a symlink, too big: all the same here
        grade.status, grade.problem = "unparsable", _short(f"not a readable notebook: {exc}")
        return grade
    try:
        with Sandbox(
            isolation(), timeout=timeout, notebook=path, folder=folder, hidden=hidden.folder
        ) as box:
            grade.notes = box.notes
            try:
                grade.status, grade.problem = run_graded(notebook, box, timeout=timeout)
            except KernelStartError as exc:
                grade.status, grade.problem = "crashed", str(exc)
            verdicts, grade.rejected = read_verdicts(box.log_fd, box.key)
            grade.verdicts = [v for v in verdicts if "case" not in v]
            grade.hidden = [v for v in verdicts if "case" in v]
    except Exception as exc:  # the grader's own trouble (disk full, ...): this notebook only
        grade.status = "crashed"
        grade.problem = f"the grader could not run it: {type(exc).__name__}: {exc}"
    if grade.status == "ran":
        grade.problem = _first_error(notebook)
    grade.problem = _short(grade.problem)
    _add_missing(grade, notebook)
    _add_points(grade, hidden)
    return grade


def grade(
    notebooks: Sequence[Submission | tuple[Path, str]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 1,
    hidden: HiddenCases | None = None,
) -> list[NotebookGrade]:
    """Grade the submissions from `find_notebooks`, `jobs` at a time (each in its own kernel)."""
    if not _platform.PROCESSES:
        raise UsageError(
            _platform.unavailable(
                "Grading (toolsys check)",
                "Each notebook is graded in a kernel process of its own: grade on your machine "
                "or on Binder.",
            )
        )
    _check_timeout(timeout)
    _check_isolation()  # probe once, before the threads start

    def one(item: Submission | tuple[Path, str]) -> NotebookGrade:
        path, student, folder = Submission(*item)
        return grade_notebook(path, student, folder=folder, timeout=timeout, hidden=hidden)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, notebooks))


def _check_isolation() -> None:
    """Raise UsageError where grading must not start (see `Isolation.refusal`)."""
    refusal = isolation().refusal
    if refusal:
        raise UsageError(refusal)


def _check_timeout(timeout: float) -> None:
    if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout >= 1):
        raise ValueError(f"timeout={timeout!r}: give a finite number of seconds, at least 1")


def _short(text: str) -> str:
    return text if len(text) <= PROBLEM_LIMIT else text[: PROBLEM_LIMIT - 1] + "…"


def _first_error(notebook: NotebookNode) -> str:
    for index, cell in enumerate(notebook.cells, start=1):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return f"cell {index} raised {output.get('ename')}: {output.get('evalue')}"
    return ""


def _missing(exercise_id: str, reason: str, **more: str) -> dict[str, Any]:
    fields = {"title": "", "status": "missing", "message": reason}
    return {"exercise": exercise_id, **fields, "expected": None, "got": None, "hint": None, **more}


def _add_missing(grade: NotebookGrade, notebook: NotebookNode) -> None:
    seen = {v["exercise"] for v in grade.verdicts}
    for cell in notebook.cells:
        if cell.get("cell_type") != "code" or not isinstance(cell.get("source"), str):
            continue
        for exercise_id in _CHECK_CALL.findall(cell.source):
            if exercise_id not in seen:
                seen.add(exercise_id)
                reason = grade.problem or "its check cell did not report a verdict"
                grade.verdicts.append(_missing(exercise_id, reason))


def _add_points(grade: NotebookGrade, hidden: HiddenCases) -> None:
    """Give every verdict its points (from the instructor, never the log), and give every
    checked exercise all its hidden cases: a case without a verdict is missing."""
    for verdict in grade.verdicts:
        verdict["points"] = hidden.visible_points(verdict["exercise"])
    logged = {(v["exercise"], v["case"]): v for v in grade.hidden}
    grade.hidden = []
    for verdict in grade.verdicts:
        for one in hidden.cases(verdict["exercise"]):
            found = logged.pop((verdict["exercise"], one.name), None)
            if found is None:
                reason = grade.problem or "its hidden case did not report a verdict"
                found = _missing(verdict["exercise"], reason, case=one.name)
            grade.hidden.append({**found, "points": one.points})
    if logged:  # cases the instructor did not write: forged, or for an exercise never checked
        grade.rejected.append(f"{len(logged)} verdict(s) of unknown hidden cases ignored")
