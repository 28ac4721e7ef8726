"""Exercise 2.3, unknown names, with suggestions: the check and its reference, `execute`.

An unknown name is the model's mistake to correct: the check wants an error as data with
suggestions, and `Send-Email` is registered unnormalised to catch name-case shortcuts.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_true,
)
from toolsys.checks.ch02._shared import get_weather_fn, tool_functions


def _normalize(name: str) -> str:
    """The exercises' normal form: `Get-Weather` and `get_weather` are the same name."""
    return name.lower().replace("-", "_")


def execute(tools: dict[str, Callable[..., Any]], name: str, arguments: dict) -> dict[str, Any]:
    """Reference for 2.3: `toolsys.Registry.execute` over the same tools, as a plain dict."""
    from toolsys import Registry

    registry = Registry()
    for key, fn in tools.items():
        registry.register(fn, name=key)
    return registry.execute(name, arguments).to_dict()


def _close(name: str, tools: dict[str, Any]) -> list[str]:
    """The exercise's definition of close: difflib on normalised names, registered names back."""
    by_normal = {_normalize(n): n for n in tools}
    close = difflib.get_close_matches(_normalize(name), list(by_normal), n=3)
    return [by_normal[c] for c in close]


# an unknown name; whether the whole did_you_mean is pinned (camelCase is left to the package's
# own normalisation, so only its best name is); names that must not be suggested
_UNKNOWN = [
    ("get_wether", True, ["random_integer", "search_docs", "calculator"]),
    ("Get-Weather", True, ["random_integer", "calculator"]),
    ("GetWeather", False, ["random_integer", "calculator"]),
    ("weather", True, ["random_integer", "calculator"]),
    ("calculate", True, ["get_weather", "get_time"]),
    ("search", True, ["get_weather", "calculator"]),
    ("send_email", True, ["search_docs", "get_weather"]),
    ("SEND-EMAIL", True, ["search_docs", "get_weather"]),
    ("get", True, []),
    ("launch_rockets", True, []),
]
_ENVELOPE = '{"ok": False, "error": {"code", "message", "suggestion", "details": {...}}}'


def _field(container: dict[str, Any], key: str, kind: type, what: str, shape: str) -> Any:
    value = container.get(key)
    if type(value) is not kind:
        raise CheckFailed(
            f"{what}[{key!r}] must be {shape}, got {value!r}.",
            expected=Described(_ENVELOPE),
            got=container,
            hint="Every unknown name gets the same envelope: fill each field, even when "
            "nothing is close.",
        )
    return value


def _unknown(student: Any, tools: dict[str, Any], name: str) -> dict[str, Any]:
    """The student's error for an unknown name, checked field by field for its shape."""
    what = f"execute(tools, {name!r}, {{}})"
    result = call_student(
        student,
        tools,
        name,
        {},
        what=what,
        returns="an error envelope",
        hint="Look the name up with `in` or .get(), never tools[name] unguarded.",
    )
    expect_plain(result, what=what, shape=_ENVELOPE)
    expect_true(
        type(result) is dict and result.get("ok") is False,
        f"{what} must return a dict with ok=False; got {result!r}.",
    )
    error = _field(result, "error", dict, what, "a dict")
    where = f"{what}['error']"
    expect_equal(error.get("code"), "UNKNOWN_TOOL", what=f"{where}['code']")
    message = _field(error, "message", str, where, "a str that quotes the unknown name")
    expect_true(
        repr(name) in message or f'"{name}"' in message,
        f"{where}['message'] must quote the unknown name ({name!r}); got {message!r}.",
        hint="Quote it with {name!r} in an f-string, so a typo or stray space is visible.",
    )
    _field(error, "suggestion", str, where, "a str: the best name, or every tool")
    details = _field(error, "details", dict, where, "a dict with 'did_you_mean'")
    _field(details, "did_you_mean", list, f"{where}['details']", "a list of tool names")
    return error


def _expect_suggestion(suggestion: str, name: str, best: list[str], tools: dict) -> None:
    """With a close name, the suggestion names it before any other tool; with none, all."""
    if not best:
        missing = [n for n in tools if n not in suggestion]
        expect_true(
            not missing,
            f"With nothing close to {name!r}, the suggestion must list the available tools; "
            f"{missing} missing from {suggestion!r}.",
            hint="With no close name, list them all so the model can pick one.",
        )
        return
    named = sorted((suggestion.find(n), n) for n in tools if n in suggestion)
    expect_true(
        bool(named) and named[0][1] == best[0],
        f"The suggestion for {name!r} must name the best match {best[0]!r} first, so the model "
        f"reads it as the answer; got {suggestion!r}.",
        hint="Say it first, e.g. \"Did you mean 'get_weather'?\", then list the others if you "
        "like.",
    )


@exercise(
    "2.3",
    title="Unknown names, with suggestions",
    hints=[
        "If the name is not in the dict, return {'ok': False, 'error': {...}} instead of raising.",
        "difflib.get_close_matches(word, candidates, n=3) ranks similar names; compare "
        "normalised forms (normalize(name)) and map each match back to the registered name, so "
        "'send_email' finds 'Send-Email'.",
        "Put the close names, best first, in error['details']['did_you_mean'] and name the best "
        "one in the suggestion; with no close name, the suggestion lists every tool.",
    ],
    reference=lambda: execute,
)
def _check_execute(student: Any) -> None:
    tools = tool_functions()
    expect_equal(
        student(tools, "get_weather", {"city": "Paris"}),
        {"ok": True, "value": get_weather_fn("Paris")},
        what="execute(tools, 'get_weather', {'city': 'Paris'})",
        hint="A known tool runs: {'ok': True, 'value': fn(**arguments)}.",
    )
    _expect_one_run(student)
    for name, pinned, unrelated in _UNKNOWN:
        _expect_unknown(student, tools, name, pinned, unrelated)
    expect_equal(
        sorted(tools),
        sorted(tool_functions()),
        what="the tool names after execute",
        hint="execute must not change the tools dict.",
    )
    # Five close names (at most three are suggested), and one registered in upper case.
    many = {name: get_weather_fn for name in _MANY}
    for name, unrelated in [("get_forcast", ["list_items"]), ("list_order", ["get_forecast"])]:
        _expect_unknown(student, many, name, True, unrelated)


_MANY = (
    "get_forecast",
    "get_forecasts",
    "set_forecast",
    "net_forecast",  # five names are close to get_forcast: only the best three are suggested
    "get_forecast_v2",
    "forecast_report",
    "LIST-ORDERS",
    "list_items",
)


def _expect_one_run(student: Any) -> None:
    """A known tool runs once: a tool that books or sends must not do it twice."""
    notes: list[str] = []

    def file_note(text: str) -> int:
        notes.append(text)
        return len(notes)

    what = "execute({'file_note': ...}, 'file_note', {'text': 'call the bank'})"
    got = student({"file_note": file_note}, "file_note", {"text": "call the bank"})
    expect_equal(
        notes,
        ["call the bank"],
        what=f"the notes filed by one {what}",
        hint="Call the tool once and keep its result: a tool that books or sends would do it "
        "twice.",
    )
    expect_equal(got, {"ok": True, "value": 1}, what=what)


def _expect_unknown(
    student: Any, tools: dict[str, Any], name: str, pinned: bool, unrelated: list[str]
) -> None:
    error = _unknown(student, tools, name)
    close = error["details"]["did_you_mean"]
    expected = _close(name, tools)
    where = f"execute(tools, {name!r}, {{}})['error']['details']['did_you_mean']"
    expect_true(
        len(close) <= 3,
        f"{where} lists {len(close)} names, {close!r}; suggest at most three, the best first.",
        hint="difflib.get_close_matches(word, candidates) returns at most n=3 names by default: "
        "keep that n.",
    )
    if pinned:
        expect_equal(
            close,
            expected,
            what=where,
            hint="Every close name (at most 3), best first, as registered: what "
            "difflib.get_close_matches finds among the normalised names (the registered ones "
            "normalised too).",
        )
    else:
        expect_true(
            0 < len(close) <= 3 and close[0] == expected[0],
            f"{where} must list at most 3 close names, {expected[0]!r} first; got {close!r}.",
        )
    wrong = [n for n in unrelated if n in close]
    expect_true(
        not wrong,
        f"{where} includes unrelated {wrong}; suggest only close names.",
        hint="Use difflib's default cutoff (0.6).",
    )
    _expect_suggestion(error["suggestion"], name, expected[:1], tools)
