"""The offline model over the Responses API: the same decisions as over chat completions.

One decision function (`OfflineModel.decide`), two wire shapes: every bundled prompt (the
built-in tools' selection set and the unseen-tool sets) gets the same calls, the same call ids
and, after the results, the same answer on both; the Responses-only parts (items, call_id,
previous_response_id, allowed_tools, typed stream events) go through the real SDK, sync, async
and streaming; hostile requests get the real API's error shape and, where it is on record, its
wording (toolsys/models/_responses.py lists the sources).
"""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from tests.data.unseen_tools import LATER, TOOLS, TUNED, load
from toolsys import models
from toolsys.models import OfflineModel, ScriptedModel, _responses, calls, text, transport
from toolsys.models.config import OFFLINE_MODEL
from toolsys.testing.selection import SHIPPED, load_cases
from toolsys.tools import registry as builtin

MODEL = OFFLINE_MODEL
BUILTIN_CHAT = [dict(t) for t in builtin.export("openai")]
UNSEEN_CHAT = [{"type": "function", "function": f} for f in TOOLS]
PROMPTS = [(c.prompt, BUILTIN_CHAT) for c in load_cases(SHIPPED)] + [
    (case["prompt"], UNSEEN_CHAT) for case in load(TUNED) + load(LATER)
]
IDS = [p for p, _ in PROMPTS]


def flat(chat_tools: list[dict]) -> list[dict]:
    """Chat-shaped tools as the Responses API takes them."""
    return [{"type": "function", **t["function"]} for t in chat_tools]


def chat_turn(client, messages, tools, **options):
    message = (
        client.chat.completions.create(model=MODEL, messages=messages, tools=tools, **options)
        .choices[0]
        .message
    )
    sent = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    return message.content, sent


def responses_turn(client, items, tools, **options):
    response = client.responses.create(model=MODEL, input=items, tools=tools, **options)
    sent = [(o.call_id, o.name, o.arguments) for o in response.output if o.type == "function_call"]
    texts = [o for o in response.output if o.type == "message"]
    return (response.output_text if texts else None), sent, response


class Endpoint:
    """The two endpoints without the SDK and HTTP around them: what `transport.handle` answers,
    checked by the same validation (the SDK's request building costs most of a request's time,
    so the every-prompt agreement test uses this; every tenth prompt also goes through the SDK)."""

    def __init__(self) -> None:
        self.model, self.store = OfflineModel(), _responses.ResponseStore()

    def chat(self, messages, tools, **options):
        request = transport.validate(
            {"model": MODEL, "messages": messages, "tools": tools, **options}
        )
        message = transport.completion(self.model, request)["choices"][0]["message"]
        sent = [
            (c["id"], c["function"]["name"], c["function"]["arguments"])
            for c in message.get("tool_calls") or []
        ]
        return message["content"], sent

    def responses(self, items, tools, **options):
        body = _responses.validate({"model": MODEL, "input": items, "tools": tools, **options})
        output = _responses.respond(self.model, body, self.store)["output"]
        sent = [
            (o["call_id"], o["name"], o["arguments"])
            for o in output
            if o["type"] == "function_call"
        ]
        texts = [o["content"][0]["text"] for o in output if o["type"] == "message"]
        return ("".join(texts) if texts else None), sent


class ThroughTheSDK:
    def __init__(self) -> None:
        self.client = models.client()

    def chat(self, messages, tools, **options):
        return chat_turn(self.client, messages, tools, **options)

    def responses(self, items, tools, **options):
        return responses_turn(self.client, items, tools, **options)[:2]


def result_for(name: str) -> str:
    return json.dumps({"ok": True, "value": f"{name} done"})


CASES = [(p, t, True, i % 10 == 0) for i, (p, t) in enumerate(PROMPTS)]
CASES += [(p, t, False, False) for p, t in PROMPTS[::8]]


@pytest.mark.parametrize(
    ("prompt", "tools", "parallel", "sdk"),
    CASES,
    ids=[
        f"{p}-{'parallel' if par else 'one-per-turn'}{'-sdk' if sdk else ''}"
        for p, _, par, sdk in CASES
    ],
)
def test_both_apis_decide_the_same_on_every_bundled_prompt(prompt, tools, parallel, sdk):
    """Up to three turns on each wire: the same calls (ids included), then the same answer.

    Every prompt with parallel calls allowed (every tenth through the SDK as well); every eighth
    one call per turn too."""
    wire = ThroughTheSDK() if sdk else Endpoint()
    options = {} if parallel else {"parallel_tool_calls": False}
    messages = [{"role": "user", "content": prompt}]
    items: list[dict] = [{"role": "user", "content": prompt}]
    for _ in range(3):
        chat_text, chat_calls = wire.chat(messages, tools, **options)
        resp_text, resp_calls = wire.responses(items, flat(tools), **options)
        assert (resp_text, resp_calls) == (chat_text, chat_calls)
        if not chat_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                    for i, n, a in chat_calls
                ],
            }
        )
        messages += [
            {"role": "tool", "tool_call_id": i, "content": result_for(n)} for i, n, _ in chat_calls
        ]
        items += [
            {"type": "function_call", "call_id": i, "name": n, "arguments": a}
            for i, n, a in chat_calls
        ]
        items += [
            {"type": "function_call_output", "call_id": i, "output": result_for(n)}
            for i, n, _ in chat_calls
        ]
    else:
        pytest.fail(f"{prompt!r}: still calling tools after three turns")


def test_an_image_beside_the_text_is_taken_on_both_apis_and_the_text_decides():
    """The offline model reads text; an image part (chat image_url, Responses input_image) is
    taken on both APIs, not refused on one, and both decide the same from the text beside it."""
    png = "data:image/png;base64,iVBORw0KGgo="
    wire, tools = Endpoint(), BUILTIN_CHAT
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is 17 times 38?"},
                {"type": "image_url", "image_url": {"url": png}},
            ],
        }
    ]
    items = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is 17 times 38?"},
                {"type": "input_image", "image_url": png, "detail": "auto"},
            ],
        }
    ]
    chat = wire.chat(messages, tools)
    assert chat[1] and wire.responses(items, flat(tools)) == chat


def test_the_imperfect_model_makes_the_same_mistakes_on_both_wires():
    prompts = [p for p, t in PROMPTS if t is UNSEEN_CHAT][:25]
    chat_model, resp_model = (
        OfflineModel(imperfect=True, seed=7),
        OfflineModel(imperfect=True, seed=7),
    )
    chat, resp = chat_model.client(), resp_model.client()
    for prompt in prompts:
        _, chat_calls = chat_turn(chat, [{"role": "user", "content": prompt}], UNSEEN_CHAT)
        _, resp_calls, _ = responses_turn(resp, prompt, flat(UNSEEN_CHAT))
        assert resp_calls == chat_calls, prompt
    assert chat_model.mistakes == resp_model.mistakes and chat_model.mistakes


# --- the Responses-only parts ---

WEATHER = flat(BUILTIN_CHAT)


def test_a_call_is_a_function_call_item_with_a_call_id():
    response = models.client().responses.create(
        model=MODEL, input="What's the weather in Paris and in Tokyo?", tools=WEATHER
    )
    assert response.object == "response" and response.status == "completed"
    assert [(o.type, o.call_id, o.name, json.loads(o.arguments)) for o in response.output] == [
        ("function_call", "call_0001", "get_weather", {"city": "Paris"}),
        ("function_call", "call_0002", "get_weather", {"city": "Tokyo"}),
    ]
    assert all(o.id.startswith("fc_") for o in response.output)
    assert response.usage.total_tokens == response.usage.input_tokens + response.usage.output_tokens


def test_previous_response_id_continues_a_conversation_the_server_kept():
    client = models.client()
    first = client.responses.create(model=MODEL, input="What's the weather in Oslo?", tools=WEATHER)
    (call,) = first.output
    answer = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": '{"ok": true, "value": -3}',
            }
        ],
        tools=WEATHER,
    )
    assert answer.previous_response_id == first.id
    assert answer.output_text.startswith("get_weather(Oslo) = -3.")
    assert client.responses.retrieve(first.id).id == first.id


def test_a_response_not_stored_cannot_be_continued():
    client = models.client()
    first = client.responses.create(
        model=MODEL, input="Weather in Oslo?", tools=WEATHER, store=False
    )
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=MODEL, previous_response_id=first.id, input="and in Rome?")
    assert caught.value.body == {
        "message": f"Previous response with id '{first.id}' not found.",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(first.id)


def test_each_client_keeps_its_own_stored_responses():
    first = models.client().responses.create(model=MODEL, input="Weather in Oslo?", tools=WEATHER)
    with pytest.raises(openai.BadRequestError, match="not found"):
        models.client().responses.create(model=MODEL, previous_response_id=first.id, input="hi")


def test_instructions_are_not_carried_over_to_the_next_response():
    client = models.client()
    first = client.responses.create(model=MODEL, instructions="Be brief.", input="hello")
    second = client.responses.create(model=MODEL, previous_response_id=first.id, input="again")
    assert first.instructions == "Be brief." and second.instructions is None


def test_the_server_keeps_a_bounded_number_of_responses():
    from toolsys.models._responses import ResponseStore

    store = ResponseStore(limit=2)
    for n in range(3):
        store.put({"id": f"resp_{n}"}, [])
    assert store.get("resp_0") is None and store.get("resp_2") is not None


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("none", []),
        ("required", ["calculator"]),
        ({"type": "function", "name": "get_time"}, ["get_time"]),
        (
            {
                "type": "allowed_tools",
                "mode": "auto",
                "tools": [{"type": "function", "name": "get_weather"}],
            },
            [],
        ),
        (
            {
                "type": "allowed_tools",
                "mode": "required",
                "tools": [{"type": "function", "name": "get_time"}],
            },
            ["get_time"],
        ),
    ],
    ids=["none", "required", "named", "allowed-auto", "allowed-required"],
)
def test_tool_choice_is_obeyed_and_agrees_with_chat(choice, expected):
    client = models.client()
    _, _, response = responses_turn(client, "What is 17 times 38?", WEATHER, tool_choice=choice)
    assert [o.name for o in response.output if o.type == "function_call"] == expected
    chat_choice = choice
    if isinstance(choice, dict) and choice["type"] == "function":
        chat_choice = {"type": "function", "function": {"name": choice["name"]}}
    elif isinstance(choice, dict):
        chat_choice = {
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": choice["mode"],
                "tools": [
                    {"type": "function", "function": {"name": t["name"]}} for t in choice["tools"]
                ],
            },
        }
    _, chat_calls = chat_turn(
        client,
        [{"role": "user", "content": "What is 17 times 38?"}],
        BUILTIN_CHAT,
        tool_choice=chat_choice,
    )
    assert [name for _, name, _ in chat_calls] == expected


def test_allowed_tools_keeps_the_model_to_the_listed_tools_while_all_stay_in_the_request():
    choice = {
        "type": "allowed_tools",
        "mode": "auto",
        "tools": [{"type": "function", "name": "calculator"}],
    }
    response = models.client().responses.create(
        model=MODEL,
        input="What's the weather in Paris? And 2 + 2?",
        tools=WEATHER,
        tool_choice=choice,
    )
    assert [o.name for o in response.output] == ["calculator"]
    assert len(response.tools) == len(WEATHER)


def test_parallel_tool_calls_false_sends_one_call_per_response():
    response = models.client().responses.create(
        model=MODEL, input="Weather in Paris and in Tokyo", tools=WEATHER, parallel_tool_calls=False
    )
    assert [o.name for o in response.output] == ["get_weather"]
    assert response.parallel_tool_calls is False


def test_max_output_tokens_leaves_the_response_incomplete_mid_arguments():
    response = models.client().responses.create(
        model=MODEL,
        input="Search the docs for how to configure retries with exponential backoff and jitter",
        tools=WEATHER,
        max_output_tokens=16,
    )
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    (call,) = response.output
    with pytest.raises(json.JSONDecodeError):
        json.loads(call.arguments)


@pytest.mark.parametrize("prompt", ["what is 2 plus 3", "hello there", PROMPTS[0][0]])
def test_both_apis_cut_at_the_same_limits_and_count_the_same_output_tokens(prompt):
    """One rule for both APIs (`_limits.within`): for every limit, chat completions says
    "length" exactly where the Responses API says "incomplete", with the same output tokens,
    never more than the limit (the two used to count different shapes of the same reply)."""
    client = models.client()
    for limit in range(16, 90):
        chat = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": prompt}],
            tools=BUILTIN_CHAT,
            max_completion_tokens=limit,
        )
        resp = client.responses.create(
            model=MODEL, input=prompt, tools=flat(BUILTIN_CHAT), max_output_tokens=limit
        )
        cut = chat.choices[0].finish_reason == "length"
        assert cut == (resp.status == "incomplete"), limit
        assert resp.usage.output_tokens == chat.usage.completion_tokens <= limit, limit


TWO = "What's the weather in Paris and the time in Tokyo?"
SAME_TOOL_TWICE = "What's the weather in Paris and in Tokyo?"
RETRYABLE = json.dumps(
    {"ok": False, "error": {"code": "TIMEOUT", "message": "timed out", "retryable": True}}
)


def _next_calls(response) -> list[tuple[str, str]]:
    return [(o.name, o.arguments) for o in response.output if o.type == "function_call"]


@pytest.mark.parametrize("prompt", [TWO, SAME_TOOL_TWICE])
@pytest.mark.parametrize("with_ids", [True, False], ids=["sdk-items", "hand-made-items"])
def test_each_output_after_its_call_as_openais_guide_sends_them_decides_as_chat_does(
    with_ids, prompt
):
    """[call a, output a, call b, output b]: the guide's order. The calls keep together by
    their item ids; hand-made items without ids still get each call's own retry."""
    client = models.client()
    first = client.responses.create(model=MODEL, input=prompt, tools=flat(BUILTIN_CHAT))
    calls = [o for o in first.output if o.type == "function_call"]
    assert len(calls) == 2
    items: list = [{"role": "user", "content": prompt}]
    for call in calls:
        item = call.model_dump(exclude_none=True)
        if not with_ids:
            item = {k: item[k] for k in ("type", "call_id", "name", "arguments")}
        items += [
            item,
            {"type": "function_call_output", "call_id": call.call_id, "output": RETRYABLE},
        ]
    grouped = [items[0], *items[1::2], *items[2::2]]
    interleaved = client.responses.create(model=MODEL, input=items, tools=flat(BUILTIN_CHAT))
    together = client.responses.create(model=MODEL, input=grouped, tools=flat(BUILTIN_CHAT))
    assert _next_calls(interleaved) == _next_calls(together)
    assert sorted(_next_calls(together)) == sorted((c.name, c.arguments) for c in calls)


def test_calls_sent_back_one_turn_each_are_each_retried_once():
    """A history that splits a parallel turn into two (one call per assistant message) is read
    by tool name: each failed call is retried, none twice."""
    client = models.client()
    first = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": TWO}], tools=BUILTIN_CHAT
    )
    messages: list = [{"role": "user", "content": TWO}]
    for call in first.choices[0].message.tool_calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": [call.model_dump()]})
        messages.append({"role": "tool", "tool_call_id": call.id, "content": RETRYABLE})
    again = client.chat.completions.create(model=MODEL, messages=messages, tools=BUILTIN_CHAT)
    names = sorted(c.function.name for c in again.choices[0].message.tool_calls)
    assert names == ["get_time", "get_weather"]


def test_a_scripted_model_answers_the_responses_api_from_its_script():
    model = ScriptedModel([calls(("add", {"a": 1, "b": 2})), text("3")])
    client = model.client()
    first = client.responses.create(
        model="m", input="1+2", tools=[{"type": "function", "name": "add"}]
    )
    (call,) = first.output
    second = client.responses.create(
        model="m",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "3"}],
    )
    assert (call.name, second.output_text) == ("add", "3")
    # a backend is given the chat completions request the conversation is, on both APIs
    assert model.requests[1]["messages"] == [
        {"role": "user", "content": "1+2"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call.call_id,
                    "type": "function",
                    "function": {"name": "add", "arguments": call.arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call.call_id, "content": "3"},
    ]
    assert model.requests[0]["tools"] == [{"type": "function", "function": {"name": "add"}}]


# --- streaming ---


def streamed(client, **request):
    with client.responses.stream(model=MODEL, **request) as stream:
        events = list(stream)
        return events, stream.get_final_response()


@pytest.mark.parametrize(("prompt", "tools"), PROMPTS[::7], ids=IDS[::7])
def test_the_sdk_stream_helper_reads_the_events_and_they_add_up_to_the_plain_response(
    prompt, tools
):
    client = models.client()
    plain = client.responses.create(model=MODEL, input=prompt, tools=flat(tools), store=False)
    events, final = streamed(client, input=prompt, tools=flat(tools), store=False)
    assert final.model_dump(exclude={"output"}) == plain.model_dump(exclude={"output"})
    assert [o.model_dump(exclude_none=True) for o in final.output] == [
        o.model_dump(exclude_none=True) for o in plain.output
    ]
    numbers = [e.sequence_number for e in events]
    assert numbers == list(range(len(events)))
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    for index, item in enumerate(plain.output):
        if item.type == "function_call":
            pieces = [
                e.delta
                for e in events
                if e.type == "response.function_call_arguments.delta" and e.output_index == index
            ]
            done = [
                e
                for e in events
                if e.type == "response.function_call_arguments.done" and e.output_index == index
            ]
            assert "".join(pieces) == item.arguments == done[0].arguments
        else:
            words = [e.delta for e in events if e.type == "response.output_text.delta"]
            assert "".join(words) == item.content[0].text


def test_a_cut_response_streams_to_response_incomplete():
    with models.client().responses.stream(
        model=MODEL,
        input="Search the docs for how to configure retries with exponential backoff and jitter",
        tools=WEATHER,
        max_output_tokens=16,
    ) as stream:
        kinds = [e.type for e in stream]
    assert kinds[-1] == "response.incomplete"


def test_the_async_client_answers_and_streams_like_the_sync_one():
    prompt = "What's the weather in Paris and in Tokyo?"

    async def run():
        client = models.async_client()
        plain = await client.responses.create(model=MODEL, input=prompt, tools=WEATHER)
        async with client.responses.stream(model=MODEL, input=prompt, tools=WEATHER) as stream:
            kinds = [e.type async for e in stream]
            final = await stream.get_final_response()
        return plain, kinds, final

    plain, kinds, final = asyncio.run(run())
    sync = models.client().responses.create(model=MODEL, input=prompt, tools=WEATHER)
    assert plain.model_dump() == sync.model_dump()
    assert [o.call_id for o in final.output] == [o.call_id for o in sync.output]
    assert kinds.count("response.function_call_arguments.done") == 2


def test_raw_stream_events_are_typed_by_the_sdk():
    stream = models.client().responses.create(model=MODEL, input="hello", stream=True)
    events = list(stream)
    assert type(events[0]).__name__ == "ResponseCreatedEvent"
    assert type(events[-1]).__name__ == "ResponseCompletedEvent"


# --- hostile requests ---


def refused(**request) -> dict:
    request.setdefault("model", MODEL)
    with pytest.raises(openai.BadRequestError) as caught:
        models.client().responses.create(**request)
    assert caught.value.status_code == 400
    assert caught.value.body["type"] == "invalid_request_error"
    return caught.value.body


def call_item(call_id="call_1", **extra):
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
        **extra,
    }


def output_item(call_id="call_1"):
    return {
        "type": "function_call_output",
        "call_id": call_id,
        "output": '{"ok": true, "value": 1}',
    }


USER = {"role": "user", "content": "Weather in Oslo?"}


def test_chat_shaped_tools_are_refused_in_the_real_apis_words():
    body = refused(input="hi", tools=BUILTIN_CHAT)
    assert body["message"] == "Missing required parameter: 'tools[0].name'."
    assert (body["param"], body["code"]) == ("tools[0].name", "missing_required_parameter")


def test_a_chat_shaped_tool_choice_is_refused():
    body = refused(
        input="hi",
        tools=WEATHER,
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    assert body["message"] == "Missing required parameter: 'tool_choice.name'."


def test_an_output_no_call_precedes_is_refused_in_the_real_apis_words():
    body = refused(input=[USER, output_item("call_9")], tools=WEATHER)
    assert body["message"] == "No tool call found for function call output with call_id call_9."
    assert body["param"] == "input"
    body = refused(input=[USER, output_item(), call_item()], tools=WEATHER)  # answered before asked
    assert body["message"].startswith("No tool call found")


def test_a_call_without_its_output_is_refused_in_the_real_apis_words():
    body = refused(input=[USER, call_item(), {"role": "user", "content": "and?"}], tools=WEATHER)
    assert body["message"] == "No tool output found for function call call_1."


def test_a_call_left_open_by_the_previous_response_is_refused():
    client = models.client()
    first = client.responses.create(model=MODEL, input="Weather in Oslo?", tools=WEATHER)
    with pytest.raises(
        openai.BadRequestError, match="No tool output found for function call call_0001"
    ):
        client.responses.create(model=MODEL, previous_response_id=first.id, input="thanks")


def test_a_call_id_used_twice_and_an_output_given_twice_are_refused():
    body = refused(input=[USER, call_item(), call_item(), output_item()], tools=WEATHER)
    assert "used by two function_call items" in body["message"]
    body = refused(input=[USER, call_item(), output_item(), output_item()], tools=WEATHER)
    assert "two function_call_output items answer call_id 'call_1'" in body["message"]


def test_an_item_id_of_the_wrong_kind_is_refused_in_the_real_apis_words():
    body = refused(input=[USER, call_item(id="call_1"), output_item()], tools=WEATHER)
    assert (
        body["message"]
        == "Invalid 'input[1].id': \"call_1\". Expected an ID that begins with 'fc'."
    )


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("required", "Tool choice 'required' must be specified with 'tools' parameter."),
        (
            {"type": "function", "name": "get_time"},
            "Tool choice 'function' not found in 'tools' parameter",
        ),
    ],
)
def test_tool_choice_without_its_tool_is_refused_in_the_real_apis_words(choice, message):
    assert refused(input="hi", tool_choice=choice)["message"].startswith(message)


def test_allowed_tools_naming_an_absent_tool_is_refused():
    choice = {
        "type": "allowed_tools",
        "mode": "auto",
        "tools": [{"type": "function", "name": "nope"}],
    }
    assert (
        "not one of the request's function tools"
        in refused(input="hi", tools=WEATHER, tool_choice=choice)["message"]
    )


@pytest.mark.parametrize("limit", [0, 15])
def test_max_output_tokens_below_16_is_refused_in_the_real_apis_words(limit):
    body = refused(input="hi", max_output_tokens=limit)
    assert body["message"] == (
        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, "
        f"but got {limit} instead."
    )
    assert body["code"] == "integer_below_min_value"


@pytest.mark.parametrize(
    ("request_", "param"),
    [
        ({"input": "hi", "parallel_tool_calls": "no"}, "parallel_tool_calls"),
        ({"input": "hi", "max_output_tokens": "many"}, "max_output_tokens"),
        ({"input": "hi", "instructions": 3}, "instructions"),
        ({"input": 42}, "input"),
        ({"input": [42]}, "input[0]"),
        ({"input": [{"role": "robot", "content": "hi"}]}, "input[0].role"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]},
            "input[0].content[0]",
        ),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image", "detail": "auto"}]}]},
            "input[0].content[0]",
        ),
        ({"input": [{"type": "reasoning", "summary": []}]}, "input[0].type"),
        (
            {"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}]},
            "input[0].arguments",
        ),
        ({"input": [{"type": "function_call_output", "output": "x"}]}, "input[0].call_id"),
        ({"input": "hi", "tools": {"type": "function"}}, "tools"),
        ({"input": "hi", "tools": [{"type": "web_search"}]}, "tools[0]"),
        ({"input": "hi", "tools": [{"type": "function", "name": "bad name!"}]}, "tools[0].name"),
        (
            {"input": "hi", "tools": [{"type": "function", "name": "f", "defer_loading": True}]},
            "tools[0].defer_loading",
        ),
        (
            {
                "input": "hi",
                "tools": [{"type": "function", "name": "f"}, {"type": "function", "name": "f"}],
            },
            "tools",
        ),
        (
            {
                "input": "hi",
                "tool_choice": "sometimes",
                "tools": [{"type": "function", "name": "f"}],
            },
            "tool_choice",
        ),
        ({"input": "hi", "reasoning": {"effort": "low"}}, "reasoning"),
        ({}, "input"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_malformed_requests_are_refused_naming_the_parameter(request_, param):
    body = refused(**request_)
    assert body["param"] == param, body["message"]


def test_a_body_that_is_not_json_or_not_an_object_is_refused():
    import httpx2

    from toolsys.models import transport

    for content in (b"{not json", b"[1, 2]"):
        request = httpx2.Request(
            "POST", "http://offline.toolsys.invalid/v1/responses", content=content
        )
        response = transport.handle(OfflineModel(), request)
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "invalid_request_error"


def test_an_unknown_path_is_a_404_naming_what_is_served():
    client = models.client()
    with pytest.raises(openai.NotFoundError, match="Response with id 'resp_nope' not found"):
        client.responses.retrieve("resp_nope")
    with pytest.raises(openai.NotFoundError, match="serves POST /chat/completions"):
        client.embeddings.create(model=MODEL, input="hi")
