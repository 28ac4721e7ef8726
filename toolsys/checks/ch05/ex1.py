"""Exercise 5.1, a Wilson interval: the check and its reference, `wilson`.

An eval's rate without an interval says nothing about the next run; the reference is
`toolsys.evals.wilson`, and the cases include 0 and n successes.
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_raises
from toolsys.checks._differential import Call, agree, calls
from toolsys.evals import wilson

_INTERVALS: list[tuple[int, int, float | None]] = [
    (62, 100, None),
    (0, 10, None),
    (10, 10, None),
    (1, 3, None),
    (96, 100, None),
    (7, 20, None),
    (62, 100, 1.645),
    (3, 1000, None),
    (1, 1, None),
    (0, 1, None),
]
_TOLERANCE = 1e-3


def _as_interval(got: Any, what: str) -> tuple[float, float]:
    """The two numbers of a (low, high) answer, or a failure naming the shape expected."""
    if not isinstance(got, tuple) or len(got) != 2:
        raise CheckFailed(
            f"{what} should return a tuple (low, high)"
            + (", not a list." if type(got) is list else "."),
            expected=Described("a tuple of two numbers, e.g. (0.52, 0.71)"),
            got=got,
            hint="Return both ends as a tuple: `return low, high` (the text asks for a tuple; "
            "a list compares unequal to one: [0.5, 0.7] != (0.5, 0.7)).",
        )
    if not all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in got):
        raise CheckFailed(
            f"{what} should return two numbers.",
            expected=Described("a tuple of two floats"),
            got=got,
            hint="Return the bounds as floats between 0 and 1, not text or percentages.",
        )
    return float(got[0]), float(got[1])


def _variants(k: int, n: int, z: float) -> dict[str, tuple[float, float]]:
    """The intervals the usual slips give, to name the slip when an answer matches one."""
    p = k / n
    root = math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    plain = math.sqrt(p * (1 - p) / n)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    return {
        "textbook": (max(0.0, p - z * plain), min(1.0, p + z * plain)),
        "centre": (max(0.0, p - z * root / denominator), min(1.0, p + z * root / denominator)),
        "term": (
            max(0.0, centre - z * plain / denominator),
            min(1.0, centre + z * plain / denominator),
        ),
        "denominator": (
            max(0.0, p + z * z / (2 * n) - z * root),
            min(1.0, p + z * z / (2 * n) + z * root),
        ),
        "z": wilson(k, n, 1.96),
    }


_SLIPS = {
    "textbook": "This is the textbook interval p ± z·sqrt(p(1-p)/n), which has zero width at 0 or "
    "n successes. Use the Wilson formula: centre (p + z²/2n) / (1 + z²/n), half-width "
    "z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n).",
    "centre": "Your interval is centred on p = successes / n; Wilson's centre is pulled towards "
    "1/2: (p + z²/(2n)) / (1 + z²/n).",
    "term": "The square root needs both terms: p(1-p)/n + z²/(4n²); without the second, the "
    "interval collapses at 0 or n successes.",
    "denominator": "Divide both the centre and the half-width by (1 + z²/n).",
    "z": "This call passes z=1.645: use the `z` argument, do not hard-code 1.96.",
}


def _interval(rng: random.Random, size: int) -> Call:
    """A call the text promises: n from 1 up (0 and negatives too: ValueError), successes in
    0..n (one outside: ValueError), z the default or one given (1.645, 2.576, ...)."""
    n = rng.choice([1, 2, 3, rng.randint(1, 10 ** (1 + size // 3))])
    if rng.random() < 0.1:
        n = rng.choice([0, -1])
    k = rng.choice([0, n, 1, n - 1, rng.randint(0, max(n, 0))])
    if rng.random() < 0.1:
        k = rng.choice([-1, n + 1])
    if rng.random() < 0.5:
        return Call((k, n))
    z = rng.choice([1.645, 2.576, 1.0, 3.0, round(rng.uniform(0.5, 3.5), 3)])
    return Call((k, n, z))


_GENERATED = calls(_interval, seed=51, count=200)


def _same_interval(got: Any, expected: Any, what: str) -> str | None:
    low, high = _as_interval(got, "wilson")
    if _close((low, high), expected):
        return None
    return f"{what} is not the Wilson interval to {_TOLERANCE}"


def _close(got: tuple[float, float], expected: tuple[float, float]) -> bool:
    return all(abs(g - e) <= _TOLERANCE for g, e in zip(got, expected, strict=True))


def _wilson_hint(k: int, n: int, z: float | None, low: float, high: float) -> str:
    expected = wilson(k, n, z or 1.96)
    centre, half = (expected[0] + expected[1]) / 2, (expected[1] - expected[0]) / 2
    if _close((low, high), (centre, half)):
        return (
            "These are the centre and the half-width: return the two ends, "
            "(centre - half, centre + half)."
        )
    if _close((high, low), expected):
        return "The bounds are swapped: return (low, high), the smaller first."
    if low > high:
        return (
            "The first number is larger than the second: return (low, high), the lower end "
            "first, centre - half and centre + half."
        )
    if high > 1.5:
        return "Return proportions between 0 and 1, not percentages."
    for slip, (slip_low, slip_high) in _variants(k, n, z or 1.96).items():
        if slip == "z" and z is None:
            continue
        if abs(slip_low - low) <= _TOLERANCE and abs(slip_high - high) <= _TOLERANCE:
            return _SLIPS[slip]
    return (
        "Check both terms under the square root (p(1-p)/n and z²/(4n²)) and divide the centre "
        "and the half-width by (1 + z²/n); keep the result inside [0, 1]."
    )


@exercise(
    "5.1",
    title="A Wilson interval",
    hints=[
        "p = successes / n. The centre is (p + z**2 / (2 * n)) / (1 + z**2 / n), not p itself.",
        "The half-width is z * sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n); "
        "the interval is (centre - half, centre + half), clipped to [0, 1].",
        "Check the arguments first: raise ValueError when n < 1 or successes is outside 0..n, "
        "before dividing by n.",
    ],
    reference=lambda: wilson,
)
def _check_wilson(student: Callable[..., Any]) -> None:
    for k, n, z in _INTERVALS:
        args = (k, n) if z is None else (k, n, z)
        what = f"wilson({', '.join(map(str, args))})"
        got = call_student(
            student,
            *args,
            what=what,
            returns="a tuple (low, high)",
            hint="Only n < 1 or successes outside 0..n are errors.",
        )
        low, high = _as_interval(got, what)
        expected = wilson(k, n, z or 1.96)
        if abs(low - expected[0]) > _TOLERANCE or abs(high - expected[1]) > _TOLERANCE:
            raise CheckFailed(
                f"{what} is not the Wilson interval (to {_TOLERANCE}).",
                expected=tuple(round(x, 4) for x in expected),
                got=got,
                hint=_wilson_hint(k, n, z, low, high),
            )
    # with z=3 the square root stays real for 11 of 10: only a test of the range refuses it
    for args in ((0, 0), (5, 0), (11, 10), (-1, 10), (11, 10, 3.0), (-1, 10, 3.0)):
        expect_raises(
            ValueError,
            student,
            *args,
            what=f"wilson({', '.join(map(str, args))})",
            hint="Raise ValueError for n < 1 or successes outside 0..n, before dividing by n.",
        )
    agree(
        student,
        wilson,
        _GENERATED,
        name="wilson",
        compare=_same_interval,
        hint="Only n < 1 or successes outside 0..n are errors; every other call returns the "
        "Wilson interval, clipped to [0, 1].",
    )
