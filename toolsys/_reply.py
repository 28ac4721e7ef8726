"""Read one chat completion without trusting it: a `Turn` the loop can act on, or `BadReply`.

The `openai` SDK does not validate the replies it parses: a 200 body with an empty `choices`
list, a tool call without `function` or a `name` that is a number comes back as an object with
those very values (or as a plain `str`/`list` when the body is not a JSON object). The agent loop
reads the reply here, once, so everything after this point holds plain, checked data.

What is repaired (answered as data, as the protocol allows) and what ends the run:

- `content` must be a string or null; `choices` a non-empty list; `message` an object; each tool
  call an object of type "function" (or with no type) whose `function` has a string `name`.
  Anything else raises `BadReply`, which the loop reports as a `model_error`.
- `arguments` is always a string afterwards: null becomes "{}" (several OpenAI-compatible servers
  send null for a tool without parameters), any other JSON value its JSON text. The registry then
  judges it like any arguments (INVALID_JSON, INVALID_ARGUMENTS).
- A tool call whose `id` is missing, empty or not a string gets a stable synthesized id,
  `toolsys_call_<step>_<position>`, used in both the assistant message and its tool message. The
  OpenAI API accepts any string id a client sends back as long as each tool message answers an
  id of the preceding assistant message; it rejects `tool_call_id: null`.
- A tool call whose id was already used in the same turn is a duplicate: it is kept in the turn
  (so the transcript shows it, under the event id `<id>#<n>`) but it is neither run nor sent back;
  the first call with that id is the one the model is answered for, once.
- `usage` is informational: counts that are not non-negative integers are dropped, never fatal.
- Lone surrogates (valid in JSON escapes, not in UTF-8) become U+FFFD in every string read, so
  the next request that echoes them can still be encoded.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_OBJECTS = (str, bytes, bytearray, int, float, list, tuple, type(None))
_RETRY = " Retry; if it happens again, the endpoint is not OpenAI-compatible for tool calls."


class BadReply(Exception):
    """The endpoint's reply breaks the chat completions protocol; the message says how."""


@dataclass(frozen=True)
class Call:
    """One tool call, checked: `id` is what goes back to the model, `event_id` what events show."""

    id: str
    name: str
    arguments: str
    event_id: str

    @property
    def duplicate(self) -> bool:
        """An earlier call of the same turn has this id: not run, not sent back."""
        return self.event_id != self.id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class Turn:
    """The model's turn as plain, checked data."""

    content: str | None
    calls: tuple[Call, ...]
    usage: dict[str, int] | None
    model: str
    finish_reason: str = ""
    """Why the model stopped: "stop", "tool_calls", "length" (cut at max_tokens), ... or ""."""

    def assistant_message(self) -> dict[str, Any]:
        """The assistant message to send back: each distinct call id once."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.calls:
            message["tool_calls"] = [c.to_dict() for c in self.calls if not c.duplicate]
        return message


def read_reply(response: Any, step: int) -> Turn:
    """Check `response` (what the SDK returned) and return its `Turn`; raise `BadReply`."""
    if not is_object(response):
        raise BadReply(
            f"The endpoint's reply is {describe(response)}, not a chat completion: expected a "
            "JSON object with 'choices'. Check that base_url points at a chat completions "
            "endpoint."
        )
    choices = get_field(response, "choices")
    if not isinstance(choices, list) or not choices:
        raise BadReply(
            f"The endpoint's reply has 'choices' = {describe(choices)}: expected a list with one "
            "choice holding the assistant's message. The endpoint returned no answer; retry, or "
            "check the endpoint."
        )
    message = get_field(choices[0], "message") if is_object(choices[0]) else None
    if not is_object(message):
        raise BadReply(
            f"The endpoint's reply has choices[0].message = {describe(message)}: expected an "
            "object with 'content' and/or 'tool_calls'." + _RETRY
        )
    content = get_field(message, "content")
    if content is not None and not isinstance(content, str):
        raise BadReply(
            f"The endpoint's reply has message.content = {describe(content)}: expected a string "
            "or null." + _RETRY
        )
    model = get_field(response, "model")
    reason = get_field(choices[0], "finish_reason")
    return Turn(
        content=None if content is None else clean_text(content),
        calls=_read_calls(get_field(message, "tool_calls"), step),
        usage=_read_usage(get_field(response, "usage")),
        model=clean_text(model) if isinstance(model, str) else "",
        finish_reason=clean_text(reason) if isinstance(reason, str) else "",
    )


def _read_calls(raw: Any, step: int) -> tuple[Call, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise BadReply(
            f"The endpoint's reply has message.tool_calls = {describe(raw)}: expected a list "
            "of tool calls or null." + _RETRY
        )
    checked = [_read_call(call, i) for i, call in enumerate(raw)]
    taken = {c[0] for c in checked if c[0]}
    seen: dict[str, int] = {}
    calls = []
    for position, (call_id, name, arguments) in enumerate(checked, start=1):
        if not call_id:
            call_id = _fresh(f"toolsys_call_{step}_{position}", taken)
        seen[call_id] = seen.get(call_id, 0) + 1
        event_id = call_id
        if seen[call_id] > 1:
            event_id = _fresh(f"{call_id}#{seen[call_id]}", taken)
        calls.append(Call(call_id, name, arguments, event_id))
    return tuple(calls)


def _read_call(call: Any, i: int) -> tuple[str, str, str]:
    """(id or "", name, arguments) of tool_calls[i]; raise BadReply if it cannot be run."""
    where = f"message.tool_calls[{i}]"
    if not is_object(call):
        raise BadReply(
            f"The endpoint's reply has {where} = {describe(call)}: expected an object with "
            "'id', 'type' and 'function'." + _RETRY
        )
    kind = get_field(call, "type")
    if kind not in ("function", None):
        raise BadReply(
            f"The endpoint's reply has {where}.type = {describe(kind)}: this loop runs only "
            "'function' tool calls (it offered no other kind of tool)." + _RETRY
        )
    function = get_field(call, "function")
    if not is_object(function):
        raise BadReply(
            f"The endpoint's reply has {where}.function = {describe(function)}: expected an "
            "object with 'name' and 'arguments'." + _RETRY
        )
    name = get_field(function, "name")
    if not isinstance(name, str):
        raise BadReply(
            f"The endpoint's reply has {where}.function.name = {describe(name)}: expected the "
            "tool's name as a string." + _RETRY
        )
    call_id = get_field(call, "id")
    return (
        clean_text(call_id) if isinstance(call_id, str) else "",
        clean_text(name),
        _read_arguments(get_field(function, "arguments"), where),
    )


def _read_arguments(arguments: Any, where: str) -> str:
    if isinstance(arguments, str):
        return clean_text(arguments)
    if arguments is None:
        return "{}"
    try:
        return clean_text(json.dumps(arguments, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise BadReply(
            f"The endpoint's reply has {where}.function.arguments that cannot be written as "
            f"JSON text ({type(exc).__name__}): expected a string of JSON." + _RETRY
        ) from None


def _read_usage(usage: Any) -> dict[str, int] | None:
    if not is_object(usage):
        return None
    counts = {}
    for key in _USAGE_KEYS:
        value = get_field(usage, key)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            counts[key] = value
    return counts or None


def _fresh(candidate: str, taken: set[str]) -> str:
    """`candidate`, or `candidate` with a suffix, that no other id uses; now taken."""
    name, n = candidate, 1
    while name in taken:
        n += 1
        name = f"{candidate}_{n}"
    taken.add(name)
    return name


def is_object(value: Any) -> bool:
    return not isinstance(value, _NOT_OBJECTS)


def get_field(obj: Any, key: str) -> Any:
    """`obj[key]` or `obj.key`, None when absent (or when reading it fails)."""
    if isinstance(obj, dict):
        return obj.get(key)
    try:
        return getattr(obj, key, None)
    except Exception:
        return None


def clean_text(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def describe(value: Any) -> str:
    """A short, safe picture of a bad value: its JSON text, else its type."""
    if value is None:
        return "null (or missing)"
    if isinstance(value, list) and not value:
        return "an empty list"
    if isinstance(value, str):
        kind = "text"
    elif isinstance(value, list | tuple):
        kind = "a list"
    elif isinstance(value, dict):
        kind = "an object"
    else:
        kind = type(value).__name__
    try:
        text = json.dumps(value, ensure_ascii=True, default=lambda v: f"<{type(v).__name__}>")
    except (TypeError, ValueError, RecursionError):
        return kind
    text = text if len(text) <= 80 else text[:79] + "…"
    return f"{kind} {text}"
