"""A run's deadline and cancellation: every call in flight is CANCELLED, every id answered once."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from tests.test_layers_timeout import settled_abandoned_threads
from toolsys import ErrorCode, Registry
from toolsys.layers import Timeout, abandoned_threads
from toolsys.loop import (
    Event,
    RunFinished,
    ToolCallEvent,
    ToolResultEvent,
    arun_agent,
    run_agent,
)
from toolsys.models import ScriptedModel
from toolsys.models.scripted import calls, text


def slow_registry(release: threading.Event) -> Registry:
    registry = Registry(layers=[Timeout(seconds=60)])

    @registry.tool(timeout=60)  # must succeed: never held to a test's short layer deadline
    async def fast() -> str:
        """Answers at once."""
        return "quick"

    @registry.tool
    async def slow_async() -> str:
        """Waits a minute."""
        await asyncio.sleep(60)
        return "late"

    @registry.tool
    def slow_sync() -> str:
        """Waits until released."""
        release.wait(60)
        return "late"

    return registry


TURN = calls(("fast", {}), ("slow_async", {}), ("slow_sync", {}))


def tool_messages(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    answers = [m for m in messages if m["role"] == "tool"]
    counts = Counter(m["tool_call_id"] for m in answers)
    assert set(counts.values()) == {1}  # exactly one tool message per id
    return {m["tool_call_id"]: json.loads(m["content"]) for m in answers}


def test_the_run_deadline_cancels_calls_in_flight_and_answers_every_id_once() -> None:
    release = threading.Event()
    before = settled_abandoned_threads()
    # The fast call must be answered before the run's deadline: a first run in a fresh worker
    # spends ~50 ms importing (several times that on a loaded machine), so one runs first.
    warm = ScriptedModel([calls(("fast", {})), text("warm")])
    assert run_agent(warm.client(), slow_registry(release), "go").status == "completed"
    model = ScriptedModel([TURN, text("never asked")])
    start = time.monotonic()
    transcript = run_agent(model.client(), slow_registry(release), "go", deadline=1.0)
    assert time.monotonic() - start < 10
    assert transcript.status == "deadline"
    ids = [call["id"] for call in transcript.messages[1]["tool_calls"]]
    answers = tool_messages(transcript.messages)
    assert list(answers) == ids
    assert answers[ids[0]] == {"ok": True, "value": "quick"}
    for call_id in ids[1:]:
        error = answers[call_id]["error"]
        assert (
            error["code"] == ErrorCode.CANCELLED and error["details"]["side_effects"] == "unknown"
        )
        assert "deadline" in error["message"]
    assert len(model.requests) == 1
    assert abandoned_threads() == before + 1  # the sync tool's thread, left running and counted
    release.set()


def test_a_deadline_that_passes_while_the_model_thinks_ends_the_run() -> None:
    async def create(**request: Any) -> Any:
        await asyncio.sleep(60)

    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    start = time.monotonic()
    transcript = run_agent(client, Registry(), "hi", model="m", deadline=0.2)
    assert transcript.status == "deadline" and time.monotonic() - start < 10
    assert isinstance(transcript.events[-1], RunFinished)


def test_a_cancelled_run_answers_every_call_in_flight_then_raises() -> None:
    release = threading.Event()
    seen: list[Event] = []
    model = ScriptedModel([TURN, text("never asked")])

    async def main() -> None:
        task = asyncio.ensure_future(
            arun_agent(model.async_client(), slow_registry(release), "go", on_event=seen.append)
        )
        while sum(isinstance(e, ToolCallEvent) for e in seen) < 3 and not task.done():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # the fast call finishes; the two slow ones are in flight
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    release.set()
    results = [e for e in seen if isinstance(e, ToolResultEvent)]
    assert [e.name for e in results] == ["fast", "slow_async", "slow_sync"]
    assert results[0].result.ok
    for event in results[1:]:
        assert event.result.error is not None and event.result.error.code == ErrorCode.CANCELLED
        assert "cancelled" in event.result.error.message
    assert isinstance(seen[-1], RunFinished) and seen[-1].status == "cancelled"


@pytest.mark.parametrize("bad", [0, -1, float("inf"), "60"])
def test_a_bad_deadline_is_refused_before_any_request(bad: Any) -> None:
    model = ScriptedModel([text("hi")])
    with pytest.raises(ValueError, match="deadline="):
        run_agent(model.client(), Registry(), "hi", deadline=bad)
    assert model.requests == []


def test_parallel_calls_that_time_out_still_get_one_envelope_per_id() -> None:
    release = threading.Event()
    registry = slow_registry(release)
    registry.remove_layer("timeout")
    registry.use(Timeout(seconds=0.2))
    model = ScriptedModel([TURN, text("two of them timed out")])
    transcript = run_agent(model.client(), registry, "go")
    release.set()
    assert transcript.status == "completed"
    ids = [call["id"] for call in transcript.messages[1]["tool_calls"]]
    answers = tool_messages(transcript.messages)
    assert list(answers) == ids
    assert answers[ids[0]]["ok"] is True
    assert [answers[i]["error"]["code"] for i in ids[1:]] == [ErrorCode.TIMEOUT] * 2
