"""Reading a request: the user's text, the tool turns since, and the tools offered.

The offline model keeps no memory: everything it decides comes from these, every request. They
are gathered into a `Conversation`, which knows no wire shape: `from_chat` reads one from a
chat completions request, `from_responses` from the items of a Responses API conversation, and
the decision exists once (`OfflineModel.decide`). `tests/test_models_responses.py` checks that
the two readers agree on every bundled prompt.

`tool_choice` `{"type": "allowed_tools", ...}` (both APIs) narrows the tools the model may call
to the listed ones, with mode "auto" or "required"; the others stay in the request (OpenAI
documents it as a way to keep a long tool list, and the prompt cache, unchanged while
restricting calls: `openai.types.responses.ToolChoiceAllowed`, openai-python 3.57).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Call(NamedTuple):
    """A tool call the assistant made: its id, the tool's name, the arguments as sent (text)."""

    id: str
    name: str
    arguments: str


Turn = tuple[list[Call], dict[str, str]]
"""The calls of one assistant turn, and {call id: the result's text} for those answered."""


@dataclass(frozen=True)
class Conversation:
    """What the model decides from, in no wire shape.

    `text`: the last user message; `turns`: the tool turns after it; `functions`: the tools
    offered, each `{"name", "description", "parameters"}`; `tool_choice`: "auto", "none",
    "required" or `{"function": {"name": ...}}`; `parallel`: several calls in one turn allowed.
    """

    text: str
    functions: list[dict[str, Any]]
    turns: list[Turn] = field(default_factory=list)
    tool_choice: Any = "auto"
    parallel: bool = True


def from_chat(request: dict[str, Any]) -> Conversation:
    """The conversation in a chat completions request (`messages`, `tools`, `tool_choice`)."""
    messages = request["messages"]
    start = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    text = content_text(messages[start]["content"]) if start >= 0 else ""
    functions = [t["function"] for t in request.get("tools") or []]
    choice = request.get("tool_choice") or "auto"
    if isinstance(choice, dict) and choice.get("type") == "allowed_tools":
        allowed = choice.get("allowed_tools") or {}
        names = [(t.get("function") or {}).get("name") for t in allowed.get("tools") or []]
        functions, choice = _allowed(functions, names, allowed.get("mode", "auto"))
    elif isinstance(choice, dict):
        choice = {"function": {"name": choice.get("function", {}).get("name")}}
    return Conversation(
        text=text,
        functions=functions,
        turns=tool_turns(messages[start + 1 :]),
        tool_choice=choice,
        parallel=request.get("parallel_tool_calls", True),
    )


def from_responses(
    items: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    tool_choice: Any = "auto",
    parallel: bool = True,
) -> Conversation:
    """The conversation in Responses API items (the stored history and this request's input).

    `items` are normalised input/output items: messages (`{"type": "message", "role",
    "content"}`), `function_call` (`call_id`, `name`, `arguments`) and `function_call_output`
    (`call_id`, `output`); `tools` are flat function tools (`{"type": "function", "name",
    "description", "parameters"}`); `tool_choice` is the Responses form ("auto", "none",
    "required", `{"type": "function", "name"}` or `{"type": "allowed_tools", "mode", "tools"}`).
    """
    start = max(
        (i for i, m in enumerate(items) if m.get("type") == "message" and m["role"] == "user"),
        default=-1,
    )
    text = content_text(items[start]["content"]) if start >= 0 else ""
    functions = [_function(t) for t in tools if t.get("type") == "function"]
    choice = tool_choice or "auto"
    if isinstance(choice, dict) and choice.get("type") == "allowed_tools":
        names = [t.get("name") for t in choice.get("tools") or [] if t.get("type") == "function"]
        functions, choice = _allowed(functions, names, choice.get("mode", "auto"))
    elif isinstance(choice, dict):
        choice = {"function": {"name": choice.get("name")}}
    return Conversation(
        text=text,
        functions=functions,
        turns=item_turns(items[start + 1 :]),
        tool_choice=choice,
        parallel=parallel,
    )


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    """A flat function tool as the function definition the decision reads."""
    return {k: tool[k] for k in ("name", "description", "parameters", "strict") if k in tool}


def _allowed(
    functions: list[dict[str, Any]], names: list[Any], mode: Any
) -> tuple[list[dict[str, Any]], Any]:
    """The functions an `allowed_tools` choice lets the model call, and "auto" or "required"."""
    return [
        f for f in functions if f["name"] in names
    ], "required" if mode == "required" else "auto"


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list."""
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def tool_turns(messages: list[dict[str, Any]]) -> list[Turn]:
    """(tool calls, {call id: result text}) for each assistant turn with calls (chat shape)."""
    found: list[Turn] = []
    for message in messages:
        if message["role"] == "assistant" and message.get("tool_calls"):
            calls = [
                Call(c["id"], c["function"]["name"], c["function"]["arguments"])
                for c in message["tool_calls"]
            ]
            found.append((calls, {}))
        elif message["role"] == "tool" and found:
            found[-1][1][message["tool_call_id"]] = content_text(message.get("content"))
    return found


def item_turns(items: list[dict[str, Any]]) -> list[Turn]:
    """(tool calls, {call id: result text}) for each assistant turn of `function_call` items.

    A run of calls is one turn, as an assistant message's `tool_calls` are in the chat shape: a
    call after an output starts the next turn; messages in between do not end one. But the
    calls of one response keep together however the outputs are placed: OpenAI's guide sends
    each output right after its call, so `[call a, output a, call b, output b]` is one turn when
    a and b came in one response. The item `id` says so (`fc_<response>_<n>`, as this endpoint
    gives them and the SDK sends them back); without ids such a list reads as two turns.
    """
    found: list[Turn] = []
    answered = True  # the last turn has outputs: the next call starts a new turn
    response: str | None = None  # the response the last call came from, if its id says
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            same = _response_of(item)
            if (answered and (same is None or same != response)) or not found:
                found.append(([], {}))
            answered, response = False, same
            found[-1][0].append(Call(item["call_id"], item["name"], item["arguments"]))
        elif kind == "function_call_output":
            for calls, results in reversed(found):  # the turn that made this call
                if any(c.id == item["call_id"] for c in calls):
                    results[item["call_id"]] = content_text(item.get("output"))
                    break
            answered = True
    return found


def _response_of(item: dict[str, Any]) -> str | None:
    """The response part of a function call item's id `fc_<response>_<n>`, or None."""
    head, _, index = str(item.get("id") or "").rpartition("_")
    return head if head.startswith("fc_") and index.isdigit() else None


def request_text(request: Any) -> tuple[str, int]:
    """(the last user message's text, how many tool turns follow it) from a prompt or messages."""
    if isinstance(request, str):
        return request, 0
    if isinstance(request, list) and all(isinstance(m, dict) and "role" in m for m in request):
        start = max((i for i, m in enumerate(request) if m["role"] == "user"), default=-1)
        text = content_text(request[start].get("content")) if start >= 0 else ""
        return text, len(tool_turns(request[start + 1 :]))
    raise TypeError(
        f"request is {type(request).__name__}; give the prompt as a str or the messages as a "
        'list of dicts, e.g. [{"role": "user", "content": "weather in Paris"}].'
    )


def functions_of(tools: Any) -> list[dict[str, Any]]:
    """Function definitions from a Registry or from OpenAI-style tool definitions."""
    if hasattr(tools, "export") and callable(tools.export):
        tools = tools.export("openai")
    if isinstance(tools, dict):
        tools = [tools]
    wanted = 'a Registry or a list of {"type": "function", "function": {"name": ..., ...}}'
    if not isinstance(tools, list | tuple):
        raise TypeError(f"tools is {type(tools).__name__}; give {wanted}.")
    functions = []
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if not (isinstance(function, dict) and isinstance(function.get("name"), str)):
            shown = repr(tool) if len(repr(tool)) <= 60 else repr(tool)[:57] + "..."
            raise TypeError(f"tools holds {shown}, not a tool definition; give {wanted}.")
        functions.append(function)
    return functions


def by_name(functions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(f for f in functions if f["name"] == name)
