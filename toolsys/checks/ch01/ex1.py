"""Exercise 1.1, a dispatch table: the check and its reference, `dispatch`.

The tools have names no if/else chain written for the lesson knows, and return every kind of JSON
value, so only a dispatcher that reads its table passes.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise, expect_equal, expect_raises
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import text
from toolsys.checks.ch01._shared import (
    CALLS,
    decode_arguments,
    named,
    noting_table,
    on_table,
    spelled_arguments,
    table_call,
    tool_table,
)


def dispatch(table: dict[str, Callable[..., Any]], name: str, arguments: Any = None) -> Any:
    """Reference for 1.1: look the name up in the table and call it with keyword arguments."""
    if name not in table:
        raise KeyError(f"unknown tool {name!r}; known tools: {', '.join(table)}")
    return table[name](**decode_arguments(arguments))


def _positional(tool: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    """What `tool` returns for the argument values in the order they came, or None."""
    try:
        return tool(*arguments.values()) if len(arguments) > 1 else None
    except Exception:
        return None


def _dispatch_hint(got: Any, expected: Any, swapped: bool = False) -> str:
    """The hint for a wrong result: what the student most likely did."""
    if swapped:
        return (
            "The arguments were sent in another order than the function's parameters: call it "
            "with keyword arguments, fn(**arguments), not fn(*arguments.values())."
        )
    if type(got) is str and (type(expected) is not str or got == json.dumps(expected)):
        return (
            "dispatch returns what the function returned, as it is (3, not '3'): turning the "
            "result into text for the model is exercise 1.3's job."
        )
    if got is None:
        return "Return the function's result: return table[name](**arguments)."
    return "Look the function up in the table and call it with the decoded arguments."


@exercise(
    "1.1",
    title="A dispatch table",
    hints=[
        "Look the function up with table[name] (or table.get(name)) instead of comparing names.",
        "Arguments arrive as a JSON string from the model: json.loads it when it is a str; "
        "None or '' means no arguments.",
        "Call the function with keyword arguments, fn(**arguments), and return what it returns, "
        "unchanged (no json.dumps here).",
    ],
    reference=lambda: dispatch,
)
def _check_dispatch(student: Any) -> None:
    table = tool_table()
    for name, given, expected in CALLS:
        # the student's copy: a dispatch that changes it must not change the next check's calls
        arguments, before = copy.deepcopy(given), copy.deepcopy(given)
        has_none = isinstance(given, dict) and None in given.values()
        try:
            got = student(table, name, arguments)
        except Exception as exc:
            if not has_none or isinstance(exc, NotImplementedError):
                raise
            raise CheckFailed(
                f"dispatch(table, {name!r}, {before!r}) raised {type(exc).__name__}: "
                f"{text(exc)}, but the call is a valid one.",
                expected=expected,
                got=exc,
                hint="Pass every argument on as it came, None values too: "
                "table[name](**arguments). The tool decides what None means.",
            ) from None
        expect_equal(
            arguments,
            before,
            what=f"the arguments after dispatch(table, {name!r}, {before!r})",
            hint="Do not change the caller's arguments (no del, pop or clean-up in place): "
            "read them, and call the tool with them as they are.",
        )
        swapped = got != expected and _positional(table[name], decode_arguments(arguments)) == got
        spaced = any(
            type(v) is str and v != v.strip() for v in decode_arguments(arguments).values()
        )
        expect_equal(
            got,
            expected,
            what=f"dispatch(table, {name!r}, {arguments!r})",
            hint="Pass the arguments on exactly as they came (no strip or other clean-up): the "
            "tool decides what its text means."
            if spaced and got != expected
            else _dispatch_hint(got, expected, swapped),
        )
    expect_equal(
        sorted(table),
        sorted(tool_table()),
        what="the table's names after dispatching",
        hint="Dispatching must not add or remove tools.",
    )
    noting, notes = noting_table()
    what = "dispatch(table, 'file_note', {'text': 'call the bank'})"
    got = student(noting, "file_note", {"text": "call the bank"})
    expect_equal(
        notes,
        ["call the bank"],
        what=f"the notes filed by one {what}",
        hint="Call the tool once and return that result: a tool that books or sends would do "
        "it twice.",
    )
    expect_equal(got, "note 1 filed", what=what, hint=_dispatch_hint(got, "note 1 filed"))
    expect_raises(
        KeyError,
        student,
        table,
        "launch_rocket",
        {},
        what="dispatch(table, 'launch_rocket', {})",
        match="launch_rocket",
        hint="For an unknown name, raise KeyError with a message that names it (exercise 1.3 "
        "turns this into an answer for the model).",
    )
    expect_raises(
        KeyError,
        student,
        table,
        "Shout",
        {"text": "hi"},
        what="dispatch(table, 'Shout', {'text': 'hi'})",
        match="Shout",
        hint="Tool names are exact: 'Shout' is not 'shout' (the model must send the name it was "
        "given). Look the name up as it is, table[name], and raise KeyError when it is absent.",
    )
    expect_raises(
        TypeError,
        student,
        table,
        "shout",
        {"text": "hi", "volume": 11},
        what="dispatch(table, 'shout', {'text': 'hi', 'volume': 11})",
        match="volume",
        hint="An argument the function does not take is the function's own TypeError, and it "
        "goes through: call table[name](**arguments) with all of them, do not filter them by "
        "the signature (the model must learn that 'volume' does not exist).",
    )
    _expect_own_key_error(student, table)
    agree(
        on_table(student),
        on_table(dispatch),
        _GENERATED,
        name="dispatch",
        errors=_same_error,
        hint="The table is shown as {name: what the tool does} (ch01's generated tools: "
        "('takes', 'a', 'b=None') is def tool(a, b=None): return [a, b]). Look the name up as "
        'it is (KeyError naming it when absent); decode JSON text, None or "" are none; call '
        "table[name](**arguments) and return its result unchanged, its errors too.",
    )


def _expect_own_key_error(student: Any, table: dict[str, Callable[..., Any]]) -> None:
    """A KeyError raised inside a known tool is that tool's failure, not an unknown tool."""
    what = "dispatch(table, 'colour_code', {'colour': 'blue'})"
    hint = (
        "Decide 'unknown tool' from `name in table` before the call, not by catching KeyError "
        "around it: colour_code's own KeyError ('blue' is not in its dict) must go through "
        "unchanged."
    )
    raised = expect_raises(
        KeyError, student, table, "colour_code", {"colour": "blue"}, what=what, hint=hint
    )
    if "blue" not in text(raised) or "unknown" in text(raised).lower():
        raise CheckFailed(
            f"{what} reported {text(raised)}: colour_code is in the table, and the KeyError "
            "came from inside it (no 'blue' in its colours).",
            expected=Described("colour_code's own KeyError('blue')"),
            got=raised,
            hint=hint,
        )


def _dispatch_call(rng: random.Random, size: int) -> Call:
    """A generated table (see ch01/_shared.py), a name and arguments in any spelling."""
    spec, name, arguments = table_call(rng, size)
    return Call((spec, name, spelled_arguments(rng, arguments)))


_GENERATED = calls(_dispatch_call, seed=11, count=200)


def _same_error(got: BaseException, expected: BaseException, call: Call) -> str | None:
    """What the text adds to "the same kind of error": an unknown name's KeyError names it, and
    a tool's own exception goes through unchanged (its type and message)."""
    spec, name, _ = call.args
    if name not in spec:
        return None if named(name, got) else f"raised {type(got).__name__} without naming {name!r}"
    if spec[name][0] == "raises" and (type(got), got.args) != (type(expected), expected.args):
        return f"did not let the tool's own {type(expected).__name__} through unchanged"
    return None
