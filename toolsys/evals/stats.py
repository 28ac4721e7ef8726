"""A rate and how sure we are of it: successes out of n, with a 95 % Wilson interval.

Why this module exists: "C succeeds 96 % of the time" means little without the number of tries
behind it. 24 successes out of 25 and 960 out of 1,000 are both 96 %, and only the second pins
the rate down to a point or two. The Wilson score interval says how wide the doubt is; unlike
the textbook `p ± z·sqrt(p(1-p)/n)`, it stays inside [0, 1] and does not shrink to nothing when
every try succeeded (or none did), which is exactly when small evals mislead most.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Z_95", "Rate", "wilson"]

Z_95 = 1.959963984540054
"""The normal quantile for a two-sided 95 % interval."""


def wilson(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval (low, high) for `successes` out of `n` tries; 95 % by default.

    Raises ValueError for n < 1, successes outside 0..n, or z <= 0.
    """
    for name, value in (("successes", successes), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"wilson: {name}={value!r} must be a whole number, e.g. 62.")
    if n < 1:
        raise ValueError(f"wilson: n={n} tries; an interval needs at least one try.")
    if not 0 <= successes <= n:
        raise ValueError(f"wilson: successes={successes} must be between 0 and n={n}.")
    if not z > 0:
        raise ValueError(f"wilson: z={z!r} must be positive, e.g. 1.96 for 95 %.")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Rate:
    """`successes` out of `n`, with its 95 % Wilson interval; prints as `62% [52–71]`."""

    successes: int
    n: int

    @property
    def rate(self) -> float:
        return self.successes / self.n

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.successes, self.n)

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]

    def to_dict(self) -> dict[str, float | int]:
        low, high = self.interval
        return {
            "successes": self.successes,
            "n": self.n,
            "rate": round(self.rate, 4),
            "low": round(low, 4),
            "high": round(high, 4),
        }

    def __str__(self) -> str:
        low, high = self.interval
        return f"{self.rate:.0%} [{low * 100:.0f}–{high * 100:.0f}]"
