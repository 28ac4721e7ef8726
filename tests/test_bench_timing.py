"""benchmarks/_timing.py reads a ratio one way: the median of the per-round ratios, paired by
round, never the ratio of each side's best round. Timings themselves are never checked here."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _timing  # noqa: E402


def test_a_ratio_pairs_the_rounds_and_takes_their_median() -> None:
    # Each side's best round (1.0 and 2.0) comes from a different round: their ratio, 2.0x,
    # is no round's. The per-round ratios are 3.0, 2.5 and 1.5: the median is 2.5.
    times = {"case": [3.0, 5.0, 6.0], "base": [1.0, 2.0, 4.0]}
    assert _timing.ratios(times, "case", "base") == [1.5, 2.5, 3.0]
    assert _timing.ratio(times, "case", "base") == "2.50x (1.50-3.00)"


def test_rounds_of_unequal_length_are_refused_not_cut_short() -> None:
    with pytest.raises(ValueError):
        _timing.ratios({"case": [1.0, 2.0], "base": [1.0]}, "case", "base")


def test_the_cases_take_turns_round_after_round() -> None:
    order: list[str] = []
    clock = itertools.count()  # one tick per look: every run takes the same time

    def case(name: str) -> object:
        return lambda: order.append(name)

    times = _timing.interleaved(
        {"a": case("a"), "b": case("b")}, rounds=3, number=2, timer=lambda: float(next(clock))
    )
    runs = [name for name, _ in itertools.groupby(order)]
    assert runs == ["a", "b"] * 3
    assert {name: len(each) for name, each in times.items()} == {"a": 3, "b": 3}
