"""Reading a request: the user's text, the tool turns since, and the tools offered.

The offline model keeps no memory: everything it decides comes from these, every request. They
are gathered into a `Conversation`, which knows no wire shape: `from_chat` reads one from a
chat completions request, and another API's shape needs only its own reader, never a second
copy of the decision (`OfflineModel.decide`).
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
    choice = request.get("tool_choice") or "auto"
    if isinstance(choice, dict):
        choice = {"function": {"name": choice.get("function", {}).get("name")}}
    return Conversation(
        text=text,
        functions=[t["function"] for t in request.get("tools") or []],
        turns=tool_turns(messages[start + 1 :]),
        tool_choice=choice,
        parallel=request.get("parallel_tool_calls", True),
    )


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
