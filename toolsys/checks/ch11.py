"""Checks for chapter 11, testing tools: an agreement test, a trajectory assertion, a fuzz
target that finds planted bugs, and the scores of a selection eval. Each reference is built from
`toolsys.testing`, so a student's piece is held to what the package's helpers do.

The cases are what a careless version gets wrong: a missing-field test that skips fields with a
default (the very bug it should find), an argument match that wants every argument, a trajectory
compared with `zip` (extra calls pass) or with sets (two calls count as one), a fuzzer that only
sends polite values, an argument score averaged over cases that name no arguments.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_raises,
)
from toolsys.registry import Registry
from toolsys.tool import Tool, tool_from_function

# -- tools with and without a disagreement ---------------------------------------------------


def _search(query: str, limit: int = 5) -> list[str]:
    """Search the notes.

    Args:
        query: Words to look for.
        limit: How many results, 1 to 10.
    """
    return [query][:limit]


def _clock(timezone: str = "UTC") -> str:
    """The time in a time zone.

    Args:
        timezone: An IANA time zone name.
    """
    return timezone


def _edited(tool: Tool, change: Callable[[dict[str, Any]], None]) -> Tool:
    schema = copy.deepcopy(dict(tool.parameters))
    change(schema)
    return dataclasses.replace(tool, parameters=schema)


class _VagueSearch(BaseModel):
    """The validator of a hand-written tool whose refusal names no field."""

    model_config = ConfigDict(extra="forbid")
    query: str
    limit: int

    @model_validator(mode="before")
    @classmethod
    def _vague(cls, data: Any) -> Any:
        if isinstance(data, dict) and "limit" not in data:
            raise ValueError("something is missing")
        return data


class _LooseSearch(BaseModel):
    """The validator of a hand-written tool that ignores unknown arguments."""

    model_config = ConfigDict(extra="ignore")
    query: str
    limit: int = 5


def _tools() -> dict[str, Tool]:
    search = tool_from_function(_search, name="search")
    return {
        "search": search,
        "clock": tool_from_function(_clock, name="clock"),
        "limit_required": _edited(search, lambda s: s.update(required=["query", "limit"])),
        "limit_as_text": _edited(search, lambda s: s["properties"]["limit"].update(type="string")),
        "ignores_extras": dataclasses.replace(search, model=_LooseSearch),
        "vague_refusal": _edited(
            dataclasses.replace(search, model=_VagueSearch),
            lambda s: s.update(required=["query", "limit"]),
        ),
    }


# -- 11.1 ----------------------------------------------------------------------------------------


def check_agreement(tool: Tool, sample: dict[str, Any]) -> None:
    """Reference for 11.1: `toolsys.testing`'s agreement verdicts on one sample."""
    from toolsys.testing._mutations import mutations
    from toolsys.testing.agreement import _got, _raise, _verdict

    refusal = _verdict(tool, sample, False)
    if refusal is not None:
        _raise(f"{tool.name}: the sample was refused", sample, _got(refusal), "accepted")
    extras = tool.parameters.get("additionalProperties") is False
    for kind, field, mutated in mutations(sample, tool.parameters):
        if kind == "missing" or (kind == "extra" and extras):
            result = _verdict(tool, mutated, False)
            error = result.error if result is not None else None
            if error is None or error.code != "INVALID_ARGUMENTS" or field not in error.message:
                expected = f"INVALID_ARGUMENTS naming {field!r}"
                _raise(f"{tool.name}: {kind} {field!r}", mutated, _got(result), expected)


_SAMPLE = {"query": "retry", "limit": 3}


def _agrees(student: Callable[..., Any], tools: dict[str, Tool], name: str, sample: Any) -> None:
    what = f"check_agreement({name}, {json.dumps(sample)})"
    try:
        call_student(student, tools[name], copy.deepcopy(sample), what=what, returns="None")
    except CheckFailed as failed:
        raise CheckFailed(
            f"{what} failed on a tool whose schema and validator agree: {failed.message}",
            expected=Described("no AssertionError: nothing to report"),
            got=failed.got,
            hint="Leave out only the fields the schema *requires*: an optional one may be "
            "omitted, so the validator is right to accept that.",
        ) from None


def _disagrees(
    student: Callable[..., Any],
    tools: dict[str, Tool],
    name: str,
    sample: Any,
    why: str,
    match: str | None,
) -> None:
    expect_raises(
        AssertionError,
        student,
        tools[name],
        copy.deepcopy(sample),
        what=f"check_agreement({name}, {json.dumps(sample)}), where {why}",
        match=match,
        hint="Raise AssertionError (plain `assert` or `raise AssertionError(...)`) naming what "
        "was sent, what came back and the field expected.",
    )


@exercise(
    "11.1",
    title="An agreement test",
    hints=[
        "Three questions: is the sample accepted? Is each required field, left out, refused? Is "
        "an extra property refused (when the schema says additionalProperties: false)?",
        "Ask `refusal(tool, arguments)`: None means accepted; otherwise check error.code == "
        "'INVALID_ARGUMENTS' and that the field's name is in error.message.",
        "Take the required fields from tool.parameters['required'], not from the function: a "
        "field the function defaults is exactly the one the schema may wrongly require.",
    ],
    reference=lambda: check_agreement,
)
def _check_agreement(student: Callable[..., Any]) -> None:
    tools = _tools()
    _agrees(student, tools, "search", _SAMPLE)
    _agrees(student, tools, "clock", {"timezone": "UTC"})
    _agrees(student, tools, "clock", {})
    _disagrees(
        student,
        tools,
        "limit_required",
        _SAMPLE,
        "the schema requires limit but the function gives it a default",
        "limit",
    )
    _disagrees(
        student,
        tools,
        "vague_refusal",
        _SAMPLE,
        "leaving out limit is refused with a message that does not name limit",
        "limit",
    )
    _disagrees(
        student,
        tools,
        "ignores_extras",
        _SAMPLE,
        "the schema forbids extra properties but the validator ignores them",
        None,
    )
    _disagrees(
        student,
        tools,
        "limit_as_text",
        {"query": "q", "limit": "3"},
        "the schema says limit is a string but the validator wants an integer",
        None,
    )


# -- 11.2 ----------------------------------------------------------------------------------------


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


# -- 11.3 ----------------------------------------------------------------------------------------


def fuzz_arguments(schema: dict[str, Any], rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Reference for 11.3: the schema-guided arguments of `toolsys.fuzz`."""
    from toolsys.fuzz import _plausible

    return [_plausible(rng, schema) for _ in range(count)]


def _bugged() -> Registry:
    registry = Registry()

    @registry.tool
    def initials(name: str) -> str:
        """The initials of a name."""
        return "".join(part[0] for part in name.split(" ")).upper()

    @registry.tool
    def average(total: float, count: int) -> float:
        """The average of `count` numbers that add up to `total`."""
        return total / count

    @registry.tool
    def side(area: float) -> float:
        """The side of a square with this area."""
        import math

        return math.sqrt(area)

    return registry


_PLANTED = {
    "initials": ("IndexError", "an empty string, or two spaces in a row"),
    "average": ("ZeroDivisionError", "count 0"),
    "side": ("ValueError", "a negative area"),
}


@exercise(
    "11.3",
    title="A fuzz target that finds planted bugs",
    hints=[
        "Bugs live at the edges: for a string try '', ' ', '  ', a very long one; for a number "
        "0, -1, a huge one; pick among them with rng.choice.",
        "Fill every required property of schema['properties'] by its 'type' (and 'enum' when "
        "there is one), so the call gets past validation and reaches the function.",
        "Draw only from `rng` (rng.choice, rng.random): the same seed must give the same list, "
        "or a bug found once cannot be found again.",
    ],
    reference=lambda: fuzz_arguments,
)
def _check_fuzz_arguments(student: Callable[..., Any]) -> None:
    registry = _bugged()
    for name, (exception, where) in _PLANTED.items():
        schema = copy.deepcopy(dict(registry.get(name).parameters))
        what = f"fuzz_arguments({name}'s schema, random.Random(11), 300)"
        made = call_student(
            student, schema, random.Random(11), 300, what=what, returns="a list of argument dicts"
        )
        expect_plain(made, what=what, shape="a list of 300 dicts of arguments")
        if type(made) is not list or len(made) != 300:
            raise CheckFailed(
                f"{what} must return a list of exactly 300 argument dicts.",
                expected=Described("a list of 300 dicts"),
                got=made,
            )
        again = call_student(
            student, schema, random.Random(11), 300, what=what, returns="a list of argument dicts"
        )
        expect_equal(
            again,
            made,
            what=f"a second {what}",
            hint="Draw only from rng, never from the random module: the same seed "
            "must give the same arguments.",
        )
        found, refused = False, 0
        for arguments in made:
            result = registry.execute(name, arguments)
            details = result.error.details if result.error is not None else {}
            refused += result.error is not None and result.error.code == "INVALID_ARGUMENTS"
            found = found or details.get("exception") == exception
        if not found:
            polite = f" ({refused} of 300 never got past validation)" if refused else ""
            raise CheckFailed(
                f"{what}: none of the 300 calls found the planted bug in {name}{polite}.",
                expected=Described(f"a call that raises {exception}: {where}"),
                got=Described("every call returned normally or was refused"),
                hint="Send edge values of the right type: empty and blank strings, 0 and "
                "negative numbers.",
            )


# -- 11.4 ----------------------------------------------------------------------------------------


def selection_scores(cases: list[dict[str, Any]], made: list[list[Any]]) -> dict[str, Any]:
    """Reference for 11.4: the rates of `toolsys.testing.SelectionReport`."""
    from toolsys.testing.trajectory import _subset

    top1, judged, calls = [], [], 0
    for case, made_calls in zip(cases, made, strict=True):
        calls += len(made_calls)
        top1.append(bool(made_calls) and made_calls[0][0] == case["tool"])
        if case.get("arguments"):
            aimed = next((args for name, args in made_calls if name == case["tool"]), None)
            judged.append(aimed is not None and _subset(aimed, case["arguments"]))
    return {
        "top1": sum(top1) / len(cases),
        "arguments": sum(judged) / len(judged) if judged else None,
        "calls_per_task": calls / len(cases),
    }


_P = {"tool": "get_weather", "arguments": {"city": "Paris"}}
_T = {"tool": "get_time"}
_SCORE_CASES: list[tuple[list[dict[str, Any]], list[list[Any]], str]] = [
    ([_P], [[("get_weather", {"city": "Paris", "units": "metric"})]], "the arguments are a subset"),
    ([_P, _T], [[("get_time", {})], []], "top-1 is the first call only; no call is a miss"),
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
]


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
        expect_equal(got, expected, what=what, hint=why + ".")
