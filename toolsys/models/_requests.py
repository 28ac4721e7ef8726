"""What a chat completions request may be: the checks the offline endpoint makes before replying.

Why a module of its own: these rules are the protocol's, not the transport's. A request that
uses a parameter the subset does not cover, or a conversation the real API refuses (a tool call
left unanswered, answered twice, a tool message that answers nothing), is refused here with
`RequestError`, in the real API's words, so a lesson shows the error a learner will meet.
`transport.handle` calls `validate` and turns a `RequestError` into the HTTP error the SDK reads.
"""

from __future__ import annotations

import json
import re
from typing import Any

SUPPORTED_PARAMS = {
    "model",
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "stream",
    "stream_options",
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "user",
    "metadata",
    "store",
    "n",
}
ROLES = {"system", "developer", "user", "assistant", "tool"}


class RequestError(Exception):
    """An error answered as OpenAI-style JSON: `{"error": {"message", "type", "param", "code"}}`."""

    def __init__(
        self, message: str, *, status: int = 400, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.message, self.status, self.param, self.code = message, status, param, code

    def to_json(self) -> dict[str, Any]:
        kind = "invalid_request_error" if self.status < 500 else "server_error"
        return {
            "error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}
        }


def validate(body: Any) -> dict[str, Any]:
    """Check that a request uses only what the protocol subset supports; raise RequestError."""
    if not isinstance(body, dict):
        raise RequestError("The request body must be a JSON object.")
    unknown = sorted(set(body) - SUPPORTED_PARAMS)
    if unknown:
        raise RequestError(
            f"Unsupported parameter '{unknown[0]}': the offline teaching model supports only "
            f"{', '.join(sorted(SUPPORTED_PARAMS))}.",
            param=unknown[0],
            code="unsupported_parameter",
        )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestError("Missing required parameter 'model'.", param="model")
    if body.get("n", 1) != 1:
        raise RequestError("Only n=1 is supported.", param="n", code="unsupported_value")
    for key in ("max_tokens", "max_completion_tokens"):
        limit = body.get(key)
        if limit is not None and (type(limit) is not int or limit < 1):
            raise RequestError(
                f"'{key}' must be an integer of at least 1, got {json.dumps(limit)}.", param=key
            )
    _validate_messages(body.get("messages"))
    names = _validate_tools(body.get("tools"))
    _validate_tool_choice(body.get("tool_choice"), names)
    if not isinstance(body.get("parallel_tool_calls", True), bool):
        raise RequestError("'parallel_tool_calls' must be a boolean.", param="parallel_tool_calls")
    return body


def _validate_messages(messages: Any) -> None:
    """Refuse a conversation the real API refuses, in the real API's words.

    The wording of the four tool-message errors is OpenAI's own, as reported in public issues
    (its spelling "preceeding" included): an unanswered call id, a tool message with no
    assistant `tool_calls` before it, an id the assistant never used, and an id answered twice.
    """
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty array.", param="messages")
    open_calls: list[str] = []  # ids of the last assistant turn still waiting for an answer
    answered: dict[str, int] = {}  # ids of that turn already answered -> where
    after_calls = False  # the previous messages are an assistant turn with tool_calls + answers
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role") if isinstance(message, dict) else None
        if not isinstance(role, str) or role not in ROLES:
            raise RequestError(
                f"Invalid {where}: expected an object whose 'role' is one of "
                f"{', '.join(sorted(ROLES))}.",
                param=where,
            )
        if role == "tool":
            _answer(message.get("tool_call_id"), i, after_calls, open_calls, answered)
            continue
        if open_calls:
            raise _unanswered(open_calls, f"messages.[{i}].role")
        after_calls, answered = False, {}
        if role == "assistant":
            open_calls = _call_ids(message, where)
            after_calls = bool(open_calls)
    if open_calls:
        raise _unanswered(open_calls, f"messages.[{len(messages) - 1}].role")


def _call_ids(message: dict[str, Any], where: str) -> list[str]:
    """The call ids of an assistant turn. `"tool_calls": []` is refused, as the real API does
    (its words, quoted in openai/openai-node#1341, 2025-02); `null` or no key means no calls."""
    calls = message.get("tool_calls")
    if calls == []:
        raise RequestError(
            f"Invalid '{where}.tool_calls': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            param=f"{where}.tool_calls",
        )
    ids = []
    for call in calls or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if not (
            isinstance(fn, dict)
            and isinstance(fn.get("name"), str)
            and isinstance(fn.get("arguments"), str)
            and isinstance(call.get("id"), str)
            and call["id"]
        ):
            raise RequestError(
                f"Invalid {where}.tool_calls: each call needs an 'id' and a 'function' "
                "with a string 'name' and a string 'arguments'.",
                param=where,
            )
        ids.append(call["id"])
    return ids


def _answer(
    call_id: Any, i: int, after_calls: bool, open_calls: list[str], answered: dict[str, int]
) -> None:
    """Check the tool message at messages[i] answering `call_id`, and mark the id answered."""
    if not after_calls:
        raise RequestError(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
            "message with 'tool_calls'.",
            param=f"messages.[{i}].role",
        )
    if call_id in answered:
        raise RequestError(
            f"Invalid parameter: Duplicate value for 'tool_call_id' of '{call_id}', in "
            f"messages[{answered[call_id]}] and messages[{i}].",
            param=f"messages.[{i}].tool_call_id",
        )
    if call_id not in open_calls:
        raise RequestError(
            f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of "
            "previous message.",
            param=f"messages.[{i}].tool_call_id",
        )
    open_calls.remove(call_id)
    answered[call_id] = i


def _unanswered(open_calls: list[str], param: str) -> RequestError:
    return RequestError(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        f"{', '.join(open_calls)}",
        param=param,
    )


def _validate_tools(tools: Any) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestError("'tools' must be an array.", param="tools")
    names = []
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
            raise RequestError(
                f"Invalid tools[{i}]: only {{'type': 'function', 'function': {{...}}}} tools are "
                "supported.",
                param=f"tools[{i}]",
            )
        name = fn.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
            raise RequestError(
                f"Invalid tools[{i}].function.name {name!r}: expected 1-64 letters, digits, "
                "'_', '.' or '-'.",
                param=f"tools[{i}].function.name",
            )
        if name in names:
            raise RequestError(f"Duplicate tool name '{name}' in tools.", param="tools")
        check_definition(fn, f"tools[{i}].function")
        names.append(name)
    return names


_TEXT_KEYS = ("description", "title", "pattern", "format", "$ref", "$schema", "$id")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COUNT_KEYS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties")


def check_definition(function: dict[str, Any], where: str) -> None:
    """Refuse a function definition whose description or parameters the model could not read.

    The real API answers a malformed schema with 400 `invalid_function_parameters` ("Invalid
    schema for function 'f': ..."); so does the offline model, for the JSON Schema keywords it
    reads (types, texts, nested schemas, enums, bounds), before any of them is used. A boolean
    schema (`true`/`false`) is valid JSON Schema but outside the subset: it is refused too.
    """
    name = function.get("name")
    description = function.get("description")
    if description is not None and not isinstance(description, str):
        raise RequestError(
            f"Invalid type for '{where}.description': expected a string, but got "
            f"{_json_type(description)} instead.",
            param=f"{where}.description",
            code="invalid_type",
        )
    if function.get("strict") is not None and not isinstance(function["strict"], bool):
        raise RequestError(
            f"Invalid type for '{where}.strict': expected a boolean, but got "
            f"{_json_type(function['strict'])} instead.",
            param=f"{where}.strict",
            code="invalid_type",
        )
    problem = _schema_problem(function.get("parameters", {}))
    if problem is not None:
        raise RequestError(
            f"Invalid schema for function '{name}': {problem}.",
            param=f"{where}.parameters",
            code="invalid_function_parameters",
        )


def _schema_problem(schema: Any) -> str | None:
    """The first keyword of `schema` (walked without recursion) that has the wrong type."""
    todo: list[tuple[tuple[str, ...], Any]] = [((), schema)]
    while todo:
        context, node = todo.pop()
        at = f"In context={context}"
        if not isinstance(node, dict):
            got = "a boolean schema" if isinstance(node, bool) else _json_type(node)
            return f"{at}, expected a schema object, got {got}"
        kind = node.get("type")
        if kind is not None and not (
            isinstance(kind, str)
            or (isinstance(kind, list) and all(isinstance(k, str) for k in kind))
        ):
            return f"{at}, 'type' must be a string or a list of strings"
        for key in _TEXT_KEYS:
            if key in node and not isinstance(node[key], str):
                return f"{at}, '{key}' must be a string"
        for key in _NUMBER_KEYS:
            value = node.get(key)
            if key in node and (isinstance(value, bool) or not isinstance(value, int | float)):
                return f"{at}, '{key}' must be a number"
        for key in _COUNT_KEYS:
            value = node.get(key)
            if key in node and (type(value) is not int or value < 0):
                return f"{at}, '{key}' must be a non-negative integer"
        if "enum" in node and not isinstance(node["enum"], list):
            return f"{at}, 'enum' must be an array"
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return f"{at}, 'required' must be an array of strings"
        for key in _SCHEMA_MAPS:
            children = node.get(key, {})
            if not isinstance(children, dict):
                return f"{at}, '{key}' must be an object of schemas"
            todo.extend(((*context, key, str(k)), v) for k, v in children.items())
        for key in _SCHEMA_LISTS:
            children = node.get(key, [])
            if not isinstance(children, list):
                return f"{at}, '{key}' must be an array of schemas"
            todo.extend(((*context, key, str(i)), v) for i, v in enumerate(children))
        for key in ("items", "not", "contains", "additionalItems"):
            if key in node:
                todo.append(((*context, key), node[key]))
        extra = node.get("additionalProperties", True)
        if not isinstance(extra, bool):
            todo.append(((*context, "additionalProperties"), extra))
    return None


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if value is None:
        return "null"
    return "an object" if isinstance(value, dict) else "a string"


def _validate_tool_choice(choice: Any, names: list[str]) -> None:
    if choice is None:
        return
    if not names:
        raise RequestError(
            "'tool_choice' is only allowed when 'tools' are specified.", param="tool_choice"
        )
    if choice in ("auto", "none", "required"):
        return
    fn = choice.get("function") if isinstance(choice, dict) else None
    if isinstance(fn, dict) and choice.get("type") == "function" and fn.get("name") in names:
        return
    if isinstance(choice, dict) and choice.get("type") == "allowed_tools":
        _validate_allowed(choice.get("allowed_tools"), names)
        return
    raise RequestError(
        f"Invalid 'tool_choice' {json.dumps(choice)}: expected 'auto', 'none', 'required', "
        f"{{'type': 'function', 'function': {{'name': ...}}}} naming one of: {', '.join(names)}, "
        "or {'type': 'allowed_tools', 'allowed_tools': {'mode': ..., 'tools': [...]}}.",
        param="tool_choice",
    )


def _validate_allowed(allowed: Any, names: list[str]) -> None:
    """`allowed_tools`: a mode ("auto" or "required") and some of the request's own functions."""
    listed = allowed.get("tools") if isinstance(allowed, dict) else None
    if not isinstance(listed, list) or allowed.get("mode") not in ("auto", "required"):
        raise RequestError(
            "Invalid 'tool_choice.allowed_tools': give 'mode' ('auto' or 'required') and "
            "'tools', e.g. [{'type': 'function', 'function': {'name': 'get_weather'}}].",
            param="tool_choice.allowed_tools",
        )
    for i, tool in enumerate(listed):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not (
            isinstance(fn, dict) and tool.get("type") == "function" and fn.get("name") in names
        ):
            raise RequestError(
                f"Invalid 'tool_choice.allowed_tools.tools[{i}]': {json.dumps(tool)} is not one "
                f"of the request's tools ({', '.join(names)}).",
                param=f"tool_choice.allowed_tools.tools[{i}]",
            )
