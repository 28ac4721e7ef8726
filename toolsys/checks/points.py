"""What a check is worth, and the one output nbgrader grades it by.

Why: an exercise's visible check is one case worth `points(id)` (an exercise's own `points`
if it declares them, else 1). nbgrader reads a grade cell's last result as its score: a text
that is a number is partial credit, any other text is *full* credit, and any output on stderr
is zero (nbgrader 0.9.6, `nbgrader.utils.determine_grade`). So while nbgrader runs a notebook
(it sets `NBGRADER_EXECUTION` to "autograde" or "validate" for the kernel) a check's result is
shown as the points it earned, with the usual text as HTML beside it for the student's
feedback; at any other time nothing changes, so committed outputs stay as they are.

Public within toolsys: `toolsys.grading` (scores, hidden cases) and toolsys/nbgrader.py read
an exercise's points here.
"""

from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolsys.checks._core import CheckResult

DEFAULT_POINTS = 1.0
"""What an exercise's visible check is worth unless the exercise says otherwise."""
NBGRADER_ENV = "NBGRADER_EXECUTION"
"""Set by nbgrader (0.9) for the kernel while it autogrades or validates a notebook."""


def points(exercise_id: str) -> float:
    """The points of exercise `exercise_id`'s visible check (1 unless it declares `points`)."""
    from toolsys.checks._core import get_exercise

    declared = getattr(get_exercise(exercise_id), "points", None)
    return (
        float(declared) if isinstance(declared, int | float) and declared >= 0 else DEFAULT_POINTS
    )


def earned(result: CheckResult) -> float:
    """The points a verdict earns: all of them for a pass, none otherwise."""
    return points(result.exercise) if result.passed else 0.0


def nbgrader_bundle(result: CheckResult) -> dict[str, str] | None:
    """Under nbgrader, `result` shown as its points (text) and its usual text (HTML); else None.

    None lets IPython show the result as always (its `_repr_pretty_` text).
    """
    if not os.environ.get(NBGRADER_ENV):
        return None
    return {
        "text/plain": repr(earned(result)),
        "text/html": f"<pre>{html.escape(result.text())}</pre>",
    }
