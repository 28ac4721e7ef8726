"""Exercise 0.1, build the tool message: the check and its reference, `tool_message`.

A tool message is what the model reads back: the check builds it from real `openai` objects, so a
message that passes here is one a real endpoint accepts.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise, expect_equal, expect_plain, expect_true
from toolsys.checks._differential import Call, agree, calls, plain, text
from toolsys.checks.ch00._shared import sdk_tool_call


def tool_message(tool_call: Any, result: Any) -> dict[str, Any]:
    """Reference for 0.1: the tool message answering `tool_call` with `result`."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": tool_call.id, "content": content}


_RESULTS: list[tuple[Any, str]] = [
    ({"city": "Paris", "temperature_c": 18}, "a dict"),
    ([3, 1, 2], "a list"),
    (646, "an integer"),
    (0.25, "a float"),
    (True, "a boolean"),
    (None, "None (a tool that returns nothing)"),
    ({"city": "Zürich", "condition": "snow"}, "a dict with non-ASCII text"),
]
# Text goes in as it is: not stripped, not re-encoded, not wrapped in quotes, even when it is empty
# or is already JSON text written with its own spacing.
_TEXTS: list[tuple[str, str]] = [
    ("18 °C and sunny", "a string"),
    ("", "an empty string"),
    ("  indented line\nsecond line\n", "a string with leading spaces and a final newline"),
    ('{"rows":[1,2],  "next": null}', "a string that is already JSON text"),
]


def _message_call(rng: random.Random, size: int) -> Call:
    """A call (its id any text) and a result: a string as it is (empty, spaces, JSON text,
    non-ASCII) or any other plain value (None, a bool, numbers, nested dicts and lists)."""
    result = text(rng, size) if rng.random() < 0.3 else plain(rng, size)
    call_id = rng.choice(["call_1", "call_ü", text(rng, 6, least=1)])
    return Call((sdk_tool_call(call_id, "get_weather", "{}"), result))


_GENERATED = calls(_message_call, seed=1, count=150)


def _decoded(func: Any) -> Any:
    """`func`'s message with a JSON content read back as the value it encodes: any JSON
    spelling is fine (é escaped or not, keys in any order, any spaces), a string is itself."""

    def run(tool_call: Any, result: Any) -> Any:
        got = func(tool_call, result)
        content = got.get("content") if type(got) is dict else None
        if type(result) is not str and type(content) is str:
            with contextlib.suppress(ValueError):
                got = {**got, "content": ("the JSON text of", json.loads(content))}
        return got

    return run


@exercise(
    "0.1",
    title="Build the tool message",
    hints=[
        "A tool message has three keys: role, tool_call_id and content.",
        "The id is tool_call.id (not the function's name); content must be a string.",
        "Strings go in as they are; anything else (None too) goes through json.dumps: str() "
        "gives Python syntax such as {'a': 1} or None, which is not JSON.",
    ],
    reference=lambda: tool_message,
)
def _check_tool_message(student: Any) -> None:
    call = sdk_tool_call("call_0007", "get_weather", '{"city": "Paris"}')
    shape = 'a dict {"role": "tool", "tool_call_id": ..., "content": "..."}'
    for value, kind in [*_RESULTS, *_TEXTS]:
        what = f"tool_message(call, {value!r})"
        message = student(call, value)
        expect_plain(message, what=what, shape=shape)
        expect_true(type(message) is dict, f"{what} must return {shape}, got {message!r}.")
        expect_equal(message.get("role"), "tool", what=f"{what}['role']")
        expect_equal(
            message.get("tool_call_id"),
            "call_0007",
            what=f"{what}['tool_call_id']",
            hint="The model matches results to calls by the call's id: use tool_call.id.",
        )
        content = message.get("content")
        if type(content) is not str:
            raise CheckFailed(
                f"For {kind}, {what}['content'] must be a string (the API rejects anything else).",
                expected=Described("a JSON string"),
                got=content,
                hint="Encode the result with json.dumps(result).",
            )
        if isinstance(value, str):
            expect_equal(
                content,
                value,
                what=f"{what}['content'] for {kind}",
                hint="A result that is already text is sent as it is: not stripped, not parsed "
                "and dumped again, not wrapped in quotes (an empty string stays '').",
            )
            continue
        try:
            decoded = json.loads(content)
        except json.JSONDecodeError:
            raise CheckFailed(
                f"For {kind}, the content is not valid JSON, so a model cannot read it reliably.",
                expected=json.dumps(value, ensure_ascii=False),
                got=content,
                hint="str(result) writes Python (None, True, {'a': 1}), not JSON: use "
                "json.dumps(result) for everything that is not already a string.",
            ) from None
        expect_equal(decoded, value, what=f"json.loads({what}['content'])")
    agree(
        _decoded(student),
        _decoded(tool_message),
        _GENERATED,
        name="tool_message",
        hint="role 'tool', tool_call_id the call's id, content the result itself when it is a "
        "str, else json.dumps(result) (None too, ensure_ascii=False keeps é readable).",
    )
