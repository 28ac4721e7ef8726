"""Checks for chapter 02 (the registry): duplicates, filtering by category, unknown names.

Each reference wraps `toolsys.Registry`, so the package itself passes the checks the student's
hand-built pieces must pass. One tool is registered as `Send-Email`, not in normalised form, so
code that only works when names are already lower-case snake_case shows itself.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch02 import ex1, ex2, ex3
from toolsys.checks.ch02.ex1 import SafeRegistry
from toolsys.checks.ch02.ex2 import list_by_category
from toolsys.checks.ch02.ex3 import execute

__all__ = ["SafeRegistry", "ex1", "ex2", "ex3", "execute", "list_by_category"]
