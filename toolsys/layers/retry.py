"""Retries that never double a side effect: exponential backoff, capped, with full jitter.

A failed call is tried again only when all of these hold:

    the error is retryable           the tool (or a layer) said a repeat can succeed
    the call cannot double an effect the tool is idempotent, OR the call carries an
                                     idempotency key (the caller's, or one the Idempotency
                                     layer derived), so a repeat is recognised downstream
    attempts are left                at most `max_attempts` in all

Before retry n (n = 1, 2, ...) it waits a random time between 0 and
`min(max_delay, base_delay * 2 ** (n - 1))` ("full jitter": clients that failed together do not
retry together), unless the tool said when (`ToolError(..., retry_after=1.5)`): then it waits
that long, never more than `max_delay`. `sleep=` and `seed=`/`rng=` make the schedule
deterministic in tests; `schedule(n)` returns the delays for plotting.

A failure that is not retryable comes back at once. When retries were made and the last attempt
failed too, the envelope says how many attempts were made and tells the model not to repeat the
same call blindly. `result.meta["attempts"]` lists every attempt: `{"code", "delay_s"}`.

Backoff and jitter: https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/

Chapter 07 builds this by hand first: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import random
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from toolsys.errors import ErrorInfo
from toolsys.execution import Call, Next
from toolsys.layers import _messages
from toolsys.result import ToolResult

Jitter = Literal["full", "equal", "none"]
JITTERS: tuple[Jitter, ...] = ("full", "equal", "none")


class Retry:
    """`Retry(max_attempts=4, base_delay=0.5, max_delay=5.0, seed=0)`: see the module docstring.

    `jitter="full"` waits uniform(0, cap); `"equal"` waits cap/2 + uniform(0, cap/2); `"none"`
    waits exactly the cap (for comparison: clients that failed together retry together).
    """

    stage = "validated"
    name = "retry"

    def __init__(
        self,
        max_attempts: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 5.0,
        *,
        jitter: Jitter = "full",
        seed: int | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[Any] | Any] | None = None,
    ) -> None:
        if type(max_attempts) is not int or max_attempts < 1:
            raise ValueError(
                f"Retry(max_attempts={max_attempts!r}): give a whole number >= 1 "
                "(1 means no retries)."
            )
        for label, value in (("base_delay", base_delay), ("max_delay", max_delay)):
            if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"Retry({label}={value!r}): give a number of seconds >= 0.")
        if max_delay < base_delay:
            raise ValueError(
                f"Retry(base_delay={base_delay!r}, max_delay={max_delay!r}): the cap must be at "
                "least the first delay."
            )
        if jitter not in JITTERS:
            raise ValueError(f"Retry(jitter={jitter!r}): use one of {', '.join(JITTERS)}.")
        if seed is not None and rng is not None:
            raise ValueError("Retry(): pass seed= or rng=, not both.")
        self.max_attempts = max_attempts
        self.base_delay, self.max_delay = float(base_delay), float(max_delay)
        self.jitter: Jitter = jitter
        self.seed = seed
        self.rng = rng if rng is not None else random.Random(seed)
        self.sleep = sleep if sleep is not None else asyncio.sleep

    def __repr__(self) -> str:
        return (
            f"Retry(max_attempts={self.max_attempts}, base_delay={self.base_delay:g}, "
            f"max_delay={self.max_delay:g}, jitter={self.jitter!r})"
        )

    def cap(self, retry: int) -> float:
        """The most retry number `retry` (1, 2, ...) may wait: base * 2^(retry-1), capped."""
        return min(self.max_delay, self.base_delay * 2.0 ** min(retry - 1, 64))

    def delay(
        self, retry: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """The wait before retry number `retry`; the tool's `retry_after` wins, capped."""
        if retry_after is not None and math.isfinite(retry_after) and retry_after >= 0:
            return min(float(retry_after), self.max_delay)
        cap = self.cap(retry)
        draw = (rng or self.rng).random()
        if self.jitter == "full":
            return cap * draw
        if self.jitter == "equal":
            return cap / 2 + cap / 2 * draw
        return cap

    def schedule(self, n: int | None = None) -> list[float]:
        """The delays before retries 1..n (default: max_attempts - 1), for plotting.

        With `seed=` the same list every time, and the one the first retried call will use.
        """
        n = self.max_attempts - 1 if n is None else n
        rng = random.Random(self.seed) if self.seed is not None else self.rng
        return [self.delay(retry, rng=rng) for retry in range(1, n + 1)]

    def may_retry(self, call: Call, error: ErrorInfo) -> bool:
        """The gate: retryable, and a repeat cannot double a side effect."""
        assert call.tool is not None
        return error.retryable is True and (call.tool.idempotent or bool(call.idempotency_key))

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        result = await call_next(call)
        attempt, attempts = 1, []
        while (
            result.error is not None
            and attempt < self.max_attempts
            and self.may_retry(call, result.error)
        ):
            wait = self.delay(attempt, result.error.retry_after)
            attempts.append({"code": str(result.error.code), "delay_s": round(wait, 3)})
            slept = self.sleep(wait)
            if inspect.isawaitable(slept):  # asyncio.sleep; a plain function works too (tests)
                await slept
            attempt += 1
            result = await call_next(call.replace(attempt=attempt))
        if attempt == 1:
            return result
        error = result.error
        attempts.append({"code": None if error is None else str(error.code), "delay_s": None})
        meta = {**result.meta, "attempt": attempt, "attempts": attempts}
        if error is not None:
            error = _messages.retries_spent(error, attempt)
        return ToolResult(result.ok, result.value, error, meta, result.exception, result.notice)
