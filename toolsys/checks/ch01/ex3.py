"""Exercise 1.3, errors as strings, not crashes: the check and its reference, `safe_dispatch`.

A dispatcher that crashes ends the conversation; one that returns an error string lets the model
correct itself. The cases fail in every way the exercise names.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_true,
)
from toolsys.checks._core import CheckBroken, Described
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import difference
from toolsys.checks.ch01._shared import (
    CALLS,
    build_table,
    decode_arguments,
    named,
    noting_table,
    on_table,
    spelled_arguments,
    table_call,
    tool_table,
)


def safe_dispatch(table: dict[str, Callable[..., Any]], name: str, arguments: Any = None) -> str:
    """Reference for 1.3: like `dispatch`, but every failure is a string for the model."""
    if name not in table:
        return f"Error: unknown tool {name!r}. Available tools: {', '.join(sorted(table))}."
    try:
        decoded = decode_arguments(arguments)
    except json.JSONDecodeError as exc:
        return f"Error: the arguments for {name!r} are not valid JSON ({exc.msg}): {arguments!r}."
    try:  # json.dumps inside too: a result that is not JSON (a set) is an error, not a crash
        value = table[name](**decoded)
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except Exception as exc:
        return f"Error: tool {name!r} failed with {type(exc).__name__}: {exc}"


def _safe_call(
    student: Any, table: dict[str, Any], name: str, arguments: Any, label: str = ""
) -> tuple[str, str]:
    """The student's text for one call, checked to be a str; and how the call reads."""
    what = f"safe_dispatch(table, {name!r}, {arguments!r})" + (f" ({label})" if label else "")
    text = call_student(
        student,
        table,
        name,
        arguments,
        what=what,
        returns="a string",
        hint="Catch every Exception around json.loads, the call and json.dumps of its result, "
        "and return the error as 'Error: ...' text.",
    )
    expect_plain(text, what=what, shape="a string")
    expect_true(type(text) is str, f"{what} must return a string, got {text!r}.")
    return text, what


def _expect_result(
    student: Any, table: dict[str, Any], name: str, arguments: Any, value: Any
) -> None:
    text, what = _safe_call(student, table, name, arguments)
    if type(value) is str:
        expect_equal(text, value, what=what, hint="A string result is returned as it is.")
        return
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError:
        raise CheckFailed(
            f"{what} must return the result as JSON text, so the model can read it.",
            expected=json.dumps(value),
            got=text,
            hint="str(value) writes Python (True, None, {'a': 1}); json.dumps(value) writes JSON.",
        ) from None
    expect_equal(decoded, value, what=f"json.loads({what})")


def _expect_error(text: str, what: str, must_mention: list[str], hint: str) -> None:
    expect_true(
        text.startswith("Error:"),
        f"{what} must start with 'Error:' so the model (and "
        f"the loop) can tell a failure from a result; got {text!r}.",
        hint=hint,
    )
    missing = [word for word in must_mention if word not in text]
    expect_true(
        not missing,
        f"{what} must mention {missing} so the model knows what to fix; got {text!r}.",
        hint=hint,
    )
    if " at 0x" in text:
        raise CheckFailed(
            f"{what} shows Python objects (a '<function ... at 0x...>' repr), not names: "
            f"got {text!r}.",
            hint="List the tools by name: ', '.join(table) or sorted(table), not str(table) "
            "(a dict's text shows its functions too).",
        )
    leaked = [word for word in ("Traceback", 'File "') if word in text]
    if leaked:
        raise CheckFailed(
            f"{what} leaks a stack trace ({leaked[0]!r} in it); the model cannot use it and it "
            f"costs tokens. Got {text!r}.",
            hint="Use the exception's type and message, not traceback.format_exc().",
        )


# name, arguments, words the error must contain, what goes wrong
_FAILURES: list[tuple[str, Any, list[str], str]] = [
    ("divide", {"a": 1, "b": 0}, ["divide", "b must not be 0"], "an exception in the tool"),
    ("colour_code", {"colour": "blue"}, ["colour_code", "blue"], "a KeyError in the tool"),
    ("shout", {"txt": "hi"}, ["shout", "txt"], "a wrong argument name"),
    ("shout", '{"text": "hi"', ["shout", "JSON"], "malformed JSON arguments"),
]


@exercise(
    "1.3",
    title="Errors as strings, not crashes",
    hints=[
        "Check `name in table` first and return an 'Error: ...' string naming the tool and the "
        "available ones.",
        "Decode the arguments as in 1.1 (None or '' mean none). Wrap json.loads, the call and "
        "json.dumps of its result in try/except Exception (any exception, not only ValueError) "
        "and return the error as text.",
        "Success: a str result as it is, anything else json.dumps(value). A good error names the "
        "tool and the exception's message; never paste a traceback.",
    ],
    reference=lambda: safe_dispatch,
)
def _check_safe_dispatch(student: Any) -> None:
    table = tool_table()
    for name, arguments, value in CALLS:
        _expect_result(student, table, name, copy.deepcopy(arguments), value)
    noting, notes = noting_table()
    text, what = _safe_call(student, noting, "file_note", '{"text": "call the bank"}')
    expect_equal(
        notes,
        ["call the bank"],
        what=f"the notes filed by one {what}",
        hint="Call the tool once and keep its result: a tool that books or sends would do it "
        "twice.",
    )
    expect_equal(text, "note 1 filed", what=what, hint="A string result is returned as it is.")
    text, what = _safe_call(student, table, "launch_rocket", {})
    _expect_error(
        text,
        what,
        ["launch_rocket", *tool_table()],
        "Name the unknown tool and list every available one.",
    )
    for name, arguments, words, label in _FAILURES:
        text, what = _safe_call(student, table, name, arguments)
        _expect_error(
            text,
            f"{what} ({label})",
            words,
            "Include the tool name and the exception's message (str(exc)).",
        )
    tags = {**table, "tags": lambda: {"new", "sale"}}  # a result json.dumps refuses
    text, what = _safe_call(student, tags, "tags", None, "a tool that returns a set")
    if text.startswith("Error:"):
        _expect_error(text, what, ["tags"], "Name the tool.")
    agree(
        on_table(student),
        _expected_text,
        _GENERATED,
        name="safe_dispatch",
        compare=_same_text,
        hint="The table is shown as {name: what the tool does} (ch01's generated tools: "
        "('takes', 'a', 'b=None') is def tool(a, b=None): return [a, b]). A str result as it "
        "is, any other as json.dumps; a failure is 'Error: ...' naming the tool and what went "
        "wrong (the available tools, JSON, or the exception's message).",
    )


# Arguments json.loads cannot read, for a name the table has (for a name it does not have, the
# text does not say which of the two failures to report first, so they are left out).
_BROKEN = ['{"text": "hi"', "{'a': 1}", "nope", '{"a": 1}}', "{,}", '{"a": 1 "b": 2}']


def _generated_call(rng: random.Random, size: int) -> Call:
    """A generated table (see ch01/_shared.py), a name, and arguments in any spelling or (for
    a name of the table) JSON text that does not parse."""
    spec, name, arguments = table_call(rng, size)
    if name in spec and rng.random() < 0.15:
        return Call((spec, name, rng.choice(_BROKEN)))
    return Call((spec, name, spelled_arguments(rng, arguments)))


_GENERATED = calls(_generated_call, seed=13, count=200)


class _Result(Described):
    """What the text fixes of one safe_dispatch call: the result, or the words its error needs."""

    def __init__(self, shown: str, kind: str, *, value: Any = None, words: tuple = ()) -> None:
        super().__init__(shown)
        self.kind, self.value, self.words = kind, value, words  # kind: error, text or json


def _expected_text(spec: dict[str, Any], name: str, arguments: Any) -> _Result:
    """The reference's answer read as the text fixes it: a str result as it is, another result
    as JSON of it (any spelling), or an error naming the tool and what went wrong. Where the
    package's `safe_dispatch` says otherwise (a failure where the text has none, or the
    reverse), the check itself is wrong: CheckBroken."""
    said = safe_dispatch(build_table(spec), name, arguments)
    expected = _by_the_text(spec, name, arguments)
    if (expected.kind == "error") != said.startswith("Error:") and said != expected.value:
        raise CheckBroken("the check's reading of safe_dispatch", ValueError(said))
    if expected.kind != "error":
        expected.text = repr(said)
    return expected


def _by_the_text(spec: dict[str, Any], name: str, arguments: Any) -> _Result:
    if name not in spec:
        words = (name, *spec)
        shown = f"an 'Error: ...' naming {name!r} and every tool, {list(spec)}"
        return _Result(shown, "error", words=words)
    try:
        decoded = decode_arguments(arguments)
    except json.JSONDecodeError:
        shown = f"an 'Error: ...' naming {name!r} and saying JSON"
        return _Result(shown, "error", words=(name, "JSON"))
    try:
        value = build_table(spec)[name](**decoded)
    except Exception as exc:
        message = _text_of(exc)
        shown = f"an 'Error: ...' naming {name!r} and the message {message!r}"
        return _Result(shown, "error", words=(name, message))
    return _Result(repr(value), "text" if type(value) is str else "json", value=value)


def _text_of(error: BaseException) -> str:
    """An exception's message: its argument as given (KeyError's str() adds quotes)."""
    from toolsys.checks._plain import text

    return text(error.args[0]) if len(error.args) == 1 else text(error)


def _same_text(got: Any, expected: _Result, what: str) -> str | None:
    if type(got) is not str:
        return f"{what} is not a string (safe_dispatch always returns one)"
    if expected.kind == "error":
        if not got.startswith("Error:"):
            return f"{what} does not start with 'Error:'"
        missing = [word for word in expected.words if not named(word, got)]
        if missing:
            return f"{what} does not mention {missing[0]!r}"
        if "Traceback" in got:
            return f"{what} contains a traceback"
        return None
    if expected.kind == "text":  # a str result: as it is
        return difference(got, expected.value, what)
    try:
        decoded = json.loads(got)
    except ValueError:
        return f"{what} is not JSON text of the tool's result"
    return difference(decoded, json.loads(json.dumps(expected.value)), f"json.loads({what})")
