"""Hidden cases: an instructor's extra cases for an exercise, each with its points, never shipped.

Why: a check that students run themselves can be passed by an answer tuned to it. An instructor
writes more cases for an exercise in a file of their own, `2.1.py` in a folder they give the
grader (`toolsys check --hidden FOLDER`, `toolsys autograder --hidden FOLDER`):

    from toolsys.checks import expect_raises
    from toolsys.grading.hidden import case

    VISIBLE_POINTS = 2  # optional: what the visible check of 2.1 is worth in this course

    @case("a name differing only by case and '-' collides", points=2)
    def _(SafeRegistry):
        registry = SafeRegistry()
        registry.register("get_weather", print)
        expect_raises(ValueError, registry.register, "GET-WEATHER", print)

A case is written like a check: it receives the student's object and raises `CheckFailed` (or
uses the `expect_*` helpers) at the first wrong answer. The grader copies the folder into each
submission's sandbox and names it in `HIDDEN_ENV`; `check()` then runs the exercise's hidden
cases on the same object right after the visible check, and logs each verdict (signed, with its
case name) for the grader only: the notebook shows the visible verdict alone. Points come from
the instructor's file as the grader read it, never from the log.

Public within toolsys: the check side of the format; `toolsys.grading.hidden` (the instructor's
import, and the grader's reader) and toolsys/grading/_verdicts.py use these names.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsys.checks._core import (
    DEFAULT_TIMEOUT,
    CheckResult,
    Exercise,
    Status,
    log_verdict,
    run_check,
)

HIDDEN_ENV = "TOOLSYS_HIDDEN_CASES"
"""When set (by the grader), the folder of hidden-case files `check()` runs after each check."""
CASE_NAME_LIMIT = 200
FILE_NAME = re.compile(r"(?P<id>\d{1,3}\.\d{1,3})\.py")


class HiddenCasesError(ValueError):
    """A hidden-case file cannot be used: not Python, a bad case, a bad name or bad points."""


@dataclass(frozen=True)
class Case:
    """One hidden case: its name (for the instructor), the check body, its points and time."""

    name: str
    run: Callable[[Any], object]
    points: float = 1.0
    timeout: float | None = None


@dataclass(frozen=True)
class CaseFile:
    """The hidden cases of one exercise, and what its visible check is worth (None: default)."""

    exercise: str
    cases: tuple[Case, ...]
    visible_points: float | None = None


_collecting: list[Case] | None = None


def case(
    name: str, *, points: float = 1.0, timeout: float | None = None
) -> Callable[[Callable[[Any], object]], Callable[[Any], object]]:
    """Declare the decorated function a hidden case worth `points`, in a hidden-case file."""

    def declare(run: Callable[[Any], object]) -> Callable[[Any], object]:
        if _collecting is None:
            raise HiddenCasesError(
                f"case({name!r}) is for hidden-case files the grader loads (e.g. hidden/2.1.py); "
                "give their folder to `toolsys check --hidden`"
            )
        _collecting.append(Case(name, run, points, timeout))
        return run

    return declare


def load(path: Path) -> CaseFile:
    """The cases of one hidden-case file `N.M.py`; raises HiddenCasesError saying what is wrong."""
    global _collecting
    found = FILE_NAME.fullmatch(path.name)
    if found is None:
        raise HiddenCasesError(f"{path}: name it after its exercise, e.g. 2.1.py")
    spec = importlib.util.spec_from_file_location(f"toolsys_hidden_{found['id']}", path)
    if spec is None or spec.loader is None:
        raise HiddenCasesError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    collected: list[Case] = []
    _collecting = collected
    try:
        spec.loader.exec_module(module)
    except HiddenCasesError:
        raise
    except Exception as exc:  # the instructor's own file: whatever it raises, say where
        raise HiddenCasesError(f"{path}: cannot load it: {type(exc).__name__}: {exc}") from None
    finally:
        _collecting = None
    visible = getattr(module, "VISIBLE_POINTS", None)
    if visible is not None and not _is_points(visible):
        raise HiddenCasesError(f"{path}: VISIBLE_POINTS={visible!r} is not a number of points >= 0")
    names = [c.name for c in collected]
    for one in collected:
        if not isinstance(one.name, str) or not one.name.strip() or len(one.name) > CASE_NAME_LIMIT:
            raise HiddenCasesError(
                f"{path}: case name {one.name!r}: give a text of 1 to {CASE_NAME_LIMIT} characters"
            )
        if names.count(one.name) > 1:
            raise HiddenCasesError(f"{path}: two cases are named {one.name!r}; name each once")
        if not _is_points(one.points):
            raise HiddenCasesError(f"{path}: case {one.name!r}: points={one.points!r} is not >= 0")
        if one.timeout is not None and not _is_seconds(one.timeout):
            raise HiddenCasesError(f"{path}: case {one.name!r}: timeout={one.timeout!r}")
    return CaseFile(found["id"], tuple(collected), None if visible is None else float(visible))


def load_folder(folder: Path) -> dict[str, CaseFile]:
    """Every hidden-case file of `folder` by exercise id (other files are refused)."""
    files: dict[str, CaseFile] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "__")):
            continue
        loaded = load(path)
        files[loaded.exercise] = loaded
    return files


def _is_points(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 10_000


def _is_seconds(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and 0 < value <= 3600


def run_hidden(exercise: Exercise, student: Any, visible: CheckResult) -> None:
    """In a graded kernel: run `exercise`'s hidden cases on `student` and log their verdicts.

    Does nothing unless the grader set `HIDDEN_ENV`. A stub or a timed-out visible check is not
    run again: each hidden case then gets the same status. Never raises.
    """
    folder = os.environ.get(HIDDEN_ENV)
    path = Path(folder or ".", f"{exercise.id}.py")
    if not folder or not path.is_file():
        return
    try:
        cases = load(path).cases
    except HiddenCasesError:  # the grader loaded it; here it reports every case missing
        return
    for one in cases:
        if visible.status in (Status.NOT_DONE, Status.TIMEOUT):
            result = CheckResult(
                exercise.id, exercise.title, visible.status, "not run: see the visible check"
            )
        else:
            limit = one.timeout or exercise.timeout or DEFAULT_TIMEOUT
            ran = Exercise(exercise.id, exercise.title, one.run, exercise.hints, None, limit)
            result = run_check(ran, student, limit)
        log_verdict({**result.to_dict(), "case": one.name})  # unappended: reported missing
