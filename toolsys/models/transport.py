"""The HTTP layer: serve an in-process model to the real `openai` client.

`openai.OpenAI` sends its requests through an `httpx2` client; giving it an
`httpx2.MockTransport` whose handler is `handle` means every byte goes through the SDK's own
request building, response parsing and error classes, exactly as with a real endpoint. Only the
other side of the wire is simulated.

This module knows the chat completions protocol and routes `POST /responses` (and `GET
/responses/{id}`) to the Responses API module (`_responses`); it knows nothing about how a reply
is chosen: that is the backend's job. A backend is any object with

    name: str                                   # reported as the response's "model"
    reply(request: dict) -> dict                # -> {"content": str | None, "tool_calls": [...]}

where each tool call is `{"name": str, "arguments": str}` (ids are assigned here) and `reply`
raises `RequestError` to answer with an OpenAI-style error. A backend that also has
`decide(Conversation)` (the offline model) is asked through it by the Responses endpoint, so one
decision serves both wire shapes. Requests the protocol subset does
not cover are answered with HTTP 400 and the usual error JSON, so the SDK raises its normal
`openai.BadRequestError`.

A conversation the real API refuses is refused here with the real API's error text (a tool
call left unanswered, answered twice, or a tool message that answers nothing), so a lesson can
show the error a learner will meet. `max_tokens` cuts the reply short with `finish_reason:
"length"`, mid-arguments if need be; `stream: true` answers with server-sent event chunks as
the real endpoint does, which the SDK's own stream parser reads.

The request checks (`validate`, `RequestError`) live in `_requests`; they are importable from
here too. Token counts in `usage` are approximate: one token per four characters of JSON,
rounded up.
Chapter 06 uses this seam for streaming and protocol errors: notebooks/06_agent_loop.ipynb.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from toolsys.models import _responses, config
from toolsys.models._limits import approx_tokens as approx_tokens
from toolsys.models._limits import assistant_message, stream_pieces, within
from toolsys.models._requests import ROLES as ROLES
from toolsys.models._requests import SUPPORTED_PARAMS as SUPPORTED_PARAMS
from toolsys.models._requests import RequestError, validate
from toolsys.models._responses import ResponseStore

if TYPE_CHECKING:
    import httpx2
    import openai

CREATED = int(config.FIXED_NOW.timestamp())
"""The fixed `created` timestamp of every response: no wall clock in a response body."""


class Backend(Protocol):
    name: str

    def reply(self, request: dict[str, Any]) -> dict[str, Any]: ...


# --- responses -------------------------------------------------------------------------------


def completion(backend: Backend, request: dict[str, Any]) -> dict[str, Any]:
    """The full `chat.completion` JSON for a validated request."""
    reply = backend.reply(request)
    taken = {c.get("id") for m in request["messages"] for c in (m.get("tool_calls") or [])}
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()[:16]
    prompt = approx_tokens({k: request.get(k) for k in ("messages", "tools")})
    limit = request.get("max_completion_tokens") or request.get("max_tokens")
    message, answer, cut = within(assistant_message(reply, taken), limit)
    finish = "length" if cut else "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": f"chatcmpl-offline-{digest}",
        "object": "chat.completion",
        "created": CREATED,
        "model": backend.name,
        "system_fingerprint": backend.name,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": answer,
            "total_tokens": prompt + answer,
        },
    }


def stream_chunks(full: dict[str, Any], include_usage: bool) -> Iterator[dict[str, Any]]:
    """Split a completion into `chat.completion.chunk`s: role, content words, tool-call deltas."""
    head = {k: full[k] for k in ("id", "created", "model", "system_fingerprint")}
    head["object"] = "chat.completion.chunk"
    choice = full["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            **head,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }

    yield chunk({"role": "assistant", "content": "" if message["content"] is not None else None})
    for word in stream_pieces(message["content"] or ""):
        yield chunk({"content": word})
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call["function"]
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": fn["name"], "arguments": ""},
                    }
                ]
            }
        )
        for start in range(0, len(fn["arguments"]), 16):
            piece = fn["arguments"][start : start + 16]
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if include_usage:
        yield {**head, "choices": [], "usage": full["usage"]}


def _error_response(error: RequestError) -> httpx2.Response:
    import httpx2

    return httpx2.Response(error.status, json=error.to_json())


def handle(
    backend: Backend, request: httpx2.Request, store: ResponseStore | None = None
) -> httpx2.Response:
    """Answer one HTTP request from the SDK as the chat completions or Responses endpoint would.

    `store` holds the Responses API's stored responses (`previous_response_id`); the clients
    `make_client` builds each keep one. Without it, nothing is remembered between requests.
    """
    import httpx2

    path = request.url.path
    try:
        if request.method == "GET" and (found := re.search(r"/responses/([^/]+)$", path)):
            return httpx2.Response(
                200, json=_responses.retrieve(store or ResponseStore(), found[1])
            )
        if request.method != "POST" or not path.endswith(("/chat/completions", "/responses")):
            raise RequestError(
                "The offline teaching model serves POST /chat/completions, POST /responses and "
                f"GET /responses/{{id}}; got {request.method} {path}.",
                status=404,
                code="unknown_url",
            )
        try:
            body = json.loads(request.content or b"null")
        except json.JSONDecodeError as exc:
            raise RequestError(f"The request body is not valid JSON: {exc}.") from exc
        if path.endswith("/responses"):
            full = _responses.respond(
                backend, _responses.validate(body), store if store is not None else ResponseStore()
            )
            if not body.get("stream"):
                return httpx2.Response(200, json=full)
            return httpx2.Response(
                200, text=_responses.sse(full), headers={"content-type": "text/event-stream"}
            )
        full = completion(backend, validate(body))
    except RequestError as error:
        return _error_response(error)
    if not body.get("stream"):
        return httpx2.Response(200, json=full)
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in stream_chunks(full, include_usage))
    return httpx2.Response(
        200, text=sse + "data: [DONE]\n\n", headers={"content-type": "text/event-stream"}
    )


def make_client(backend: Backend) -> openai.OpenAI:
    """A real `openai.OpenAI` whose requests `backend` answers in-process."""
    import httpx2
    import openai

    return _in_process(backend, openai.OpenAI, httpx2.Client)


def make_async_client(backend: Backend) -> openai.AsyncOpenAI:
    """A real `openai.AsyncOpenAI` whose requests `backend` answers in-process."""
    import httpx2
    import openai

    return _in_process(backend, openai.AsyncOpenAI, httpx2.AsyncClient)


def _in_process(backend: Backend, sdk_class: Any, http_class: Any) -> Any:
    """`sdk_class` (sync or async SDK client) over `http_class` with a mock transport."""
    import httpx2

    store = ResponseStore()  # this client's stored responses, as an account's are on the server
    transport = httpx2.MockTransport(lambda request: handle(backend, request, store))
    client = sdk_class(
        api_key="offline",
        base_url=config.OFFLINE_BASE_URL,
        max_retries=0,
        http_client=http_class(transport=transport),
    )
    client.toolsys_model = backend.name  # the name `run_agent(model=None)` sends
    return client
