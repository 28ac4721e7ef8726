"""One feedback page per student: each exercise's verdict, what failed, the hint, the score.

Why: the gradebook is the instructor's; a student needs their own page, readable without
toolsys. Every text on it can come from a student (their name is a file name, a message is their
exception's text), so each is HTML-escaped and the page forbids scripts, styles from elsewhere
and every fetch (a Content-Security-Policy); file names are made from the student's name
with anything but letters, digits, `-` and `_` replaced, plus a short hash so two names never
share a page. Hidden cases are shown as a count and points, never by name or message.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolsys.grading import scores
from toolsys.grading._output import encodable, write_whole
from toolsys.grading.grades import NotebookGrade

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;"
    "text-align:left;vertical-align:top}pre{white-space:pre-wrap;margin:0}"
    ".passed{color:#176f2c}.failed,.error,.timeout,.missing{color:#a4161a}"
)
_LABELS = {"not_done": "not done yet", "missing": "did not run"}


def page_name(student: str) -> str:
    """The file name of a student's page: safe on every system, never shared by two names."""
    digest = hashlib.sha256(encodable(student).encode("utf-8")).hexdigest()[:8]
    stem = _UNSAFE.sub("_", encodable(student)).strip("_")[:60] or "student"
    return f"{stem}-{digest}.html"


def write_feedback(grades: Sequence[NotebookGrade], out: Path) -> list[Path]:
    """Write `out/<student>-<hash>.html` for every student; returns the pages written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for student, own in scores.by_student(grades).items():
        path = out / page_name(student)
        write_whole(path, page(student, own))
        written.append(path)
    return written


def page(student: str, grades: Sequence[NotebookGrade]) -> str:
    """The whole HTML page of one student's notebooks."""
    shown = html.escape(encodable(student))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>Feedback: {shown}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Feedback for {shown}</h1>",
        f"<p>Score: <b>{scores.visible(grades).text()}</b> points on the checks you ran",
    ]
    if any(g.hidden for g in grades):
        parts[-1] += f", <b>{scores.hidden(grades).text()}</b> on the hidden cases"
    parts[-1] += ".</p>"
    for grade in grades:
        parts += _notebook(grade)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _notebook(grade: NotebookGrade) -> list[str]:
    parts = [f"<h2>{_text(grade.path.name)}</h2>"]
    if grade.problem:
        parts.append(f"<p>The notebook {_text(grade.status)}: {_text(grade.problem)}</p>")
    if grade.rejected:
        parts.append(
            "<p>The grader did not count some lines of your verdict log (see your instructor); "
            "this notebook does not pass.</p>"
        )
    if not grade.verdicts:
        return parts
    parts.append("<table><tr><th>Exercise</th><th>Verdict</th><th>Points</th></tr>")
    for verdict in grade.verdicts:
        cases = [v for v in grade.hidden if v["exercise"] == verdict["exercise"]]
        parts.append(
            f"<tr><td>{_text(verdict['exercise'])} {_text(verdict.get('title'))}</td>"
            f"<td>{_verdict(verdict, cases)}</td><td>{_points(verdict, cases)}</td></tr>"
        )
    parts.append("</table>")
    return parts


def _verdict(verdict: Mapping[str, Any], cases: Sequence[Mapping[str, Any]]) -> str:
    status = str(verdict.get("status", ""))
    label = _LABELS.get(status, status)
    text = f'<span class="{html.escape(status)}">{_text(label)}</span>'
    for key in ("message", "expected", "got", "hint"):
        if verdict.get(key):
            name = "" if key == "message" else f"{key}: "
            text += f"<pre>{name}{_text(verdict[key])}</pre>"
    if cases:
        passed = sum(1 for v in cases if v.get("status") == "passed")
        text += f"<pre>hidden cases: {passed} of {len(cases)} passed</pre>"
    return text


def _points(verdict: Mapping[str, Any], cases: Sequence[Mapping[str, Any]]) -> str:
    text = scores.of(verdict).text()
    if cases:
        text += f" + hidden {scores.total(cases).text()}"
    return html.escape(text)


def _text(value: Any) -> str:
    return html.escape(encodable(value))
