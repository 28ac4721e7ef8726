"""Three wire shapes for one registry: OpenAI's chat messages and Responses items, Anthropic's
content blocks.

The registry, its tools and its `ToolResult`s do not change with the provider; only the shape
of the conversation does (the Responses API's own table is in toolsys/models/_responses.py):

| what               | OpenAI chat completions             | Anthropic messages                  |
|--------------------|-------------------------------------|-------------------------------------|
| the model's call   | `tool_calls[i]`, arguments as JSON  | a `tool_use` block, `input` an      |
|                    | *text* in `function.arguments`      | *object*                            |
| the result         | one `{"role": "tool"}` message per  | `tool_result` blocks in one `user`  |
|                    | call id                             | message; `is_error` for a failure   |
| system prompt      | a `system` message                  | the request's top-level `system`    |
| forcing a tool     | `tool_choice`: "auto", "required",  | `tool_choice.type`: "auto", "any",  |
|                    | "none", a named function            | "none", "tool" (with a `name`)      |
| one call per turn  | `parallel_tool_calls: false`        | `disable_parallel_tool_use: true`   |
| why the turn ended | `finish_reason`                     | `stop_reason`                       |

`to_anthropic` and `from_anthropic` convert a whole conversation each way (a transcript's
`messages` included); `tool_result_block` renders one `ToolResult` (its `content` as text, or as
text content blocks); `run_tool_uses` runs an Anthropic assistant turn's `tool_use` blocks
through any registry and returns the user message that answers them. `to_responses` and
`from_responses` do the same for the Responses API's items (`function_call` /
`function_call_output`, paired by `call_id`), `function_call_output` renders one result and
`run_function_calls` answers a response's calls. The model reads the same envelope text
(`ToolResult.to_message()`) in every shape. No Anthropic SDK is needed: these are plain dicts,
what its API sends and takes (anthropic-sdk-python 0.121: `types/tool_result_block_param.py`,
`content: str | list of text, image, search_result, document or tool_reference blocks`,
`is_error: bool`).

A failure is said in two ways, and each conversion keeps both: a toolsys envelope says
`"ok": false` in its text; Anthropic's `is_error: true` says it beside the text. OpenAI's tool
messages have no such flag, so a failed `tool_result` whose text is not an envelope becomes a
tool message starting `ERROR_PREFIX` ("[tool error] "), and `to_anthropic` reads that prefix back
as `is_error: true`: the failure survives the round trip, and the OpenAI model still reads that
it failed. Content blocks other than text (an image, a document, a tool reference) have no place
in an OpenAI tool message: converting one raises ValueError naming it.

A user message's images go along in every shape: a chat `image_url` part is a Responses
`input_image` part, and an Anthropic `image` block (a base64 source for a `data:` URL of a type
Anthropic takes, a url source for an http(s) URL). What has no mapping (an audio or file part,
an image where a message carries text only, an Anthropic document block) raises ValueError
naming the message and the part: nothing is dropped without a word.

What each round trip gives back, exactly (tests/test_protocols.py checks both by property):

- `from_responses(to_responses(messages))` is `messages`: a call's arguments are JSON *text* in
  both shapes and stay the very text sent, content parts stay parts. Except: an image's
  `detail` "auto" (the default of both APIs) comes back unsaid, an assistant's content parts as
  their joined text, null content (but an assistant's) as "", and two assistant messages in a
  row (which no model sends) join.
- `from_anthropic(to_anthropic(messages))` is `messages` up to what Anthropic's shape has no
  place for. A `tool_use` `input` is an *object*, so a call's arguments come back as the JSON
  text of the same value (`json.dumps(..., ensure_ascii=False)`), equal as JSON but not in the
  model's own spacing or escapes (`'{"a":1}'` comes back `'{"a": 1}'`; `''` and null are read
  as `{}`); a user message of one text part comes back as that text, an assistant's parts as
  their joined text, null content (but an assistant's) as "", and the system and developer
  messages as one system message first (none when their text is empty), as Anthropic has one
  top-level `system`; Anthropic has no image `detail`, so it is not carried.

Chapter 06 builds this by hand first: notebooks/06_agent_loop.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolsys.result import ToolResult

__all__ = [
    "ERROR_PREFIX",
    "STOP_REASONS",
    "anthropic_tool_choice",
    "from_anthropic",
    "from_responses",
    "function_call_output",
    "responses_tool_choice",
    "run_function_calls",
    "run_tool_uses",
    "to_anthropic",
    "to_responses",
    "tool_result_block",
]

ERROR_PREFIX = "[tool error] "
"""How an OpenAI tool message says what Anthropic's `is_error: true` says, for a result whose
text is not a toolsys envelope (which says `"ok": false` itself)."""

STOP_REASONS: dict[str, str] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
"""OpenAI `finish_reason` -> Anthropic `stop_reason` (Anthropic also has `stop_sequence` and
`pause_turn`, which OpenAI reports as "stop")."""


def tool_result_block(
    tool_use_id: str, result: ToolResult, *, blocks: bool = False
) -> dict[str, Any]:
    """`result` as an Anthropic `tool_result` content block answering `tool_use_id`.

    `content` is the same text an OpenAI tool message carries (the redacted JSON envelope), as
    a string or, with `blocks=True`, as one text content block; `is_error` says whether the call
    failed, so the model need not parse the text to know.
    """
    if not isinstance(tool_use_id, str) or not tool_use_id:
        raise ValueError(
            f"tool_use_id={tool_use_id!r}: pass the id of the tool_use block this result "
            "answers, e.g. 'toolu_01A09q90qw90lq917835lq9'."
        )
    if not isinstance(result, ToolResult):
        raise TypeError(
            f"result is {type(result).__name__}, not a ToolResult; pass what "
            "registry.execute(...) returned."
        )
    text = result.to_message()
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "text", "text": text}] if blocks else text,
        "is_error": not result.ok,
    }


def anthropic_tool_choice(
    tool_choice: Any = "auto", *, parallel_tool_calls: bool = True
) -> dict[str, Any]:
    """An OpenAI `tool_choice` (and `parallel_tool_calls`) as Anthropic's `tool_choice` object."""
    if tool_choice == "none":
        return {"type": "none"}  # Anthropic refuses disable_parallel_tool_use with "none"
    if tool_choice == "auto":
        choice: dict[str, Any] = {"type": "auto"}
    elif tool_choice == "required":
        choice = {"type": "any"}
    elif (
        isinstance(tool_choice, Mapping)
        and tool_choice.get("type") == "function"
        and isinstance(tool_choice.get("function"), Mapping)
        and isinstance(tool_choice["function"].get("name"), str)
    ):
        choice = {"type": "tool", "name": tool_choice["function"]["name"]}
    else:
        raise ValueError(
            f"tool_choice={tool_choice!r}: expected 'auto', 'required', 'none' or "
            "{'type': 'function', 'function': {'name': ...}}."
        )
    if not parallel_tool_calls:
        choice["disable_parallel_tool_use"] = True
    return choice


# --- OpenAI -> Anthropic -------------------------------------------------------------------------


def to_anthropic(messages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """OpenAI chat `messages` as Anthropic's `{"system": ..., "messages": [...]}`.

    System (and developer) messages join the top-level `system` text; an assistant's
    `tool_calls` become `tool_use` blocks whose `input` is the decoded arguments; consecutive
    tool messages become `tool_result` blocks of one user message (a user message right after
    them joins it, after the results). A user message's text and image_url parts become text and
    `image` blocks. A tool message is marked `is_error` when its content is a toolsys envelope
    that says `"ok": false`. Raises ValueError, naming the message, for what Anthropic cannot
    carry: arguments that are not a JSON object, a part that is neither text nor an image (or an
    image Anthropic does not take: not an http(s) URL, nor base64 JPEG, PNG, GIF or WebP).
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        if role in ("system", "developer"):
            system.append(_text(message.get("content"), i))
        elif role == "user":
            _add_user_blocks(out, _user_blocks(message.get("content"), i))
        elif role == "assistant":
            out.append({"role": "assistant", "content": _assistant_blocks(message, i)})
        elif role == "tool":
            _add_user_blocks(out, [_result_block(message, i)])
        else:
            raise ValueError(
                f"messages[{i}] has role {role!r}: expected system, developer, user, "
                "assistant or tool."
            )
    converted: dict[str, Any] = {"messages": [_compact(m) for m in out]}
    if system:
        converted["system"] = "\n\n".join(system)
    return converted


def _add_user_blocks(out: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> None:
    """Results (and a user message right after them) share one user message: results first."""
    last = out[-1] if out else None
    if last and last["role"] == "user" and all(b["type"] == "tool_result" for b in last["content"]):
        last["content"].extend(blocks)
    else:
        out.append({"role": "user", "content": blocks})


def _user_blocks(content: Any, i: int) -> list[dict[str, Any]]:
    """A user message's content as Anthropic blocks: each text part a text block, each image_url
    part an image block (`_image_block`); another kind of part raises ValueError naming it."""
    if content is None or isinstance(content, str):
        return [{"type": "text", "text": content or ""}]
    blocks: list[dict[str, Any]] = []
    for j, part in enumerate(_parts(content, i)):
        kind = part.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": _part_text(part, i, j)})
        elif kind == "image_url":
            blocks.append(_image_block(_image_url(part, i, j)[0], i, j))
        else:
            raise ValueError(
                f"messages[{i}].content[{j}] is a {kind!r} part: Anthropic's shape here takes "
                "text and image_url parts only. Describe it in a text part, or keep this "
                "conversation in OpenAI's shape."
            )
    return blocks or [{"type": "text", "text": ""}]


_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
"""The media types an Anthropic `image` block's base64 source takes."""


def _image_block(url: str, i: int, j: int) -> dict[str, Any]:
    """An image URL as an Anthropic `image` block: a `data:` URL as a base64 source, an http(s)
    URL as a url source; anything else raises ValueError naming the part."""
    where = f"messages[{i}].content[{j}]"
    if url.startswith("data:"):
        header, comma, data = url[5:].partition(",")
        media_type, *params = header.split(";")
        if not comma or params[-1:] != ["base64"] or media_type not in _IMAGE_TYPES:
            raise ValueError(
                f"{where} is an image whose data URL ({url[:40]!r}...) is not base64 "
                f"{', '.join(_IMAGE_TYPES)}: Anthropic's image block takes only those. Convert "
                "the image, or give its https URL."
            )
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }
    if url.startswith(("https://", "http://")):
        return {"type": "image", "source": {"type": "url", "url": url}}
    raise ValueError(
        f"{where} is an image at {url[:40]!r}: expected an http(s) URL or a base64 data: URL, "
        "which is what Anthropic's image block takes."
    )


def _parts(content: Any, i: int) -> list[Mapping[str, Any]]:
    """A message's content parts, each an object (ValueError naming the first that is not)."""
    if not isinstance(content, list):
        raise ValueError(
            f"messages[{i}].content is {type(content).__name__}: expected text or a list of "
            "content parts."
        )
    for j, part in enumerate(content):
        if not isinstance(part, Mapping):
            raise ValueError(
                f"messages[{i}].content[{j}] is {type(part).__name__}: expected a content part "
                "such as {'type': 'text', 'text': ...}."
            )
    return content


def _part_text(part: Mapping[str, Any], i: int, j: int) -> str:
    text = part.get("text")
    if not isinstance(text, str):
        raise ValueError(f"messages[{i}].content[{j}] is a text part without a string 'text'.")
    return text


def _image_url(part: Mapping[str, Any], i: int, j: int) -> tuple[str, str | None]:
    """An image_url part's (url, detail)."""
    image = part.get("image_url")
    if not isinstance(image, Mapping) or not isinstance(image.get("url"), str):
        raise ValueError(
            f"messages[{i}].content[{j}] is an image_url part without "
            "{'image_url': {'url': ...}}."
        )
    detail = image.get("detail")
    return image["url"], detail if isinstance(detail, str) else None


def _compact(message: dict[str, Any]) -> dict[str, Any]:
    """A user message that is one text block is sent as plain text."""
    content = message["content"]
    if message["role"] == "user" and len(content) == 1 and content[0]["type"] == "text":
        return {"role": "user", "content": content[0]["text"]}
    return message


def _assistant_blocks(message: Mapping[str, Any], i: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    content = message.get("content")
    if content:
        blocks.append({"type": "text", "text": _text(content, i)})
    for j, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise ValueError(f"messages[{i}].tool_calls[{j}] has no function name.")
        raw = function.get("arguments") or "{}"
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            arguments = None
        if not isinstance(arguments, dict):
            shown = raw if len(str(raw)) <= 60 else str(raw)[:57] + "..."
            raise ValueError(
                f"messages[{i}].tool_calls[{j}] ({function['name']}) has arguments that are not "
                f"a JSON object ({shown!r}); Anthropic's tool_use input must be an object: fix "
                "or drop that call before converting."
            )
        blocks.append(
            {"type": "tool_use", "id": call.get("id"), "name": function["name"], "input": arguments}
        )
    return blocks or [{"type": "text", "text": ""}]


def _result_block(message: Mapping[str, Any], i: int) -> dict[str, Any]:
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ValueError(f"messages[{i}] is a tool message without a tool_call_id.")
    content = _text(message.get("content"), i)
    if content.startswith(ERROR_PREFIX):
        return {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": content.removeprefix(ERROR_PREFIX),
            "is_error": True,
        }
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": content,
        "is_error": _is_failure(content),
    }


def _is_failure(content: str) -> bool:
    """True when `content` is a toolsys envelope that reports a failure."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and data.get("ok") is False and "error" in data


def _text(content: Any, i: int) -> str:
    """Message content as text: a string, or the text of OpenAI text (and refusal) parts joined;
    a part of another kind (an image) raises ValueError naming it, never dropped."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ValueError(f"messages[{i}].content is {type(content).__name__}: expected text.")
    texts = []
    for j, part in enumerate(_parts(content, i)):
        kind = part.get("type")
        if kind == "refusal" and isinstance(part.get("refusal"), str):
            texts.append(part["refusal"])
        elif kind == "text":
            texts.append(_part_text(part, i, j))
        else:
            raise ValueError(
                f"messages[{i}].content[{j}] is a {kind!r} part: this message carries text "
                "only (an image belongs in a user message)."
            )
    return "".join(texts)


# --- Anthropic -> OpenAI -------------------------------------------------------------------------


def from_anthropic(
    messages: Iterable[Mapping[str, Any]], system: str | None = None
) -> list[dict[str, Any]]:
    """Anthropic `messages` (and `system`) as OpenAI chat messages; `to_anthropic` undone, as far
    as Anthropic's shape keeps a conversation (the module docstring says exactly how far).

    A `tool_use` block's `input` becomes JSON text in `function.arguments`
    (`json.dumps(input, ensure_ascii=False)`: the text of the same JSON value, not the text the
    model once sent, which an object cannot keep); each `tool_result` block becomes a tool
    message, its text blocks joined (OpenAI has no `is_error`: a toolsys envelope already says
    `"ok": false`, other failed text is prefixed `ERROR_PREFIX`); text and image blocks after
    the results become a user message after the tool messages (its content the text, when it
    is one text block, else text and image_url parts). A non-text block in a result, or a user
    block that is neither text, an image nor a result, raises ValueError naming it.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        if role not in ("user", "assistant"):
            raise ValueError(f"messages[{i}] has role {role!r}: expected user or assistant.")
        blocks = _blocks(message.get("content"), i)
        if role == "assistant":
            out.append(_openai_assistant(blocks))
            continue
        parts: list[dict[str, Any]] = []
        for k, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "tool_result":
                content = _block_text(block.get("content"), i)
                if block.get("is_error") is True and not _is_failure(content):
                    content = ERROR_PREFIX + content
                out.append(
                    {"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": content}
                )
            elif kind == "text":
                parts.append({"type": "text", "text": block.get("text", "")})
            elif kind == "image":
                parts.append(_image_part(block.get("source"), i, k))
            else:
                raise ValueError(
                    f"messages[{i}].content[{k}] is a {kind!r} block: an OpenAI user message "
                    "here carries text and images only. Describe it in a text block, or keep "
                    "this conversation in Anthropic's shape."
                )
        if len(parts) == 1 and parts[0]["type"] == "text":
            out.append({"role": "user", "content": parts[0]["text"]})
        elif parts:
            out.append({"role": "user", "content": parts})
    return out


def _image_part(source: Any, i: int, k: int) -> dict[str, Any]:
    """An Anthropic image block's source as an OpenAI image_url part (base64 as a data: URL)."""
    kind = source.get("type") if isinstance(source, Mapping) else None
    if kind == "base64" and isinstance(source, Mapping):
        url = f"data:{source.get('media_type')};base64,{source.get('data')}"
    elif kind == "url" and isinstance(source, Mapping) and isinstance(source.get("url"), str):
        url = source["url"]
    else:
        raise ValueError(
            f"messages[{i}].content[{k}] is an image whose source is of type {kind!r}: an "
            "OpenAI image_url part takes a URL or base64 data (source type 'url' or 'base64')."
        )
    return {"type": "image_url", "image_url": {"url": url}}


def _openai_assistant(blocks: list[Mapping[str, Any]]) -> dict[str, Any]:
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = [
        {
            "id": b.get("id"),
            "type": "function",
            "function": {
                "name": b.get("name"),
                "arguments": json.dumps(b.get("input") or {}, ensure_ascii=False),
            },
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _blocks(content: Any, i: int) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and all(isinstance(b, Mapping) for b in content):
        return content
    raise ValueError(
        f"messages[{i}].content is {type(content).__name__}: expected text or a list of blocks."
    )


def _block_text(content: Any, i: int) -> str:
    if isinstance(content, list):
        for block in content:
            kind = block.get("type") if isinstance(block, Mapping) else type(block).__name__
            if kind != "text":
                raise ValueError(
                    f"messages[{i}] has a tool_result with a {kind!r} block: an OpenAI tool "
                    "message carries text only. Describe it in a text block, or keep this "
                    "conversation in Anthropic's shape."
                )
        return "".join(b.get("text", "") for b in content)
    return "" if content is None else str(content)


# --- the same registry under Anthropic's shape ---------------------------------------------------


def run_tool_uses(registry: Any, content: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Run each `tool_use` block of an assistant turn; the user message with their results.

    `registry`: anything with `execute(name, arguments)` returning a `ToolResult` (a
    `Registry`). One `tool_result` per `tool_use`, in the same order, failures included. None
    when the turn asked for no tool (it is the final answer).
    """
    uses = [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"]
    if not uses:
        return None
    blocks = [
        tool_result_block(use["id"], registry.execute(use["name"], use.get("input") or {}))
        for use in uses
    ]
    return {"role": "user", "content": blocks}


# --- the Responses API ---------------------------------------------------------------------------


def to_responses(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat `messages` as Responses API input items.

    System, developer and user messages stay messages (the Responses API takes all three roles
    as input), their content text or, given as parts, parts: text as `input_text`, image_url as
    `input_image` (`detail` "auto" unless the part says otherwise), so the model reads what the
    chat API would have sent it, not a re-joined text; an assistant's text becomes an assistant
    message and each of its `tool_calls` a `function_call` item (`call_id` is the chat call's
    `id`, `arguments` its text as it is); each tool message becomes a `function_call_output`
    answering its `tool_call_id`. An assistant message that says nothing and calls nothing is
    sent as empty text (and read back as `content: None`). A part of another kind (audio, a
    file) raises ValueError naming it.
    """
    items: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        if role in ("system", "developer", "user"):
            items.append({"role": role, "content": _input_content(message.get("content"), i)})
        elif role == "assistant":
            if message.get("content") or not message.get("tool_calls"):  # nothing said: ""
                items.append({"role": "assistant", "content": _text(message.get("content"), i)})
            for j, call in enumerate(message.get("tool_calls") or []):
                function = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
                    raise ValueError(f"messages[{i}].tool_calls[{j}] has no function name.")
                arguments = function.get("arguments")
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.get("id"),
                        "name": function["name"],
                        "arguments": arguments if isinstance(arguments, str) else "{}",
                    }
                )
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise ValueError(f"messages[{i}] is a tool message without a tool_call_id.")
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": _input_content(message.get("content"), i, text=True),
                }
            )
        else:
            raise ValueError(
                f"messages[{i}] has role {role!r}: expected system, developer, user, "
                "assistant or tool."
            )
    return items


def from_responses(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Responses API items (input, or a response's `output`) as chat messages; the inverse of
    `to_responses`.

    Consecutive `function_call` items (and an assistant message just before them) become one
    assistant message with `tool_calls`; each `function_call_output` a tool message. Content
    given as parts comes back as chat parts (`input_text` as text, `input_image` as image_url),
    an assistant's as its text. A `reasoning` item (a reasoning model's summary, which gpt-5 and
    o-series responses carry before their calls) is skipped, as the agent loop's reader skips it:
    chat messages have no place for it. Items have no turn boundary: two assistant messages in a
    row (which no model sends) would join. Another kind of item raises ValueError naming it.
    """
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        item = item.model_dump() if hasattr(item, "model_dump") else item
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "reasoning":  # a reasoning model's summary: chat messages have no place for it
            continue
        if kind == "message" and item.get("role") != "assistant":
            out.append({"role": item.get("role"), "content": _chat_content(item.get("content"), i)})
        elif kind == "message":
            text = _parts_text(item.get("content"), i)
            out.append({"role": "assistant", "content": text or None})  # None: said nothing
        elif kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")},
            }
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant":  # the same turn
                last.setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            content = output if isinstance(output, str) else _chat_content(output, i, text=True)
            out.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": content})
        else:
            raise ValueError(
                f"items[{i}] is of type {kind!r}: expected message, function_call, "
                "function_call_output or reasoning (skipped)."
            )
    return out


def _input_content(content: Any, i: int, *, text: bool = False) -> str | list[dict[str, Any]]:
    """A system, developer or user message's content as Responses input: text stays text, and
    content parts stay parts (text as `input_text`, image_url as `input_image`), so the model
    reads what the chat API would have given it. Another kind of part raises ValueError.
    `text`: a tool message's content, which is text only."""
    if content is None or isinstance(content, str):
        return content or ""
    parts: list[dict[str, Any]] = []
    for j, part in enumerate(_parts(content, i)):
        kind = part.get("type")
        if kind == "text":
            parts.append({"type": "input_text", "text": _part_text(part, i, j)})
        elif kind == "image_url" and not text:
            url, detail = _image_url(part, i, j)
            parts.append({"type": "input_image", "image_url": url, "detail": detail or "auto"})
        else:
            raise ValueError(
                f"messages[{i}].content[{j}] is a {kind!r} part: the Responses API conversion "
                f"takes {'text' if text else 'text and image_url'} parts only here. Describe it "
                "in a text part, or send this conversation over chat completions."
            )
    return parts


def _chat_content(content: Any, i: int, *, text: bool = False) -> str | list[dict[str, Any]]:
    """Responses input content as chat content: text stays text, input_text parts become text
    parts and input_image parts image_url parts (its detail said unless "auto", the default of
    both APIs); another kind raises ValueError. `text`: a tool message's, which is text only."""
    if not isinstance(content, list):
        return _text(content, i)
    parts: list[dict[str, Any]] = []
    for j, part in enumerate(content):
        part = part.model_dump() if hasattr(part, "model_dump") else part
        kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
        if kind in ("input_text", "output_text") and isinstance(part.get("text"), str):
            parts.append({"type": "text", "text": part["text"]})
        elif kind == "input_image" and not text and isinstance(part.get("image_url"), str):
            image = {"url": part["image_url"]}
            if part.get("detail") not in (None, "auto"):
                image["detail"] = part["detail"]
            parts.append({"type": "image_url", "image_url": image})
        else:
            raise ValueError(
                f"items[{i}].content[{j}] is a {kind!r} part: a chat "
                f"{'tool message carries text' if text else 'message carries text and image_url'}"
                " parts only (an input_image by URL, not file_id)."
            )
    return parts


def _parts_text(content: Any, i: int) -> str:
    """An assistant message's text: its output_text parts, and what a refusal part says."""
    if not isinstance(content, list):
        return _text(content, i)
    texts = []
    for part in content:
        part = part.model_dump() if hasattr(part, "model_dump") else part
        if isinstance(part, Mapping):
            key = "refusal" if part.get("type") == "refusal" else "text"
            texts.append(part.get(key) or "")
    return "".join(texts)


def function_call_output(call_id: str, result: ToolResult) -> dict[str, Any]:
    """`result` as the Responses API's `function_call_output` item answering `call_id`."""
    if not isinstance(call_id, str) or not call_id:
        raise ValueError(
            f"call_id={call_id!r}: pass the call_id of the function_call this result answers, "
            "e.g. 'call_0001'."
        )
    if not isinstance(result, ToolResult):
        raise TypeError(
            f"result is {type(result).__name__}, not a ToolResult; pass what "
            "registry.execute(...) returned."
        )
    return {"type": "function_call_output", "call_id": call_id, "output": result.to_message()}


def run_function_calls(registry: Any, output: Iterable[Any]) -> list[dict[str, Any]] | None:
    """Run each `function_call` item of a response's `output`; their `function_call_output`s.

    `output`: `response.output` (SDK objects or dicts); `registry`: anything with `execute(name,
    arguments)` (a `Registry`). One output per call, in order, failures included; None when the
    response called nothing (its text is the final answer).
    """
    calls = [
        item.model_dump() if hasattr(item, "model_dump") else dict(item)
        for item in output
        if (item.get("type") if isinstance(item, Mapping) else getattr(item, "type", None))
        == "function_call"
    ]
    if not calls:
        return None
    return [
        function_call_output(c["call_id"], registry.execute(c["name"], c.get("arguments") or "{}"))
        for c in calls
    ]


def responses_tool_choice(tool_choice: Any = "auto") -> Any:
    """A chat completions `tool_choice` as the Responses API's (flat: `{"type": "function",
    "name"}`; `allowed_tools` without its inner object)."""
    if tool_choice in ("auto", "none", "required"):
        return tool_choice
    if isinstance(tool_choice, Mapping) and tool_choice.get("type") == "function":
        function = tool_choice.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            return {"type": "function", "name": function["name"]}
    if isinstance(tool_choice, Mapping) and tool_choice.get("type") == "allowed_tools":
        allowed = tool_choice.get("allowed_tools")
        if isinstance(allowed, Mapping):
            return {
                "type": "allowed_tools",
                "mode": allowed.get("mode", "auto"),
                "tools": [
                    {"type": "function", "name": (t.get("function") or {}).get("name")}
                    for t in allowed.get("tools") or []
                ],
            }
    raise ValueError(
        f"tool_choice={tool_choice!r}: expected 'auto', 'required', 'none', "
        "{'type': 'function', 'function': {'name': ...}} or an allowed_tools choice."
    )
