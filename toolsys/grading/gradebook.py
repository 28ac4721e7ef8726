"""The grades as a terminal table, `gradebook.csv` and `gradebook.md`, safe whatever the text.

The table has one row per student, a column per exercise, the visible score and, when the
instructor gave hidden cases, the hidden score apart; the CSV has a row per student and exercise
(visible check) or hidden case, with its points.

Why: every text here can come from a student (names are file names, messages are their
exceptions' texts). A CSV cell starting with `=`, `+`, `-` or `@` is a formula to a spreadsheet
(`=HYPERLINK(...)`), so it gets a leading `'`; Markdown cells lose their newlines and escape `|`
and the characters that make links and HTML; the terminal gets no control characters. Texts
that are not valid UTF-8 are written with escapes instead of failing the write. Files are
written whole and then renamed into place, so a gradebook is either the old one or the new one.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolsys.grading import scores
from toolsys.grading._output import encodable, write_whole
from toolsys.grading.grades import NotebookGrade

_MARKS = {
    "passed": "✓",
    "failed": "✗",
    "not_done": "○ not done",
    "error": "✗ error",
    "timeout": "✗ timeout",
    "missing": "– missing",
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN = re.compile(r"([\\`|<>\[\]])")
VERDICT = ["status", "message", "expected", "got", "hint"]
COLUMNS = ["student", "notebook", "exercise", "case", *VERDICT, "points", "max_points", "notes"]


def _one_line(value: Any) -> str:
    """For the terminal and Markdown: whitespace controls become spaces, others `\\xNN`."""
    return _CONTROL.sub(
        lambda m: " " if m.group() in "\n\r\t" else f"\\x{ord(m.group()):02x}", encodable(value)
    )


def csv_cell(value: Any) -> str:
    """A CSV cell a spreadsheet shows as text: a leading formula character gets a `'`."""
    text = _CONTROL.sub(lambda m: m.group() if m.group() == "\n" else " ", encodable(value))
    return "'" + text if text.lstrip(" ")[:1] in _FORMULA or text[:1] in _FORMULA else text


def markdown_cell(value: Any) -> str:
    """One line of Markdown that cannot end a table cell, open a link or start HTML."""
    return _MARKDOWN.sub(r"\\\1", _one_line(value))


def _about(g: NotebookGrade) -> str:
    """What the notebooks column says about one notebook."""
    text = f"{g.path.name}: {g.status}" + (f" ({g.problem})" if g.problem else "")
    if g.rejected:
        text += f"; {len(g.rejected)} verdict-log line(s) rejected"
    return text + "".join(f"; {note}" for note in g.notes)


def _rows(grades: Sequence[NotebookGrade]) -> tuple[list[str], list[list[str]]]:
    ids = scores.exercise_ids(grades)
    with_hidden = any(g.hidden for g in grades)
    header = ["student", *ids, "score", *(["hidden"] if with_hidden else []), "notebooks"]
    rows = []
    for student, own in scores.by_student(grades).items():
        statuses = {
            v["exercise"]: v["status"] for v in scores.best(v for g in own for v in g.verdicts)
        }
        points = [scores.visible(own).text(), *([scores.hidden(own).text()] if with_hidden else [])]
        notes = "; ".join(_about(g) for g in own)
        rows.append([student, *(_MARKS.get(statuses.get(i, ""), "") for i in ids), *points, notes])
    return header, rows


def table(grades: Sequence[NotebookGrade]) -> str:
    """A plain-text table, one row per student, one column per exercise."""
    header, rows = _rows(grades)
    shown = [[_one_line(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(r[c]) for r in shown) for c in range(len(header) - 1)]
    lines = []
    for row in shown:
        cells = [text.ljust(width) for text, width in zip(row[:-1], widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def write_gradebook(grades: Sequence[NotebookGrade], out: Path, *, note: str = "") -> list[Path]:
    """Write `gradebook.csv` (one row per student and exercise) and `gradebook.md` into `out`.

    `note` (e.g. how submissions were isolated) heads the Markdown file.
    """
    out.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out / "gradebook.csv", out / "gradebook.md"
    write_whole(csv_path, _csv(grades))
    write_whole(md_path, _markdown(grades, note))
    return [csv_path, md_path]


def _csv(grades: Sequence[NotebookGrade]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for g in grades:
        notes = "; ".join([*g.rejected, *g.notes])
        if not g.verdicts:
            cells = [g.student, g.path, "", "", g.status, g.problem, "", "", "", "", "", notes]
            writer.writerow([csv_cell(c) for c in cells])
        for v in [*g.verdicts, *g.hidden]:
            score = scores.of(v)
            cells = [g.student, g.path, v["exercise"], v.get("case"), *(v.get(c) for c in VERDICT)]
            cells += [f"{score.earned:g}", f"{score.possible:g}", notes]
            writer.writerow([csv_cell(c) for c in cells])
    return buffer.getvalue()


def _markdown(grades: Sequence[NotebookGrade], note: str) -> str:
    header, rows = _rows(grades)
    md = ["# Gradebook", ""]
    md += [markdown_cell(note), ""] if note else []
    md += [_md_row(header), _md_row(["---"] * len(header))]
    md += [_md_row(row) for row in rows]
    md += ["", "## Feedback", ""]
    for student, own in scores.by_student(grades).items():
        md += [f"### {markdown_cell(student)}", ""]
        for g in own:
            name = markdown_cell(g.path.name)
            if g.problem:
                md.append(f"- {name}: {g.status}: {markdown_cell(g.problem)}")
            md += [f"- {name}: {markdown_cell(text)}" for text in [*g.rejected, *g.notes]]
            for v in g.verdicts:
                details = "; ".join(
                    f"{key}: {v[key]}" for key in ("expected", "got", "hint") if v.get(key)
                )
                line = f"{v['exercise']} {v['status']} ({scores.of(v).text()})"
                line += f": {v['message']}" if v.get("message") else ""
                md.append("- " + markdown_cell(line + (f" ({details})" if details else "")))
            for v in g.hidden:
                line = f"{v['exercise']} hidden case {v['case']!r}: {v['status']}"
                md.append("- " + markdown_cell(f"{line} ({scores.of(v).text()})"))
        md.append("")
    return "\n".join(md)


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(markdown_cell(c) for c in cells) + " |"
