"""One registry, two wire shapes: OpenAI chat messages and Anthropic content blocks."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import Registry, ToolResult, models, protocols
from toolsys.errors import ErrorInfo
from toolsys.loop import run_agent


def _registry() -> Registry:
    registry = Registry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: First number.
            b: Second number.
        """
        return a + b

    return registry


def test_a_result_becomes_a_tool_result_block_with_the_same_text_the_openai_message_has():
    ok = ToolResult.success({"sum": 3})
    failed = ToolResult.failure(ErrorInfo("INVALID_ARGUMENTS", "a: got 'x', expected an integer"))
    assert protocols.tool_result_block("toolu_1", ok) == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": ok.to_message(),
        "is_error": False,
    }
    block = protocols.tool_result_block("toolu_2", failed)
    assert block["is_error"] is True
    assert json.loads(block["content"])["error"]["code"] == "INVALID_ARGUMENTS"


def test_a_secret_in_a_result_is_redacted_in_the_anthropic_block_too(monkeypatch):
    monkeypatch.setenv("SERVICE_API_KEY", "sk-fake-abcdef123456")
    block = protocols.tool_result_block("t", ToolResult.success("key sk-fake-abcdef123456"))
    assert "sk-fake-abcdef123456" not in block["content"]


@pytest.mark.parametrize("bad_id", ["", None, 7])
def test_a_tool_result_block_needs_the_tool_use_id(bad_id):
    with pytest.raises(ValueError, match="tool_use_id"):
        protocols.tool_result_block(bad_id, ToolResult.success(1))


def test_a_tool_result_block_needs_a_tool_result():
    with pytest.raises(TypeError, match="ToolResult"):
        protocols.tool_result_block("t", {"ok": True, "value": 1})


@pytest.mark.parametrize(
    ("openai", "parallel", "anthropic"),
    [
        ("auto", True, {"type": "auto"}),
        ("required", True, {"type": "any"}),
        ("none", True, {"type": "none"}),
        ("none", False, {"type": "none"}),
        ({"type": "function", "function": {"name": "add"}}, True, {"type": "tool", "name": "add"}),
        ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
    ],
)
def test_tool_choice_maps_to_anthropic(openai, parallel, anthropic):
    assert protocols.anthropic_tool_choice(openai, parallel_tool_calls=parallel) == anthropic


@pytest.mark.parametrize("bad", ["any", {"type": "function"}, {"name": "add"}, None, 3])
def test_an_unknown_tool_choice_is_refused_with_the_choices(bad):
    with pytest.raises(ValueError, match="'auto', 'required', 'none'"):
        protocols.anthropic_tool_choice(bad)


def _transcript(seed: int, prompt: str = "What's the weather in Paris and in Tokyo?"):
    from toolsys.tools import registry

    client = models.OfflineModel(imperfect=True, seed=seed).client()
    return run_agent(client, registry, prompt, system="Answer briefly.")


@pytest.mark.parametrize("seed", range(12))
def test_a_transcript_converts_to_anthropic_and_back_unchanged(seed):
    transcript = _transcript(seed)
    if any(not isinstance(_args(c), dict) for c in _calls(transcript.messages)):
        pytest.skip("this seed sent malformed JSON, which Anthropic's shape cannot carry")
    converted = protocols.to_anthropic(transcript.messages)
    assert converted["system"] == "Answer briefly."
    assert protocols.from_anthropic(converted["messages"], converted["system"]) == (
        transcript.messages
    )


def _calls(messages):
    return [c for m in messages for c in m.get("tool_calls") or []]


def _args(call):
    try:
        return json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return None


def test_the_anthropic_shape_has_tool_use_inputs_and_tool_results_in_one_user_message():
    transcript = _transcript(0)
    converted = protocols.to_anthropic(transcript.messages)["messages"]
    assert [m["role"] for m in converted] == ["user", "assistant", "user", "assistant"]
    uses = converted[1]["content"]
    assert [(b["type"], b["name"], b["input"]) for b in uses] == [
        ("tool_use", "get_weather", {"city": "Paris"}),
        ("tool_use", "get_weather", {"city": "Tokyo"}),
    ]
    results = converted[2]["content"]
    assert [b["tool_use_id"] for b in results] == [b["id"] for b in uses]
    assert [b["is_error"] for b in results] == [False, False]
    assert converted[3]["content"][0]["type"] == "text"


def test_a_failed_call_is_marked_is_error_in_the_anthropic_shape():
    seed = next(s for s in range(40) if any(not e.result.ok for e in _transcript(s).results))
    transcript = _transcript(seed)
    blocks = [
        b
        for m in protocols.to_anthropic(transcript.messages)["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert [b["is_error"] for b in blocks] == [not e.result.ok for e in transcript.results]


def test_a_user_message_after_tool_results_follows_them_in_the_same_user_message():
    messages = [
        {"role": "user", "content": "add 1 and 2"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true, "value": 3}'},
        {"role": "user", "content": "and then double it"},
    ]
    converted = protocols.to_anthropic(messages)["messages"]
    assert [b["type"] for b in converted[2]["content"]] == ["tool_result", "text"]
    assert protocols.from_anthropic(converted) == messages


def test_an_anthropic_conversation_converts_to_openai_and_back_unchanged():
    anthropic = [
        {"role": "user", "content": "What is 2 + 3, and 4 + 5?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me add both."},
                {"type": "tool_use", "id": "toolu_a", "name": "add", "input": {"a": 2, "b": 3}},
                {"type": "tool_use", "id": "toolu_b", "name": "add", "input": {"a": 4, "b": 5}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "content": '{"ok": true, "value": 5}',
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": '{"ok": false, "error": {"code": "X", "message": "no"}}',
                    "is_error": True,
                },
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "5, and the second failed."}]},
    ]
    openai = protocols.from_anthropic(anthropic, system="Be exact.")
    assert openai[0] == {"role": "system", "content": "Be exact."}
    assert openai[2]["content"] == "Let me add both."
    assert json.loads(openai[2]["tool_calls"][1]["function"]["arguments"]) == {"a": 4, "b": 5}
    assert [m["tool_call_id"] for m in openai[3:5]] == ["toolu_a", "toolu_b"]
    assert protocols.to_anthropic(openai) == {"messages": anthropic, "system": "Be exact."}


def test_arguments_that_are_not_an_object_are_refused_by_name_not_silently_dropped():
    messages = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{'a'"}}
            ],
        },
    ]
    with pytest.raises(ValueError, match=r"messages\[1\]\.tool_calls\[0\] \(add\)"):
        protocols.to_anthropic(messages)


@pytest.mark.parametrize(
    "bad",
    [
        [{"role": "robot", "content": "x"}],
        [{"role": "tool", "content": "x"}],
        [{"role": "user", "content": 42}],
        ["not a message"],
    ],
)
def test_messages_that_are_not_chat_messages_are_refused_with_their_index(bad):
    with pytest.raises(ValueError, match=r"messages\[0\]"):
        protocols.to_anthropic(bad)


def test_the_same_registry_answers_an_anthropic_turn_with_tool_results_in_order():
    registry = _registry()
    turn = [
        {"type": "text", "text": "Adding."},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
        {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": "x", "b": 2}},
        {"type": "tool_use", "id": "toolu_3", "name": "sub", "input": {}},
    ]
    answer = protocols.run_tool_uses(registry, turn)
    assert answer is not None and answer["role"] == "user"
    blocks = answer["content"]
    assert [b["tool_use_id"] for b in blocks] == ["toolu_1", "toolu_2", "toolu_3"]
    assert [b["is_error"] for b in blocks] == [False, True, True]
    assert json.loads(blocks[0]["content"]) == {"ok": True, "value": 3}
    assert [json.loads(b["content"])["error"]["code"] for b in blocks[1:]] == [
        "INVALID_ARGUMENTS",
        "UNKNOWN_TOOL",
    ]
    openai_side = registry.execute("add", {"a": 1, "b": 2}).to_message()
    assert blocks[0]["content"] == openai_side


def test_a_turn_without_tool_use_needs_no_answer():
    assert protocols.run_tool_uses(_registry(), [{"type": "text", "text": "done"}]) is None


def test_finish_reasons_map_to_stop_reasons():
    assert protocols.STOP_REASONS == {
        "stop": "end_turn",
        "tool_calls": "tool_use",
        "length": "max_tokens",
        "content_filter": "refusal",
    }


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
_INPUT = st.dictionaries(st.text(min_size=1, max_size=5), st.integers() | _TEXT, max_size=3)


@st.composite
def _openai_conversations(draw):
    messages = [{"role": "user", "content": draw(_TEXT)}]
    for turn in range(draw(st.integers(0, 3))):
        inputs = draw(st.lists(_INPUT, max_size=3))
        calls = [
            {
                "id": f"c{turn}_{i}",
                "type": "function",
                "function": {"name": "tool", "arguments": json.dumps(args, ensure_ascii=False)},
            }
            for i, args in enumerate(inputs)
        ]
        content = draw(st.none() | _TEXT.filter(bool))
        message = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        messages.append(message)
        for call in calls:
            ok = draw(st.booleans())
            envelope = {"ok": True, "value": 1} if ok else {"ok": False, "error": {"code": "E"}}
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(envelope)}
            )
        if draw(st.booleans()):
            messages.append({"role": "user", "content": draw(_TEXT)})
    return messages


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_openai_conversations())
def test_any_openai_conversation_survives_the_round_trip(messages):
    converted = protocols.to_anthropic(messages)
    assert protocols.from_anthropic(converted["messages"], converted.get("system")) == messages
    for message in converted["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            kinds = [b["type"] for b in message["content"]]
            assert kinds == sorted(kinds, key=lambda k: k != "tool_result")  # results first


# --- is_error and content blocks, both ways ---


def test_a_result_can_be_sent_as_text_content_blocks():
    block = protocols.tool_result_block("t", ToolResult.success(3), blocks=True)
    assert block["content"] == [{"type": "text", "text": ToolResult.success(3).to_message()}]
    back = protocols.from_anthropic(
        [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "add", "input": {}}],
            },
            {"role": "user", "content": [block]},
        ]
    )
    assert back[-1] == {
        "role": "tool",
        "tool_call_id": "t",
        "content": ToolResult.success(3).to_message(),
    }


def _use(call_id="t"):
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": call_id, "name": "read", "input": {}}],
    }


@pytest.mark.parametrize(
    "content",
    ["File not found", [{"type": "text", "text": "File "}, {"type": "text", "text": "not found"}]],
)
def test_an_anthropic_error_that_is_not_an_envelope_keeps_its_flag_in_words_and_comes_back(content):
    anthropic = [
        {"role": "user", "content": "read it"},
        _use(),
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": content, "is_error": True}
            ],
        },
    ]
    openai = protocols.from_anthropic(anthropic)
    assert openai[-1]["content"] == "[tool error] File not found"
    again = protocols.to_anthropic(openai)["messages"][-1]["content"][0]
    assert again == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": "File not found",
        "is_error": True,
    }


def test_an_envelope_that_failed_needs_no_prefix_it_says_so_itself():
    failed = ToolResult.failure(ErrorInfo("NOT_FOUND", "no such file")).to_message()
    anthropic = [
        {"role": "user", "content": "read it"},
        _use(),
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": failed, "is_error": True}
            ],
        },
    ]
    openai = protocols.from_anthropic(anthropic)
    assert openai[-1]["content"] == failed
    assert protocols.to_anthropic(openai)["messages"][-1]["content"][0]["is_error"] is True


@pytest.mark.parametrize(
    "block", [{"type": "image", "source": {}}, {"type": "tool_reference", "tool_name": "x"}, "text"]
)
def test_a_block_an_openai_tool_message_cannot_carry_is_refused_by_name(block):
    anthropic = [
        {"role": "user", "content": "x"},
        _use(),
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": [block]}],
        },
    ]
    with pytest.raises(
        ValueError,
        match=r"messages\[2\] has a tool_result with a .* block: an OpenAI tool message",
    ):
        protocols.from_anthropic(anthropic)


# --- the Responses API's items ---


def _turns_apart(messages) -> bool:
    """No assistant message right after another: a model never sends two in a row, and the
    Responses API's items have no turn boundary that could tell them apart."""
    return not any(a["role"] == b["role"] == "assistant" for a, b in itertools.pairwise(messages))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_openai_conversations().filter(_turns_apart))
def test_any_openai_conversation_survives_the_round_trip_through_responses_items(messages):
    items = protocols.to_responses(messages)
    assert protocols.from_responses(items) == messages
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert calls == outputs  # one output per call id, in the order of the calls


@pytest.mark.parametrize("seed", range(4))
def test_a_transcript_converts_to_responses_items_the_offline_endpoint_accepts(seed):
    from toolsys.tools import registry

    transcript = _transcript(seed)
    items = protocols.to_responses(transcript.messages)
    assert protocols.from_responses(items) == transcript.messages
    response = models.client().responses.create(
        model=models.default_model(), input=items, tools=registry.export("openai-responses")
    )
    assert response.output_text == transcript.answer


def test_the_same_registry_answers_a_responses_turn_with_one_output_per_call():
    from toolsys.tools import registry

    client = models.client()
    first = client.responses.create(
        model=models.default_model(),
        input="What's the weather in Paris and what is 2 + 2?",
        tools=registry.export("openai-responses"),
    )
    outputs = protocols.run_function_calls(registry, first.output)
    assert [o["call_id"] for o in outputs] == [o.call_id for o in first.output]
    assert all(o["type"] == "function_call_output" for o in outputs)
    answer = client.responses.create(
        model=models.default_model(),
        previous_response_id=first.id,
        input=outputs,
        tools=registry.export("openai-responses"),
    )
    assert protocols.run_function_calls(registry, answer.output) is None
    assert (
        "get_weather(Paris)" in answer.output_text and "calculator(2 + 2) = 4" in answer.output_text
    )


def test_a_function_call_output_needs_its_call_id_and_a_tool_result():
    with pytest.raises(ValueError, match="call_id"):
        protocols.function_call_output("", ToolResult.success(1))
    with pytest.raises(TypeError, match="ToolResult"):
        protocols.function_call_output("call_1", {"ok": True})


@pytest.mark.parametrize(
    ("chat", "responses"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"type": "function", "function": {"name": "add"}}, {"type": "function", "name": "add"}),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [{"type": "function", "function": {"name": "add"}}],
                },
            },
            {
                "type": "allowed_tools",
                "mode": "required",
                "tools": [{"type": "function", "name": "add"}],
            },
        ),
    ],
)
def test_tool_choice_maps_to_the_responses_api(chat, responses):
    assert protocols.responses_tool_choice(chat) == responses


def test_items_of_another_kind_are_refused_by_index():
    with pytest.raises(ValueError, match=r"items\[1\] is of type 'web_search_call'"):
        protocols.from_responses([{"role": "user", "content": "x"}, {"type": "web_search_call"}])


def test_a_reasoning_models_output_is_read_its_reasoning_item_skipped_as_the_loop_skips_it():
    from openai.types.responses import Response

    from toolsys.tools import registry

    response = Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-5",
            "status": "completed",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "calculator",
                    "arguments": '{"expression": "17 * 38"}',
                    "status": "completed",
                },
            ],
        }
    )
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "calculator", "arguments": '{"expression": "17 * 38"}'},
    }
    assert protocols.from_responses(response.output) == [
        {"role": "assistant", "content": None, "tool_calls": [call]}
    ]
    (output,) = protocols.run_function_calls(registry, response.output)
    said = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "On it."}],
    }
    reasoning = {"type": "reasoning", "id": "rs_2", "summary": []}
    items = [
        {"role": "user", "content": "x"},
        reasoning,
        said,
        reasoning,
        response.output[1],
        output,
    ]
    assert protocols.from_responses(items)[1:] == [
        {"role": "assistant", "content": "On it.", "tool_calls": [call]},  # still one turn
        {"role": "tool", "tool_call_id": "call_1", "content": output["output"]},
    ]


# --- what each round trip gives back, exactly: the claims of the module docstring ---

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)
_SEPARATORS = st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : "), (",", ": ")])


@st.composite
def _argument_text(draw) -> str:
    """A call's arguments as a model may write them: any object in any spacing, with or without
    \\u escapes, indented or not; or '' (OpenAI's own for a call without parameters)."""
    if draw(st.integers(0, 5)) == 0:
        return ""
    value = draw(st.dictionaries(_TEXT, _JSON, max_size=3))
    return json.dumps(
        value,
        separators=draw(_SEPARATORS),
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.none() | st.integers(0, 2)),
    )


_IMAGE_URLS = st.sampled_from(
    [
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/jpeg;base64,/9j/4AAQSkZJRg==",
        "https://example.com/cat.webp",
    ]
)


@st.composite
def _user_content(draw):
    """A user message's content: text, or text and image_url parts."""
    if draw(st.booleans()):
        return draw(_TEXT)
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            parts.append({"type": "text", "text": draw(_TEXT)})
        else:
            image = {"url": draw(_IMAGE_URLS)}
            detail = draw(st.sampled_from([None, "auto", "low", "high"]))
            if detail is not None:
                image["detail"] = detail
            parts.append({"type": "image_url", "image_url": image})
    return parts


@st.composite
def _conversations_as_sent(draw):
    """Conversations as a model and a user make them: arguments in any spelling, user messages
    of several text parts and images."""
    messages = [{"role": "user", "content": draw(_user_content())}]
    for turn in range(draw(st.integers(0, 3))):
        calls = [
            {
                "id": f"c{turn}_{i}",
                "type": "function",
                "function": {"name": "tool", "arguments": draw(_argument_text())},
            }
            for i in range(draw(st.integers(0, 3)))
        ]
        message = {"role": "assistant", "content": draw(st.none() | _TEXT.filter(bool))}
        if calls:
            message["tool_calls"] = calls
        messages.append(message)
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": draw(_TEXT)})
        if draw(st.booleans()):
            messages.append({"role": "user", "content": draw(_user_content())})
    return messages


def _as_anthropic_keeps_it(messages):
    """`messages` as the module docstring says `from_anthropic(to_anthropic(...))` gives them
    back: arguments as json.dumps' text of the same JSON value ('' as {}), a user message of one
    text part as that text, images without `detail`."""
    kept = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    **call,
                    "function": {
                        **call["function"],
                        "arguments": json.dumps(
                            json.loads(call["function"]["arguments"] or "{}"), ensure_ascii=False
                        ),
                    },
                }
                for call in message["tool_calls"]
            ]
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, list):
            content = [
                {"type": "image_url", "image_url": {"url": p["image_url"]["url"]}}
                if p["type"] == "image_url"
                else p
                for p in content
            ]
            one_text = len(content) == 1 and content[0]["type"] == "text"
            message["content"] = content[0]["text"] if one_text else content
        kept.append(message)
    return kept


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_conversations_as_sent())
def test_the_anthropic_round_trip_gives_back_what_the_docstring_says_and_nothing_less(messages):
    converted = protocols.to_anthropic(messages)
    back = protocols.from_anthropic(converted["messages"], converted.get("system"))
    assert back == _as_anthropic_keeps_it(messages)
    for before, after in zip(_calls(messages), _calls(back), strict=True):  # equal as JSON
        assert json.loads(after["function"]["arguments"]) == json.loads(
            before["function"]["arguments"] or "{}"
        )
    images = [
        b
        for m in converted["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "image"
    ]
    sent = [
        p
        for m in messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p["type"] == "image_url"
    ]
    assert len(images) == len(sent)  # every image is sent, none dropped


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_conversations_as_sent().filter(_turns_apart))
def test_the_responses_round_trip_keeps_the_arguments_text_and_the_parts_exactly(messages):
    items = protocols.to_responses(messages)
    unsaid = json.loads(json.dumps(messages))  # detail "auto", the default, comes back unsaid
    for message in unsaid:
        for part in message["content"] if isinstance(message.get("content"), list) else []:
            if part.get("image_url", {}).get("detail") == "auto":
                del part["image_url"]["detail"]
    assert protocols.from_responses(items) == unsaid
    for message, item in zip(
        [m for m in messages if m["role"] == "user"],
        [i for i in items if i.get("role") == "user"],
        strict=True,
    ):
        if isinstance(message["content"], list):  # sent as parts, not re-joined text
            assert [p["type"] for p in item["content"]] == [
                "input_text" if p["type"] == "text" else "input_image" for p in message["content"]
            ]


# --- images and other parts: sent, or refused by name, never dropped ---

_PNG = "data:image/png;base64,iVBORw0KGgo="
_LOOK = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image_url", "image_url": {"url": _PNG}},
            {
                "type": "image_url",
                "image_url": {"url": "https://example.com/b.gif", "detail": "low"},
            },
        ],
    }
]


def test_a_users_images_are_input_image_parts_on_the_responses_api_and_image_blocks_for_anthropic():
    assert protocols.to_responses(_LOOK) == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is in this picture?"},
                {"type": "input_image", "image_url": _PNG, "detail": "auto"},
                {"type": "input_image", "image_url": "https://example.com/b.gif", "detail": "low"},
            ],
        }
    ]
    assert protocols.to_anthropic(_LOOK) == {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": "iVBORw0KGgo=",
                        },
                    },
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.com/b.gif"},
                    },
                ],
            }
        ]
    }


@pytest.mark.parametrize(
    ("part", "says"),
    [
        (
            {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
            "'input_audio' part",
        ),
        ({"type": "file", "file": {"file_id": "file_1"}}, "'file' part"),
        (
            {"type": "image_url", "image_url": "https://example.com/a.png"},
            "without {'image_url': {'url'",
        ),
        ({"type": "text", "text": 3}, "without a string 'text'"),
        ("text", "is str: expected a content part"),
    ],
)
def test_a_part_no_shape_can_carry_is_refused_by_name_on_both(part, says):
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}, part]}]
    for convert in (protocols.to_responses, protocols.to_anthropic):
        with pytest.raises(ValueError, match=rf"messages\[0\]\.content\[1\] .*{re.escape(says)}"):
            convert(messages)


@pytest.mark.parametrize(
    "url", ["data:image/svg+xml;base64,PHN2Zz4=", "data:image/png,rawbytes", "file:///tmp/a.png"]
)
def test_an_image_anthropic_does_not_take_is_refused_by_name(url):
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[0\] is an image"):
        protocols.to_anthropic(messages)
    assert protocols.to_responses(messages)[0]["content"][0]["image_url"] == url  # OpenAI's call


def test_an_image_where_a_message_carries_only_text_is_refused_not_dropped():
    image = {"type": "image_url", "image_url": {"url": _PNG}}
    system = [{"role": "system", "content": [image]}, {"role": "user", "content": "hi"}]
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[0\] is a 'image_url' part"):
        protocols.to_anthropic(system)
    tool = [
        *_LOOK,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": [image]},
    ]
    for convert in (protocols.to_responses, protocols.to_anthropic):
        with pytest.raises(ValueError, match=r"messages\[2\]\.content\[0\]"):
            convert(tool)


def test_anthropic_images_come_back_as_image_url_parts_and_other_user_blocks_are_refused():
    anthropic = protocols.to_anthropic(_LOOK)["messages"]
    back = protocols.from_anthropic(anthropic)
    assert back[0]["content"][1] == {"type": "image_url", "image_url": {"url": _PNG}}
    document = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "x"},
    }
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[1\] is a 'document' block"):
        protocols.from_anthropic(
            [{"role": "user", "content": [{"type": "text", "text": "x"}, document]}]
        )
    by_file = {"type": "image", "source": {"type": "file", "file_id": "file_1"}}
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[0\] is an image whose source"):
        protocols.from_anthropic([{"role": "user", "content": [by_file]}])


def test_responses_parts_come_back_as_chat_parts_and_a_refusal_as_its_text():
    items = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "a"},
                {"type": "input_image", "image_url": _PNG, "detail": "high"},
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "I can't."}],
        },
    ]
    assert protocols.from_responses(items) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image_url", "image_url": {"url": _PNG, "detail": "high"}},
            ],
        },
        {"role": "assistant", "content": "I can't."},
    ]
    by_file = {"type": "input_image", "file_id": "file_1", "detail": "auto"}
    with pytest.raises(ValueError, match=r"items\[0\]\.content\[0\] is a 'input_image' part"):
        protocols.from_responses([{"role": "user", "content": [by_file]}])
