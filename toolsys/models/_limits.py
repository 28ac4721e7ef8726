"""What a reply costs, where `max_tokens` cuts it and how it is streamed, for both wire shapes.

Token counts are estimates, not a tokenizer: one token per four characters of JSON, rounded up.
A reply longer than the request's limit is cut as a model that runs out of tokens leaves it:
text cut short, a call cut in the middle of its arguments (invalid JSON). The chat completions
endpoint then says `finish_reason: "length"`, the Responses API `status: "incomplete"`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any


def approx_tokens(value: Any) -> int:
    """Approximate token count: one per 4 characters of JSON (an estimate, not a tokenizer)."""
    return math.ceil(len(json.dumps(value, ensure_ascii=False)) / 4)


def assistant_message(reply: dict[str, Any], taken: set[Any]) -> dict[str, Any]:
    """The reply as the chat-shaped assistant message both APIs count, cut and send: each new
    call gets the next free id `call_0001`, `call_0002`, ... not in `taken` (the conversation's
    ids), so the same conversation gets the same ids and the same token count on both APIs."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.get("content"),
        "refusal": None,
    }
    calls, n = [], len(taken)
    for call in reply.get("tool_calls") or []:
        call_id = call.get("id")
        while not call_id or call_id in taken:
            n += 1
            call_id = f"call_{n:04d}"
        taken.add(call_id)
        calls.append(
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
        )
    if calls:
        message["tool_calls"] = calls
    return message


def within(message: dict[str, Any], limit: int | None) -> tuple[dict[str, Any], int, bool]:
    """(the message as sent, its output tokens, whether `limit` cut it): one rule for both APIs."""
    tokens = approx_tokens(message)
    if limit is not None and tokens > limit:
        return cut_to(message, limit), limit, True
    return message, tokens, False


def cut_to(message: dict[str, Any], limit: int) -> dict[str, Any]:
    """The chat-shaped message as a model stopped by `limit` tokens leaves it.

    A call cut in the middle of its arguments keeps the cut text: invalid JSON, as a real
    model's is when it runs out of tokens mid-call.
    """
    room = limit * 4  # the same 4 characters per token as `approx_tokens`
    content = message.get("content")
    cut = dict(message)
    if content is not None:
        cut["content"], room = content[:room], max(room - len(content), 0)
    calls = []
    for call in message.get("tool_calls") or []:
        function = call["function"]
        room -= len(function["name"])
        if room <= 0:
            break
        arguments = function["arguments"][:room]
        room -= len(function["arguments"])
        calls.append({**call, "function": {**function, "arguments": arguments}})
    if calls:
        cut["tool_calls"] = calls
    else:
        cut.pop("tool_calls", None)
        cut["content"] = cut.get("content") or ""
    return cut


def stream_pieces(text: str) -> list[str]:
    """`text` as the pieces a stream sends: one word each with the spaces after it, the first
    with any spaces before it, so the pieces join to exactly `text` (whitespace included)."""
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])
