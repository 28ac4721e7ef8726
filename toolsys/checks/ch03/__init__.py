"""Checks for chapter 03, one source of truth for schemas: each one compares with `toolsys`.

The expected schemas are computed by the package itself (`toolsys.schema`, `toolsys.export`), so
a student's generator is held to exactly what the workbook's registry sends to a model.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch03 import ex1, ex2, ex3
from toolsys.checks.ch03.ex1 import param_to_schema
from toolsys.checks.ch03.ex2 import spec_to_schema
from toolsys.checks.ch03.ex3 import make_strict

__all__ = ["ex1", "ex2", "ex3", "make_strict", "param_to_schema", "spec_to_schema"]
