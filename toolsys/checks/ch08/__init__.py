"""Checks for chapter 08, governance: a policy function, an approval keyed by call id and argument
hash, a role filter for `export` and the verification of a hash-chained audit log. Each reference
is the package's own piece (`toolsys.governance`, `toolsys.access`) on the same inputs.

The cases are the answers that fail open: an unknown category allowed, a rule read after the
category default, an approval matched by position or by id alone, a hash over unsorted JSON, an
empty role set read as "everyone", a check of `available` by truthiness, a verification of the
last line only or of the hashes without the links between them.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch08 import ex1, ex2, ex3, ex4
from toolsys.checks.ch08.ex1 import policy
from toolsys.checks.ch08.ex2 import approved_calls
from toolsys.checks.ch08.ex3 import visible
from toolsys.checks.ch08.ex4 import first_bad_line

__all__ = ["approved_calls", "ex1", "ex2", "ex3", "ex4", "first_bad_line", "policy", "visible"]
