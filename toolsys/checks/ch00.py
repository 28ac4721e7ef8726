"""Checks for chapter 00 (the tool-calling protocol): tool messages, parsing calls, a definition.

Each check builds real `openai` objects (the same types `client.chat.completions.create`
returns), so a solution that passes here works on a real response.
"""

from __future__ import annotations

import json
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
from toolsys.checks._plain import as_plain


def _tool_call(call_id: str, name: str, arguments: str) -> Any:
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


_RESULTS: list[tuple[Any, str]] = [
    ({"city": "Paris", "temperature_c": 18}, "a dict"),
    ([3, 1, 2], "a list"),
    (646, "an integer"),
    (0.25, "a float"),
    (True, "a boolean"),
    (None, "None (a tool that returns nothing)"),
    ({"city": "Zürich", "condition": "snow"}, "a dict with non-ASCII text"),
]


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
    call = _tool_call("call_0007", "get_weather", '{"city": "Paris"}')
    shape = 'a dict {"role": "tool", "tool_call_id": ..., "content": "..."}'
    for value, kind in [*_RESULTS, ("18 °C and sunny", "a string")]:
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
                what=f"{what}['content']",
                hint="A result that is already text is sent as it is, not wrapped in quotes.",
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


_CALL_SHAPE = 'a list with one dict per call: {"id", "name", "arguments", "error"}'
_NEVER_RAISE = (
    "Wrap json.loads in try/except json.JSONDecodeError: one bad call must not crash the loop "
    "that answers all of them."
)

# arguments text, the word the error must contain, what is wrong with it
_BAD_ARGUMENTS = [
    ('{"city": "Paris"', "JSON", "malformed JSON (a missing '}')"),
    ("{'city': 'Paris'}", "JSON", "single-quoted pseudo-JSON"),
    ('["Paris"]', "object", "valid JSON that is a list, not an object"),
    ('"Paris"', "object", "valid JSON that is a string, not an object"),
    ("42", "object", "valid JSON that is a number, not an object"),
    ("null", "object", "valid JSON that is null, not an object"),
]


def _parse(student: Any, message: Any, what: str) -> list[dict[str, Any]]:
    """The student's parse of `message`, checked to be a list of dicts with the four keys."""
    got = call_student(student, message, what=what, returns=_CALL_SHAPE, hint=_NEVER_RAISE)
    expect_plain(got, what=what, shape=_CALL_SHAPE)
    expect_true(type(got) is list, f"{what} must return {_CALL_SHAPE}, got {got!r}.")
    for index, item in enumerate(got):
        keys = sorted(item) if type(item) is dict else None
        expect_true(
            keys == ["arguments", "error", "id", "name"],
            f"{what}[{index}] must be a dict with exactly the keys id, name, arguments and "
            f"error (error is None when the call is fine), got {item!r}.",
            hint="Build every item the same way: {'id': ..., 'name': ..., 'arguments': ..., "
            "'error': ...}.",
        )
    return got


def _item(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments, "error": None}


@exercise(
    "0.2",
    title="Parse the tool calls",
    hints=[
        "message.tool_calls is None when the model answered in text: return [] then.",
        "Wrap json.loads in try/except json.JSONDecodeError; on failure set arguments to None "
        "and error to a sentence naming that call's tool.",
        "Valid JSON is not enough: '[1, 2]', '\"Paris\"' and 'null' decode, but a tool needs an "
        "object (a dict). An empty string means no arguments: {}.",
    ],
    reference=lambda: parse_tool_calls,
)
def _check_parse_tool_calls(student: Any) -> None:
    expect_equal(
        _parse(student, _message(content="Paris is sunny."), "parse_tool_calls(a text answer)"),
        [],
        what="parse_tool_calls(a text answer)",
        hint="tool_calls is None here: return [].",
    )
    two = _message(
        _tool_call("call_0001", "get_weather", '{"city": "Paris"}'),
        _tool_call("call_0002", "get_time", '{"timezone": "Asia/Tokyo"}'),
    )
    expect_equal(
        _parse(student, two, "parse_tool_calls(two calls)"),
        [
            _item("call_0001", "get_weather", {"city": "Paris"}),
            _item("call_0002", "get_time", {"timezone": "Asia/Tokyo"}),
        ],
        what="parse_tool_calls(two calls)",
        hint="One item per call, in order, with error None when the arguments are fine.",
    )
    empty = _message(_tool_call("call_0003", "get_time", ""))
    expect_equal(
        _parse(student, empty, "parse_tool_calls(a call with arguments '')"),
        [_item("call_0003", "get_time", {})],
        what="parse_tool_calls(a call with arguments '')",
        hint="Empty arguments mean no arguments: {} and error None.",
    )
    for text, word, label in _BAD_ARGUMENTS:
        message = _message(
            _tool_call("call_0004", "get_time", "{}"),
            _tool_call("call_0005", "book_table", text),
            _tool_call("call_0006", "get_weather", '{"city": "Rome"}'),
        )
        what = f"parse_tool_calls(three calls, the second with {label})"
        got = _parse(student, message, what)
        expect_true(
            len(got) == 3,
            f"{what} must still return all 3 calls, got {len(got)}.",
            hint="One bad call must not hide the others: the loop answers each call.",
        )
        expect_equal(got[0], _item("call_0004", "get_time", {}), what=f"{what}[0]")
        expect_equal(got[2], _item("call_0006", "get_weather", {"city": "Rome"}), what=f"{what}[2]")
        bad = got[1]
        expect_equal(
            [bad["id"], bad["name"], bad["arguments"]],
            ["call_0005", "book_table", None],
            what=f"{what}[1]: id, name and arguments",
            hint="When the arguments cannot be used, set arguments to None.",
        )
        error = bad["error"]
        expect_true(
            type(error) is str and "book_table" in error and word.lower() in error.lower(),
            f"For {label}, 'error' must be a sentence that names this call's tool "
            f"('book_table') and says what was wrong (mention {word!r}); got {error!r}.",
            hint="The model will read this text: name the tool of the call it is about "
            "(call.function.name) and what was expected.",
        )


# -- 0.3 ------------------------------------------------------------------------------------------


def book_table_tool() -> dict[str, Any]:
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


# parameter -> (JSON type, the function's default or _REQUIRED)
_REQUIRED = object()
_BOOK_TABLE: dict[str, tuple[str, Any]] = {
    "restaurant": ("string", _REQUIRED),
    "people": ("integer", _REQUIRED),
    "time": ("string", _REQUIRED),
    "outdoor": ("boolean", False),
}
# What JSON Schema lets a property say about one value; anything else is a misunderstanding.
_PROPERTY_KEYS = {
    "type",
    "description",
    "default",
    "enum",
    "const",
    "examples",
    "title",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
}


def _check_property(name: str, schema: Any) -> None:
    kind, default = _BOOK_TABLE[name]
    where = f"properties[{name!r}]"
    expect_true(
        type(schema) is dict,
        f'{where} must be a schema dict such as {{"type": {json.dumps(kind)}, '
        f'"description": "..."}}, got {schema!r}.',
        hint="Each property is itself a small JSON Schema: a dict with a type and a description.",
    )
    strange = sorted(set(schema) - _PROPERTY_KEYS)
    if strange:
        raise CheckFailed(
            f"{where} has the key {strange[0]!r}, which a JSON Schema property does not have.",
            expected=Described("JSON Schema keywords: type, description, default, enum, ..."),
            got=schema,
            hint='Which parameters are required is said once, in parameters["required"], not '
            "in each property.",
        )
    expect_equal(
        schema.get("type"),
        kind,
        what=f"{where}['type']",
        hint="JSON Schema spells types string, integer, number, boolean.",
    )
    text = schema.get("description")
    expect_true(
        type(text) is str and text.strip(),
        f"{where} needs a description: the model fills arguments from it (format, unit, example).",
    )
    if "default" not in schema:
        return
    expect_true(
        default is not _REQUIRED,
        f"{where} has a default, but the function has none for {name}: the model may then "
        "leave it out, and the call fails.",
        hint="Give a default only to a parameter that has one in the function.",
    )
    expect_equal(
        schema["default"],
        default,
        what=f"{where}['default']",
        hint=f"The default must be the function's, as a JSON value of type {kind}: "
        f"{json.dumps(default)}.",
    )


@exercise(
    "0.3",
    title="Write a tool definition by hand",
    hints=[
        'The outer shape is {"type": "function", "function": {"name", "description", '
        '"parameters"}}.',
        'parameters is a JSON Schema: {"type": "object", "properties": {...}, "required": [...]}, '
        'and each property a dict such as {"type": "string", "description": "..."}.',
        "JSON Schema type names: str -> string, int -> integer, float -> number, bool -> boolean. "
        "Only parameters without a default are required.",
    ],
    reference=lambda: book_table_tool,
)
def _check_book_table_tool(student: Any) -> None:
    definition = as_plain(student())  # the package's own exports are read-only dicts
    shape = 'a dict {"type": "function", "function": {...}} of plain JSON values'
    expect_plain(definition, what="book_table_tool()", shape=shape)
    expect_true(
        type(definition) is dict, f"book_table_tool() must return {shape}, got {definition!r}."
    )
    expect_equal(
        definition.get("type"),
        "function",
        what='definition["type"]',
        hint='OpenAI wraps each tool: {"type": "function", "function": {...}}.',
    )
    function = definition.get("function")
    expect_true(
        type(function) is dict,
        'definition["function"] must be a dict with name, description and parameters.',
    )
    expect_equal(function.get("name"), "book_table", what='definition["function"]["name"]')
    description = function.get("description")
    expect_true(
        type(description) is str and len(description.split()) >= 4,
        f"The tool needs a description of a few words (the model reads it to decide when to "
        f"call the tool); got {description!r}.",
    )
    schema = function.get("parameters")
    expect_true(type(schema) is dict, '"parameters" must be a JSON Schema dict.')
    expect_equal(schema.get("type"), "object", what='parameters["type"]')
    properties = schema.get("properties")
    expect_true(type(properties) is dict, 'parameters must have a "properties" dict.')
    expect_equal(
        sorted(properties),
        sorted(_BOOK_TABLE),
        what="the parameter names in properties",
        hint="Use exactly the function's parameter names; a renamed one drifts.",
    )
    for name in _BOOK_TABLE:
        _check_property(name, properties[name])
    required = schema.get("required")
    expect_true(type(required) is list, f'"required" must be a list, got {required!r}.')
    expect_equal(
        sorted(required),
        ["people", "restaurant", "time"],
        what='parameters["required"]',
        hint="outdoor has a default (False), so the model may leave it out.",
    )
