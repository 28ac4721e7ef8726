"""The offline teaching model, driven end to end through real openai.OpenAI objects."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from toolsys.models import OfflineModel, client, default_model, describe
from toolsys.models.config import OFFLINE_MARK, OFFLINE_MODEL


def fn(name, description, properties, required=()):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(required)},
        },
    }


UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit."}
TOOLS = [
    fn(
        "calculator",
        "Evaluate an arithmetic expression.",
        {"expression": {"type": "string", "description": "Arithmetic expression, e.g. '2 * 3'."}},
        ["expression"],
    ),
    fn(
        "get_weather",
        "Get the current weather for a city.",
        {"city": {"type": "string", "description": "City name, e.g. 'Paris'."}},
        ["city"],
    ),
    fn(
        "convert_temperature",
        "Convert a temperature between units.",
        {
            "value": {"type": "number", "description": "The temperature."},
            "from_unit": UNIT,
            "to_unit": UNIT,
        },
        ["value", "from_unit", "to_unit"],
    ),
]


def ask(c, prompt_or_messages, **kwargs):
    messages = (
        [{"role": "user", "content": prompt_or_messages}]
        if isinstance(prompt_or_messages, str)
        else prompt_or_messages
    )
    return c.chat.completions.create(model=OFFLINE_MODEL, messages=messages, tools=TOOLS, **kwargs)


def calls_of(response):
    return [
        (c.function.name, json.loads(c.function.arguments))
        for c in response.choices[0].message.tool_calls or []
    ]


def after(prompt, calls, results):
    """A conversation: the user's prompt, the model's calls, then one tool message per call."""
    messages = [
        {"role": "user", "content": prompt},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": args},
                }
                for i, (name, args) in enumerate(calls)
            ],
        },
    ]
    messages += [
        {"role": "tool", "tool_call_id": f"call_{i}", "content": content}
        for i, content in enumerate(results)
    ]
    return messages


def failure(code, message, suggestion=""):
    return json.dumps(
        {
            "ok": False,
            "error": {
                "code": code,
                "message": message,
                "suggestion": suggestion,
                "retryable": False,
            },
        }
    )


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return client()


def test_client_is_a_real_openai_client_answered_offline(offline):
    assert isinstance(offline, openai.OpenAI)
    assert default_model() == OFFLINE_MODEL
    assert describe().startswith("offline teaching model (simulation)")


def test_real_endpoint_is_described_when_configured(monkeypatch):
    monkeypatch.delenv("TOOLSYS_OFFLINE", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("TOOLSYS_MODEL", "llama3.2")
    assert describe() == "real endpoint at http://localhost:11434/v1, model llama3.2"
    assert default_model() == "llama3.2"
    assert str(client().base_url).startswith("http://localhost:11434/v1")


def test_toolsys_offline_wins_over_a_key_in_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TOOLSYS_OFFLINE", "1")
    assert default_model() == OFFLINE_MODEL
    assert describe().startswith("offline teaching model (simulation)")


def test_single_call_has_openai_shape_and_approximate_usage(offline):
    response = ask(offline, "What is 17 times 38?")
    assert response.model == OFFLINE_MODEL
    assert response.choices[0].finish_reason == "tool_calls"
    assert response.choices[0].message.tool_calls[0].id == "call_0001"
    assert calls_of(response) == [("calculator", {"expression": "17 * 38"})]
    assert (
        response.usage.total_tokens
        == (response.usage.prompt_tokens + response.usage.completion_tokens)
        > 0
    )


def test_same_request_gives_the_same_response(offline):
    first, second = ask(offline, "weather in Paris"), ask(offline, "weather in Paris")
    assert first.model_dump() == second.model_dump()
    assert first.id.startswith("chatcmpl-offline-")


def test_two_requests_in_one_message_give_parallel_calls(offline):
    assert calls_of(ask(offline, "weather in Paris and in Tokyo")) == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tokyo"}),
    ]
    assert calls_of(ask(offline, "convert 30 C to F and what is 2+2")) == [
        ("convert_temperature", {"value": 30, "from_unit": "celsius", "to_unit": "fahrenheit"}),
        ("calculator", {"expression": "2 + 2"}),
    ]


def test_parallel_tool_calls_false_sends_one_call_per_turn(offline):
    first = ask(offline, "weather in Paris and in Tokyo", parallel_tool_calls=False)
    assert calls_of(first) == [("get_weather", {"city": "Paris"})]
    messages = after(
        "weather in Paris and in Tokyo",
        [("get_weather", '{"city": "Paris"}')],
        ['{"ok": true, "value": "8 C"}'],
    )
    second = ask(offline, messages, parallel_tool_calls=False)
    assert calls_of(second) == [("get_weather", {"city": "Tokyo"})]


def test_no_fitting_tool_gives_an_honest_text_answer(offline):
    message = ask(offline, "Tell me a joke").choices[0].message
    assert message.tool_calls is None
    assert message.content.endswith(OFFLINE_MARK)


def test_answer_after_results_quotes_the_values(offline):
    messages = after(
        "What is 17 times 38?",
        [("calculator", '{"expression": "17 * 38"}')],
        ['{"ok": true, "value": 646}'],
    )
    response = ask(offline, messages)
    assert response.choices[0].finish_reason == "stop"
    assert "646" in response.choices[0].message.content
    assert OFFLINE_MARK in response.choices[0].message.content


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("none", []),
        ("required", [("calculator", {"expression": "17 * 38"})]),
        ({"type": "function", "function": {"name": "get_weather"}}, [("get_weather", {})]),
    ],
)
def test_tool_choice_is_obeyed(offline, choice, expected):
    assert calls_of(ask(offline, "What is 17 times 38?", tool_choice=choice)) == expected


def test_required_tool_choice_calls_a_tool_even_for_small_talk(offline):
    assert len(calls_of(ask(offline, "Tell me a joke", tool_choice="required"))) == 1


def test_unsupported_request_is_a_normal_bad_request_error(offline):
    with pytest.raises(openai.BadRequestError, match="response_format"):
        offline.chat.completions.create(
            model=OFFLINE_MODEL,
            messages=[{"role": "user", "content": "hi"}],
            response_format={"type": "json_object"},
        )
    with pytest.raises(openai.BadRequestError, match="tool_choice"):
        ask(offline, "hi", tool_choice={"type": "function", "function": {"name": "nope"}})


def test_a_tool_call_without_its_tool_message_is_rejected(offline):
    messages = after("What is 17 times 38?", [("calculator", "{}")], [])
    with pytest.raises(openai.BadRequestError, match="call_0"):
        ask(offline, messages)


@pytest.mark.parametrize(
    ("calls", "error", "fixed"),
    [
        (
            ("get_wether", '{"city": "Paris"}'),
            failure(
                "UNKNOWN_TOOL",
                "Unknown tool 'get_wether'.",
                "Did you mean 'get_weather'? Available tools: calculator, get_weather.",
            ),
            ("get_weather", {"city": "Paris"}),
        ),
        (
            (
                "convert_temperature",
                '{"value": "30", "from_unit": "celsius", "to_unit": "fahrenheit"}',
            ),
            failure(
                "INVALID_ARGUMENTS",
                "Invalid arguments for 'convert_temperature': value: got '30', expected a number.",
            ),
            ("convert_temperature", {"value": 30, "from_unit": "celsius", "to_unit": "fahrenheit"}),
        ),
        (
            ("convert_temperature", '{"value": 30, "from_unit": "C", "to_unit": "fahrenheit"}'),
            failure(
                "INVALID_ARGUMENTS",
                "Invalid arguments for 'convert_temperature': from_unit: got "
                "'C', expected one of 'celsius', 'fahrenheit'.",
                "Fix these arguments and call convert_temperature again: from_unit must be one of "
                "'celsius', 'fahrenheit'.",
            ),
            ("convert_temperature", {"value": 30, "from_unit": "celsius", "to_unit": "fahrenheit"}),
        ),
        (
            ("convert_temperature", '{"value": 30, "to_unit": "fahrenheit"}'),
            failure(
                "INVALID_ARGUMENTS",
                "Invalid arguments for 'convert_temperature': from_unit: "
                "missing required argument (string).",
            ),
            ("convert_temperature", {"value": 30, "to_unit": "fahrenheit", "from_unit": "celsius"}),
        ),
        (
            ("get_weather", '{"city": "Paris"'),
            failure(
                "INVALID_JSON",
                "Arguments for 'get_weather' are not valid JSON: Expecting ',' "
                "delimiter at line 1 column 17 (char 16).",
            ),
            ("get_weather", {"city": "Paris"}),
        ),
        (
            ("get_weather", '{"city": "Pariss"}'),
            failure("CITY_NOT_FOUND", "No weather data for 'Pariss'.", "Did you mean 'Paris'?"),
            ("get_weather", {"city": "Paris"}),
        ),
    ],
)
def test_actionable_error_is_retried_with_corrected_arguments(offline, calls, error, fixed):
    prompt = "convert 30 C to F" if calls[0] == "convert_temperature" else "weather in Paris"
    assert calls_of(ask(offline, after(prompt, [calls], [error]))) == [fixed]


@pytest.mark.parametrize("vague", ["Error", failure("ERROR", "Error"), "Error: something broke"])
def test_vague_error_makes_the_model_give_up_politely(offline, vague):
    response = ask(
        offline, after("weather in Pariss", [("get_weather", '{"city": "Pariss"}')], [vague])
    )
    message = response.choices[0].message
    assert message.tool_calls is None
    assert "could not complete get_weather(Pariss)" in message.content
    assert "could not work out a corrected call" in message.content


def test_retries_are_bounded_per_call(offline):
    timeout = json.dumps(
        {
            "ok": False,
            "error": {
                "code": "TIMEOUT",
                "message": "Timed out.",
                "suggestion": "Try again.",
                "retryable": True,
            },
        }
    )
    messages, sent = [{"role": "user", "content": "weather in Paris"}], 0
    while (message := ask(offline, messages).choices[0].message).tool_calls:
        sent += len(message.tool_calls)
        messages.append(message.model_dump(exclude_none=True))
        messages += [
            {"role": "tool", "tool_call_id": c.id, "content": timeout} for c in message.tool_calls
        ]
    assert sent == 3  # the first attempt and two retries
    assert "gave up after 3 attempts" in message.content


def test_missing_required_value_makes_the_model_ask(offline):
    content = ask(offline, "What's the weather like?").choices[0].message.content
    assert "I need city to use get_weather" in content


def test_streaming_sends_tool_call_deltas(offline):
    stream = ask(
        offline,
        "weather in Paris and in Tokyo",
        stream=True,
        stream_options={"include_usage": True},
    )
    names, arguments, usage = {}, {}, None
    for chunk in stream:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                if delta.function.name:
                    names[delta.index] = delta.function.name
                arguments[delta.index] = arguments.get(delta.index, "") + (
                    delta.function.arguments or ""
                )
    assert names == {0: "get_weather", 1: "get_weather"}
    assert json.loads(arguments[1]) == {"city": "Tokyo"}
    assert usage.total_tokens > 0


def test_async_client_answers_like_the_sync_one():
    async def run():
        c = OfflineModel().async_client()
        assert isinstance(c, openai.AsyncOpenAI)
        return await c.chat.completions.create(
            model=OFFLINE_MODEL,
            tools=TOOLS,
            messages=[{"role": "user", "content": "What is 17 times 38?"}],
        )

    assert calls_of(asyncio.run(run())) == [("calculator", {"expression": "17 * 38"})]


def test_unknown_mistake_name_in_rates_is_refused():
    with pytest.raises(ValueError, match="number_as_strings"):
        OfflineModel(imperfect=True, rates={"number_as_strings": 1.0})
