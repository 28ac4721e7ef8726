"""Checks for chapter 04, error-as-data: an executor that never raises, messages a model can act
on, and redaction of secrets and paths. The cases are the inputs a careless version mishandles.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any, Literal

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
)
from toolsys.checks._plain import as_str

# -- 4.1 -------------------------------------------------------------------------------------


# An exception of the tool's own, which no list of built-in exceptions catches.
_QuotaExceeded = type("QuotaExceeded", (Exception,), {"__module__": __name__})


def _add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


def _div(a: int, b: int) -> float:
    """Divide a by b.

    Args:
        a: Dividend.
        b: Divisor.
    """
    return a / b


def _lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return {"x": "found"}[key]


def _ping() -> str:
    """Check the service answers."""
    return "pong"


def _forget(note: str) -> None:
    """Forget a note; returns nothing.

    Args:
        note: The note.
    """


def _charge(amount: int) -> str:
    """Charge an amount (here: the quota is always used up).

    Args:
        amount: Cents to charge.
    """
    raise _QuotaExceeded(f"monthly quota used up, cannot charge {amount}")


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "add": _add,
    "div": _div,
    "lookup": _lookup,
    "ping": _ping,
    "forget": _forget,
    "charge": _charge,
}


def safe_execute(functions: dict[str, Callable[..., Any]], name: str, arguments: str) -> dict:
    """Reference for 4.1: `toolsys.Registry.execute` over the same functions, as plain data."""
    from toolsys import Registry

    registry = Registry()
    for key, function in functions.items():
        registry.register(function, name=key)
    return registry.execute(name, arguments).to_dict()


_ENVELOPE = "{'ok': True, 'value': ...} or {'ok': False, 'error': {'code': ..., 'message': ...}}"


def _run(student: Callable[..., Any], name: str, arguments: str) -> tuple[dict[str, Any], str]:
    """The student's envelope for one call, checked for its shape; and how the call reads."""
    what = f"safe_execute(functions, {name!r}, {arguments!r})"
    got = call_student(
        student,
        dict(_FUNCTIONS),
        name,
        arguments,
        what=what,
        returns="an envelope dict",
        hint="Wrap each step (lookup, json.loads, the call) so every failure becomes "
        "{'ok': False, 'error': {...}}; catch Exception around the call, not a list of kinds.",
    )
    expect_plain(got, what=what, shape=_ENVELOPE)
    if type(got) is not dict or type(got.get("ok")) is not bool:
        raise CheckFailed(
            f"{what} should return a dict with a boolean 'ok'.",
            expected=Described(_ENVELOPE),
            got=got,
            hint="Every path through safe_execute ends in `return` with one of the two envelopes.",
        )
    return got, what


def _expect_ok(student: Callable[..., Any], name: str, arguments: str, value: Any) -> None:
    got, what = _run(student, name, arguments)
    expect_equal(
        got,
        {"ok": True, "value": value},
        what=what,
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
    got, what = _run(student, name, arguments)
    error = got.get("error")
    code = as_str(error.get("code")) if type(error) is dict else None
    if got["ok"] or type(error) is not dict or code not in codes:
        raise CheckFailed(
            f"{what} should fail with code {' or '.join(codes)}.",
            expected=Described(f"{{'ok': False, 'error': {{'code': {codes[0]!r}, ...}}}}"),
            got=got,
            hint=hint,
        )
    message, suggestion = error.get("message"), error.get("suggestion")
    if type(message) is not str or type(suggestion) not in (str, type(None)):
        raise CheckFailed(
            f"{what}['error'] needs a 'message' (and may have a 'suggestion'), as strings.",
            expected=Described(f"{{'code': {code!r}, 'message': '...'}}"),
            got=error,
            hint=hint,
        )
    text = f"{message} {suggestion or ''}"
    missing = [word for word in mentions if word not in text]
    if missing:
        raise CheckFailed(
            f"The error message of {what} does not mention {', '.join(map(repr, missing))}.",
            expected=Described(f"a message mentioning {', '.join(map(repr, mentions))}"),
            got=text,
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
        "json.loads('') fails: treat empty arguments as '{}'. Check the decoded value is a dict "
        "(a list, a number or a string is not).",
        "For the call, catch Exception (not a list of kinds: tools raise their own) and put "
        "type(exc).__name__ and the tool name in the message; a tool returning None has "
        "succeeded.",
    ],
    reference=lambda: safe_execute,
)
def _check_safe_execute(student: Callable[..., Any]) -> None:
    _expect_ok(student, "add", '{"a": 2, "b": 3}', 5)
    _expect_ok(student, "ping", "", "pong")
    _expect_ok(student, "forget", '{"note": "x"}', None)
    _expect_error(
        student,
        "ad",
        '{"a": 2, "b": 3}',
        ("UNKNOWN_TOOL",),
        ("'ad'", *_FUNCTIONS),
        "Name the unknown tool (quoted, e.g. 'ad') and list every available tool, so the "
        "model can pick the right one.",
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
    for arguments in ("[2, 3]", "42", '"2, 3"'):
        _expect_error(
            student,
            "add",
            arguments,
            ("INVALID_ARGUMENTS",),
            ("add", "object"),
            "Valid JSON is not enough: the arguments must be a JSON object (a dict), not a "
            "list, a number or a string. Test isinstance(arguments, dict) and say 'object'.",
        )
    for name, arguments, kind, why in (
        ("div", '{"a": 1, "b": 0}', "ZeroDivisionError", "Catch Exception around the call"),
        ("lookup", '{"key": "y"}', "KeyError", "Any exception is a failure to report"),
        ("charge", '{"amount": 5}', "QuotaExceeded", "Tools raise exceptions of their own"),
    ):
        _expect_error(
            student,
            name,
            arguments,
            ("EXECUTION_ERROR",),
            (name, kind),
            f"{why}: catch Exception; the message needs the tool name and the exception type.",
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


# arguments, the arguments at fault (named after the tool), words the message must contain,
# words it must not contain, why
_MessageCase = tuple[dict[str, Any], tuple[str, ...], tuple[str, ...], tuple[str, ...], str]
_MESSAGE_CASES: list[_MessageCase] = [
    (
        {"value": 20, "to_unit": "rankine"},
        ("to_unit",),
        ("rankine", "celsius", "fahrenheit", "kelvin"),
        (),
        "For a closed set, list every allowed value: the model picks one of them next time.",
    ),
    (
        {"value": "warm", "to_unit": "kelvin"},
        ("value",),
        ("warm", "number"),
        (),
        "Quote the bad value and say what type was expected (the schema's 'type').",
    ),
    (
        {"value": 20, "to_unit": "kelvin", "precision": 1.5},
        ("precision",),
        ("1.5", "integer"),
        (),
        "Quote the bad value and say what type was expected (the schema's 'type').",
    ),
    (
        {"to_unit": "kelvin"},
        ("value",),
        ("missing",),
        ("kelvin",),
        "For error type 'missing', say the argument is missing, and do not quote 'input': it is "
        "the whole arguments object, not a bad value.",
    ),
    (
        {"value": 20, "to_unit": "kelvin", "units": "K"},
        ("units",),
        ("value", "to_unit", "precision"),
        (),
        "For 'extra_forbidden', say the argument does not exist and list every accepted one "
        "(all the keys of schema['properties']).",
    ),
    (
        {"value": "warm", "to_unit": "rankine"},
        ("value", "to_unit"),
        ("warm", "rankine"),
        (),
        "Report every problem in error.errors(), not only the first.",
    ),
]
# an unknown argument must be called one: any of these says so
_NO_SUCH = ("unknown", "not exist", "n't exist", "no such", "not accepted", "unexpected", "extra")
_INTERNALS = ("https://", "[type=", "input_value=", "'loc'", "'msg'", "'type':")


def actionable_message(tool: str, schema: dict, error: Any) -> str:
    """Reference for 4.2: the message `toolsys.failures` writes for invalid arguments."""
    from toolsys.failures import invalid_arguments

    info = invalid_arguments(SimpleNamespace(name=tool, parameters=schema), error)
    return f"{info.message} {info.suggestion}"


def _expect_message(message: str, what: str, at_fault: tuple[str, ...], hint: str) -> None:
    """The tool comes first, and an unknown argument is called unknown."""
    first = min((message.find(name) for name in at_fault if name in message), default=-1)
    if _TOOL not in message or message.find(_TOOL) > first:
        raise CheckFailed(
            f"{what} must start with the tool name {_TOOL!r}, before the arguments at fault.",
            expected=Described(f"a message starting e.g. 'Invalid arguments for {_TOOL}: ...'"),
            got=message,
            hint="Name the tool first: the model may have called several.",
        )
    if "units" in at_fault and not any(word in message.lower() for word in _NO_SUCH):
        raise CheckFailed(
            f"{what} must say that 'units' does not exist (e.g. 'unknown argument').",
            expected=Described("a message saying the argument is unknown"),
            got=message,
            hint=hint,
        )


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
    reference=lambda: actionable_message,
)
def _check_actionable_message(student: Callable[[str, dict, Any], str]) -> None:
    from pydantic import ValidationError

    tool = _convert_tool()
    for arguments, at_fault, words, banned, hint in _MESSAGE_CASES:
        try:
            tool.validate(arguments)
        except ValidationError as exc:
            error = exc
        else:  # pragma: no cover - the cases are all invalid
            raise AssertionError(f"{arguments} validated")
        what = f"actionable_message({_TOOL!r}, schema, <error for {json.dumps(arguments)}>)"
        message = student(_TOOL, tool.parameters, error)
        if type(message) is not str:
            raise CheckFailed(
                f"{what} should return a str.",
                expected=Described("a str"),
                got=message,
                hint="Build the message from the problems and `return` it; do not print it.",
            )
        wanted = (_TOOL, *at_fault, *words)
        missing = [word for word in wanted if word not in message]
        if missing:
            raise CheckFailed(
                f"{what} does not mention {', '.join(map(repr, missing))}.",
                expected=Described(f"a message mentioning {', '.join(map(repr, wanted))}"),
                got=message,
                hint=hint
                if _TOOL not in missing
                else "Name the tool first: the model may have called several.",
            )
        quoted = [word for word in banned if word in message]
        if quoted:
            raise CheckFailed(
                f"{what} quotes {', '.join(map(repr, quoted))}, which is not at fault.",
                expected=Described("no 'input' for a missing argument"),
                got=message,
                hint=hint,
            )
        _expect_message(message, what, at_fault, hint)
        noise = [bit for bit in _INTERNALS if bit in message]
        if noise or len(message) > 500:
            raise CheckFailed(
                f"{what} contains pydantic internals or is too long ({len(message)} chars).",
                expected=Described("a message under 500 characters, no URL, no [type=...]"),
                got=message,
                hint="Write the words yourself from error.errors(); do not paste str(error) or "
                "the problem dicts.",
            )


# -- 4.3 -------------------------------------------------------------------------------------

# text, environment, the redacted text, secrets that must be gone, why
_REDACT_CASES: list[tuple[str, dict[str, str], str, tuple[str, ...], str]] = [
    (
        "API key sk-fake-aaaa1111 was rejected",
        {"OPENAI_API_KEY": "sk-fake-aaaa1111", "HOME": "/home/alice"},
        "API key [redacted] was rejected",
        ("sk-fake-aaaa1111",),
        "Replace the value of every variable whose NAME contains KEY, TOKEN, SECRET or "
        "PASSWORD with [redacted].",
    ),
    (
        "db login with hunter2hunter2 as client cl-fake-5555",
        {"DB_PASSWORD": "hunter2hunter2", "CLIENT_SECRET": "cl-fake-5555"},
        "db login with [redacted] as client [redacted]",
        ("hunter2hunter2", "cl-fake-5555"),
        "PASSWORD and SECRET are secret words too, not only KEY and TOKEN.",
    ),
    (
        "GET https://api.weather.example/v1/forecast?key=sk-fake-bbbb2222 failed",
        {"WEATHER_API_KEY": "sk-fake-bbbb2222"},
        "GET https://api.weather.example/v1/forecast?key=[redacted] failed",
        ("sk-fake-bbbb2222",),
        "A secret inside a URL is still a secret; and a URL is not a file path: keep it.",
    ),
    (
        "auth with ghp_fake_cccc3333 denied",
        {"github_token": "ghp_fake_cccc3333"},
        "auth with [redacted] denied",
        ("ghp_fake_cccc3333",),
        "Compare names case-insensitively: github_token is a TOKEN too.",
    ),
    (
        "tried tok-fake-1234-extra, then tok-fake-1234",
        {"A_TOKEN": "tok-fake-1234", "B_TOKEN": "tok-fake-1234-extra"},
        "tried [redacted], then [redacted]",
        ("tok-fake-1234", "extra"),
        "When one secret is a prefix of another, replace the longest first.",
    ),
    (
        "p4ss+word.1 rejected; retried p4ss+word.1",
        {"MAIL_PASSWORD": "p4ss+word.1"},
        "[redacted] rejected; retried [redacted]",
        ("p4ss+word.1",),
        "Replace every occurrence, and replace the text as it is: str.replace, not a regular "
        "expression ('+' and '.' mean something there).",
    ),
    (
        "retry 1 of 3 with sk-fake-dddd4444",
        {"DEBUG_TOKEN": "1", "API_KEY": "sk-fake-dddd4444"},
        "retry 1 of 3 with [redacted]",
        ("sk-fake-dddd4444",),
        "Ignore secret values shorter than 4 characters, or every '1' in the text disappears.",
    ),
    (
        "session x9q2 expired; pin abc kept",
        {"SESSION_TOKEN": "x9q2", "PIN_SECRET": "abc"},
        "session [redacted] expired; pin abc kept",
        ("x9q2",),
        "A value of exactly 4 characters is a secret (at least 4: len(value) >= 4); 3 is not.",
    ),
    (
        "cannot open '/home/alice/reports/q3.csv': permission denied",
        {},
        "cannot open '<path>/q3.csv': permission denied",
        ("/home", "alice"),
        "Replace all the directories of an absolute path, keep only the file name, and stop at "
        "the closing quote.",
    ),
    (
        'File "/srv/app/tools/weather.py", line 3, in get_weather',
        {},
        'File "<path>/weather.py", line 3, in get_weather',
        ("/srv", "app/tools"),
        "A path ends at a quote, comma, space or bracket.",
    ),
    (
        "/root/notes.txt: no space left on device",
        {},
        "<path>/notes.txt: no space left on device",
        ("/root",),
        "A path may start the text, and one directory is enough: /root/notes.txt is absolute.",
    ),
    (
        "copied /data/in/a.csv,/data/out/b.csv",
        {},
        "copied <path>/a.csv,<path>/b.csv",
        ("/data",),
        "A comma ends a path, and the next path starts after it.",
    ),
    (
        "see data/orders.csv and/or the 1/2 split",
        {},
        "see data/orders.csv and/or the 1/2 split",
        (),
        "Only absolute paths (starting with /) are redacted; relative ones and 'and/or' stay.",
    ),
]


def redact(text: str, environ: Mapping[str, str]) -> str:
    """Reference for 4.3: `toolsys`'s redaction with `environ` as the environment."""
    from unittest import mock

    from toolsys._redact import redact as toolsys_redact

    with mock.patch.dict(os.environ, dict(environ)):
        return toolsys_redact(text)


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
    reference=lambda: redact,
)
def _check_redact(student: Callable[[str, Mapping[str, str]], str]) -> None:
    for text, environ, expected, gone, hint in _REDACT_CASES:
        what = f"redact({text!r}, {environ!r})"
        got = student(text, dict(environ))
        if type(got) is not str:
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
                expected=expected,
                got=got,
                hint=hint,
            )
        if got != expected:
            raise CheckFailed(
                f"{what} changed the text differently from the exercise's rules.",
                expected=expected,
                got=got,
                hint=hint,
            )
