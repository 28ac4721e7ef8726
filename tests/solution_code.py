"""The solution notebooks' answers as Python objects, optionally with one change applied.

A plausible wrong answer is a correct one with a single change (an off-by-one, a missing case, a
skipped step). Taking the correct one from solutions/ itself keeps each wrong answer one visible
edit away from what students are shown, and a change that no longer applies fails loudly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolsys import checks
from toolsys.checks import Status, get_exercise

ROOT = Path(__file__).resolve().parent.parent
_HIDDEN = re.compile(
    r"^\s*### BEGIN HIDDEN.*?^\s*### END HIDDEN[^\n]*\n?", re.DOTALL | re.MULTILINE
)
_CHECK = re.compile(r"""^check\(\s*["'](?P<id>\d+\.\d+)["']\s*,\s*(?P<name>\w+)\s*\)""", re.M)


def answer(exercise_id: str, *changes: tuple[str, str]) -> Any:
    """The object the solution notebook checks for `exercise_id`, after `changes` (old, new).

    The notebook's code cells run in order up to the one holding the answer (demos hidden from
    students are left out, check cells skipped); each `old` must occur exactly once in that cell.
    """
    chapter = exercise_id.split(".")[0].zfill(2)
    (path,) = (ROOT / "solutions").glob(f"{chapter}_*.ipynb")
    cells = [
        "".join(cell["source"])
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]
    target = next(i for i, c in enumerate(cells) if f"BEGIN SOLUTION {exercise_id} " in c)
    name = next(m["name"] for c in cells for m in _CHECK.finditer(c) if m["id"] == exercise_id)
    namespace: dict[str, Any] = {"__name__": f"solution_{chapter}"}
    for index, source in enumerate(cells[: target + 1]):
        if _CHECK.search(source):
            continue
        source = _HIDDEN.sub("", source)
        if index == target:
            for old, new in changes:
                count = source.count(old)
                assert count == 1, f"{old!r} occurs {count} times in the answer to {exercise_id}"
                source = source.replace(old, new)
        exec(compile(source, f"<{path.name} cell {index}>", "exec", dont_inherit=True), namespace)
    return namespace[name]


def verdict(exercise_id: str, student: Any, status: Status = Status.FAILED) -> checks.CheckResult:
    """The check's verdict on `student`, asserted to be `status`; a failure must say why."""
    result = checks.check(exercise_id, student)
    assert result.status is status, result.text()
    if status is Status.FAILED:
        assert result.message and (result.expected or result.hint), result.text()
    return result


def reference(exercise_id: str) -> Any:
    """The package's own answer to an exercise, which must pass the same check."""
    exercise = get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    return exercise.reference()
