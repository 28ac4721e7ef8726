"""Checks for chapter 11, testing tools: an agreement test, a trajectory assertion, a fuzz
target that finds planted bugs, and the scores of a selection eval. Each reference is built from
`toolsys.testing`, so a student's piece is held to what the package's helpers do.

The cases are what a careless version gets wrong: a missing-field test that skips fields with a
default (the very bug it should find), an argument match that wants every argument, a trajectory
compared with `zip` (extra calls pass) or with sets (two calls count as one), a fuzzer that only
sends polite values, an argument score averaged over cases that name no arguments.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch11 import ex1, ex2, ex3, ex4
from toolsys.checks.ch11.ex1 import check_agreement
from toolsys.checks.ch11.ex2 import calls_match
from toolsys.checks.ch11.ex3 import fuzz_arguments
from toolsys.checks.ch11.ex4 import selection_scores

__all__ = [
    "calls_match",
    "check_agreement",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "fuzz_arguments",
    "selection_scores",
]
