"""The offline endpoint refuses broken conversations in the real API's words, cuts replies at
max_tokens, and streams chunks the openai SDK's own parser reads."""

from __future__ import annotations

import asyncio

import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from toolsys import models
from toolsys.models import ScriptedModel, calls, text
from toolsys.streaming import Assembler

MODEL = "toolsys-offline-1"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City, e.g. Paris."}},
                "required": ["city"],
            },
        },
    }
]


def _assistant(*ids: str) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": i,
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
            for i in ids
        ],
    }


def _tool(call_id: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": '{"ok": true, "value": -3}'}


def _refusal(messages: list[dict]) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        models.client().chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    assert caught.value.status_code == 400
    assert caught.value.body["type"] == "invalid_request_error"
    return caught.value


USER = {"role": "user", "content": "Weather in Oslo?"}


def test_an_unanswered_call_is_refused_in_the_real_apis_words():
    error = _refusal([USER, _assistant("call_a", "call_b"), _tool("call_a"), USER])
    assert error.body["message"] == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b"
    )
    assert error.body["param"] == "messages.[3].role"


def test_a_conversation_that_ends_on_unanswered_calls_is_refused_too():
    error = _refusal([USER, _assistant("call_a")])
    assert "did not have response messages: call_a" in error.body["message"]


def test_a_call_answered_twice_is_refused_in_the_real_apis_words():
    error = _refusal([USER, _assistant("call_a"), _tool("call_a"), _tool("call_a")])
    assert error.body["message"] == (
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_a', in messages[2] and "
        "messages[3]."
    )
    assert error.body["param"] == "messages.[3].tool_call_id"


def test_a_tool_message_with_no_call_before_it_is_refused_in_the_real_apis_words():
    error = _refusal([USER, _tool("call_a")])
    assert error.body["message"] == (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
        "with 'tool_calls'."
    )
    assert error.body["param"] == "messages.[1].role"


def test_a_tool_message_for_an_id_the_assistant_never_used_is_refused():
    error = _refusal([USER, _assistant("call_a"), _tool("call_a"), _tool("call_z")])
    assert error.body["message"] == (
        "Invalid parameter: 'tool_call_id' of 'call_z' not found in 'tool_calls' of previous "
        "message."
    )


def test_a_tool_message_after_a_text_turn_answers_nothing():
    plain = {"role": "assistant", "content": "Hello"}
    error = _refusal([USER, _assistant("call_a"), _tool("call_a"), plain, _tool("call_a")])
    assert "must be a response to a preceeding message" in error.body["message"]


def test_an_empty_tool_calls_array_is_refused_in_the_real_apis_words():
    empty = {"role": "assistant", "content": "Hello", "tool_calls": []}
    error = _refusal([USER, empty, USER])
    assert error.body["message"] == (
        "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, "
        "but got an empty array instead."
    )
    assert error.body["param"] == "messages[1].tool_calls"


@pytest.mark.parametrize("turn", [{"tool_calls": None}, {}], ids=["null", "absent"])
def test_a_text_turn_with_null_or_no_tool_calls_is_accepted(turn):
    plain = {"role": "assistant", "content": "Hello", **turn}
    reply = models.client().chat.completions.create(
        model=MODEL, messages=[USER, plain, USER], tools=TOOLS
    )
    assert reply.choices[0].message.tool_calls


def test_every_call_answered_once_in_any_order_is_accepted():
    messages = [USER, _assistant("a", "b"), _tool("b"), _tool("a")]
    reply = models.client().chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    assert reply.choices[0].finish_reason == "stop"


def test_max_tokens_cuts_the_text_and_says_length():
    request = {"model": MODEL, "messages": [USER], "tools": TOOLS, "tool_choice": "none"}
    full = models.client().chat.completions.create(**request)
    cut = models.client().chat.completions.create(**request, max_tokens=5)
    assert cut.choices[0].finish_reason == "length"
    assert cut.choices[0].message.content == full.choices[0].message.content[:20]
    assert cut.usage.completion_tokens == 5


def test_max_tokens_can_cut_a_call_in_the_middle_of_its_arguments():
    request = {"model": MODEL, "messages": [USER], "tools": TOOLS}
    cut = models.client().chat.completions.create(**request, max_completion_tokens=5)
    choice = cut.choices[0]
    assert choice.finish_reason == "length"
    (call,) = choice.message.tool_calls
    assert call.function.name == "get_weather"
    assert call.function.arguments == '{"city": "Oslo"}'[: 20 - len("get_weather")]


def test_a_reply_within_max_tokens_is_not_cut():
    request = {"model": MODEL, "messages": [USER], "tools": TOOLS, "max_tokens": 4000}
    assert models.client().chat.completions.create(**request).choices[0].finish_reason == (
        "tool_calls"
    )


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True])
def test_a_max_tokens_that_is_not_a_positive_integer_is_refused(bad):
    with pytest.raises(openai.BadRequestError, match="max_tokens"):
        models.client().chat.completions.create(model=MODEL, messages=[USER], max_tokens=bad)


SCRIPT = [
    calls(("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Paris, France"})),
    text("Oslo is at -3 °C and snowing; Paris is cloudy at 8 °C."),
]


def _requests() -> list[dict]:
    return [
        {"model": "m", "messages": [USER], "tools": TOOLS},
        {
            "model": "m",
            "messages": [
                USER,
                _assistant("call_0001", "call_0002"),
                _tool("call_0001"),
                _tool("call_0002"),
            ],
            "tools": TOOLS,
        },
    ]


@pytest.mark.parametrize("turn", [0, 1])
def test_the_sdk_stream_parser_reads_the_chunks_and_they_add_up_to_the_plain_reply(turn):
    request = _requests()[turn]
    plain = ScriptedModel(SCRIPT[turn:]).client().chat.completions.create(**request)
    stream = (
        ScriptedModel(SCRIPT[turn:])
        .client()
        .chat.completions.create(**request, stream=True, stream_options={"include_usage": True})
    )
    state, ours = ChatCompletionStreamState(), Assembler()
    for chunk in stream:
        assert isinstance(chunk, openai.types.chat.ChatCompletionChunk)
        state.handle_chunk(chunk)
        ours.add(chunk)
    sdk = state.get_final_completion()
    expected = plain.choices[0].message
    for got in (sdk.choices[0].message, _message(ours.completion())):
        assert got.content == expected.content
        assert [(c.id, c.function.name, c.function.arguments) for c in got.tool_calls or []] == [
            (c.id, c.function.name, c.function.arguments) for c in expected.tool_calls or []
        ]
    assert sdk.choices[0].finish_reason == plain.choices[0].finish_reason
    assert ours.completion()["choices"][0]["finish_reason"] == plain.choices[0].finish_reason
    assert sdk.usage == plain.usage
    assert ours.completion()["usage"] == plain.usage.model_dump()


def _message(completion: dict):
    from openai.types.chat import ChatCompletionMessage

    return ChatCompletionMessage.model_validate(completion["choices"][0]["message"])


def test_the_stream_arrives_in_many_chunks_text_word_by_word_arguments_in_pieces():
    stream = ScriptedModel(SCRIPT).client().chat.completions.create(**_requests()[0], stream=True)
    pieces = [c.choices[0].delta for c in stream if c.choices]
    arguments = [d.tool_calls[0].function.arguments for d in pieces if d.tool_calls]
    assert len(arguments) > 4 and max(len(a or "") for a in arguments) <= 16


def test_the_async_client_streams_the_same_chunks():
    async def collect() -> list[str]:
        client = ScriptedModel(SCRIPT[1:]).async_client()
        stream = await client.chat.completions.create(**_requests()[1], stream=True)
        words = [c.choices[0].delta.content async for c in stream if c.choices]
        await stream.close()
        return [w for w in words if w]

    assert "".join(asyncio.run(collect())) == SCRIPT[1]["content"]
