"""Checks for chapter 00 (the tool-calling protocol): tool messages, parsing calls, a definition.

Each check builds real `openai` objects (the same types `client.chat.completions.create`
returns), so a solution that passes here works on a real response.
"""

from __future__ import annotations

import json
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise, expect_equal, expect_true


def _call(call_id: str, name: str, arguments: str) -> Any:
    from openai.types.chat import ChatCompletionMessageFunctionToolCall
    from openai.types.chat.chat_completion_message_function_tool_call import Function

    return ChatCompletionMessageFunctionToolCall(
        id=call_id, type="function", function=Function(name=name, arguments=arguments)
    )


def _message(*calls: Any, content: str | None = None) -> Any:
    from openai.types.chat import ChatCompletionMessage

    return ChatCompletionMessage(role="assistant", content=content, tool_calls=list(calls) or None)


# -- 0.1 ------------------------------------------------------------------------------------------


def tool_message(tool_call: Any, result: Any) -> dict[str, Any]:
    """Reference for 0.1: the tool message answering `tool_call` with `result`."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": tool_call.id, "content": content}


@exercise(
    "0.1",
    title="Build the tool message",
    hints=[
        "A tool message has three keys: role, tool_call_id and content.",
        "The id is tool_call.id (not the function's name); content must be a string.",
        "Strings go in as they are; anything else goes through json.dumps (str() gives Python "
        "syntax such as {'a': 1}, which is not JSON).",
    ],
    reference=lambda: tool_message,
)
def _check_tool_message(student: Any) -> None:
    call = _call("call_0007", "get_weather", '{"city": "Paris"}')
    cases: list[tuple[Any, str]] = [
        ({"city": "Paris", "temperature_c": 18}, "a dict"),
        ([3, 1, 2], "a list"),
        (646, "a number"),
        (True, "a boolean"),
        ({"city": "Zürich", "condition": "snow"}, "a dict with non-ASCII text"),
    ]
    for value, kind in cases:
        message = student(call, value)
        what = f"tool_message(call, {value!r})"
        expect_true(
            isinstance(message, dict),
            f"{what} must return a dict (a message), got {type(message).__name__}.",
        )
        expect_equal(message.get("role"), "tool", what=f"{what}['role']")
        expect_equal(
            message.get("tool_call_id"),
            "call_0007",
            what=f"{what}['tool_call_id']",
            hint="The model matches results to calls by the call's id: use tool_call.id.",
        )
        content = message.get("content")
        if not isinstance(content, str):
            raise CheckFailed(
                f"For {kind}, {what}['content'] must be a string (the API rejects anything else).",
                expected=Described("a JSON string"),
                got=content,
                hint="Encode the result with json.dumps(result).",
            )
        try:
            decoded = json.loads(content)
        except json.JSONDecodeError:
            raise CheckFailed(
                f"For {kind}, the content is not valid JSON, so a model cannot read it reliably.",
                expected=json.dumps(value, ensure_ascii=False),
                got=content,
                hint="str(result) writes Python, not JSON: use json.dumps(result).",
            ) from None
        expect_equal(decoded, value, what=f"json.loads({what}['content'])")
    text = "18 °C and sunny"
    expect_equal(
        student(call, text).get("content"),
        text,
        what=f"tool_message(call, {text!r})['content']",
        hint="A result that is already text is sent as it is, not wrapped in quotes.",
    )


# -- 0.2 ------------------------------------------------------------------------------------------


def parse_tool_calls(message: Any) -> list[dict[str, Any]]:
    """Reference for 0.2: every tool call as {id, name, arguments, error}; never raises."""
    parsed = []
    for call in message.tool_calls or []:
        name, text = call.function.name, call.function.arguments
        arguments: dict[str, Any] | None = None
        error: str | None = None
        try:
            value = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            error = f"Arguments for {name!r} are not valid JSON ({exc.msg}): {text!r}"
        else:
            if isinstance(value, dict):
                arguments = value
            else:
                error = f"Arguments for {name!r} must be a JSON object, got {text!r}"
        parsed.append({"id": call.id, "name": name, "arguments": arguments, "error": error})
    return parsed


def _expect_call(got: Any, index: int, expected: dict[str, Any], where: str) -> None:
    if not isinstance(got, dict):
        raise CheckFailed(
            f"{where}: item {index} must be a dict with keys id, name, arguments, error.",
            expected=expected,
            got=got,
        )
    for key in ("id", "name", "arguments"):
        expect_equal(got.get(key), expected[key], what=f"{where}: item {index}[{key!r}]")


@exercise(
    "0.2",
    title="Parse the tool calls",
    hints=[
        "message.tool_calls is None when the model answered in text: return [] then.",
        "Wrap json.loads in try/except json.JSONDecodeError; on failure set arguments to None "
        "and error to a sentence naming the tool.",
        "Valid JSON is not enough: '[1, 2]' decodes to a list, and a tool needs an object (dict). "
        "An empty string means no arguments: {}.",
    ],
    reference=lambda: parse_tool_calls,
)
def _check_parse_tool_calls(student: Any) -> None:
    got = student(_message(content="Paris is sunny."))
    expect_equal(
        got, [], what="parse_tool_calls(a text answer)", hint="tool_calls is None here: return []."
    )
    two = _message(
        _call("call_0001", "get_weather", '{"city": "Paris"}'),
        _call("call_0002", "get_time", '{"timezone": "Asia/Tokyo"}'),
    )
    got = student(two)
    expect_true(
        isinstance(got, list) and len(got) == 2,
        f"parse_tool_calls(a message with two calls) must return a list of 2 items, got {got!r}.",
        hint="Loop over every call in message.tool_calls, in order.",
    )
    expected = [
        {"id": "call_0001", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "call_0002", "name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}},
    ]
    for index, (item, want) in enumerate(zip(got, expected, strict=True)):
        _expect_call(item, index, want, "two calls")
        expect_equal(item.get("error"), None, what=f"two calls: item {index}['error']")
    got = student(_message(_call("call_0003", "get_time", "")))
    _expect_call(
        got[0] if got else None,
        0,
        {"id": "call_0003", "name": "get_time", "arguments": {}},
        "empty arguments ''",
    )
    bad = [
        ('{"city": "Paris"', "JSON", "malformed JSON (a missing '}')"),
        ("{'city': 'Paris'}", "JSON", "single-quoted pseudo-JSON"),
        ('["Paris"]', "object", "valid JSON that is a list, not an object"),
    ]
    for text, word, label in bad:
        message = _message(
            _call("call_0004", "get_weather", text),
            _call("call_0005", "get_time", "{}"),
        )
        got = student(message)
        expect_true(
            isinstance(got, list) and len(got) == 2,
            f"With {label} in the first of two calls, parse_tool_calls must still return both "
            f"calls, got {got!r}.",
            hint="One bad call must not hide the others: the loop answers each call.",
        )
        first = got[0]
        expect_equal(
            first.get("arguments"),
            None,
            what=f"{label}: item 0['arguments']",
            hint="When the arguments cannot be used, set arguments to None.",
        )
        error = first.get("error")
        expect_true(
            isinstance(error, str) and "get_weather" in error and word.lower() in error.lower(),
            f"For {label}, 'error' must be a sentence that names the tool 'get_weather' and says "
            f"what was wrong (mention {word!r}); got {error!r}.",
            hint="The model will read this text: say which tool and what was expected.",
        )
        _expect_call(got[1], 1, {"id": "call_0005", "name": "get_time", "arguments": {}}, label)


# -- 0.3 ------------------------------------------------------------------------------------------


def _book_table_definition() -> dict[str, Any]:
    """Reference for 0.3: the definition toolsys generates from the function itself."""
    from toolsys import Registry

    def book_table(restaurant: str, people: int, time: str, outdoor: bool = False) -> dict:
        """Book a table at a restaurant for today.

        Args:
            restaurant: Name of the restaurant, e.g. "Chez Lulu".
            people: Number of guests, at least 1.
            time: Time of the booking, 24-hour "HH:MM", e.g. "19:30".
            outdoor: True for a table outside.
        """
        return {}

    registry = Registry()
    registry.register(book_table)
    return registry.export("openai")[0]


BOOK_TABLE_TYPES = {
    "restaurant": "string",
    "people": "integer",
    "time": "string",
    "outdoor": "boolean",
}


@exercise(
    "0.3",
    title="Write a tool definition by hand",
    hints=[
        'The outer shape is {"type": "function", "function": {"name", "description", '
        '"parameters"}}.',
        'parameters is a JSON Schema: {"type": "object", "properties": {...}, "required": [...]}.',
        "JSON Schema type names: str -> string, int -> integer, float -> number, bool -> boolean. "
        "Only parameters without a default are required.",
    ],
    reference=lambda: _book_table_definition,
)
def _check_definition(student: Any) -> None:
    definition = student()
    expect_true(
        isinstance(definition, dict),
        f"book_table_tool() must return a dict, got {type(definition).__name__}.",
    )
    expect_equal(
        definition.get("type"),
        "function",
        what='definition["type"]',
        hint='OpenAI wraps each tool: {"type": "function", "function": {...}}.',
    )
    function = definition.get("function")
    expect_true(
        isinstance(function, dict),
        'definition["function"] must be a dict with name, description and parameters.',
    )
    expect_equal(function.get("name"), "book_table", what='definition["function"]["name"]')
    description = function.get("description")
    expect_true(
        isinstance(description, str) and len(description.split()) >= 4,
        f"The tool needs a description of a few words (the model reads it to decide when to "
        f"call the tool); got {description!r}.",
    )
    schema = function.get("parameters")
    expect_true(isinstance(schema, dict), '"parameters" must be a JSON Schema dict.')
    expect_equal(schema.get("type"), "object", what='parameters["type"]')
    properties = schema.get("properties")
    expect_true(isinstance(properties, dict), 'parameters must have a "properties" dict.')
    expect_equal(
        sorted(properties),
        sorted(BOOK_TABLE_TYPES),
        what="the parameter names in properties",
        hint="Use exactly the function's parameter names; a renamed one drifts.",
    )
    for name, kind in BOOK_TABLE_TYPES.items():
        expect_equal(
            properties[name].get("type"),
            kind,
            what=f"properties[{name!r}]['type']",
            hint="JSON Schema spells types string, integer, number, boolean.",
        )
        text = properties[name].get("description")
        expect_true(
            isinstance(text, str) and text.strip(),
            f"properties[{name!r}] needs a description: the model fills arguments from "
            "it (format, unit, example).",
        )
    required = schema.get("required")
    expect_true(isinstance(required, list), f'"required" must be a list, got {required!r}.')
    expect_equal(
        sorted(required),
        ["people", "restaurant", "time"],
        what='parameters["required"]',
        hint="outdoor has a default (False), so the model may leave it out.",
    )
