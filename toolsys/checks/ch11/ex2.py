"""Exercise 11.2, a trajectory assertion: the check and its reference, `calls_match`.

The cases are an argument match that wants every argument, and a trajectory compared with `zip`
(extra calls pass) or with sets (two calls count as one).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal


def calls_match(made: list[Any], expected: list[Any], mode: str) -> bool:
    """Reference for 11.2: `toolsys.testing.assert_calls`, as True or False."""
    from toolsys.testing import ToolTestFailure, assert_calls

    try:
        assert_calls(made, expected, mode=mode)
    except ToolTestFailure:
        return False
    return True


_W = ("get_weather", {"city": "Paris", "units": "metric"})
_R = ("get_weather", {"city": "Rome"})
_S = ("search_docs", {"query": "retry", "limit": 3})
_MATCH_CASES: list[tuple[list[Any], list[Any], str, str]] = [
    (
        [_S, _W],
        [("search_docs", {}), ("get_weather", {"city": "Paris"})],
        "strict",
        "argument subsets match",
    ),
    ([_S, _W], [("get_weather", {}), ("search_docs", {})], "strict", "strict keeps the order"),
    (
        [_S, _W, _R],
        [("search_docs", {}), ("get_weather", {})],
        "strict",
        "strict allows no extra call",
    ),
    ([_S], [("search_docs", {}), ("search_docs", {})], "strict", "strict allows no missing call"),
    ([_W], [("get_weather", {"city": "Rome"})], "strict", "a value must be equal"),
    (
        [_S],
        [("search_docs", {"query": "retry", "page": 1})],
        "strict",
        "an expected key must be there",
    ),
    ([_S], [("search_docs", {"limit": True})], "strict", "true is not 3 (nor 1)"),
    ([("roll", {"sides": 1})], [("roll", {"sides": True})], "strict", "true is not 1"),
    ([("roll", {"sides": True})], [("roll", {"sides": 1})], "strict", "1 is not true either"),
    ([("mute", {"on": 0})], [("mute", {"on": False})], "strict", "false is not 0"),
    ([("roll", {"sides": 6.0})], [("roll", {"sides": 6})], "strict", "6.0 equals 6"),
    (
        [("search_docs", {"query": "retry"})],
        [("search_docs", {"page": None})],
        "strict",
        "an expected key must be there, even when its value is None (not .get(key))",
    ),
    ([_S, _W], [("get_weather", {}), ("search_docs", {})], "unordered", "unordered ignores order"),
    (
        [_S, _W, _R],
        [("get_weather", {}), ("search_docs", {})],
        "unordered",
        "unordered allows no extra call",
    ),
    (
        [_W, _S],
        [("get_weather", {}), ("get_weather", {})],
        "unordered",
        "two expected calls need two calls",
    ),
    (
        [_W, _R],
        [("get_weather", {}), ("get_weather", {"city": "Paris"})],
        "unordered",
        "each expected call gets its own call (a greedy first pick fails here)",
    ),
    ([_S, _W, _R], [("get_weather", {"city": "Rome"})], "subset", "subset allows other calls"),
    ([_S, _W], [("get_weather", {}), ("get_weather", {})], "subset", "subset still counts calls"),
    (
        [_W, _R],
        [("get_weather", {}), ("get_weather", {"city": "Paris"})],
        "subset",
        "each expected call gets its own call",
    ),
    ([], [], "strict", "no calls expected, none made"),
    ([_S], [], "strict", "no calls expected, one made"),
    ([_S], [], "subset", "no calls required"),
]


@exercise(
    "11.2",
    title="A trajectory assertion",
    hints=[
        "First write matches(call, want): the same name, and every expected key present in the "
        "call's arguments with an equal value (and True is not 1: compare type(...) is bool too).",
        "strict: the same number of calls, and each pair matches in order (zip alone forgets "
        "the extra calls). unordered and subset: give each expected call its own made call.",
        "Give each expected call a distinct made call by trying every choice (recursion over "
        "the expected calls with the set of made calls still free): taking the first call that "
        "matches can use up the only call a later expectation could match.",
    ],
    reference=lambda: calls_match,
)
def _check_calls_match(student: Callable[..., Any]) -> None:
    for made, expected, mode, why in _MATCH_CASES:
        what = f"calls_match({made}, {expected}, {mode!r})"
        got = call_student(
            student,
            copy.deepcopy(made),
            copy.deepcopy(expected),
            mode,
            what=what,
            returns="True or False",
        )
        expect_equal(got, calls_match(made, expected, mode), what=what, hint=why + ".")
