"""A model that replays a script: for lessons and tests that need an exact sequence of turns.

    model = ScriptedModel([calls(("add", {"a": 1, "b": 2})), text("3")])
    client = model.client()          # a real openai.OpenAI, answered from the script

Each request consumes the next scripted turn, whatever the request says (the script *is* the
model's decision). Running out of script is answered with an HTTP 400 error naming the request,
so the SDK raises `openai.BadRequestError` and the agent loop reports a model error.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from toolsys.models import config, transport

if TYPE_CHECKING:
    import openai


def text(content: str) -> dict[str, Any]:
    """A scripted assistant turn that answers in plain text."""
    return {"content": content, "tool_calls": []}


def calls(*specs: tuple[str, dict[str, Any] | str]) -> dict[str, Any]:
    """A scripted assistant turn with one tool call per `(name, arguments)`.

    Arguments given as a dict are sent as JSON; a string is sent as is (to script malformed JSON).
    """
    return {
        "content": None,
        "tool_calls": [
            {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}
            for name, args in specs
        ],
    }


class ScriptedModel:
    """Replays assistant turns (made with `calls` and `text`) in order, one per request."""

    name = config.SCRIPTED_MODEL

    def __init__(self, script: list[dict[str, Any]]) -> None:
        self.script = list(script)
        for i, turn in enumerate(self.script):
            if not (isinstance(turn, dict) and "tool_calls" in turn):
                raise TypeError(
                    f"script[{i}] is {turn!r}, not a turn; make each turn with text(...) or "
                    "calls(...), e.g. ScriptedModel([text('hello')])."
                )
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(request)
            n = len(self.requests)
        if n > len(self.script):
            raise transport.RequestError(
                f"ScriptedModel ran out of script: request {n} arrived but only {len(self.script)} "
                "turn(s) were scripted. Add a turn (calls(...) or text(...)) or lower max_steps.",
                code="script_exhausted",
            )
        return self.script[n - 1]

    def client(self) -> openai.OpenAI:
        return transport.make_client(self)

    def async_client(self) -> openai.AsyncOpenAI:
        return transport.make_async_client(self)
