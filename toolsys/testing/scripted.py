"""`scripted(...)`: a real `openai` client whose answers are a script, for integration tests.

    client = scripted(("get_weather", {"city": "Paris"}), "It is 18 °C in Paris.")
    transcript = run_agent(client, registry, "Weather in Paris?")
    assert_calls(transcript, [("get_weather", {"city": "Paris"})])

Each argument is one assistant turn: a string is a text answer, a `(name, arguments)` tuple one
tool call, a list of tuples parallel calls, and `calls(...)` / `text(...)` from
`toolsys.models.scripted` work as they are. The client is the real SDK over an in-process
transport (toolsys/models/transport.py), so request building, response parsing and error
classes are the SDK's own; only the model is scripted. `script_of(client).requests` holds every
request the client sent, to assert on what the model was shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolsys.models.scripted import ScriptedModel, calls, text

if TYPE_CHECKING:
    import openai

__all__ = ["script_of", "scripted"]

_ATTRIBUTE = "toolsys_script"


def _turn(index: int, turn: Any) -> dict[str, Any]:
    __tracebackhide__ = True
    if isinstance(turn, str):
        return text(turn)
    if isinstance(turn, tuple) and len(turn) == 2 and isinstance(turn[0], str):
        return calls(turn)
    if isinstance(turn, list) and turn and all(isinstance(t, tuple) for t in turn):
        return calls(*turn)
    if isinstance(turn, dict) and "tool_calls" in turn:
        return turn
    raise TypeError(
        f"scripted(...): turn {index} is {turn!r}, not a turn. Give a string (a text answer), "
        "a (name, arguments) tuple (one tool call), a list of such tuples (parallel calls), or "
        "calls(...)/text(...), e.g. scripted(('add', {'a': 1, 'b': 2}), '3')."
    )


def scripted(*turns: Any, asynchronous: bool = False) -> openai.OpenAI | openai.AsyncOpenAI:
    """A real `openai.OpenAI` (or `AsyncOpenAI`) that answers request n with turn n."""
    __tracebackhide__ = True
    script = []
    for index, turn in enumerate(turns):  # a loop: a comprehension's frame would be shown
        script.append(_turn(index, turn))
    model = ScriptedModel(script)
    client = model.async_client() if asynchronous else model.client()
    setattr(client, _ATTRIBUTE, model)
    return client


def script_of(client: Any) -> ScriptedModel:
    """The `ScriptedModel` behind a client made by `scripted` (its `.requests`, its script)."""
    model = getattr(client, _ATTRIBUTE, None)
    if not isinstance(model, ScriptedModel):
        raise TypeError(
            f"script_of: {type(client).__name__} was not made by toolsys.testing.scripted(...); "
            "pass the client scripted(...) returned."
        )
    return model
