"""Exercise checks: `check("2.1", my_function)` in a notebook, `@exercise(...)` for authors.

`KEY_ENV`, `LOG_ENV`, `LOG_FIELD_LIMIT` and `verdict_mac` are the verdict log's terms, shared with
the grader (toolsys/grading/), which sets the two variables and verifies each line.

Each chapter's checks live in the package `toolsys/checks/chNN/`, one module per exercise
(`exN.py`: the check of exercise NN.N, its cases and its reference); chapters are imported on
first use.
"""

from toolsys.checks._core import (
    DEFAULT_TIMEOUT,
    KEY_ENV,
    LOG_ENV,
    LOG_FIELD_LIMIT,
    CheckBroken,
    CheckFailed,
    CheckResult,
    Described,
    Exercise,
    Status,
    check,
    exercise,
    exercises,
    get_exercise,
    hint,
    verdict_mac,
)
from toolsys.checks._expect import (
    call_student,
    expect_equal,
    expect_plain,
    expect_raises,
    expect_true,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "KEY_ENV",
    "LOG_ENV",
    "LOG_FIELD_LIMIT",
    "CheckBroken",
    "CheckFailed",
    "CheckResult",
    "Described",
    "Exercise",
    "Status",
    "call_student",
    "check",
    "exercise",
    "exercises",
    "expect_equal",
    "expect_plain",
    "expect_raises",
    "expect_true",
    "get_exercise",
    "hint",
    "verdict_mac",
]
