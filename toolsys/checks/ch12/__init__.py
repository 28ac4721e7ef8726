"""Checks for chapter 12, the capstone: an invariant query and the tool it guards, a scenario
that catches a planted bug, a refund rule that a split refund cannot get around, and the agent
assembled by hand with the student's tool and rule in it.

Every check runs on a fresh shop (`toolsys.shop.create`) in a temporary folder and judges what
the student's code leaves there: rows, refunds, the audit log, the calls that reached the tools.
The cases are the ones a first answer misses: a rule that flags sound data or only one way of
breaking it, a tool without the caller's row filter or whose check and insert are two
transactions, a scenario that passes whatever the code does, a limit checked per call or counted
in a counter of its own, an agent whose layers are in the wrong order or miss one.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch12 import ex1, ex2, ex3, ex4, ex5
from toolsys.checks.ch12._shared import AGENT, MANAGER, RESHIPS
from toolsys.checks.ch12.ex1 import RESHIP_RULE, reship_rule
from toolsys.checks.ch12.ex2 import reship_order
from toolsys.checks.ch12.ex3 import catching_scenario, planted_bug
from toolsys.checks.ch12.ex4 import split_proof_rule
from toolsys.checks.ch12.ex5 import assemble

__all__ = [
    "AGENT",
    "MANAGER",
    "RESHIPS",
    "RESHIP_RULE",
    "assemble",
    "catching_scenario",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "ex5",
    "planted_bug",
    "reship_order",
    "reship_rule",
    "split_proof_rule",
]
