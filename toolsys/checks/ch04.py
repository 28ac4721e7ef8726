"""Checks for chapter 04, error-as-data: an executor that never raises, messages a model can act
on, and redaction of secrets and paths. The cases are the inputs a careless version mishandles.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any, Literal

from toolsys.checks import CheckFailed, Described, exercise

# -- 4.1 -------------------------------------------------------------------------------------


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


def div(a: int, b: int) -> float:
    """Divide a by b.

    Args:
        a: Dividend.
        b: Divisor.
    """
    return a / b


def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return {"x": "found"}[key]


def ping() -> str:
    """Check the service answers."""
    return "pong"


def forget(note: str) -> None:
    """Forget a note; returns nothing.

    Args:
        note: The note.
    """


FUNCTIONS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (add, div, lookup, ping, forget)}


def _reference_safe_execute() -> Callable[[dict[str, Callable[..., Any]], str, str], dict]:
    from toolsys import Registry

    def safe_execute(functions: dict[str, Callable[..., Any]], name: str, arguments: str) -> dict:
        registry = Registry()
        for function in functions.values():
            registry.register(function)
        return registry.execute(name, arguments).to_dict()

    return safe_execute


def _call(student: Callable[..., Any], name: str, arguments: str) -> dict[str, Any]:
    what = f"safe_execute(functions, {name!r}, {arguments!r})"
    try:
        got = student(dict(FUNCTIONS), name, arguments)
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(
            f"{what} raised {type(exc).__name__}: {exc}. It must never raise.",
            expected=Described("an envelope dict"),
            got=exc,
            hint="Wrap each step (lookup, json.loads, the call) so every failure becomes "
            "{'ok': False, 'error': {...}}.",
        ) from None
    if not isinstance(got, dict) or not isinstance(got.get("ok"), bool):
        raise CheckFailed(
            f"{what} should return a dict with a boolean 'ok'.",
            expected=Described("{'ok': True, 'value': ...} or {'ok': False, 'error': {...}}"),
            got=got,
            hint="Every path through safe_execute ends in `return` with one of the two envelopes.",
        )
    return got


def _expect_ok(student: Callable[..., Any], name: str, arguments: str, value: Any) -> None:
    got = _call(student, name, arguments)
    if got != {"ok": True, "value": value}:
        raise CheckFailed(
            f"safe_execute(functions, {name!r}, {arguments!r}) should succeed.",
            expected={"ok": True, "value": value},
            got=got,
            hint="A tool that returns None has still succeeded; empty arguments ('') mean {}."
            if value in (None, "pong")
            else "When nothing fails, return {'ok': True, 'value': <what the function returned>}.",
        )


def _expect_error(
    student: Callable[..., Any],
    name: str,
    arguments: str,
    codes: tuple[str, ...],
    mentions: tuple[str, ...],
    hint: str,
) -> None:
    got = _call(student, name, arguments)
    error = got.get("error")
    what = f"safe_execute(functions, {name!r}, {arguments!r})"
    if got["ok"] or not isinstance(error, dict) or error.get("code") not in codes:
        raise CheckFailed(
            f"{what} should fail with code {' or '.join(codes)}.",
            expected=Described(f"{{'ok': False, 'error': {{'code': {codes[0]!r}, ...}}}}"),
            got=got,
            hint=hint,
        )
    text = f"{error.get('message', '')} {error.get('suggestion', '')}"
    missing = [word for word in mentions if word not in text]
    if missing:
        raise CheckFailed(
            f"The error message of {what} does not mention {', '.join(map(repr, missing))}.",
            expected=Described(f"a message mentioning {', '.join(map(repr, mentions))}"),
            got=text.strip(),
            hint=hint,
        )


def _json_position(text: str) -> int:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.pos
    raise AssertionError(f"{text!r} is valid JSON")


@exercise(
    "4.1",
    title="An executor that never raises",
    hints=[
        "Three steps, each can fail: look the tool up, decode the JSON, call the function. "
        "Give each its own try/except and its own code.",
        "json.JSONDecodeError has .pos (the character position): put it in the message. "
        "json.loads('') fails: treat empty arguments as '{}'. Check the decoded value is a dict.",
        "For the call, catch Exception (not only ValueError) and put type(exc).__name__ and the "
        "tool name in the message; a tool returning None has succeeded.",
    ],
    reference=_reference_safe_execute,
)
def check_safe_execute(student: Callable[..., Any]) -> None:
    _expect_ok(student, "add", '{"a": 2, "b": 3}', 5)
    _expect_ok(student, "ping", "", "pong")
    _expect_ok(student, "forget", '{"note": "x"}', None)
    _expect_error(
        student,
        "ad",
        '{"a": 2, "b": 3}',
        ("UNKNOWN_TOOL",),
        ("'ad'", "add"),
        "Name the unknown tool (quoted, e.g. 'ad') and list the available tools, so the model "
        "can pick the right one.",
    )
    broken = '{"a": 2, "b": }'
    _expect_error(
        student,
        "add",
        broken,
        ("INVALID_JSON",),
        ("add", str(_json_position(broken))),
        "Catch json.JSONDecodeError and say which tool and at which position (exc.pos).",
    )
    _expect_error(
        student,
        "add",
        "[2, 3]",
        ("INVALID_ARGUMENTS",),
        ("add", "object"),
        "Valid JSON is not enough: the arguments must be a JSON object (a dict). Say so.",
    )
    _expect_error(
        student,
        "div",
        '{"a": 1, "b": 0}',
        ("EXECUTION_ERROR",),
        ("div", "ZeroDivisionError"),
        "Catch Exception around the call; the message needs the tool name and the exception type.",
    )
    _expect_error(
        student,
        "lookup",
        '{"key": "y"}',
        ("EXECUTION_ERROR",),
        ("lookup", "KeyError"),
        "Any exception is a failure to report: catch Exception, not only ValueError.",
    )
    _expect_error(
        student,
        "add",
        '{"x": 1}',
        ("INVALID_ARGUMENTS", "EXECUTION_ERROR"),
        ("add",),
        "Calling add(x=1) raises TypeError: that is a failure like any other.",
    )


# -- 4.2 -------------------------------------------------------------------------------------

_TOOL = "convert_temperature"


def _convert_tool() -> Any:
    from toolsys import Registry

    def convert_temperature(
        value: float, to_unit: Literal["celsius", "fahrenheit", "kelvin"], precision: int = 1
    ) -> float:
        """Convert a temperature given in celsius.

        Args:
            value: Temperature in degrees celsius.
            to_unit: Unit to convert to.
            precision: Decimals in the answer.
        """
        return round(value, precision)

    return Registry().register(convert_temperature)


# arguments, words the message must contain, why
MESSAGE_CASES: list[tuple[dict[str, Any], tuple[str, ...], str]] = [
    (
        {"value": 20, "to_unit": "rankine"},
        ("to_unit", "rankine", "celsius", "fahrenheit", "kelvin"),
        "For a closed set, list every allowed value: the model picks one of them next time.",
    ),
    (
        {"value": "warm", "to_unit": "kelvin"},
        ("value", "warm", "number"),
        "Quote the bad value and say what type was expected (the schema's 'type').",
    ),
    (
        {"value": 20, "to_unit": "kelvin", "precision": 1.5},
        ("precision", "1.5", "integer"),
        "Quote the bad value and say what type was expected (the schema's 'type').",
    ),
    (
        {"to_unit": "kelvin"},
        ("value", "missing"),
        "For error type 'missing', say the argument is missing (its 'input' is the whole "
        "arguments object, not a bad value).",
    ),
    (
        {"value": 20, "to_unit": "kelvin", "units": "K"},
        ("units", "precision"),
        "For 'extra_forbidden', say the argument does not exist and list the accepted ones "
        "(the schema's properties).",
    ),
    (
        {"value": "warm", "to_unit": "rankine"},
        ("warm", "rankine"),
        "Report every problem in error.errors(), not only the first.",
    ),
]


def _reference_message() -> Callable[[str, dict, Any], str]:
    from toolsys.failures import invalid_arguments

    def actionable_message(tool: str, schema: dict, error: Any) -> str:
        info = invalid_arguments(SimpleNamespace(name=tool, parameters=schema), error)
        return f"{info.message} {info.suggestion}"

    return actionable_message


@exercise(
    "4.2",
    title="An error message a model can act on",
    hints=[
        "Loop over error.errors(): each has 'loc' (a tuple: the path), 'type', 'input' and 'msg'.",
        "Start with the tool name. For each problem: the argument (loc joined with '.'), then "
        "by type: 'missing' -> 'missing required argument'; 'extra_forbidden' -> 'unknown "
        "argument; accepted: ...'; otherwise 'got <input>, expected <...>'.",
        "The expectation comes from schema['properties'][arg]: 'enum' gives the allowed values, "
        "'type' the type. Never paste str(error): it has pydantic's URL and internals.",
    ],
    reference=_reference_message,
)
def check_actionable_message(student: Callable[[str, dict, Any], str]) -> None:
    from pydantic import ValidationError

    tool = _convert_tool()
    for arguments, words, hint in MESSAGE_CASES:
        try:
            tool.validate(arguments)
        except ValidationError as exc:
            error = exc
        else:  # pragma: no cover - the cases are all invalid
            raise AssertionError(f"{arguments} validated")
        what = f"actionable_message({_TOOL!r}, schema, <error for {json.dumps(arguments)}>)"
        message = student(_TOOL, tool.parameters, error)
        if not isinstance(message, str):
            raise CheckFailed(
                f"{what} should return a str.",
                expected=Described("a str"),
                got=message,
                hint="Build the message from the problems and `return` it; do not print it.",
            )
        missing = [word for word in (_TOOL, *words) if word not in message]
        if missing:
            raise CheckFailed(
                f"{what} does not mention {', '.join(map(repr, missing))}.",
                expected=Described(f"a message mentioning {', '.join(map(repr, (_TOOL, *words)))}"),
                got=message,
                hint=hint
                if _TOOL not in missing
                else "Name the tool first: the model may have called several.",
            )
        noise = [bit for bit in ("https://", "[type=", "input_value=") if bit in message]
        if noise or len(message) > 500:
            raise CheckFailed(
                f"{what} contains pydantic internals or is too long ({len(message)} chars).",
                expected=Described("a message under 500 characters, no URL, no [type=...]"),
                got=message,
                hint="Write the words yourself from error.errors(); do not paste str(error).",
            )


# -- 4.3 -------------------------------------------------------------------------------------

# text, environment, words that must be gone, words that must remain, why
REDACT_CASES: list[tuple[str, dict[str, str], tuple[str, ...], tuple[str, ...], str]] = [
    (
        "API key sk-fake-aaaa1111 was rejected",
        {"OPENAI_API_KEY": "sk-fake-aaaa1111", "HOME": "/home/alice"},
        ("sk-fake-aaaa1111",),
        ("API key [redacted] was rejected",),
        "Replace the value of every variable whose NAME contains KEY, TOKEN, SECRET or "
        "PASSWORD with [redacted].",
    ),
    (
        "GET https://api.weather.example/v1/forecast?key=sk-fake-bbbb2222 failed",
        {"WEATHER_API_KEY": "sk-fake-bbbb2222"},
        ("sk-fake-bbbb2222",),
        ("https://api.weather.example/v1/forecast?key=[redacted] failed",),
        "A secret inside a URL is still a secret; and a URL is not a file path: keep it.",
    ),
    (
        "auth with ghp_fake_cccc3333 denied",
        {"github_token": "ghp_fake_cccc3333"},
        ("ghp_fake_cccc3333",),
        ("denied",),
        "Compare names case-insensitively: github_token is a TOKEN too.",
    ),
    (
        "tried tok-fake-1234-extra, then tok-fake-1234",
        {"A_TOKEN": "tok-fake-1234", "B_TOKEN": "tok-fake-1234-extra"},
        ("tok-fake-1234", "extra"),
        ("tried [redacted], then [redacted]",),
        "When one secret is a prefix of another, replace the longest first.",
    ),
    (
        "retry 1 of 3 with sk-fake-dddd4444",
        {"DEBUG_TOKEN": "1", "API_KEY": "sk-fake-dddd4444"},
        ("sk-fake-dddd4444",),
        ("retry 1 of 3 with [redacted]",),
        "Ignore secret values shorter than 4 characters, or every '1' in the text disappears.",
    ),
    (
        "cannot open '/home/alice/reports/q3.csv': permission denied",
        {},
        ("/home", "alice"),
        ("q3.csv'", "permission denied", "'"),
        "Replace the directories of an absolute path, keep the file name, and stop at the "
        "closing quote.",
    ),
    (
        'File "/srv/app/tools/weather.py", line 3, in get_weather',
        {},
        ("/srv", "app/tools"),
        ('weather.py", line 3, in get_weather',),
        "A path ends at a quote, comma, space or bracket.",
    ),
    (
        "see data/orders.csv and/or the 1/2 split",
        {},
        (),
        ("see data/orders.csv and/or the 1/2 split",),
        "Only absolute paths (starting with /) are redacted; relative ones and 'and/or' stay.",
    ),
]


def _reference_redact() -> Callable[[str, Mapping[str, str]], str]:
    from unittest import mock

    from toolsys._redact import redact as toolsys_redact

    def redact(text: str, environ: Mapping[str, str]) -> str:
        with mock.patch.dict(os.environ, dict(environ)):
            return toolsys_redact(text)

    return redact


@exercise(
    "4.3",
    title="Redact secrets and absolute paths",
    hints=[
        "Two passes: secrets first, with str.replace, then paths, with one regular expression. "
        "A variable is secret because of its name, not its value.",
        "Secrets: the values of variables whose name.upper() contains KEY, TOKEN, SECRET or "
        "PASSWORD and that are at least 4 characters long, replaced longest first. Paths: an "
        "absolute path starts at a '/' that is not preceded by a letter, digit, '.', '/' or ':' "
        "(a lookbehind, (?<!...), keeps URLs and 'and/or' out).",
        "Path pattern: the lookbehind, '/', then one or more 'segment/' and a last segment, where "
        "a segment excludes whitespace, quotes, brackets, commas, semicolons and colons. Replace "
        "each match with '<path>/' + the last segment: re.sub(pattern, lambda m: ..., text).",
    ],
    reference=_reference_redact,
)
def check_redact(student: Callable[[str, Mapping[str, str]], str]) -> None:
    for text, environ, gone, kept, hint in REDACT_CASES:
        what = f"redact({text!r}, {environ!r})"
        got = student(text, dict(environ))
        if not isinstance(got, str):
            raise CheckFailed(
                f"{what} should return a str.",
                expected=Described("a str"),
                got=got,
                hint="Return the redacted copy of `text` (strings are immutable: keep the result "
                "of each replace).",
            )
        leaked = [word for word in gone if word in got]
        if leaked:
            raise CheckFailed(
                f"{what} still contains {', '.join(map(repr, leaked))}.",
                expected=Described(f"no {', '.join(map(repr, gone))}"),
                got=got,
                hint=hint,
            )
        lost = [word for word in kept if word not in got]
        if lost:
            raise CheckFailed(
                f"{what} removed or changed text it should keep: {', '.join(map(repr, lost))}.",
                expected=Described(f"text containing {', '.join(map(repr, kept))}"),
                got=got,
                hint=hint,
            )
