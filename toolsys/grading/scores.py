"""Points: what each verdict earns, summed per exercise, per student and per chapter.

Why one module: the gradebook, the feedback pages, the LMS export and Gradescope's results must
add up the same way. A verdict is worth its "points" (set by the grader from the exercise or the
instructor's hidden-case file) and earns them only when it passed; visible and hidden points are
kept apart, so an instructor sees both and a student's page can show the hidden ones as a sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolsys.checks.points import DEFAULT_POINTS
from toolsys.grading.grades import NotebookGrade


@dataclass(frozen=True)
class Score:
    """Points earned out of points possible."""

    earned: float = 0.0
    possible: float = 0.0

    def __add__(self, other: Score) -> Score:
        return Score(self.earned + other.earned, self.possible + other.possible)

    def text(self) -> str:
        return f"{_number(self.earned)}/{_number(self.possible)}"


def _number(value: float) -> str:
    return f"{round(value, 2):g}"


def of(verdict: Mapping[str, Any]) -> Score:
    """What one verdict earns out of what it is worth."""
    worth = float(verdict.get("points", DEFAULT_POINTS))
    return Score(worth if verdict.get("status") == "passed" else 0.0, worth)


def total(verdicts: Iterable[Mapping[str, Any]]) -> Score:
    return sum((of(v) for v in verdicts), Score())


def exercise_ids(grades: Iterable[NotebookGrade]) -> list[str]:
    """Every exercise id the grades mention, in chapter then number order."""
    ids = {v["exercise"] for g in grades for v in g.verdicts}
    return sorted(ids, key=lambda i: tuple(int(p) for p in i.split(".")))


def by_student(grades: Sequence[NotebookGrade]) -> dict[str, list[NotebookGrade]]:
    """Each student's notebooks, students in name order."""
    found: dict[str, list[NotebookGrade]] = {}
    for grade in grades:
        found.setdefault(grade.student, []).append(grade)
    return dict(sorted(found.items()))


def best(verdicts: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """One verdict per exercise (and case): the one that earned most, when a student handed
    in the same exercise twice (two copies of a notebook)."""
    kept: dict[tuple[str, str | None], Mapping[str, Any]] = {}
    for verdict in verdicts:
        key = (verdict["exercise"], verdict.get("case"))
        if key not in kept or of(verdict).earned > of(kept[key]).earned:
            kept[key] = verdict
    return list(kept.values())


def visible(grades: Iterable[NotebookGrade]) -> Score:
    return total(best(v for g in grades for v in g.verdicts))


def hidden(grades: Iterable[NotebookGrade]) -> Score:
    return total(best(v for g in grades for v in g.hidden))


def chapters(grades: Iterable[NotebookGrade]) -> dict[int, Score]:
    """Visible plus hidden points per chapter (the number before the dot of an exercise id)."""
    found: dict[int, Score] = {}
    for verdict in best(v for g in grades for v in [*g.verdicts, *g.hidden]):
        chapter = int(verdict["exercise"].split(".")[0])
        found[chapter] = found.get(chapter, Score()) + of(verdict)
    return dict(sorted(found.items()))
