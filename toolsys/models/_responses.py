"""The Responses API (`POST /v1/responses`), answered by the same backend as chat completions.

OpenAI's recommended API for tool use since 2025. The decision does not change with it, only
the shape of the conversation on the wire:

| what              | chat completions                     | Responses API                       |
|-------------------|--------------------------------------|-------------------------------------|
| a tool definition | `{"type": "function", "function":    | flat: `{"type": "function", "name", |
|                   | {"name", "parameters", ...}}`        | "description", "parameters"}`       |
| the conversation  | `messages` (roles)                   | `input` *items*: messages,          |
|                   |                                      | `function_call`, `..._output`       |
| the model's call  | `tool_calls[i]` with an `id`         | a `function_call` item: `call_id`,  |
|                   |                                      | `name`, `arguments` (JSON text)     |
| the result        | `{"role": "tool", "tool_call_id"}`   | `{"type": "function_call_output",   |
|                   |                                      | "call_id", "output"}`               |
| history           | sent again every request             | or kept by the server:              |
|                   |                                      | `previous_response_id`              |
| cut at the limit  | `finish_reason: "length"`            | `status: "incomplete"`              |
| streaming         | `chat.completion.chunk` deltas       | typed events (`response.function_   |
|                   |                                      | call_arguments.delta` / `.done`)    |

What stays: the tools' JSON Schema, one result per call id, the error envelope the model reads.

The offline endpoint keeps a server-side conversation as the real one does: every stored
response (`store` defaults to true; `store: false` keeps nothing) remembers its input items and
its output, and a request with `previous_response_id` continues from them. The `instructions`
of a previous response are not carried over (OpenAI's API reference on `instructions`).

The decision is the backend's. A backend with `decide(Conversation)` (the offline model) is given
the conversation `_messages.from_responses` reads from the items, the same decision its chat
requests get; one with only `reply(request)` (`ScriptedModel`, a lesson's own backend) is given
the chat completions request this conversation is (`chat_request`), the one shape the backend
protocol defines, so every backend answers both APIs.

Refused in the real API's words where a public report quotes them (openai-python issues do not
hold the server's text; these come from GitHub issues quoting the API's 400 bodies):

- a chat-shaped tool: "Missing required parameter: 'tools[0].name'." (stanfordnlp/dspy#9943);
- an output no call precedes: "No tool call found for function call output with call_id X."
  (continuedev/continue#10092, microsoft/vscode#320060);
- a call left without output: "No tool output found for function call X."
  (router-for-me/CLIProxyAPI#2368);
- an unknown `previous_response_id`: "Previous response with id 'X' not found.", code
  `previous_response_not_found` (maximhq/bifrost#2441);
- `tool_choice` "required" or a named function without such a tool: "Tool choice 'required' must
  be specified with 'tools' parameter." / "Tool choice 'function' not found in 'tools'
  parameter." (checked against the real API in vllm-project/vllm#40399);
- `max_output_tokens` below 16: "Invalid 'max_output_tokens': integer below minimum value.
  Expected a value >= 16, but got N instead." (vectorize-io/hindsight#58);
- an item id of the wrong kind: "Invalid 'input[N].id': 'call_..'. Expected an ID that begins
  with 'fc'." (nodetool-ai/nodetool#4252).

Other refusals (a call id used twice, an output given twice, what the offline model does not
support) are in our own words, and say so by what they tell you to do.

Types and events are the ones openai-python 3.57 defines (`openai/types/responses/`), and the
stream is read by its own helper (`openai/lib/streaming/responses/_responses.py`), which checks
event order and item identity: a test streams every seventh bundled prompt (24) through it.
Chapter 06 puts both shapes side by side: notebooks/06_agent_loop.ipynb.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Protocol

from toolsys.models._limits import approx_tokens, assistant_message, stream_pieces, within
from toolsys.models._messages import Conversation, from_responses
from toolsys.models._requests import RequestError, check_definition
from toolsys.models.config import FIXED_NOW

CREATED = int(FIXED_NOW.timestamp())
SUPPORTED_PARAMS = {
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "previous_response_id",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "top_p",
    "max_output_tokens",
    "metadata",
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "truncation",
}
ROLES = ("user", "system", "developer", "assistant")
TOOL_KEYS = {"type", "name", "description", "parameters", "strict"}
MIN_OUTPUT_TOKENS = 16
STORE_LIMIT = 1000  # responses kept; the oldest is forgotten first (the real API keeps 30 days)
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class Backend(Protocol):
    name: str

    def reply(self, request: dict[str, Any]) -> dict[str, Any]: ...


class ResponseStore:
    """The server side of `previous_response_id`: stored responses, their items, bounded."""

    def __init__(self, limit: int = STORE_LIMIT) -> None:
        self._kept: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._limit, self._lock = limit, threading.Lock()

    def put(self, response: dict[str, Any], items: list[dict[str, Any]]) -> None:
        with self._lock:
            self._kept[response["id"]] = {"response": response, "items": items}
            self._kept.move_to_end(response["id"])
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)

    def get(self, response_id: str) -> dict[str, Any] | None:
        with self._lock:
            return self._kept.get(response_id)


# --- the request ---------------------------------------------------------------------------------


def validate(body: Any) -> dict[str, Any]:
    """Check a Responses request's parameters (not yet its conversation); raise RequestError."""
    if not isinstance(body, dict):
        raise RequestError("The request body must be a JSON object.")
    unknown = sorted(set(body) - SUPPORTED_PARAMS)
    if unknown:
        raise RequestError(
            f"Unsupported parameter '{unknown[0]}': the offline teaching model's Responses API "
            f"supports only {', '.join(sorted(SUPPORTED_PARAMS))}.",
            param=unknown[0],
            code="unsupported_parameter",
        )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestError(
            "Missing required parameter: 'model'.", param="model", code="missing_required_parameter"
        )
    limit = body.get("max_output_tokens")
    if limit is not None:
        if type(limit) is not int:
            raise RequestError(
                f"Invalid type for 'max_output_tokens': expected an integer, but got "
                f"{json.dumps(limit)} instead.",
                param="max_output_tokens",
                code="invalid_type",
            )
        if limit < MIN_OUTPUT_TOKENS:
            raise RequestError(
                "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= "
                f"{MIN_OUTPUT_TOKENS}, but got {limit} instead.",
                param="max_output_tokens",
                code="integer_below_min_value",
            )
    for flag in ("parallel_tool_calls", "store", "stream"):
        if not isinstance(body.get(flag, False), bool):
            raise RequestError(
                f"Invalid type for '{flag}': expected a boolean, but got "
                f"{json.dumps(body[flag])} instead.",
                param=flag,
                code="invalid_type",
            )
    for text in ("instructions", "previous_response_id"):
        if body.get(text) is not None and not isinstance(body[text], str):
            raise RequestError(
                f"Invalid type for '{text}': expected a string, but got "
                f"{json.dumps(body[text])} instead.",
                param=text,
                code="invalid_type",
            )
    names = _tools(body.get("tools"))
    _tool_choice(body.get("tool_choice"), names)
    if body.get("input") is None and body.get("previous_response_id") is None:
        raise RequestError(
            "Missing required parameter: 'input'. Give the user's message as a string or a list "
            "of input items.",
            param="input",
            code="missing_required_parameter",
        )
    return body


def _tools(tools: Any) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestError("Invalid type for 'tools': expected an array.", param="tools")
    names: list[str] = []
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            kind = tool.get("type") if isinstance(tool, dict) else None
            raise RequestError(
                f"Invalid {where}: the offline teaching model supports only function tools "
                f"({{'type': 'function', 'name': ..., 'parameters': {{...}}}}), not {kind!r}.",
                param=where,
            )
        if "name" not in tool:  # the chat completions shape nests it under "function"
            raise RequestError(
                f"Missing required parameter: '{where}.name'.",
                param=f"{where}.name",
                code="missing_required_parameter",
            )
        name = tool["name"]
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise RequestError(
                f"Invalid '{where}.name': {json.dumps(name)}; expected 1-64 letters, digits, "
                "'_', '.' or '-'.",
                param=f"{where}.name",
            )
        extra = sorted(set(tool) - TOOL_KEYS)
        if extra:
            raise RequestError(
                f"Unsupported parameter '{where}.{extra[0]}': the offline teaching model's "
                f"function tools take only {', '.join(sorted(TOOL_KEYS))} (it runs no hosted "
                "tool search and no programmatic calls).",
                param=f"{where}.{extra[0]}",
                code="unsupported_parameter",
            )
        check_definition(tool, where)
        if name in names:
            raise RequestError(f"Duplicate tool name '{name}' in tools.", param="tools")
        names.append(name)
    return names


def _tool_choice(choice: Any, names: list[str]) -> None:
    if choice is None or choice in ("auto", "none"):
        return
    if choice == "required":
        if not names:
            raise RequestError(
                "Tool choice 'required' must be specified with 'tools' parameter.",
                param="tool_choice",
            )
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind == "function":
        if "name" not in choice:  # the chat completions shape: {"function": {"name": ...}}
            raise RequestError(
                "Missing required parameter: 'tool_choice.name'.",
                param="tool_choice.name",
                code="missing_required_parameter",
            )
        if choice["name"] not in names:
            raise RequestError(
                "Tool choice 'function' not found in 'tools' parameter: no function tool is "
                f"named {json.dumps(choice['name'])} (tools: {', '.join(names) or 'none'}).",
                param="tool_choice",
            )
        return
    if kind == "allowed_tools":
        listed = choice.get("tools")
        if choice.get("mode") not in ("auto", "required") or not isinstance(listed, list):
            raise RequestError(
                "Invalid 'tool_choice': allowed_tools needs 'mode' ('auto' or 'required') and "
                "'tools', a list like [{'type': 'function', 'name': 'get_weather'}].",
                param="tool_choice",
            )
        for i, tool in enumerate(listed):
            name = tool.get("name") if isinstance(tool, dict) else None
            if not (isinstance(tool, dict) and tool.get("type") == "function" and name in names):
                raise RequestError(
                    f"Invalid 'tool_choice.tools[{i}]': {json.dumps(tool)} is not one of the "
                    f"request's function tools ({', '.join(names) or 'none'}); list each as "
                    "{'type': 'function', 'name': ...}.",
                    param=f"tool_choice.tools[{i}]",
                )
        return
    raise RequestError(
        f"Invalid 'tool_choice' {json.dumps(choice)}: expected 'auto', 'none', 'required', "
        "{'type': 'function', 'name': ...} or {'type': 'allowed_tools', 'mode': ..., "
        "'tools': [...]}.",
        param="tool_choice",
    )


def conversation_items(body: dict[str, Any], store: ResponseStore) -> list[dict[str, Any]]:
    """The whole conversation: the previous responses' items, then this input, checked."""
    history: list[dict[str, Any]] = []
    previous = body.get("previous_response_id")
    if previous is not None:
        kept = store.get(previous)
        if kept is None:
            raise RequestError(
                f"Previous response with id '{previous}' not found.",
                param="previous_response_id",
                code="previous_response_not_found",
            )
        history = kept["items"]
    given = body.get("input")
    if isinstance(given, str):
        new = [{"type": "message", "role": "user", "content": given}]
    elif isinstance(given, list):
        new = [_item(item, i) for i, item in enumerate(given)]
    elif given is None:
        new = []
    else:
        raise RequestError(
            "Invalid type for 'input': expected a string or an array of input items.",
            param="input",
            code="invalid_type",
        )
    items = [*history, *new]
    _pairs(items)
    return items


def _item(item: Any, i: int) -> dict[str, Any]:
    """One input item, normalised (a bare `{"role", "content"}` is a message item)."""
    where = f"input[{i}]"
    if not isinstance(item, dict):
        raise RequestError(f"Invalid '{where}': expected an object.", param=where)
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        if item.get("role") not in ROLES:
            raise RequestError(
                f"Invalid '{where}.role': {json.dumps(item.get('role'))}; expected one of "
                f"{', '.join(ROLES)}.",
                param=f"{where}.role",
            )
        _prefix(item, "msg", where)
        return {**item, "type": "message", "content": _content(item.get("content"), where)}
    if kind == "function_call":
        for key in ("call_id", "name", "arguments"):
            if not isinstance(item.get(key), str) or (key != "arguments" and not item[key]):
                raise RequestError(
                    f"Invalid '{where}.{key}': a function_call item needs a string 'call_id', "
                    "'name' and 'arguments' (the arguments as JSON text).",
                    param=f"{where}.{key}",
                )
        _prefix(item, "fc", where)
        return dict(item)
    if kind == "function_call_output":
        output = item.get("output")
        if not isinstance(item.get("call_id"), str) or not item["call_id"]:
            raise RequestError(
                f"Missing required parameter: '{where}.call_id'.",
                param=f"{where}.call_id",
                code="missing_required_parameter",
            )
        if not isinstance(output, str):
            output = _content(output, f"{where}.output")
        return {**item, "output": output}
    raise RequestError(
        f"Invalid '{where}.type': {json.dumps(kind)}; the offline teaching model reads message, "
        "function_call and function_call_output items.",
        param=f"{where}.type",
    )


def _prefix(item: dict[str, Any], prefix: str, where: str) -> None:
    """An item id the client sends back must be of its kind: fc_... for a call, msg_..."""
    given = item.get("id")
    if given is not None and not (isinstance(given, str) and given.startswith(prefix)):
        raise RequestError(
            f"Invalid '{where}.id': {json.dumps(given)}. Expected an ID that begins with "
            f"'{prefix}'.",
            param=f"{where}.id",
        )


def _content(content: Any, where: str) -> Any:
    """A message's content: text, or a list of text parts (input_text / output_text) and images
    (input_image, by `image_url` or `file_id`): the model reads the text, as it does on chat
    completions, where an image_url part is taken and not looked at."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for j, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "input_image" and any(
                isinstance(part.get(k), str) for k in ("image_url", "file_id")
            ):
                continue
            if kind not in ("input_text", "output_text") or not isinstance(part.get("text"), str):
                raise RequestError(
                    f"Invalid '{where}.content[{j}]': the offline teaching model reads text "
                    "parts ({'type': 'input_text', 'text': ...}) and takes images "
                    "({'type': 'input_image', 'image_url': ...}) only.",
                    param=f"{where}.content[{j}]",
                )
        return content
    raise RequestError(
        f"Invalid '{where}.content': expected a string or a list of text parts.",
        param=f"{where}.content",
    )


def _pairs(items: list[dict[str, Any]]) -> None:
    """Every output answers an earlier call, once; every call has its output."""
    calls: dict[str, bool] = {}  # call_id -> answered
    for item in items:
        kind, call_id = item.get("type"), str(item.get("call_id"))
        if kind == "function_call":
            if call_id in calls:
                raise RequestError(
                    f"Invalid 'input': the call_id '{call_id}' is used by two function_call "
                    "items; each call needs its own call_id, answered by one "
                    "function_call_output.",
                    param="input",
                )
            calls[call_id] = False
        elif kind == "function_call_output":
            if call_id not in calls:
                raise RequestError(
                    f"No tool call found for function call output with call_id {call_id}.",
                    param="input",
                )
            if calls[call_id]:
                raise RequestError(
                    f"Invalid 'input': two function_call_output items answer call_id "
                    f"'{call_id}'; send one output per call.",
                    param="input",
                )
            calls[call_id] = True
    waiting = [call_id for call_id, answered in calls.items() if not answered]
    if waiting:
        raise RequestError(f"No tool output found for function call {waiting[0]}.", param="input")


# --- the response --------------------------------------------------------------------------------


def respond(backend: Backend, body: dict[str, Any], store: ResponseStore) -> dict[str, Any]:
    """The full `response` object for a validated request (stored unless `store` is false)."""
    items = conversation_items(body, store)
    tools = body.get("tools") or []
    decide = getattr(backend, "decide", None)
    if callable(decide):
        conversation: Conversation = from_responses(
            items, tools, body.get("tool_choice"), body.get("parallel_tool_calls", True)
        )
        reply = decide(conversation)
    else:
        reply = backend.reply(chat_request(body, items))
    taken = {i["call_id"] for i in items if i.get("type") == "function_call"}
    limit: int | None = body.get("max_output_tokens")
    message, answer, cut = within(assistant_message(reply, taken), limit)
    asked = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    digest = hashlib.sha256(  # streamed or not, the same response has the same id
        json.dumps([asked, items, message], sort_keys=True, default=str).encode()
    ).hexdigest()[:24]
    output = _output(message, digest, "incomplete" if cut else "completed")
    prompt = approx_tokens(
        {"instructions": body.get("instructions"), "input": items, "tools": tools}
    )
    response = {
        "id": f"resp_{digest}",
        "object": "response",
        "created_at": CREATED,
        "status": "incomplete" if cut else "completed",
        "completed_at": None if cut else CREATED,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": limit,
        "model": backend.name,
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": tools,
        "top_p": body.get("top_p", 1.0),
        "truncation": body.get("truncation", "disabled"),
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": answer,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + answer,
        },
        "metadata": body.get("metadata") or {},
        "user": body.get("user"),
    }
    if response["store"]:
        store.put(response, [*items, *output])
    return response


def chat_request(body: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat completions request a Responses conversation is: the same messages, tools and
    choices in the other shape (`instructions` as the first, system, message)."""
    from toolsys.protocols import from_responses as messages_of

    messages = messages_of(items)
    if body.get("instructions"):
        messages.insert(0, {"role": "system", "content": body["instructions"]})
    request: dict[str, Any] = {"model": body["model"], "messages": messages}
    tools = body.get("tools") or []
    if tools:
        request["tools"] = [
            {"type": "function", "function": {k: v for k, v in t.items() if k != "type"}}
            for t in tools
        ]
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        choice = {"type": "function", "function": {"name": choice.get("name")}}
    elif isinstance(choice, dict) and choice.get("type") == "allowed_tools":
        named = [{"type": "function", "function": {"name": t.get("name")}} for t in choice["tools"]]
        choice = {
            "type": "allowed_tools",
            "allowed_tools": {"mode": choice["mode"], "tools": named},
        }
    if choice is not None:
        request["tool_choice"] = choice
    for key in ("parallel_tool_calls", "temperature", "top_p", "metadata", "user"):
        if key in body:
            request[key] = body[key]
    if body.get("max_output_tokens") is not None:
        request["max_completion_tokens"] = body["max_output_tokens"]
    return request


def _output(message: dict[str, Any], digest: str, status: str) -> list[dict[str, Any]]:
    """Output items: a `message` with the text (if any), then one `function_call` per call."""
    output: list[dict[str, Any]] = []
    text = message.get("content")
    if text is not None:
        output.append(
            {
                "id": f"msg_{digest}",
                "type": "message",
                "status": status,
                "role": "assistant",
                "content": [_text_part(text)],
            }
        )
    for i, call in enumerate(message.get("tool_calls") or []):
        output.append(
            {
                "id": f"fc_{digest}_{i}",
                "type": "function_call",
                "status": status,
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
            }
        )
    return output


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def retrieve(store: ResponseStore, response_id: str) -> dict[str, Any]:
    """`GET /responses/{id}`: a stored response, or 404."""
    kept = store.get(response_id)
    if kept is None:
        raise RequestError(
            f"Response with id '{response_id}' not found.", status=404, param="response_id"
        )
    return kept["response"]


# --- streaming -----------------------------------------------------------------------------------


def stream_events(full: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The server-sent events of a response, in the order the real API sends them.

    created, in_progress; per output item: output_item.added, its parts and deltas (text word by
    word, arguments 16 characters at a time), output_item.done; then completed (or incomplete).
    Every event carries the next `sequence_number`.
    """
    numbers = iter(range(1 << 30))
    opening = {**full, "status": "in_progress", "output": [], "usage": None, "completed_at": None}
    opening["incomplete_details"] = None

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "sequence_number": next(numbers), **fields}

    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    for index, item in enumerate(full["output"]):
        where = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = {**where, "content_index": 0}
            yield event("response.content_part.added", **part, part=_text_part(""))
            for word in stream_pieces(text):
                yield event("response.output_text.delta", **part, delta=word, logprobs=[])
            yield event("response.output_text.done", **part, text=text, logprobs=[])
            yield event("response.content_part.done", **part, part=_text_part(text))
        else:
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            arguments = item["arguments"]
            for start in range(0, len(arguments), 16):
                piece = arguments[start : start + 16]
                yield event("response.function_call_arguments.delta", **where, delta=piece)
            yield event("response.function_call_arguments.done", **where, arguments=arguments)
        yield event("response.output_item.done", output_index=index, item=item)
    final = "response.incomplete" if full["status"] == "incomplete" else "response.completed"
    yield event(final, response=full)


def sse(full: dict[str, Any]) -> str:
    """The response's events as the text/event-stream body (`event:` and `data:` lines)."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in stream_events(full))
