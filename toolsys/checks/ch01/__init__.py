"""Checks for chapter 01 (if/else dispatch and its two walls): a table, drift, errors as strings.

The tools in these checks have names no if/else chain written for the lesson would know, so
only a dispatcher that reads its table passes. They return every kind of JSON value (text,
numbers, a dict, a bool, None) and fail in every way the exercises name.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch01 import ex1, ex2, ex3
from toolsys.checks.ch01.ex1 import dispatch
from toolsys.checks.ch01.ex2 import find_drift
from toolsys.checks.ch01.ex3 import safe_dispatch

__all__ = ["dispatch", "ex1", "ex2", "ex3", "find_drift", "safe_dispatch"]
