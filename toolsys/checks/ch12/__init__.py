"""Checks for chapter 12, the capstone: an invariant query and the tool it guards, a scenario
that catches a planted bug, a refund rule that a split refund cannot get around, and a
hand-written audit-chain check that finds the tampered line.

Every check runs on a fresh shop (`toolsys.shop.create`) in a temporary folder, through the
same agent the lesson builds (`toolsys.shop.agent.build`). The cases are the ones a first
answer misses: a rule that flags sound data or only one way of breaking it, a tool without
the caller's row filter, a scenario that passes whatever the code does, a limit checked per
call instead of per order, and a chain check that looks only at each line's own hash.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch12 import ex1, ex2, ex3, ex4, ex5
from toolsys.checks.ch12._shared import AGENT, MANAGER, RESHIPS
from toolsys.checks.ch12.ex1 import RESHIP_RULE, reship_rule
from toolsys.checks.ch12.ex2 import reship_order
from toolsys.checks.ch12.ex3 import catching_scenario, planted_bug
from toolsys.checks.ch12.ex4 import split_proof_rule
from toolsys.checks.ch12.ex5 import _tamperings as _tamperings
from toolsys.checks.ch12.ex5 import first_bad_line

__all__ = [
    "AGENT",
    "MANAGER",
    "RESHIPS",
    "RESHIP_RULE",
    "catching_scenario",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "ex5",
    "first_bad_line",
    "planted_bug",
    "reship_order",
    "reship_rule",
    "split_proof_rule",
]
