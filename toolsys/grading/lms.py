"""The grades as CSV files Canvas and Moodle import: a row per student, a column per chapter.

Why two files: the two importers disagree on one row. Canvas's gradebook importer
(instructure/canvas-lms, lib/gradebook_importer.rb) wants the header `Student, ID, SIS User ID,
SIS Login ID, Section` before the assignment columns, takes an optional second row starting
`Points Possible`, and finds each student by Canvas ID, then SIS User ID, then SIS Login ID,
then name. Moodle's CSV import (moodle/moodle, grade/import/csv/classes/load_data.php) maps one
column of the instructor's choice to a user (id, idnumber, email or username) and others to
grade items; it stops the whole import at a row whose user it cannot find, so that file has no
points row. A chapter's column is the visible plus hidden points of its exercises; a chapter's
points possible is the most any student could earn in it. The student column is the grader's
student name (a folder or notebook name): name submissions by LMS login, or edit the column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from toolsys.grading import scores
from toolsys.grading._output import write_whole
from toolsys.grading.gradebook import csv_cell
from toolsys.grading.grades import NotebookGrade

CANVAS_STUDENT = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def write_lms(grades: Sequence[NotebookGrade], out: Path) -> list[Path]:
    """Write `out/canvas.csv` and `out/moodle.csv`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    canvas, moodle = out / "canvas.csv", out / "moodle.csv"
    write_whole(canvas, canvas_csv(grades))
    write_whole(moodle, moodle_csv(grades))
    return [canvas, moodle]


def _table(
    grades: Sequence[NotebookGrade],
) -> tuple[list[int], dict[int, float], dict[str, dict[int, float]]]:
    per_student = {s: scores.chapters(own) for s, own in scores.by_student(grades).items()}
    chapters = sorted({c for found in per_student.values() for c in found})
    possible = {
        c: max(found.get(c, scores.Score()).possible for found in per_student.values())
        for c in chapters
    }
    earned = {
        s: {c: found.get(c, scores.Score()).earned for c in chapters}
        for s, found in per_student.items()
    }
    return chapters, possible, earned


def column(chapter: int) -> str:
    """The name of a chapter's column (an assignment in the LMS)."""
    return f"toolsys ch{chapter:02d}"


def canvas_csv(grades: Sequence[NotebookGrade]) -> str:
    chapters, possible, earned = _table(grades)
    rows = [[*CANVAS_STUDENT, *(column(c) for c in chapters)]]
    rows.append(["Points Possible", "", "", "", "", *(_number(possible[c]) for c in chapters)])
    for student, points in earned.items():
        rows.append([student, "", "", student, "", *(_number(points[c]) for c in chapters)])
    return _write(rows)


def moodle_csv(grades: Sequence[NotebookGrade]) -> str:
    chapters, _, earned = _table(grades)
    rows = [["Student", *(column(c) for c in chapters)]]
    rows += [
        [student, *(_number(points[c]) for c in chapters)] for student, points in earned.items()
    ]
    return _write(rows)


def _number(value: float) -> str:
    return f"{round(value, 2):g}"


def _write(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([csv_cell(cell) for cell in row])
    return buffer.getvalue()
