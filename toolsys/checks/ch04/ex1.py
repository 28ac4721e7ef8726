"""Exercise 4.1, an executor that never raises: the check and its reference, `safe_execute`.

`execute` must never raise: each step (lookup, JSON decoding, the call) fails in its own way with
its own code, including an exception no list of built-ins catches.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from toolsys._platform import BROWSER
from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
)
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import as_str

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


def _label(count: int) -> str:
    """Label a count (a bug inside: it adds an int to a str).

    Args:
        count: How many items.
    """
    return "items: " + count  # type: ignore[operator]  # the tool's own TypeError, on purpose


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "add": _add,
    "div": _div,
    "lookup": _lookup,
    "ping": _ping,
    "forget": _forget,
    "charge": _charge,
    "label": _label,
}


def safe_execute(functions: dict[str, Callable[..., Any]], name: str, arguments: str) -> dict:
    """Reference for 4.1: `toolsys.Registry.execute` over the same functions, as plain data."""
    from toolsys import Registry

    registry = Registry()
    for key, function in functions.items():
        registry.register(function, name=key)
    return registry.execute(name, arguments).to_dict()


_ENVELOPE = "{'ok': True, 'value': ...} or {'ok': False, 'error': {'code': ..., 'message': ...}}"


def _run(
    student: Callable[..., Any], name: str, arguments: str, raised_hint: str | None = None
) -> tuple[dict[str, Any], str]:
    """The student's envelope for one call, checked for its shape; and how the call reads."""
    what = f"safe_execute(functions, {name!r}, {_shown(arguments)})"
    got = call_student(
        student,
        dict(_FUNCTIONS),
        name,
        arguments,
        what=what,
        returns="an envelope dict",
        hint=raised_hint
        or "Wrap each step (lookup, json.loads, the call) so every failure becomes "
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


def _shown(arguments: str) -> str:
    """The arguments as the messages show them: a huge text by its start and its length."""
    if len(arguments) <= 80:
        return repr(arguments)
    return f"{arguments[:20]!r}… ({len(arguments):,} characters)"


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
    raised_hint: str | None = None,
) -> None:
    got, what = _run(student, name, arguments, raised_hint)
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


# What each tool takes, right-typed: wrong types, missing or extra arguments, blank text and
# `null` are left out, as toolsys's registry (the reference) validates them (INVALID_ARGUMENTS)
# or reads them as {} where the text has the function raise (EXECUTION_ERROR) or the text fail.
_ARGUMENTS_41: dict[str, list[dict[str, Any]]] = {
    "add": [{"a": 2, "b": 3}, {"a": -1, "b": 10**12}, {"b": 0, "a": 0}],
    "div": [{"a": 1, "b": 0}, {"a": 7, "b": 2}],
    "lookup": [{"key": "x"}, {"key": "y"}, {"key": "é"}],
    "ping": [{}],
    "forget": [{"note": "Zoë"}, {"note": ""}],
    "charge": [{"amount": 500}],
    "label": [{"count": 3}],
}
_BROKEN = ['{"a": 2,', "{'a': 2}", "{", "nope", '{"a": 2}}', '{"a": 2 "b": 3}']
_NOT_OBJECTS = ["[2, 3]", '"x"', "3", "true", "[]"]  # not null: the registry reads it as {}


def _execute_call(rng: random.Random, size: int) -> Call:
    """A tool of the check's (or a name it does not have: a case variant, a typo, ""), and
    argument text: a right-typed object in any spelling, "" for none, broken JSON, JSON that is
    no object, or (rarely) nesting too deep for json.loads."""
    name = rng.choice([*_ARGUMENTS_41, "ad", "ADD", "", "pïng"])
    pick = rng.randrange(10)
    if pick < 6 and name in _ARGUMENTS_41 and (pick < 5 or name != "ping"):
        arguments = rng.choice(_ARGUMENTS_41[name])
        text = json.dumps(arguments, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
    elif pick < 6 and (name == "ping" or name not in _ARGUMENTS_41):  # none needed
        text = rng.choice(["", "{}"])
    elif pick < 8:
        text = rng.choice(_BROKEN)
    elif pick < 9 or size < 10:
        text = rng.choice(_NOT_OBJECTS)
    elif BROWSER:  # json.loads this deep overflows WebAssembly's stack and kills the kernel
        text = _NOT_OBJECTS[0]
    else:
        text = "[" * 100_000 + "]" * 100_000
    return Call((name, text))


_GENERATED = calls(_execute_call, seed=41, count=150)


def _outcome(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func`'s envelope on the check's tools as what the text fixes: ok and the value, or the
    error's code (the messages' words are the hand-written cases' to read)."""

    def run(name: str, arguments: str) -> Any:
        got = func(dict(_FUNCTIONS), name, arguments)
        if type(got) is not dict:
            return got
        if got.get("ok") is True:
            return {"ok": True, "value": got.get("value")}
        error = got.get("error")
        return {
            "ok": got.get("ok"),
            "code": as_str(error.get("code")) if type(error) is dict else error,
        }

    return run


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
    # valid JSON that reads as false: not an object. (`null` is left open: the package, like
    # some providers, reads it as "no arguments"; the prose names only "" for that.)
    for arguments in ("[]", "0", "false", '""'):
        _expect_error(
            student,
            "ping",
            arguments,
            ("INVALID_ARGUMENTS",),
            ("ping", "object"),
            f"{arguments} is valid JSON but not an object, even for a tool without "
            "parameters: only empty text means {}. `json.loads(text) or {}` turns [], 0, false "
            'and "" into {}; test isinstance(decoded, dict) on what json.loads returned.',
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
    # a TypeError from inside the tool is the tool failing, whatever its kind
    _expect_error(
        student,
        "label",
        '{"count": 3}',
        ("EXECUTION_ERROR",),
        ("label", "TypeError"),
        "label got the right arguments and raised TypeError inside: the function raised, so "
        "it is EXECUTION_ERROR. Do not read the exception's type to guess at bad arguments.",
    )
    # valid JSON nested too deep for json.loads: RecursionError, not JSONDecodeError. Not in
    # the browser: there json.loads this deep overflows WebAssembly's stack and kills the kernel.
    if not BROWSER:
        depth = 100_000
        _expect_error(
            student,
            "add",
            '{"a": ' + "[" * depth + "]" * depth + "}",
            ("INVALID_JSON", "INVALID_ARGUMENTS"),
            ("add",),
            "Arguments nested 100,000 levels deep cannot be decoded: report them (INVALID_JSON) "
            "like any text json.loads cannot read.",
            raised_hint="json.loads raises RecursionError, not JSONDecodeError, for arguments "
            "nested thousands of levels deep: catch it too (except (ValueError, RecursionError)) "
            "and return INVALID_JSON. Never raise.",
        )
    _expect_one_run(student)
    agree(
        _outcome(student),
        _outcome(safe_execute),
        _GENERATED,
        name="safe_execute(functions, {args})",
        hint='UNKNOWN_TOOL for a name not in functions; "" is {}; INVALID_JSON when the text '
        "does not parse (a RecursionError too); INVALID_ARGUMENTS when it is not an object; "
        "EXECUTION_ERROR when the function raises; else ok with its value (None too).",
    )


def _expect_one_run(student: Callable[..., Any]) -> None:
    """A tool runs once per call: one that books or sends must not do it twice."""
    notes: list[str] = []

    def file_note(text: str) -> int:
        notes.append(text)
        return len(notes)

    what = "safe_execute({'file_note': ...}, 'file_note', '{\"text\": \"call the bank\"}')"
    got = call_student(
        student,
        {"file_note": file_note},
        "file_note",
        '{"text": "call the bank"}',
        what=what,
        returns="an envelope",
    )
    expect_equal(
        notes,
        ["call the bank"],
        what=f"the notes filed by one {what}",
        hint="Call the tool once and keep its result: a tool that books or sends would do it "
        "twice.",
    )
    expect_equal(got, {"ok": True, "value": 1}, what=what)
