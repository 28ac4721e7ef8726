"""`assert_calls`: did the agent call the tools we expected, with the arguments we care about?

A transcript's tool calls are its trajectory. Asserting on all of it (every argument, every id)
makes tests brittle; asserting on the answer text makes them blind. `assert_calls` matches tool
names and *argument subsets*: `("book_table", {"party": 4})` matches a call to `book_table` whose
arguments include `party: 4`, whatever else they hold. A value may also be a predicate,
`{"city": str.istitle}`, and a nested dict is itself a subset. Three modes, as trajectory
evaluators name them:

    strict     the calls, in this order, and no others
    unordered  the calls, in any order, and no others
    subset     these calls, in any order, among others

Each expected item is a tool name, a `(name, arguments)` pair or a `{"name", "arguments"}` dict;
the actual calls come from a `Transcript`, or any list of such items.

Chapter 11 uses it, and its exercises build it by hand: notebooks/11_testing.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolsys.testing._failure import fail, shown
from toolsys.transcript import ToolCallEvent, Transcript, UserMessage

__all__ = ["MODES", "assert_calls", "decoded_arguments", "matches_subset"]

MODES = ("strict", "unordered", "subset")

Call = tuple[str, Any]


def _call(item: Any, where: str) -> Call:
    __tracebackhide__ = True
    if isinstance(item, ToolCallEvent):
        return item.name, decoded_arguments(item.arguments)
    if isinstance(item, str):
        return item, {}
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        return item[0], decoded_arguments(item[1])
    if isinstance(item, Mapping) and isinstance(item.get("name"), str):
        return item["name"], decoded_arguments(item.get("arguments", {}))
    raise TypeError(
        f"assert_calls: {where} is {item!r}; give a tool name, a (name, arguments) pair or a "
        "{'name': ..., 'arguments': {...}} dict, e.g. ('get_weather', {'city': 'Paris'})."
    )


def decoded_arguments(arguments: Any) -> Any:
    """A call's arguments as sent (JSON text is decoded; text that is not JSON stays as it is)."""
    if isinstance(arguments, str | bytes):
        try:
            return json.loads(arguments or "{}")
        except ValueError:
            return arguments  # matched only by an expectation of no arguments
    return arguments


def _same(got: Any, want: Any) -> bool:
    if callable(want) and not isinstance(want, type):
        try:
            return bool(want(got))
        except Exception:
            return False
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and matches_subset(got, want)
    return got == want and (type(got) is bool) == (type(want) is bool)


def matches_subset(got: Any, want: Mapping[str, Any]) -> bool:
    """Whether `got` has every key of `want` with a matching value (a predicate, a nested subset,
    or an equal value, True never standing for 1): the "subset" mode of `assert_calls`."""
    if not want:
        return True
    return isinstance(got, Mapping) and all(k in got and _same(got[k], v) for k, v in want.items())


def _matches(got: Call, want: Call) -> bool:
    return got[0] == want[0] and matches_subset(got[1], want[1])


def _pairing(got: list[Call], want: list[Call]) -> list[int | None]:
    """For each expected call, the index of a distinct actual call it matches (a maximum
    matching, so an early greedy choice cannot hide a valid assignment), or None."""
    owner: dict[int, int] = {}

    def place(w: int, seen: set[int]) -> bool:
        for g in range(len(got)):
            if g not in seen and _matches(got[g], want[w]):
                seen.add(g)
                if g not in owner or place(owner[g], seen):
                    owner[g] = w
                    return True
        return False

    for w in range(len(want)):
        place(w, set())
    by_want = {w: g for g, w in owner.items()}
    return [by_want.get(w) for w in range(len(want))]


def _text(call: Call) -> str:
    name, arguments = call
    if isinstance(arguments, Mapping):
        inner = ", ".join(f"{k}={_value(v)}" for k, v in arguments.items())
        return f"{name}({inner})"
    return f"{name}({shown(arguments, 80)})"


def _value(value: Any) -> str:
    if callable(value) and not isinstance(value, type):
        return f"<{getattr(value, '__name__', 'predicate')}>"
    return shown(value, 80) if not isinstance(value, str) else json.dumps(value)[:80]


def _listing(calls: list[Call]) -> str:
    if not calls:
        return "no tool calls"
    return "  ".join(f"{i}. {_text(call)}" for i, call in enumerate(calls, 1))


def _actual(transcript: Transcript | Sequence[Any]) -> tuple[list[Call], str]:
    __tracebackhide__ = True
    if isinstance(transcript, Transcript):
        prompt = next((e.content for e in transcript.events if isinstance(e, UserMessage)), "")
        return [_call(e, "a call") for e in transcript.tool_calls], prompt
    if isinstance(transcript, Sequence) and not isinstance(transcript, str | bytes):
        return [_call(item, f"call {i + 1}") for i, item in enumerate(transcript)], ""
    raise TypeError(
        f"assert_calls: {type(transcript).__name__} is not a Transcript or a list of calls; "
        "pass what run_agent returned."
    )


def assert_calls(
    transcript: Transcript | Sequence[Any],
    expected: Sequence[Any],
    mode: str = "strict",
) -> None:
    """Fail (sent / got / expected) unless the tool calls match `expected` in `mode`."""
    __tracebackhide__ = True
    if mode not in MODES:
        raise ValueError(f"assert_calls: mode={mode!r}; use one of {', '.join(MODES)}.")
    if isinstance(expected, str | bytes) or not isinstance(expected, Sequence):
        raise TypeError(
            f"assert_calls: expected={expected!r}; give a list, e.g. [('get_weather', {{}})]."
        )
    got, prompt = _actual(transcript)
    want = [_call(item, f"expected item {i + 1}") for i, item in enumerate(expected)]
    sent = shown(prompt) if prompt else "(a list of calls)"
    head = f"assert_calls(mode={mode!r}):"
    if mode == "strict":
        for index, (g, w) in enumerate(zip(got, want, strict=False), 1):
            if not _matches(g, w):
                _fail(f"{head} call {index} is {_text(g)}, not {_text(w)}", sent, got, want)
        if len(got) != len(want):
            _fail(f"{head} {len(got)} calls were made, {len(want)} expected", sent, got, want)
        return
    pairing = _pairing(got, want)
    missing = [_text(w) for w, g in zip(want, pairing, strict=True) if g is None]
    if missing:
        _fail(f"{head} no call matched {', '.join(missing)}", sent, got, want)
    if mode == "unordered" and len(got) != len(want):
        used = {g for g in pairing if g is not None}
        extra = [_text(c) for i, c in enumerate(got) if i not in used]
        _fail(f"{head} unexpected extra calls: {', '.join(extra)}", sent, got, want)


def _fail(headline: str, sent: str, got: list[Call], want: list[Call]) -> None:
    __tracebackhide__ = True
    fail(headline, sent=sent, got=_listing(got), expected=_listing(want))
