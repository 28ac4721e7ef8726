"""Exercise checks: `check("2.1", my_function)` in a notebook, `@exercise(...)` for authors.

Each chapter's checks live in the package `toolsys/checks/chNN/`, one module per exercise
(`exN.py`: the check of exercise NN.N, its cases and its reference); chapters are imported on
first use.
"""

from toolsys.checks._core import (
    DEFAULT_TIMEOUT,
    LOG_ENV,
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
    "LOG_ENV",
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
]
