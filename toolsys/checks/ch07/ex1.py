"""Exercise 7.1, backoff with full jitter: the check and its reference, `retry_delay`.

The reference is `toolsys.layers.Retry.delay`; the cases are a jitter that can exceed the cap, a
wait with a floor, an rng not used, and retry_after=0 read as missing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, call_student, exercise
from toolsys.checks._differential import Call, agree, calls


class _Draws(random.Random):
    """A random source whose `random()` returns the given values in turn (`uniform` uses it)."""

    def __init__(self, *values: float) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0) if self.values else 0.5

    def __repr__(self) -> str:
        return "rng"


def retry_delay(
    retry: int, base: float, cap: float, rng: random.Random, retry_after: float | None = None
) -> float:
    """Reference for 7.1: the wait `toolsys.layers.Retry` sleeps before retry number `retry`."""
    from toolsys.layers import Retry

    # The text allows a cap below base (every step is then the cap); Retry refuses one, so the
    # reference starts from the cap itself there: min(cap, cap * 2**k) is the same step.
    return Retry(base_delay=min(base, cap), max_delay=cap).delay(retry, retry_after, rng=rng)


_DELAY_HINT_STEP = (
    "The step doubles from `base`: retry 1 may wait up to base, retry 2 up to 2 * base, "
    "so step = min(cap, base * 2 ** (retry - 1)); then wait rng.uniform(0, step)."
)


def _expect_delay(
    student: Callable[..., Any],
    args: tuple[Any, ...],
    expected: float,
    hint: str,
    retry_after: float | None = None,
) -> None:
    retry, base, cap, rng = args
    shown = f"retry_delay({retry}, {base}, {cap}, rng"
    shown += f", retry_after={retry_after})" if retry_after is not None else ")"
    if isinstance(rng, _Draws) and rng.values:
        shown += f" with rng.random() returning {rng.values[0]}"
    kwargs: dict[str, Any] = {} if retry_after is None else {"retry_after": retry_after}
    got = call_student(
        student, *args, what=shown, returns="a number of seconds", hint=hint, **kwargs
    )
    if type(got) not in (int, float) or not math.isfinite(got):
        raise CheckFailed(
            f"{shown} should return a number of seconds.",
            expected=expected,
            got=got,
            hint="Return the wait as a float (or int), e.g. 0.25.",
        )
    if got > cap + 1e-12:
        raise CheckFailed(
            f"{shown} returned {got:g}, more than the cap ({cap:g}).",
            expected=expected,
            got=got,
            hint=hint,
        )
    if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
        raise CheckFailed(f"{shown} returned a wrong wait.", expected=expected, got=got, hint=hint)


class _Seeded(random.Random):
    """A `random.Random(seed)` that shows as such in a message, copied with its state."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.shown = f"random.Random({seed})"

    def __repr__(self) -> str:
        return self.shown

    def __deepcopy__(self, memo: dict[int, Any]) -> _Seeded:
        twin = _Seeded()
        twin.setstate(self.getstate())
        twin.shown = self.shown
        return twin


def _delay_call(rng: random.Random, size: int) -> Call:
    """Any retry from 1 (2000 too), base and cap above 0 (either the larger), a seeded rng, and
    half the time a retry_after (0 and ints included)."""
    retry = rng.choice([1, 2, 3, rng.randint(1, 2 + size * 3), 64, 65, 1025, 2000])
    base = rng.choice([0.1, 0.5, 1, 2.0, 1e-6, round(rng.uniform(0.01, 10), 3)])
    cap = rng.choice([1.0, 5.0, 30, 0.25, 1e9, round(rng.uniform(0.01, 100), 3)])
    kwargs: dict[str, Any] = {}
    if rng.random() < 0.4:
        kwargs["retry_after"] = rng.choice([0, 0.0, 1, 2.5, 60, cap, round(rng.uniform(0, 50), 2)])
    return Call((retry, base, cap, _Seeded(rng.randrange(1000))), kwargs)


_GENERATED = calls(_delay_call, seed=71, count=200)


def _wait_and_next(func: Callable[..., Any]) -> Callable[..., Any]:
    """The wait, and the draw the rng gives after it (what the next retry would start from)."""

    def run(*args: Any, **kwargs: Any) -> tuple[Any, float]:
        return func(*args, **kwargs), args[3].random()

    return run


def _same_wait(got: Any, expected: Any, what: str) -> str | None:
    (wait, after), (expected_wait, expected_after) = got, expected
    if type(wait) not in (int, float) or not math.isclose(
        wait, expected_wait, rel_tol=1e-9, abs_tol=1e-12
    ):
        return f"the wait {wait!r}, where the reference waits {expected_wait!r}"
    if after != expected_after:
        return (
            f"the right wait ({wait!r}) but left the rng in another state: it drew "
            + ("from the rng for a wait the tool named" if "retry_after" in what else "")
            + " a different number of times than once per jittered wait"
        )
    return None


@exercise(
    "7.1",
    title="Backoff with full jitter",
    hints=[
        "Two cases: the tool said when (retry_after is not None: wait that, capped), or it did "
        "not (full jitter).",
        _DELAY_HINT_STEP,
        "min(cap, ...) must come *before* the random draw: jitter drawn inside the capped step "
        "can never exceed the cap; jitter added on top of it can. And retry_after=0 is a "
        "number: test `is not None`, not truthiness.",
    ],
    reference=lambda: retry_delay,
)
def _check_retry_delay(student: Callable[..., Any]) -> None:
    _expect_delay(
        student,
        (3, 1.0, 30.0, _Draws(0.0)),
        0.0,
        "Full jitter draws the *whole* wait from 0: rng.uniform(0, step), with the rng you are "
        "given (not the random module). A wait with a floor (step / 2 + ...) or added on top "
        "(step + ...) keeps clients that failed together in step.",
    )
    for retry, expected in ((1, 0.25), (2, 0.5), (3, 1.0), (4, 2.0)):
        _expect_delay(student, (retry, 0.5, 5.0, _Draws(0.5)), expected, _DELAY_HINT_STEP)
    for retry in range(5, 13):
        _expect_delay(
            student,
            (retry, 0.5, 5.0, _Draws(0.999)),
            4.995,
            "Cap the step before drawing: step = min(cap, base * 2 ** (retry - 1)); the wait "
            "must never exceed cap, however many retries came before.",
        )
    for retry in (21, 30, 40):
        _expect_delay(
            student,
            (retry, 1e-6, 1e9, _Draws(0.5)),
            1e-6 * 2.0 ** (retry - 1) / 2,
            "The step is base * 2 ** (retry - 1) until it reaches cap: with base 1e-06 and cap "
            "1e9, retry 40 may wait up to about 550,000 s. Bound the exponent only where the step "
            "is past any cap already (min(retry - 1, 64)), not lower.",
        )
    for retry in (1025, 1100, 5000):
        _expect_delay(
            student,
            (retry, 0.5, 5.0, _Draws(0.5)),
            2.5,
            "Whatever retry is, the wait is at most cap, and no error: base * 2 ** (retry - 1) "
            "is too large for a float from retry 1025 on (OverflowError). Bound the exponent "
            "before multiplying: base * 2 ** min(retry - 1, 64) is past any cap already.",
        )
    for seed in range(20):
        for retry in (1, 2, 4, 7, 12, 40):
            expected = retry_delay(retry, 0.2, 3.0, random.Random(seed))
            _expect_delay(
                student,
                (retry, 0.2, 3.0, random.Random(seed)),
                expected,
                "Draw once from the rng you are given: rng.uniform(0, step) (or "
                "rng.random() * step), so the same rng gives the same waits.",
            )
    for retry_after, expected, why in (
        (1.5, 1.5, "When the tool says when (retry_after), wait exactly that long."),
        (60.0, 5.0, "retry_after is capped too: never wait more than cap, whoever asks."),
        (0.0, 0.0, "retry_after=0 means 'now': test `retry_after is not None`, not truthiness."),
        (3, 3, "retry_after is a number, an int too: retry_after=3 waits 3 s (no jitter)."),
    ):
        _expect_delay(student, (2, 0.5, 5.0, _Draws(0.9)), expected, why, retry_after)
    for seed in range(3):
        rng, fresh = random.Random(seed), random.Random(seed)
        _expect_delay(
            student,
            (2, 0.5, 5.0, rng),
            1.5,
            "When the tool says when (retry_after), wait exactly that long.",
            1.5,
        )
        _expect_delay(
            student,
            (3, 0.5, 5.0, rng),
            retry_delay(3, 0.5, 5.0, fresh),
            "A wait the tool named (retry_after) is not drawn: do not call the rng then. Here "
            "retry_delay(..., retry_after=1.5) took a draw from rng, so the next jittered wait "
            "came from the wrong draw. Draw only in the full-jitter branch.",
        )
    agree(
        _wait_and_next(student),
        _wait_and_next(retry_delay),
        _GENERATED,
        name="retry_delay",
        compare=lambda got, expected, what: _same_wait(got, expected, what),
        wrong="gave {problem}",
        hint="A named wait (retry_after not None) is min(retry_after, cap), no draw; otherwise "
        "exactly one draw, rng.uniform(0, min(cap, base * 2 ** min(retry - 1, 64))).",
    )
