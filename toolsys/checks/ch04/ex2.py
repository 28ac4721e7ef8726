"""Exercise 4.2, an error message a model can act on: the check and its reference,
`actionable_message`.

A model can only fix what the message names: the bad argument's path, the bad value and what was
expected. None of pydantic's internals (its URLs, `input_value=`) may reach the message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, Literal

from toolsys.checks import CheckFailed, Described, exercise

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
# bad values that are text: quoted ('warm' or "warm"), so the model sees exactly what it sent
_BAD_TEXT = ("warm", "rankine")
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
        bare = [
            word
            for word in words
            if word in _BAD_TEXT and f"'{word}'" not in message and f'"{word}"' not in message
        ]
        if bare:
            raise CheckFailed(
                f"{what} writes the bad value {bare[0]} without quotes.",
                expected=Described(f"the value quoted: '{bare[0]}' (repr) or \"{bare[0]}\" (JSON)"),
                got=message,
                hint="Quote the bad value with repr(input) or json.dumps(input): it is text the "
                "model sent, and without quotes it reads as a word of your own sentence.",
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
