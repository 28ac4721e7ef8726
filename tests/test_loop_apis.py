"""The agent loop over both APIs: `run_agent(..., api="responses")` is the same loop.

1. Every loop-level test that drives the loop through a toolsys backend (the offline model,
   `ScriptedModel`) runs here a second time over the Responses API: the tests of `test_loop`,
   `test_governance_approval` (pause, resume, deny, edit), `test_streaming`, `test_trace_replay`
   (save, load, replay), `test_ch06_loop` and `test_loop_deadline` are collected into this
   module, and an autouse fixture turns the loop's default wire into the Responses one. The few
   that fake a chat completions endpoint byte for byte are left out, each with its reason
   (`CHAT_ONLY`); the Responses API's own hostile replies are tested below instead.
2. The same run gives the same transcript on both (every bundled prompt), a run paused on one API
   resumes on the other, the loop's Responses requests are what the API takes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import httpx2
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import (
    test_ch06_loop,
    test_governance_approval,
    test_loop,
    test_loop_deadline,
    test_streaming,
    test_trace_replay,
)
from tests.data.unseen_tools import TUNED, load
from toolsys import Registry, loop, models
from toolsys._wire import ResponsesWire, wire_for
from toolsys.loop import ModelErrorEvent, resume_agent, run_agent
from toolsys.models import _responses, transport
from toolsys.streaming import stream_agent
from toolsys.testing.selection import SHIPPED, load_cases
from toolsys.tools import registry as builtin

MODULES = [
    test_loop,
    test_governance_approval,
    test_streaming,
    test_trace_replay,
    test_ch06_loop,
    test_loop_deadline,
]
CHAT_ONLY = {
    "test_a_model_that_reuses_an_approved_call_id_later_needs_approval_again": (
        "serves raw chat completion bodies (RawEndpoint)"
    ),
    "test_a_duplicate_call_id_in_one_turn_is_pending_once": (
        "serves raw chat completion bodies (RawEndpoint)"
    ),
    "test_a_deadline_that_passes_while_the_model_thinks_ends_the_run": (
        "a fake client with only chat.completions"
    ),
}


def _collect() -> None:
    """Bind each module's tests and fixtures here, under `test_<module>__<name>`."""
    for module in MODULES:
        short = module.__name__.rsplit(".", 1)[1].removeprefix("test_")
        for name, value in vars(module).items():
            if getattr(value, "_pytestfixturefunction", None) or type(value).__name__ == (
                "FixtureFunctionDefinition"
            ):
                globals().setdefault(name, value)
            elif name.startswith("test_") and callable(value) and name not in CHAT_ONLY:
                globals()[f"test_{short}__{name.removeprefix('test_')}"] = value


_collect()


@pytest.fixture(autouse=True)
def over_the_responses_api(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's default wire, for every test copied into this module, is the Responses API's.
    The tests written here say their `api` themselves: "chat" is chat completions, so what they
    compare across the two APIs really ran on both."""
    if (
        "__" in request.function.__name__
        or request.function is test_the_copies_really_run_over_the_responses_api
    ):
        monkeypatch.setattr(
            loop, "wire_for", lambda api: ResponsesWire() if api == "chat" else wire_for(api)
        )


def test_the_copies_really_run_over_the_responses_api():
    copied = [
        n
        for n in globals()
        if n.startswith(tuple(f"test_{m.__name__.rsplit('.', 1)[1][5:]}__" for m in MODULES))
    ]
    assert len(copied) >= 60
    paths: list[str] = []
    inner = models.OfflineModel()
    store = _responses.ResponseStore()

    def handle(request: httpx2.Request) -> httpx2.Response:
        paths.append(request.url.path)
        return transport.handle(inner, request, store)

    client = openai.OpenAI(
        api_key="x",
        base_url="http://offline.toolsys.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
    )
    run_agent(client, builtin, "What's the weather in Paris?", model="m")  # default: patched
    assert paths and set(paths) == {"/v1/responses"}


# --- the same run on both APIs --------------------------------------------------------------------

PROMPTS = [(c.prompt, builtin) for c in load_cases(SHIPPED)]


def comparable(transcript) -> dict[str, Any]:
    """The transcript without the token estimates (per wire shape: JSON length) and timings."""
    data = json.loads(transcript.to_json())
    data.pop("usage", None)
    data.pop("duration_s", None)
    for event in data["events"]:
        event.pop("usage", None)
        event.get("meta", {}).pop("duration_ms", None)
    return data


@pytest.mark.parametrize(
    "prompt", [p for p, _ in PROMPTS] + [c["prompt"] for c in load(TUNED)[::6]]
)
def test_the_same_run_gives_the_same_transcript_on_both_apis(prompt):
    chat = run_agent(models.client(), builtin, prompt, api="chat")
    resp = run_agent(models.client(), builtin, prompt, api="responses")
    assert comparable(resp) == comparable(chat)
    assert resp.usage and chat.usage  # both report usage, each its own estimate


def test_a_run_paused_on_chat_resumes_on_the_responses_api_and_back():
    registry, _ = test_governance_approval._registry()
    client = models.client()
    prompt = "refund order A1 for 20 euros"
    paused = run_agent(
        client, registry, prompt, context=test_governance_approval.SUPPORT, api="chat"
    )
    assert paused.status == "awaiting_approval"
    saved = paused.to_json()
    from toolsys.loop import Transcript

    on_responses = resume_agent(
        client,
        registry,
        Transcript.from_json(saved),
        approve=[p.id for p in paused.pending],
        context=test_governance_approval.SUPPORT,
        api="responses",
    )
    on_chat = resume_agent(
        models.client(),
        test_governance_approval._registry()[0],
        Transcript.from_json(saved),
        approve=[p.id for p in paused.pending],
        context=test_governance_approval.SUPPORT,
        api="chat",
    )
    assert on_responses.status == on_chat.status == "completed"
    assert on_responses.answer == on_chat.answer


def test_a_streamed_responses_run_ends_with_the_same_transcript_as_a_plain_one():
    prompt = "What's the weather in Paris and in Tokyo?"
    stream = stream_agent(models.client(), builtin, prompt, api="responses")
    deltas = [e for e in stream if type(e).__name__ in ("TextDelta", "ToolCallDelta")]
    plain = run_agent(models.client(), builtin, prompt, api="responses")
    assert comparable(stream.transcript) == comparable(plain)
    names = [d.name for d in deltas if type(d).__name__ == "ToolCallDelta" and d.name]
    assert names == ["get_weather", "get_weather"]


def test_the_async_loop_runs_over_the_responses_api_too():
    prompt = "What is 17 times 38?"
    transcript = asyncio.run(
        loop.arun_agent(models.async_client(), builtin, prompt, api="responses")
    )
    assert transcript.status == "completed" and "646" in transcript.answer


def test_an_unknown_api_is_refused_before_any_request():
    with pytest.raises(ValueError, match="api='responsess': give 'chat'"):
        run_agent(models.client(), builtin, "hi", api="responsess")


# --- what the loop sends, and hostile Responses replies -------------------------------------------


class RawResponses:
    """Serves the given Responses bodies in order; checks each request with the offline
    endpoint's own Responses validation, and keeps what it received."""

    def __init__(self, *bodies: Any) -> None:
        self.bodies, self.requests, self.rejected = list(bodies), [], []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith("/responses")
        try:
            body = _responses.validate(json.loads(request.content))
            _responses.conversation_items(body, _responses.ResponseStore())
        except transport.RequestError as error:
            self.rejected.append(error.message)
            return httpx2.Response(error.status, json=error.to_json())
        self.requests.append(body)
        reply = self.bodies.pop(0) if self.bodies else {"error": "no reply left"}
        content = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
        return httpx2.Response(200, content=content, headers={"content-type": "application/json"})

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(
            api_key="x",
            base_url="http://raw.invalid/v1",
            max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self.handle)),
        )


def response(*output: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "m",
        "status": status,
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    }


def message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def function_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }


def add_registry() -> Registry:
    registry = Registry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    return registry


def test_the_loops_responses_requests_are_stateless_items_with_flat_tools_and_strict_said():
    endpoint = RawResponses(
        response(function_call("call_9", "add", '{"a": 1, "b": 2}')), response(message("3"))
    )
    transcript = run_agent(
        endpoint.client(), add_registry(), "1+2?", model="m", system="Be brief.", api="responses"
    )
    assert transcript.status == "completed" and not endpoint.rejected
    first, second = endpoint.requests
    assert first["store"] is False and "previous_response_id" not in first
    assert first["input"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "1+2?"},
    ]
    (tool,) = first["tools"]
    assert (tool["type"], tool["name"], tool["strict"]) == ("function", "add", False)
    assert second["input"][-2:] == [
        {
            "type": "function_call",
            "call_id": "call_9",
            "name": "add",
            "arguments": '{"a": 1, "b": 2}',
        },
        {"type": "function_call_output", "call_id": "call_9", "output": '{"ok": true, "value": 3}'},
    ]
    assert transcript.usage == {"prompt_tokens": 6, "completion_tokens": 4, "total_tokens": 10}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ([1, 2], "not a response: expected a JSON object with 'output'"),
        ({"id": "r", "output": None}, "'output' = null (or missing): expected a list"),
        ({"id": "r", "output": "text"}, "'output' = text \"text\": expected a list"),
        (response("x"), 'output[0] = text "x": expected an output item object'),
        (
            response(function_call("c", 7, "{}")),
            "output[0].name = int 7: expected the function's name",
        ),
        (
            response({"type": "web_search_call", "id": "w"}),
            'output[0].type = text "web_search_call"',
        ),
        (
            response({"type": "message", "content": "hi"}),
            'output[0].content = text "hi": expected a list',
        ),
        (
            response({"type": "message", "content": [{"type": "output_text", "text": 3}]}),
            "output[0].content[0]",
        ),
    ],
    ids=[
        "array",
        "no output",
        "output text",
        "item text",
        "name number",
        "hosted tool",
        "content text",
        "text number",
    ],
)
def test_a_malformed_responses_reply_ends_the_run_as_model_error_with_what_was_wrong(body, says):
    endpoint = RawResponses(body)
    transcript = run_agent(endpoint.client(), add_registry(), "hi", model="m", api="responses")
    assert transcript.status == "model_error"
    (error,) = [e for e in transcript.events if isinstance(e, ModelErrorEvent)]
    assert says in error.message, error.message


def test_a_call_without_a_call_id_or_arguments_is_read_as_the_chat_loop_reads_it():
    endpoint = RawResponses(
        response(function_call(None, "add", None), function_call(None, "add", {"a": 1, "b": 1})),
        response(message("done")),
    )
    transcript = run_agent(endpoint.client(), add_registry(), "hi", model="m", api="responses")
    assert transcript.status == "completed" and not endpoint.rejected
    calls = [(e.id, e.arguments) for e in transcript.tool_calls]
    assert calls == [("toolsys_call_1_1", "{}"), ("toolsys_call_1_2", '{"a": 1, "b": 1}')]
    outputs = [
        i["call_id"]
        for i in endpoint.requests[1]["input"]
        if i.get("type") == "function_call_output"
    ]
    assert outputs == ["toolsys_call_1_1", "toolsys_call_1_2"]


def test_a_call_id_used_twice_in_one_response_is_run_and_answered_once():
    endpoint = RawResponses(
        response(
            function_call("same", "add", '{"a": 1, "b": 2}'),
            function_call("same", "add", '{"a": 5, "b": 5}'),
        ),
        response(message("done")),
    )
    transcript = run_agent(endpoint.client(), add_registry(), "hi", model="m", api="responses")
    assert transcript.status == "completed" and not endpoint.rejected
    outputs = [i for i in endpoint.requests[1]["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["same"]


def chat_endpoint(body: dict[str, Any]) -> openai.OpenAI:
    """A chat completions endpoint that answers every request with `body`."""
    return openai.OpenAI(
        api_key="x",
        base_url="http://raw.invalid/v1",
        max_retries=0,
        http_client=httpx2.Client(
            transport=httpx2.MockTransport(lambda request: httpx2.Response(200, json=body))
        ),
    )


def completion(content: str, finish_reason: str) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": content},
            }
        ],
    }


@pytest.mark.parametrize(
    ("status", "extra", "says"),
    [
        (
            "failed",
            {"error": {"code": "server_error", "message": "The model failed to generate"}},
            'failed (status "failed", error server_error: The model failed to generate)',
        ),
        ("failed", {}, 'failed (status "failed", error null'),
        ("cancelled", {}, 'status "cancelled": it holds no finished answer'),
        ("queued", {"background": True}, 'status "queued": it holds no finished answer'),
        ("in_progress", {"background": True}, 'status "in_progress": it holds no finished'),
        ("done", {}, '\'status\' = text "done": expected "completed" or "incomplete"'),
    ],
)
def test_a_response_that_failed_or_never_finished_is_a_model_error_not_an_answer(
    status, extra, says
):
    endpoint = RawResponses({**response(message("I can"), status=status), **extra})
    transcript = run_agent(endpoint.client(), add_registry(), "hi", model="m", api="responses")
    assert transcript.status == "model_error" and transcript.answer is None
    (error,) = [e for e in transcript.events if isinstance(e, ModelErrorEvent)]
    assert says in error.message, error.message


@pytest.mark.parametrize(
    ("finish_reason", "reason", "status"),
    [("content_filter", "content_filter", "completed"), ("length", "max_output_tokens", "length")],
)
def test_a_cut_answer_ends_the_run_the_same_way_on_both_apis(finish_reason, reason, status):
    """A content filter's cut is "completed" (with the text let through), a token limit's
    "length", on chat completions and on the Responses API alike."""
    cut = {
        **response(message("I can"), status="incomplete"),
        "incomplete_details": {"reason": reason},
    }
    on_responses = run_agent(
        RawResponses(cut).client(), add_registry(), "hi", model="m", api="responses"
    )
    on_chat = run_agent(
        chat_endpoint(completion("I can", finish_reason)),
        add_registry(),
        "hi",
        model="m",
        api="chat",
    )
    assert on_responses.status == on_chat.status == status
    assert on_responses.answer == on_chat.answer == "I can"
    assert comparable(on_responses)["events"] == comparable(on_chat)["events"]


def test_an_incomplete_response_ends_the_run_as_length():
    endpoint = RawResponses(response(message("The answer is"), status="incomplete"))
    transcript = run_agent(endpoint.client(), add_registry(), "hi", model="m", api="responses")
    assert transcript.status == "length"


def test_a_reasoning_item_is_skipped_not_fatal():
    endpoint = RawResponses(
        response({"type": "reasoning", "id": "rs_1", "summary": []}, message("ok"))
    )
    transcript = run_agent(endpoint.client(), add_registry(), "hi", model="m", api="responses")
    assert transcript.status == "completed" and transcript.answer == "ok"


def test_an_http_error_from_the_responses_api_is_a_model_error_with_its_message():
    model = models.ScriptedModel([models.text("one")])
    client = model.client()
    run_agent(client, add_registry(), "hi", api="responses")
    transcript = run_agent(client, add_registry(), "again", api="responses")
    assert transcript.status == "model_error"
    (error,) = [e for e in transcript.events if isinstance(e, ModelErrorEvent)]
    assert error.message.startswith("ScriptedModel ran out of script: request 2 arrived")


# --- a user message in parts, images beside the text ---

_PNG = "data:image/png;base64,iVBORw0KGgo="


@st.composite
def _in_parts(draw):
    """A bundled prompt cut into text parts at spaces ("What is 17" + "times 38?"), an image
    part or two among them; and the prompt."""
    prompt = draw(st.sampled_from([p for p, _ in PROMPTS]))
    words = prompt.split(" ")
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(words) - 1)), max_size=3)))
    bounds = [0, *[c for c in cuts if c < len(words)], len(words)]
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": " ".join(words[a:b])} for a, b in itertools.pairwise(bounds)
    ]
    for _ in range(draw(st.integers(0, 2))):
        image = {"type": "image_url", "image_url": {"url": _PNG}}
        parts.insert(draw(st.integers(0, len(parts))), image)
    return prompt, parts


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_in_parts())
def test_a_user_message_in_parts_runs_the_same_on_both_apis(case):
    prompt, parts = case
    messages = [{"role": "user", "content": parts}]
    chat = run_agent(models.client(), builtin, messages, api="chat")
    resp = run_agent(models.client(), builtin, messages, api="responses")
    assert comparable(resp) == comparable(chat)
    if all(p["type"] == "text" for p in parts):  # the parts say what the prompt says
        whole = run_agent(models.client(), builtin, prompt, api="responses")
        assert [(c.name, c.arguments) for c in resp.tool_calls] == [
            (c.name, c.arguments) for c in whole.tool_calls
        ]


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_users_image_reaches_the_model_on_both_apis_and_the_offline_model_still_answers(api):
    sent: list[dict[str, Any]] = []
    inner, store = models.OfflineModel(), _responses.ResponseStore()

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return transport.handle(inner, request, store)

    client = openai.OpenAI(
        api_key="x",
        base_url="http://offline.toolsys.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
    )
    image = {"type": "image_url", "image_url": {"url": _PNG}}
    question = [
        {"role": "user", "content": [{"type": "text", "text": "What is 17 times 38?"}, image]}
    ]
    transcript = run_agent(client, builtin, question, model="m", api=api)
    assert transcript.status == "completed" and "646" in transcript.answer
    first = sent[0]["messages" if api == "chat" else "input"][0]["content"]
    assert first[1] == (
        image if api == "chat" else {"type": "input_image", "image_url": _PNG, "detail": "auto"}
    )


# --- lesson 06 builds the Responses loop by hand --------------------------------------------------


def _lesson_responses_loop():
    from pathlib import Path

    lesson = Path(__file__).resolve().parent.parent / "notebooks" / "06_agent_loop.ipynb"
    cells = [
        "".join(cell["source"])
        for cell in json.loads(lesson.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]
    source = next(c for c in cells if c.startswith("def responses_loop("))
    source = source.split("\n\nfor item in responses_loop")[0]
    from toolsys import protocols

    namespace: dict[str, Any] = {"MODEL": models.default_model(), "protocols": protocols}
    exec(compile(source, str(lesson), "exec"), namespace)
    return namespace["responses_loop"]


@pytest.mark.parametrize(
    "prompt",
    [
        "What's the weather in Paris and in Tokyo?",
        "What is 17 times 38?",
        "hello",
        "Weather in Atlantis?",
    ],
)
def test_lesson_06s_responses_loop_has_the_conversation_run_agent_has(prompt):
    from toolsys import protocols

    by_hand = protocols.from_responses(_lesson_responses_loop()(models.client(), builtin, prompt))
    assert by_hand == run_agent(models.client(), builtin, prompt, api="responses").messages
