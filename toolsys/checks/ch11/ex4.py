"""Exercise 11.4, score a selection eval: the check and its reference, `selection_scores`.

The scores of a selection eval; the case a careless version gets wrong is an argument score averaged
over cases that name no arguments.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal, expect_plain
from toolsys.checks._differential import Call, agree, calls, close
from toolsys.checks.ch11.ex2 import NAMES, some_calls, subset_of


def selection_scores(cases: list[dict[str, Any]], made: list[list[Any]]) -> dict[str, Any]:
    """Reference for 11.4: the rates of `toolsys.testing.SelectionReport`."""
    from toolsys.testing.trajectory import matches_subset

    top1, judged, calls = [], [], 0
    for case, made_calls in zip(cases, made, strict=True):
        calls += len(made_calls)
        top1.append(bool(made_calls) and made_calls[0][0] == case["tool"])
        if case.get("arguments"):
            aimed = next((args for name, args in made_calls if name == case["tool"]), None)
            judged.append(aimed is not None and matches_subset(aimed, case["arguments"]))
    return {
        "top1": sum(top1) / len(cases),
        "arguments": sum(judged) / len(judged) if judged else None,
        "calls_per_task": calls / len(cases),
    }


_P = {"tool": "get_weather", "arguments": {"city": "Paris"}}
_T = {"tool": "get_time"}
_SCORE_CASES: list[tuple[list[dict[str, Any]], list[list[Any]], str]] = [
    ([_P], [[("get_weather", {"city": "Paris", "units": "metric"})]], "the arguments are a subset"),
    (
        [_P, _T],
        [[("get_time", {})], []],
        "top-1 is the first call only; no call is a miss (and a case for calls per task too)",
    ),
    (
        [_P],
        [[("search_docs", {}), ("get_weather", {"city": "Paris"})]],
        "top-1 looks at the first call only; the arguments at the first call to the expected tool",
    ),
    (
        [_P, _T, _T],
        [[("get_weather", {"city": "Paris"})], [("get_time", {})], [("get_time", {})]],
        "the arguments score is averaged over the cases that name some",
    ),
    (
        [_T, _T],
        [[("get_time", {})], [("get_time", {}), ("get_time", {})]],
        "no case names arguments: the arguments score is None; calls per task 1.5",
    ),
    ([_P], [[("calculator", {})]], "no call to the expected tool: its arguments are a miss"),
    (
        [_P, _T, _T],
        [[("get_weather", {"city": "Rome"})], [("get_time", {})], [("calculator", {})]],
        "an argument is there with another value: a miss; top-1 is 2 of 3",
    ),
    (
        [{"tool": "lamp", "arguments": {"on": True}}, _P],
        [[("lamp", {"on": 1})], [("get_weather", {"city": "Paris"})]],
        "True is not 1 (as in 11.2): {'on': 1} does not include {'on': True}; 1 of 2",
    ),
    (
        [{"tool": "lamp", "arguments": {"on": False}}],
        [[("lamp", {"on": 0})]],
        "False is not 0 (as in 11.2)",
    ),
    (
        [{"tool": "roll", "arguments": {"sides": 6}}],
        [[("roll", {"sides": 6.0})]],
        "6.0 equals 6: numbers compare by value",
    ),
    (
        [{"tool": "lamp", "arguments": {"on": True}}, {"tool": "lamp", "arguments": {"on": False}}],
        [[("lamp", {"on": True})], [("lamp", {"on": False})]],
        "True is True and False is False: a boolean matches the same boolean",
    ),
    (
        [{"tool": "get_weather", "arguments": {"city": "Paris", "units": "metric"}}, _P],
        [
            [("get_weather", {"city": "Paris", "units": "imperial"})],
            [("get_weather", {"units": "metric"})],
        ],
        "every expected argument must be there and equal (all, not any); a missing one is a "
        "miss, not a KeyError",
    ),
    (
        [_P, _T],
        [
            [("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Paris"})],
            [("get_time", {})],
        ],
        "the arguments are judged at the first call to the expected tool: a later call that "
        "corrects them does not count",
    ),
    (
        [{"tool": "search_docs", "arguments": {"page": None}}, _P],
        [[("search_docs", {"query": "retry"})], [("get_weather", {"city": "Paris"})]],
        "an expected key must be there, even when its value is None: a call without 'page' "
        "does not include {'page': None} (arguments.get('page') == None is not the test); 1 of 2",
    ),
    (
        [{"tool": "get_time", "arguments": {}}, _P],
        [[("calculator", {})], [("get_weather", {"city": "Paris"})]],
        "'arguments': {} names no arguments: that case is not judged for the arguments score",
    ),
]


def _scores_call(rng: random.Random, size: int) -> Call:
    """1 to a few cases, each a tool and often arguments (an empty {} too), taken from a call
    the model made or from none; the calls made for each (none too; the expected tool first,
    later, or not at all)."""
    cases, made = [], []
    for _ in range(rng.randint(1, min(5, 1 + size))):
        calls_made = some_calls(rng, size, 3)
        if calls_made and rng.random() < 0.7:
            tool, arguments = subset_of(rng, rng.choice(calls_made))
        else:
            tool, arguments = rng.choice(NAMES), {}
        case: dict[str, Any] = {"tool": tool}
        if rng.random() < 0.7:
            case["arguments"] = arguments
        cases.append(case)
        made.append(calls_made)
    return Call((cases, made))


_GENERATED = calls(_scores_call, seed=114, count=250)


def _as_floats(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func`'s dict with whole-number rates as floats (1 for 1.0 is not a mistake)."""

    def run(cases: list[Any], made: list[Any]) -> Any:
        got = func(cases, made)
        if type(got) is not dict:
            return got
        return {k: float(v) if type(v) is int else v for k, v in got.items()}

    return run


@exercise(
    "11.4",
    title="Score a selection eval",
    hints=[
        "top1: the case's first call (made[i][0]) names case['tool']; a case with no call is a "
        "miss. calls_per_task: all calls / number of cases.",
        "arguments: only cases with a non-empty 'arguments' count; take the first call to the "
        "expected tool (not the first call) and check every expected key is there and equal.",
        "When no case names arguments, there is nothing to average: return None, not 0 and not "
        "a ZeroDivisionError.",
    ],
    reference=lambda: selection_scores,
)
def _check_selection_scores(student: Callable[..., Any]) -> None:
    for cases, made, why in _SCORE_CASES:
        what = f"selection_scores({cases}, {made})"
        got = call_student(
            student,
            copy.deepcopy(cases),
            copy.deepcopy(made),
            what=what,
            returns="a dict with top1, arguments and calls_per_task",
        )
        expect_plain(got, what=what, shape="a dict with keys top1, arguments, calls_per_task")
        expected = selection_scores(cases, made)
        if isinstance(got, dict):
            got = {k: float(v) if type(v) is int else v for k, v in got.items()}
        expect_equal(got, expected, what=what, hint=_hint(got, expected, why))
    agree(
        _as_floats(student),
        selection_scores,
        _GENERATED,
        name="selection_scores",
        compare=close,
        hint="top1: the first call's name is the case's tool (no call is a miss); arguments: "
        "over the cases whose arguments are not empty, the first call to the case's tool "
        "holds them (True is not 1), None if no case names any; calls_per_task: calls / cases.",
    )


_KEY_HINTS = {
    "top1": "top1 is the share of cases whose first call names the expected tool",
    "arguments": "arguments is the share, among the cases that name arguments, whose first call "
    "to the expected tool includes them",
    "calls_per_task": "calls_per_task is all the calls made divided by the number of cases "
    "(a case without a call counts too)",
}


def _hint(got: Any, expected: dict[str, Any], why: str) -> str:
    """What this case is about, led by the score that is wrong (and percentages named)."""
    if type(got) is not dict:
        return why + "."
    wrong = [key for key in expected if key in got and got[key] != expected[key]]
    for key in wrong:
        value, want = got[key], expected[key]
        if type(value) in (int, float) and type(want) is float and want and value == want * 100:
            return (
                f"{key} is {value!r}, a percentage: the scores are shares from 0 to 1 "
                f"({want!r}), not percentages."
            )
    if len(wrong) == 1:
        return f"{_KEY_HINTS[wrong[0]]}. Here: {why}."
    return why + "."
