"""Checks for chapter 04, error-as-data: an executor that never raises, messages a model can act
on, and redaction of secrets and paths. The cases are the inputs a careless version mishandles.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch04 import ex1, ex2, ex3
from toolsys.checks.ch04.ex1 import safe_execute
from toolsys.checks.ch04.ex2 import actionable_message
from toolsys.checks.ch04.ex3 import redact

__all__ = ["actionable_message", "ex1", "ex2", "ex3", "redact", "safe_execute"]
