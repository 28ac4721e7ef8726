"""Robustness layers: deadlines, retries that never double a side effect, idempotency keys,
result budgets. Each is an execution layer (`toolsys.execution`) at the "validated" stage: it
sees the resolved tool (its category, `timeout`, `idempotent`, `isolate`) and the validated
arguments.

    from toolsys import Registry
    from toolsys.layers import Idempotency, ResultBudget, Retry, Timeout
    from toolsys.stores import SQLiteStore

    registry = Registry(layers=[
        ResultBudget(max_chars=4000),          # outermost: every result, fresh or replayed
        Idempotency(SQLiteStore("calls.db")),  # one claim per call, covering all its attempts
        Retry(max_attempts=4, base_delay=0.5, max_delay=5.0, seed=0),
        Timeout(seconds=10),                   # innermost: a deadline for each attempt
    ])

Why this order (outermost first):
- `ResultBudget` outside everything: a fresh result and a replay of it are cut by the same rule
  in the same place, so the replay reads exactly as the first answer did; the store keeps the
  whole value. `ResultBudget(refuse=True)` (or a tool tagged `NO_TRUNCATE`) refuses instead of
  cutting, with `fit_result`, the plain function, that keeps a preview within the budget.
- `Idempotency` outside `Retry`: the key is claimed once for the call and the final outcome is
  stored once, never an intermediate failure; `Retry` sees the key (the caller's or the one
  derived here), which is what lets it retry a keyed write at all.
- `Retry` outside `Timeout`: each attempt gets its own deadline, and a TIMEOUT of an idempotent
  tool can be retried (a TIMEOUT of a write is not retryable: it may have happened).
- `Timeout` innermost, next to the tool, so nothing else runs inside its deadline.

A run-wide deadline and cancellation are the loop's: `run_agent(..., deadline=60)` answers every
call still in flight with CANCELLED (see `toolsys.loop`).

Chapter 07 builds the core of three of them by hand first: notebooks/07_robustness.ipynb.
"""

from toolsys.layers.budget import NO_TRUNCATE, ResultBudget, fit_result
from toolsys.layers.idempotency import Idempotency, idempotency_key
from toolsys.layers.retry import Retry
from toolsys.layers.timeout import Timeout, abandoned_threads, deadline

__all__ = [
    "NO_TRUNCATE",
    "Idempotency",
    "ResultBudget",
    "Retry",
    "Timeout",
    "abandoned_threads",
    "deadline",
    "fit_result",
    "idempotency_key",
]
