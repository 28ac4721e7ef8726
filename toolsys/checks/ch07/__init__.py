"""Checks for chapter 07, robustness: backoff with full jitter, a retry gate, an idempotency key,
an idempotency store and an honest deadline. Each reference is the package's own layer
(`toolsys.layers`) on the same inputs, so a student's piece is held to what the layers do.

The cases are the answers a careless version gets wrong: a jitter that can exceed the cap, a
retry of a write that carries no key, a key built from the tool_call_id that a repeating model
changes, a failed write forgotten and run again, a deadline that waits for the thread anyway.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch07 import ex1, ex2, ex3, ex4, ex5
from toolsys.checks.ch07.ex1 import retry_delay
from toolsys.checks.ch07.ex2 import may_retry
from toolsys.checks.ch07.ex3 import call_key
from toolsys.checks.ch07.ex4 import run_once
from toolsys.checks.ch07.ex5 import with_deadline

__all__ = [
    "call_key",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "ex5",
    "may_retry",
    "retry_delay",
    "run_once",
    "with_deadline",
]
