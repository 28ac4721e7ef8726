"""How the benchmarks time two paths against each other, so that every ratio is read one way.

Why one way: a ratio of two separate minimums ("best round of each") pairs each side's luckiest
round, which may come from different moments of the run. Here the cases take turns, round after
round, and a ratio is the median of the per-round ratios, printed with their range: both sides
of a ratio meet the same moment of load, and one disturbed round moves the range, not the
verdict. (pyperf, too, summarises by median +- MAD or mean +- std dev, not by the minimum.)

What no estimator removes: this VM's host runs it at two speeds, switching now and then, and a
ratio is not the same at both. On 2026-12-03 (Python 3.11.7) one pass-through layer measured
2.17-2.30x the bare registry while a bare call took 3.4-4.1 us, and 2.43-2.73x while it took
1.9-2.3 us, in fresh processes a minute apart.
Read a ratio with the absolute times printed beside it, and compare runs at the same speed.
"""

from __future__ import annotations

import statistics
import time
import timeit
from collections.abc import Callable


def per_call_us(
    fn: Callable[[], object],
    number: int = 20_000,
    repeat: int = 3,
    timer: Callable[[], float] = time.process_time,
) -> float:
    """Microseconds of one call: the fastest of `repeat` runs of `number` calls.

    CPU time of this process by default, not wall time: on a shared 2-core machine wall time
    also counts the moments another process held the core.
    """
    runs = timeit.Timer(fn, timer=timer).repeat(number=number, repeat=repeat)
    return min(runs) / number * 1e6


def interleaved(
    cases: dict[str, Callable[[], object]],
    rounds: int,
    number: int = 5_000,
    timer: Callable[[], float] = time.process_time,
) -> dict[str, list[float]]:
    """Per-call microseconds of every case in every round, the cases taking turns."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            times[name].append(per_call_us(fn, number, timer=timer))
    return times


def ratios(times: dict[str, list[float]], case: str, base: str) -> list[float]:
    """The per-round ratios `case / base`, smallest first."""
    return sorted(a / b for a, b in zip(times[case], times[base], strict=True))


def ratio(times: dict[str, list[float]], case: str, base: str) -> str:
    """The median of the per-round ratios `case / base`, with their range."""
    each = ratios(times, case, base)
    return f"{statistics.median(each):4.2f}x ({each[0]:.2f}-{each[-1]:.2f})"
