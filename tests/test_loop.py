"""The agent loop: events in order, one tool message per call id, clean endings."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Literal

import httpx2
import openai
import pytest

from toolsys import Registry, ToolError, models
from toolsys.loop import (
    FinalAnswer,
    ModelErrorEvent,
    ModelRequest,
    ModelResponse,
    ObserverError,
    RunFinished,
    ToolCallEvent,
    ToolResultEvent,
    UserMessage,
    arun_agent,
    run_agent,
)
from toolsys.models import OfflineModel, ScriptedModel, _responses, calls, text, transport
from toolsys.tools import registry as builtin


@pytest.fixture
def registry():
    registry = Registry()

    @registry.tool
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First addend.
            b: Second addend.
        """
        return a + b

    @registry.tool
    def slow_echo(text: str, delay: float = 0.2) -> str:
        """Echo a text after a delay.

        Args:
            text: Text to echo.
            delay: Seconds to wait.
        """
        time.sleep(delay)
        return text

    @registry.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: City name, e.g. 'Paris'.
        """
        if city != "Paris":
            raise ToolError(
                "CITY_NOT_FOUND",
                f"No weather data for '{city}'.",
                suggestion="Did you mean 'Paris'?",
            )
        return "8°C, cloudy"

    @registry.tool
    def set_unit(unit: Literal["celsius", "fahrenheit"]) -> str:
        """Set the temperature unit.

        Args:
            unit: The unit to use.
        """
        return unit

    return registry


def test_single_call_run_records_every_event_in_order(registry):
    transcript = run_agent(OfflineModel().client(), registry, "What is 2 plus 3?")
    assert [type(e) for e in transcript.events] == [
        UserMessage,
        ModelRequest,
        ModelResponse,
        ToolCallEvent,
        ToolResultEvent,
        ModelRequest,
        ModelResponse,
        FinalAnswer,
        RunFinished,
    ]
    assert transcript.events[-1] == RunFinished("completed", 2, transcript.usage)
    assert transcript.status == "completed"
    assert transcript.steps == 2
    assert transcript.results[0].result.value == 5
    assert "5" in transcript.answer
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "tool", "assistant"]
    assert transcript.usage["total_tokens"] > 0


def test_trace_prints_like_the_seed(registry):
    transcript = run_agent(OfflineModel().client(), registry, "What is 2 plus 3?")
    assert str(transcript) == (
        'ToolCall  add({"a": 2, "b": 3})\n'
        "Result    ok 5.0\n"
        "Answer    add(2, 3) = 5.0. (offline teaching model)\n"
        "Steps     2 · 4 messages\n"
        "Status    completed"
    )


def test_parallel_calls_run_concurrently_and_answer_each_id_in_order():
    registry = Registry()
    gate = asyncio.Event()  # the first call can only finish if the third runs at the same time

    @registry.tool
    async def wait_for_gate(label: str) -> str:
        """Wait until the gate opens, then return the label."""
        await asyncio.wait_for(gate.wait(), timeout=5)
        return label

    @registry.tool
    async def open_gate(label: str) -> str:
        """Open the gate and return the label."""
        gate.set()
        return label

    script = ScriptedModel(
        [
            calls(
                ("wait_for_gate", {"label": "slow"}),
                ("nope", {}),
                ("open_gate", {"label": "fast"}),
            ),
            text("done"),
        ]
    )
    transcript = run_agent(script.client(), registry, "go")
    assistant, *tools, _ = transcript.messages[1:]
    assert [t["tool_call_id"] for t in tools] == [c["id"] for c in assistant["tool_calls"]]
    assert [json.loads(t["content"]).get("value") for t in tools] == ["slow", None, "fast"]
    assert json.loads(tools[1]["content"])["error"]["code"] == "UNKNOWN_TOOL"


def test_actionable_error_leads_to_a_corrected_retry(registry):
    transcript = run_agent(OfflineModel().client(), registry, "What is the weather in Pariss?")
    assert [(c.name, json.loads(c.arguments)) for c in transcript.tool_calls] == [
        ("get_weather", {"city": "Pariss"}),
        ("get_weather", {"city": "Paris"}),
    ]
    assert transcript.status == "completed"
    assert "8°C, cloudy" in transcript.answer


def test_vague_error_makes_the_model_give_up():
    registry = Registry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: City name.
        """
        raise ToolError("ERROR", "Error")

    transcript = run_agent(OfflineModel().client(), registry, "What is the weather in Pariss?")
    assert len(transcript.tool_calls) == 1
    assert transcript.status == "completed"
    assert "could not complete" in transcript.answer


def test_imperfect_mistake_is_recovered_from_the_validation_message(registry):
    # 2.0 × 0.5 (the parameters are described) = 1: every number goes out as a string.
    model = OfflineModel(
        imperfect=True, seed=0, rates={"number_as_string": 2.0, "missing_required": 0.0}
    )
    transcript = run_agent(model.client(), registry, "What is 2 plus 3?")
    first, second = transcript.tool_calls
    assert json.loads(first.arguments) == {"a": "2", "b": "3"}
    assert transcript.results[0].result.error.code == "INVALID_ARGUMENTS"
    assert json.loads(second.arguments) == {"a": 2, "b": 3}
    assert transcript.results[1].result.ok
    assert model.mistakes == ["number_as_string:a", "number_as_string:b"]


def test_max_steps_stops_the_run(registry):
    script = ScriptedModel([calls(("add", {"a": 1, "b": 1}))] * 3)
    transcript = run_agent(script.client(), registry, "loop", max_steps=2)
    assert transcript.status == "max_steps"
    assert transcript.steps == 2
    assert transcript.answer is None
    assert str(transcript).endswith("Status    max_steps")


def test_model_error_is_reported_not_raised(registry):
    transcript = run_agent(ScriptedModel([]).client(), registry, "hi")
    assert transcript.status == "model_error"
    error, finished = transcript.events[-2:]
    assert finished == RunFinished("model_error", 1, None)
    assert isinstance(error, ModelErrorEvent)
    assert error.error_type == "BadRequestError"
    assert "ran out of script" in error.message
    assert "Error     BadRequestError: ScriptedModel ran out of script" in str(transcript)


def test_forced_tool_choice_applies_to_the_first_request_only(registry):
    transcript = run_agent(
        OfflineModel().client(),
        registry,
        "Tell me a joke",
        tool_choice={"type": "function", "function": {"name": "add"}},
    )
    requests = [e for e in transcript.events if isinstance(e, ModelRequest)]
    assert requests[0].tool_choice == {"type": "function", "function": {"name": "add"}}
    assert requests[1].tool_choice == "auto"
    assert transcript.tool_calls[0].name == "add"


def test_tool_choice_none_answers_in_text(registry):
    transcript = run_agent(
        OfflineModel().client(), registry, "What is 2 plus 3?", tool_choice="none"
    )
    assert transcript.tool_calls == []
    assert "I may not call tools" in transcript.answer


def test_on_event_sees_every_event_and_its_exceptions_do_not_kill_the_run(registry):
    seen = []

    def observer(event):
        seen.append(event)
        if isinstance(event, ToolCallEvent):
            raise RuntimeError("widget broke")

    transcript = run_agent(
        OfflineModel().client(), registry, "What is 2 plus 3?", on_event=observer
    )
    assert transcript.status == "completed"
    assert seen == [e for e in transcript.events if not isinstance(e, ObserverError)]
    warning = next(e for e in transcript.events if isinstance(e, ObserverError))
    assert (warning.event, warning.message) == ("ToolCallEvent", "widget broke")


def test_run_agent_works_inside_a_running_event_loop(registry):
    async def notebook_cell():
        return run_agent(OfflineModel().client(), registry, "What is 2 plus 3?")

    assert asyncio.run(notebook_cell()).status == "completed"


def test_arun_agent_with_the_async_client(registry):
    transcript = asyncio.run(
        arun_agent(OfflineModel().async_client(), registry, "What is 2 plus 3?", system="Be brief.")
    )
    assert transcript.messages[0] == {"role": "system", "content": "Be brief."}
    assert transcript.status == "completed"


def test_to_json_is_plain_json_with_events(registry):
    transcript = run_agent(OfflineModel().client(), registry, "What is 2 plus 3?")
    data = json.loads(transcript.to_json())
    assert data["status"] == "completed"
    assert [e["type"] for e in data["events"]][:2] == ["UserMessage", "ModelRequest"]
    result = next(e for e in data["events"] if e["type"] == "ToolResultEvent")
    assert result["ok"] is True and result["value"] == 5
    assert transcript.summary().startswith("completed: 2 steps, 1 tool calls")


def test_client_without_a_model_name_needs_one(registry):
    import openai

    with pytest.raises(ValueError, match="pass model="):
        run_agent(openai.OpenAI(api_key="x", base_url="http://127.0.0.1:9"), registry, "hi")


def test_max_steps_below_one_is_refused_before_any_request(registry):
    model = ScriptedModel([text("never sent")])
    with pytest.raises(ValueError, match="max_steps=0"):
        run_agent(model.client(), registry, "hi", max_steps=0)
    assert model.requests == []


def _allowed(choice: dict) -> tuple[str, list[str]]:
    """(mode, tool names) of an allowed_tools choice in either API's shape."""
    inner = choice.get("allowed_tools", choice)
    return inner["mode"], [t.get("name") or t["function"]["name"] for t in inner["tools"]]


@pytest.mark.parametrize("mode", ["auto", "required"])
def test_an_allowed_tools_restriction_holds_for_every_request_of_the_run(mode):
    """allowed_tools restricts, it does not force: it stays on every request (the loop used to
    send "auto" from step 2 on, offering every tool again); mode "required" forces the first
    request only, as a forced choice does. (Also run over the Responses API: test_loop_apis.)"""
    sent: list = []
    inner, store = models.OfflineModel(), _responses.ResponseStore()

    def handle(request):
        sent.append(json.loads(request.content).get("tool_choice"))
        return transport.handle(inner, request, store)

    client = openai.OpenAI(
        api_key="x",
        base_url="http://offline.toolsys.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
    )
    only = [{"type": "function", "function": {"name": "calculator"}}]
    choice = {"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": only}}
    transcript = run_agent(client, builtin, "What is 17 times 38?", model="m", tool_choice=choice)
    assert transcript.status == "completed" and "646" in transcript.answer
    assert len(sent) >= 2, sent
    assert [_allowed(c) for c in sent] == [(mode, ["calculator"])] + [("auto", ["calculator"])] * (
        len(sent) - 1
    )


@pytest.mark.parametrize("bad", [[], ["hi"], None, 5])
def test_an_empty_or_malformed_conversation_is_refused_before_any_request(bad):
    """Refused the same way on both APIs (chat completions refused [] while the Responses
    endpoint answered it; a list of strings raised a bare TypeError)."""
    with pytest.raises(ValueError, match=r"give|empty"):
        run_agent(OfflineModel().client(), builtin, bad)
