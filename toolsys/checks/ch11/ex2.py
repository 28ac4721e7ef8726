"""Exercise 11.2, a trajectory assertion: the check and its reference, `calls_match`.

The cases are an argument match that wants every argument, and a trajectory compared with `zip`
(extra calls pass) or with sets (two calls count as one).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls


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


# Argument values where "equal" is easy to get wrong: True beside 1, False beside 0, 6.0 beside
# 6, None, lists (compared with ==: [True] is [1]), text with and without an accent.
VALUES: list[Any] = [True, 1, False, 0, 6, 6.0, None, [1, 2], [2, 1], [True], [1], "Zoë", "Zoe", ""]
NAMES = ["get_weather", "search_docs", "roll"]


def some_arguments(rng: random.Random, keys: int) -> dict[str, Any]:
    """Up to `keys` arguments named from a few names, each one of VALUES."""
    return {rng.choice(["city", "units", "on", "n"]): rng.choice(VALUES) for _ in range(keys)}


def some_calls(rng: random.Random, size: int, most: int) -> list[tuple[str, dict[str, Any]]]:
    """0 to `most` (name, arguments) calls from a few names: the same name comes back often."""
    return [
        (rng.choice(NAMES[: 1 + size // 3]), some_arguments(rng, rng.randint(0, 2)))
        for _ in range(rng.randint(0, most))
    ]


def subset_of(rng: random.Random, call: tuple[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """An expected call that `call` matches (some of its arguments), or a near miss of it."""
    name, arguments = call
    wanted = {key: value for key, value in arguments.items() if rng.random() < 0.6}
    if wanted and rng.random() < 0.3:
        key = rng.choice(list(wanted))
        wanted[key] = rng.choice(VALUES)  # perhaps equal still, perhaps True for 1
    return name, wanted


def _match_call(rng: random.Random, size: int) -> Call:
    """Made calls, expected calls built from some of them (in another order, now and then one
    more or one less) and a mode."""
    made = some_calls(rng, size, min(6, 1 + size))
    expected = [subset_of(rng, call) for call in made if rng.random() < 0.8]
    if rng.random() < 0.5:
        rng.shuffle(expected)
    if rng.random() < 0.3:
        expected += some_calls(rng, size, 1)
    return Call((made, expected, rng.choice(["strict", "unordered", "subset"])))


_GENERATED = calls(_match_call, seed=112, count=250)


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
    agree(
        student,
        calls_match,
        _GENERATED,
        name="calls_match",
        hint="A made call matches an expected one when the names are equal and every expected "
        "key is there with an equal value (a bool only equal to a bool); unordered and subset "
        "need each expected call matched by its own made call: try every assignment, not the "
        "first match.",
    )
