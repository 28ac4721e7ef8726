"""Which API the agent loop speaks: chat completions or the Responses API, one `Wire` each.

The loop's own data does not change with the API: the transcript keeps chat-shaped `messages`
(so a saved run, a replay, a paused run's resume and every widget read one format), the
registry exports `"openai"` as always, and each reply becomes the same checked `Turn`
(`toolsys._reply`). A wire only translates at the edge, once per request:

| step              | `ChatWire` (api="chat")           | `ResponsesWire` (api="responses")       |
|-------------------|-----------------------------------|-----------------------------------------|
| the request       | `messages`, `tools`, `tool_choice`| `input` items (`protocols.to_responses`),|
|                   |                                   | flat `tools` with `strict` said, the    |
|                   |                                   | flat `tool_choice`, `store: false`      |
| the SDK call      | `client.chat.completions.create`  | `client.responses.create`               |
| the reply         | `choices[0].message`              | `output`: message and function_call     |
|                   |                                   | items                                   |
| a cut answer      | `finish_reason` "length" (token   | `status: "incomplete"`, its             |
|                   | limit) or "content_filter"        | `incomplete_details.reason` says which  |
| no answer         | (no such reply)                   | `status` "failed", "cancelled",         |
|                   |                                   | "queued", "in_progress": model_error    |

The Responses wire sends the whole conversation every request and asks the server to keep
nothing (`store: false`): the transcript is the one record, a run resumed in another process
(or against another endpoint) needs no server state, and nothing is retained that the loop
would not use. `previous_response_id` is what the server offers instead; the offline endpoint
serves it (toolsys/models/_responses.py) and chapter 06 shows it by hand.

A Responses reply is checked before it is read, as a chat reply is: its `status` must say it
finished ("completed", or "incomplete": cut; a response that "failed", was "cancelled" or is
still "queued"/"in_progress" holds no answer and ends the run as a model_error, the response's
`error` in its message), `output` must be a list of objects, a `function_call` must have a string
`name` (and a `call_id`, else one is made up as for chat), a message's text must be text; a
`reasoning` item is skipped. Then it is read as the chat reply it is equivalent to (an
"incomplete" one with `finish_reason` "content_filter" when the content filter cut it, else
"length"), so every other rule of `_reply` (null arguments, a call id used twice, lone
surrogates, usage counts) and of the loop (how a cut answer ends the run) holds on both APIs.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Protocol

from toolsys._reply import BadReply, Turn, clean_text, describe, get_field, is_object, read_reply
from toolsys.protocols import responses_tool_choice, to_responses

APIS = ("chat", "responses")
_RETRY = " Retry; if it happens again, the endpoint does not speak the Responses API for tools."


class Wire(Protocol):
    """One API's edge: build the request, send it, read the reply into a `Turn`."""

    api: str

    def request(
        self, model: str, messages: list[dict[str, Any]], tools: list[Any], tool_choice: Any
    ) -> dict[str, Any]: ...

    async def create(self, client: Any, request: dict[str, Any]) -> Any: ...

    def read(self, response: Any, step: int) -> Turn: ...


async def _call(create: Any, request: dict[str, Any]) -> Any:
    """`create(**request)` from a sync or async client, without blocking the event loop."""
    if inspect.iscoroutinefunction(inspect.unwrap(create)):
        return await create(**request)
    return await asyncio.to_thread(create, **request)


class ChatWire:
    """Chat completions: what the loop has always sent."""

    api = "chat"

    def request(
        self, model: str, messages: list[dict[str, Any]], tools: list[Any], tool_choice: Any
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request.update(tools=tools, tool_choice=tool_choice)
        return request

    async def create(self, client: Any, request: dict[str, Any]) -> Any:
        return await _call(client.chat.completions.create, request)

    def read(self, response: Any, step: int) -> Turn:
        return read_reply(response, step)


class ResponsesWire:
    """The Responses API: the same conversation as input items, stateless (`store: false`)."""

    api = "responses"

    def request(
        self, model: str, messages: list[dict[str, Any]], tools: list[Any], tool_choice: Any
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "input": to_responses(messages), "store": False}
        if tools:
            request.update(
                tools=[flat_tool(t) for t in tools], tool_choice=responses_tool_choice(tool_choice)
            )
        return request

    async def create(self, client: Any, request: dict[str, Any]) -> Any:
        return await _call(client.responses.create, request)

    def read(self, response: Any, step: int) -> Turn:
        return read_response(response, step)


def flat_tool(tool: Any) -> dict[str, Any]:
    """A chat-shaped tool as the Responses API's flat function tool, `strict` always said (left
    out, the Responses API would try strict mode on its own: see toolsys/export.py)."""
    function = dict(tool["function"])
    return {"type": "function", **function, "strict": bool(function.get("strict", False))}


def wire_for(api: str) -> Wire:
    """The wire for `api`: "chat" or "responses"."""
    if api == "chat":
        return ChatWire()
    if api == "responses":
        return ResponsesWire()
    raise ValueError(
        f"api={api!r}: give 'chat' (chat completions, client.chat.completions) or 'responses' "
        "(the Responses API, client.responses), e.g. run_agent(client, registry, prompt, "
        "api='responses')."
    )


def read_response(response: Any, step: int) -> Turn:
    """Check a Responses API reply and read it as the equivalent chat reply; raise BadReply."""
    if not is_object(response):
        raise BadReply(
            f"The endpoint's reply is {describe(response)}, not a response: expected a JSON "
            "object with 'output'. Check that base_url points at a Responses API endpoint."
        )
    finished = _finish_reason(response)
    output = get_field(response, "output")
    if not isinstance(output, list):
        raise BadReply(
            f"The endpoint's reply has 'output' = {describe(output)}: expected a list of output "
            "items (messages and function calls)." + _RETRY
        )
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for i, item in enumerate(output):
        where = f"output[{i}]"
        if not is_object(item):
            raise BadReply(
                f"The endpoint's reply has {where} = {describe(item)}: expected an output "
                "item object." + _RETRY
            )
        kind = get_field(item, "type")
        if kind == "message":
            texts += _texts(get_field(item, "content"), where)
        elif kind == "function_call":
            name = get_field(item, "name")
            if not isinstance(name, str):
                raise BadReply(
                    f"The endpoint's reply has {where}.name = {describe(name)}: expected the "
                    "function's name as a string." + _RETRY
                )
            call_id = get_field(item, "call_id")
            calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": get_field(item, "arguments")},
                }
            )
        elif kind != "reasoning":  # a reasoning model's summary: nothing for the loop to act on
            raise BadReply(
                f"The endpoint's reply has {where}.type = {describe(kind)}: this loop runs only "
                "function calls (it offered no other kind of tool)." + _RETRY
            )
    reason = finished or ("tool_calls" if calls else "stop")
    usage = get_field(response, "usage")
    chat = {
        "model": get_field(response, "model"),
        "choices": [
            {
                "message": {"content": "".join(texts) if texts else None, "tool_calls": calls},
                "finish_reason": reason,
            }
        ],
        "usage": None
        if not is_object(usage)
        else {
            "prompt_tokens": get_field(usage, "input_tokens"),
            "completion_tokens": get_field(usage, "output_tokens"),
            "total_tokens": get_field(usage, "total_tokens"),
        },
    }
    return read_reply(chat, step)


def _finish_reason(response: Any) -> str:
    """The chat `finish_reason` a finished response's `status` says ("" when it ended on its
    own); raise BadReply for a response that holds no answer: one that failed (its `error` in
    the message), was cancelled, or is not finished ("queued", "in_progress": the loop asks for
    no background response)."""
    status = get_field(response, "status")
    if status is None or status == "completed":  # status is optional in the SDK's Response
        return ""
    if status == "incomplete":
        details = get_field(response, "incomplete_details")
        reason = get_field(details, "reason") if is_object(details) else None
        return "content_filter" if reason == "content_filter" else "length"
    if status == "failed":
        error = get_field(response, "error")
        code = get_field(error, "code") if is_object(error) else None
        message = get_field(error, "message") if is_object(error) else None
        said = clean_text(": ".join(x for x in (code, message) if isinstance(x, str) and x))
        raise BadReply(
            f'The endpoint\'s response failed (status "failed", error '
            f"{said or describe(error)}): it holds no answer. Retry; if it fails again, the "
            "error says why."
        )
    if status in ("cancelled", "queued", "in_progress"):
        raise BadReply(
            f'The endpoint\'s response has status "{status}": it holds no finished '
            "answer (this loop asks for no background response, and waits for each one to "
            "finish)." + _RETRY
        )
    raise BadReply(
        f"The endpoint's reply has 'status' = {describe(status)}: expected \"completed\" or "
        '"incomplete".' + _RETRY
    )


def _texts(content: Any, where: str) -> list[str]:
    if not isinstance(content, list):
        raise BadReply(
            f"The endpoint's reply has {where}.content = {describe(content)}: expected a list "
            "of content parts." + _RETRY
        )
    texts = []
    for j, part in enumerate(content):
        kind = get_field(part, "type") if is_object(part) else None
        key = "refusal" if kind == "refusal" else "text"
        text = get_field(part, key) if kind in ("output_text", "refusal") else None
        if not isinstance(text, str):
            raise BadReply(
                f"The endpoint's reply has {where}.content[{j}] = {describe(part)}: expected an "
                "output_text part with a string 'text'." + _RETRY
            )
        texts.append(text)
    return texts
