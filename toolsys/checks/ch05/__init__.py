"""Checks for chapter 05, validation and argument design: a Wilson interval, a validator across
fields, an eval case, and a redesigned tool graded on what the imperfect offline model then
achieves over 100 seeded episodes. The cases are the ones a careless answer gets wrong.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch05 import ex1, ex2, ex3, ex4
from toolsys.checks.ch05.ex3 import reminder_case
from toolsys.checks.ch05.ex4 import (
    MIN_EFFECT,
    MIN_VALID_FIRST,
    TABLE_REQUESTS,
    TABLE_SEEDS,
    book_table_registry,
    table_cases,
)

__all__ = [
    "MIN_EFFECT",
    "MIN_VALID_FIRST",
    "TABLE_REQUESTS",
    "TABLE_SEEDS",
    "book_table_registry",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "reminder_case",
    "table_cases",
]
