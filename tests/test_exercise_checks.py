"""Every registered exercise: the reference passes, a stub is "not done", notebooks agree.

Parametrized over what is found (checks modules, solutions/, exercises/), so it passes trivially
before the chapters land and covers each one as it does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.liars import LIARS
from toolsys import checks, exercises, grading

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9]*_*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("[0-9]*_*.ipynb"))
EXERCISE_IDS = [e.id for e in checks.exercises()]


class _Stub:
    """What a student who has not started hands in: calling it or any attribute is not done."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("stub")

    def __getattr__(self, name: str) -> Any:
        raise NotImplementedError(f"stub.{name}")


def _handing_in(exercise_id: str, liar: Any) -> Any:
    """What the student hands in for `exercise_id` when every answer it gives is `liar`."""
    if exercise_id == "2.1":  # a registry class

        class Registry:
            def register(self, name: str, fn: Any) -> None:
                pass

            def get(self, name: str) -> Any:
                return liar

            def names(self) -> Any:
                return liar

        return Registry
    if exercise_id == "0.3":  # a function without arguments
        return lambda: liar
    return lambda *args, **kwargs: liar


@pytest.mark.parametrize("liar", LIARS, ids=str)
@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_an_answer_that_claims_to_equal_everything_is_a_wrong_answer(
    exercise_id: str, liar: str
) -> None:
    result = checks.check(exercise_id, _handing_in(exercise_id, LIARS[liar]))
    assert result.status is checks.Status.FAILED, result.text()
    assert result.expected or result.hint, result.text()


@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_the_reference_implementation_passes(exercise_id: str) -> None:
    exercise = checks.get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None, (
        f"exercise {exercise_id} has no reference=: pass the package's own implementation"
    )
    result = checks.check(exercise_id, exercise.reference())
    assert result.passed, result.text()


@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_a_stub_is_reported_not_done(exercise_id: str) -> None:
    result = checks.check(exercise_id, _Stub())
    assert result.status is checks.Status.NOT_DONE, result.text()


def test_every_solution_exercise_has_a_check_and_every_check_a_solution() -> None:
    in_notebooks = {i for path in SOLUTIONS for i in exercises.exercise_ids(path)}
    assert sorted(in_notebooks - set(EXERCISE_IDS)) == [], "exercises without a registered check"
    assert sorted(set(EXERCISE_IDS) - in_notebooks) == [], "checks without a solution notebook"


def _stored_verdicts(path: Path) -> tuple[dict[str, str], list[str], list[str]]:
    """What the committed solution shows: each check's status, its error outputs, its markers.

    `make test` runs these notebooks under nbval, which executes every cell again and compares
    the fresh output with the stored one (tests/nbval_sanitize.cfg touches neither the ids nor
    the statuses). So a verdict read here is the verdict of a verified, current run, and the
    notebook is not executed a second time in a kernel of its own.
    """
    notebook = nbformat.read(path, as_version=4)
    shown: dict[str, str] = {}
    errors: list[str] = []
    unchecked: list[str] = []
    for index, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        calls = _CHECK_CALL.findall(cell.source)
        if calls and _UNCOMPARED.search(cell.source):
            unchecked.append(f"cell {index} ({', '.join(calls)}): nbval does not compare it")
        for output in cell.outputs:
            if output.output_type == "error":
                errors.append(f"cell {index} raised {output.ename}: {output.evalue}")
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            for mark, exercise_id, status in _VERDICT.findall(text):
                shown[exercise_id] = status if mark == "✓" else f"{mark} {status}"
    return shown, errors, unchecked


_CHECK_CALL = re.compile(r"""check\(\s*["'](\d+\.\d+)["']""")
_UNCOMPARED = re.compile(r"#\s*NBVAL_(IGNORE_OUTPUT|SKIP)")
_VERDICT = re.compile(r"^([✓✗○]) Exercise (\d+\.\d+) \(.*\): (.+)$", re.MULTILINE)


def test_make_test_compares_every_solution_notebook_with_a_fresh_run() -> None:
    """What the next test relies on: nbval collects solutions/ in `make test`."""
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^NOTEBOOK_DIRS := \$\(wildcard notebooks solutions\)$", makefile, re.M)
    assert re.search(r"^\t\$\(BIN\)/python -m pytest .*tests \$\(NOTEBOOK_DIRS\)", makefile, re.M)
    assert "--nbval " in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_a_solution_notebook_passes_every_check_it_runs(path: Path) -> None:
    shown, errors, unchecked = _stored_verdicts(path)
    assert errors == []
    assert unchecked == []
    assert sorted(shown) == sorted(exercises.exercise_ids(path)), "each exercise needs a check cell"
    failed = {i: status for i, status in shown.items() if status != "passed"}
    assert failed == {}


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_an_exercise_notebook_runs_and_reports_every_check_not_done(path: Path) -> None:
    grade = grading.grade_notebook(path, path.stem)
    assert (grade.status, grade.problem) == ("ran", "")
    assert grade.verdicts, "an exercise notebook without check cells"
    done = {v["exercise"]: v["status"] for v in grade.verdicts if v["status"] != "not_done"}
    assert done == {}
