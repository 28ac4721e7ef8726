"""Checks for chapter 09, composition and many tools: a conditional composite, a namespace merge
that refuses collisions, a BM25 ranking function and a deferred-export dispatcher driven by the
offline model. Each reference is the package's own piece (`toolsys.compose.when`,
`toolsys.namespaces.qualified`, `toolsys.search.BM25`, the rules of `toolsys.search.Deferred`).

The cases are what a hand-written version gets wrong: a "tool that calls tools" that reads as
READ and hides its inner calls from the layers, a merge that adds half the tools before it finds
a collision, an idf that goes to zero for common words, and TOOL_NOT_LOADED for a name that does
not exist at all.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch09 import ex1, ex2, ex3, ex4
from toolsys.checks.ch09.ex1 import refund_or_escalate
from toolsys.checks.ch09.ex2 import include
from toolsys.checks.ch09.ex3 import DOCUMENTS, rank
from toolsys.checks.ch09.ex4 import SEARCH, dispatch

__all__ = [
    "DOCUMENTS",
    "SEARCH",
    "dispatch",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "include",
    "rank",
    "refund_or_escalate",
]
