"""stream_agent: the loop's events and the model's pieces, in order, through the real client."""

from __future__ import annotations

import gc
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import models
from toolsys.loop import (
    FinalAnswer,
    ModelErrorEvent,
    ModelRequest,
    ModelResponse,
    ToolResultEvent,
    UserMessage,
    run_agent,
)
from toolsys.models import ScriptedModel, calls, text
from toolsys.streaming import Assembler, TextDelta, ToolCallDelta, stream_agent
from toolsys.tools import registry

PROMPT = "What's the weather in Paris, and what is 17 * 38?"


@pytest.mark.parametrize("make", [models.client, models.async_client], ids=["sync", "async"])
def test_a_streamed_run_ends_with_the_same_transcript_as_a_plain_one(make):
    stream = stream_agent(make(), registry, PROMPT)
    events = list(stream)
    plain = run_agent(models.client(), registry, PROMPT)
    assert stream.transcript is not None
    assert stream.transcript.messages == plain.messages
    assert stream.transcript.usage == plain.usage
    assert [e for e in events if not isinstance(e, TextDelta | ToolCallDelta)] == (
        stream.transcript.events
    )


@pytest.mark.parametrize("seed", range(8))
def test_streaming_changes_nothing_for_the_imperfect_model(seed):
    def client():
        return models.OfflineModel(imperfect=True, seed=seed).client()

    stream = stream_agent(client(), registry, "Convert 30 C to F, and what is 2 + 2?")
    list(stream)
    plain = run_agent(client(), registry, stream.transcript.messages[:1])
    assert stream.transcript.messages == plain.messages


def test_deltas_arrive_between_the_request_and_the_response_of_their_step():
    events = list(stream_agent(models.client(), registry, PROMPT))
    step = None
    for event in events:
        if isinstance(event, ModelRequest):
            step = event.step
        elif isinstance(event, TextDelta | ToolCallDelta):
            assert event.step == step
        elif isinstance(event, ModelResponse):
            step = None


def test_the_deltas_add_up_to_the_calls_and_the_answer():
    events = list(stream_agent(models.client(), registry, PROMPT))
    answer = next(e.content for e in events if isinstance(e, FinalAnswer))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer
    first = next(e for e in events if isinstance(e, ModelResponse))
    for index, call in enumerate(first.tool_calls):
        pieces = [e for e in events if isinstance(e, ToolCallDelta) and e.index == index]
        assert pieces[0].id == call["id"] and pieces[0].name == call["function"]["name"]
        assert "".join(p.arguments for p in pieces) == call["function"]["arguments"]
        assert all(p.name is None for p in pieces[1:])


def test_options_reach_the_loop():
    stream = stream_agent(models.client(), registry, PROMPT, max_steps=1)
    list(stream)
    assert stream.transcript.status == "max_steps"


def test_on_event_is_refused_because_the_stream_yields_the_events():
    with pytest.raises(TypeError, match="iterate"):
        stream_agent(models.client(), registry, PROMPT, on_event=print)


def test_a_bad_option_is_raised_where_the_stream_is_read():
    stream = stream_agent(models.client(), registry, PROMPT, max_steps=0)
    with pytest.raises(ValueError, match="max_steps"):
        next(stream)
    assert list(stream) == []


@pytest.mark.parametrize("consumer_pause", [0, 0.2], ids=["quick consumer", "slow consumer"])
def test_closing_the_stream_stops_the_run_at_the_next_piece(consumer_pause):
    script = [calls(("calculator", {"expression": "1 + 1"}))] * 5 + [text("2")]
    stream = stream_agent(ScriptedModel(script).client(), registry, "1 + 1?")
    for event in stream:
        if isinstance(event, ToolCallDelta):
            time.sleep(consumer_pause)  # a busy consumer: the run must not run ahead meanwhile
            stream.close()
    assert stream.transcript.status == "model_error"
    error = next(e for e in stream.transcript.events if isinstance(e, ModelErrorEvent))
    assert error.error_type == "StreamClosed"
    assert stream.transcript.steps == 1  # stopped in the step whose piece was seen
    assert not any(isinstance(e, ToolResultEvent) for e in stream.transcript.events)


def test_the_run_waits_for_the_consumer_and_a_dropped_stream_stops_it():
    script = [calls(("calculator", {"expression": "1 + 1"}))] * 5 + [text("2")]
    stream = stream_agent(ScriptedModel(script).client(), registry, "1 + 1?")
    assert isinstance(next(stream), UserMessage)
    thread = stream._thread
    time.sleep(0.2)
    assert thread.is_alive()  # waiting for the consumer to ask for the next event
    del stream
    gc.collect()
    thread.join(10)
    assert not thread.is_alive()


def test_a_failed_streamed_request_is_a_model_error_like_any_other():
    stream = stream_agent(ScriptedModel([]).client(), registry, "hi")
    list(stream)
    assert stream.transcript.status == "model_error"
    assert "ran out of script" in stream.transcript.events[-2].message


def test_the_assembler_reads_plain_dict_chunks_and_orders_calls_by_index():
    assembler = Assembler(step=3)
    chunks = [
        {"model": "m", "choices": [{"delta": {"role": "assistant", "content": ""}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 1, "id": "b", "function": {"name": "y", "arguments": ""}}
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "a", "function": {"name": "x", "arguments": "{"}}
                        ]
                    }
                }
            ]
        },
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}},
    ]
    deltas = [d for c in chunks for d in assembler.add(c)]
    assert [d.step for d in deltas] == [3, 3, 3]
    completion = assembler.completion()
    message = completion["choices"][0]["message"]
    assert message["content"] is None
    assert [(c["id"], c["function"]["arguments"]) for c in message["tool_calls"]] == [
        ("a", "{}"),
        ("b", ""),
    ]
    assert completion["usage"]["total_tokens"] == 3
    assert completion["choices"][0]["finish_reason"] == "tool_calls"


@given(answer=st.text(alphabet=" \n\t-ab3é", max_size=12))
@settings(max_examples=60, deadline=None)
def test_streamed_text_is_exactly_the_answer_whitespace_included_on_both_apis(answer):
    """The pieces of a streamed answer join to the answer itself: leading, trailing and doubled
    whitespace included (the pieces used to drop what came before the first word)."""
    for api in ("chat", "responses"):
        plain = run_agent(ScriptedModel([text(answer)]).client(), registry, "hi", api=api)
        stream = stream_agent(ScriptedModel([text(answer)]).client(), registry, "hi", api=api)
        deltas = "".join(e.text for e in stream if isinstance(e, TextDelta))
        assert deltas == answer
        assert stream.transcript.messages == plain.messages
    with ScriptedModel([text(answer)]).client().responses.stream(model="m", input="hi") as raw:
        pieces = "".join(e.delta for e in raw if e.type == "response.output_text.delta")
        assert pieces == raw.get_final_response().output_text == answer
