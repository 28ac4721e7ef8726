"""The agent loop survives any endpoint reply: malformed ones end the run, never raise.

Every reply here goes through the real `openai` client over an `httpx2.MockTransport` that serves
raw bodies exactly as written, and every request the loop sends is checked with the offline
endpoint's own protocol validation (`transport.validate`), so "the next request is accepted" is
tested, not assumed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import httpx2
import openai
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from toolsys import Registry
from toolsys.loop import (
    ModelErrorEvent,
    ObserverError,
    RunFinished,
    ToolCallEvent,
    ToolResultEvent,
    Transcript,
    arun_agent,
    run_agent,
)
from toolsys.models import transport

STATUSES = {"completed", "max_steps", "model_error"}


def _registry() -> tuple[Registry, list[str]]:
    """Three small tools and the list of names of the calls that really ran."""
    registry, ran = Registry(), []

    @registry.tool
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First addend.
            b: Second addend.
        """
        ran.append("add")
        return a + b

    @registry.tool
    def ping() -> str:
        """Answer 'pong'."""
        ran.append("ping")
        return "pong"

    @registry.tool
    def set_unit(unit: Literal["celsius", "fahrenheit"]) -> str:
        """Set the temperature unit.

        Args:
            unit: The unit to use.
        """
        ran.append("set_unit")
        return unit

    return registry, ran


class RawEndpoint:
    """Serves the given bodies in order, byte for byte; validates each request it receives.

    A body is a JSON value (sent as JSON text), raw `bytes` (sent as application/json), or a
    `(text, content_type)` pair. Requests that break the protocol are kept in `rejected`.
    """

    def __init__(self, *bodies: Any) -> None:
        self.bodies = list(bodies)
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[str] = []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        try:
            body = transport.validate(json.loads(request.content))
        except transport.RequestError as error:
            self.rejected.append(error.message)
            return httpx2.Response(error.status, json=error.to_json())
        self.requests.append(body)
        if not self.bodies:
            error = transport.RequestError("RawEndpoint has no reply left.")
            return httpx2.Response(400, json=error.to_json())
        reply = self.bodies.pop(0)
        if isinstance(reply, tuple):
            content, kind = reply[0].encode(), reply[1]
        elif isinstance(reply, bytes):
            content, kind = reply, "application/json"
        else:
            content, kind = json.dumps(reply).encode(), "application/json"
        return httpx2.Response(200, content=content, headers={"content-type": kind})

    def client(self, kind: str = "sync") -> openai.OpenAI | openai.AsyncOpenAI:
        sdk, http = (
            (openai.OpenAI, httpx2.Client)
            if kind == "sync"
            else (openai.AsyncOpenAI, httpx2.AsyncClient)
        )
        return sdk(
            api_key="test",
            base_url="http://endpoint.test/v1",
            max_retries=0,
            http_client=http(transport=httpx2.MockTransport(self.handle)),
        )


def completion(content: str | None = None, tool_calls: Any = None, **extra: Any) -> dict:
    """A well-formed chat.completion body (before a test breaks it)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "raw-test",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        **extra,
    }


def call(call_id: Any, name: Any, arguments: Any = "{}", **extra: Any) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
        **extra,
    }


def run(endpoint: RawEndpoint, kind: str = "sync", **options: Any) -> Transcript:
    registry = options.pop("registry", None) or _registry()[0]
    client = endpoint.client(kind)
    if kind == "sync":
        return run_agent(client, registry, "go", model="raw-test", **options)
    return asyncio.run(arun_agent(client, registry, "go", model="raw-test", **options))


def assert_sound(transcript: Transcript, endpoint: RawEndpoint) -> None:
    """What holds after any run: a clean ending, a protocol-valid history, a rendering trace."""
    assert transcript.status in STATUSES
    events = [e for e in transcript.events if not isinstance(e, ObserverError)]
    assert events[-1] == RunFinished(transcript.status, transcript.steps, transcript.usage)
    if transcript.status == "model_error":
        error = events[-2]
        assert isinstance(error, ModelErrorEvent) and error.message.strip()
    assert endpoint.rejected == []
    transport.validate({"model": "raw-test", "messages": transcript.messages})
    messages = transcript.messages
    for i, message in enumerate(messages):
        if message["role"] != "assistant" or "tool_calls" not in message:
            continue
        ids = [c["id"] for c in message["tool_calls"]]
        assert all(isinstance(x, str) and x for x in ids)
        assert len(set(ids)) == len(ids)
        answers = [m["tool_call_id"] for m in messages[i + 1 : i + 1 + len(ids)]]
        assert answers == ids  # one tool message per id, in the order of the calls
    calls = {(e.step, e.id) for e in transcript.events if isinstance(e, ToolCallEvent)}
    results = [(e.step, e.id) for e in transcript.events if isinstance(e, ToolResultEvent)]
    assert sorted(results) == sorted(calls)  # every event id is a call's, answered once
    assert str(transcript).endswith(f"Status    {transcript.status}")
    assert json.loads(transcript.to_json())["status"] == transcript.status
    transcript.summary()


# --- replies that cannot be acted on end the run -----------------------------------------------

MALFORMED = {
    "empty choices": ({"choices": [], "model": "m"}, "'choices' = an empty list"),
    "null choices": ({"choices": None}, "'choices' = null"),
    "choices an object": ({"choices": {"0": {}}}, "'choices' = an object"),
    "non-JSON body": (b"<html>502 Bad Gateway</html>", "not valid JSON"),
    "text body": (("upstream timed out", "text/plain"), "not a chat completion"),
    "JSON array body": ([1, 2], "not a chat completion"),
    "JSON string body": ("hello", "not a chat completion"),
    "JSON null body": (None, "not a chat completion"),
    "no message": ({"choices": [{"index": 0}]}, "choices[0].message = null"),
    "choice not an object": ({"choices": ["hi"]}, "choices[0].message = null"),
    "content a list": (
        completion([{"type": "text", "text": "hi"}]),
        "message.content = a list",
    ),
    "tool_calls an object": (completion(tool_calls={"id": "a"}), "tool_calls = an object"),
    "tool call a string": (completion(tool_calls=["add"]), "tool_calls[0] = text"),
    "tool call without function": (
        completion(tool_calls=[{"id": "a", "type": "function"}]),
        "tool_calls[0].function = null",
    ),
    "function a string": (
        completion(tool_calls=[{"id": "a", "type": "function", "function": "add"}]),
        "tool_calls[0].function = text",
    ),
    "name missing": (
        completion(tool_calls=[{"id": "a", "type": "function", "function": {"arguments": "{}"}}]),
        "function.name = null",
    ),
    "name a number": (completion(tool_calls=[call("a", 3)]), "function.name = int 3"),
    "custom tool call": (
        completion(
            tool_calls=[{"id": "a", "type": "custom", "custom": {"name": "add", "input": "1"}}]
        ),
        "type = text \"custom\": this loop runs only 'function' tool calls",
    ),
}


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_reply_ends_the_run_as_model_error_with_what_was_wrong(case, kind):
    body, what = MALFORMED[case]
    endpoint = RawEndpoint(body)
    transcript = run(endpoint, kind)
    assert transcript.status == "model_error"
    error = transcript.events[-2]
    assert isinstance(error, ModelErrorEvent)
    assert what in error.message
    assert f"Error     {error.error_type}: " in str(transcript)
    assert transcript.messages == [{"role": "user", "content": "go"}]  # nothing half-added
    assert len(endpoint.requests) == 1
    assert_sound(transcript, endpoint)


def test_a_client_that_raises_anything_ends_the_run_as_model_error():
    class Broken:
        class chat:  # the SDK's attribute path: client.chat.completions.create
            class completions:
                @staticmethod
                def create(**request):
                    raise RuntimeError("socket closed by a proxy")

    transcript = run_agent(Broken(), _registry()[0], "go", model="m")
    assert transcript.status == "model_error"
    assert transcript.events[-2] == ModelErrorEvent(1, "RuntimeError", "socket closed by a proxy")


# --- what the protocol allows is answered as data --------------------------------------------


def test_null_arguments_are_read_as_no_arguments_and_the_trace_renders():
    endpoint = RawEndpoint(
        completion(tool_calls=[call("a", "ping", None), call("b", "add", None)]),
        completion("done"),
    )
    transcript = run(endpoint)
    ping, add = transcript.results
    assert [c.arguments for c in transcript.tool_calls] == ["{}", "{}"]
    assert ping.result.value == "pong"
    assert add.result.error.code == "INVALID_ARGUMENTS"
    assert "ToolCall  ping({})" in str(transcript)
    assert transcript.status == "completed"
    assert_sound(transcript, endpoint)


@pytest.mark.parametrize(
    ("arguments", "outcome"),
    [({"a": 1, "b": 2}, 3), ([1, 2], "INVALID_ARGUMENTS"), (42, "INVALID_ARGUMENTS")],
)
def test_arguments_sent_as_json_values_are_read_as_their_json_text(arguments, outcome):
    endpoint = RawEndpoint(completion(tool_calls=[call("a", "add", arguments)]), completion("ok"))
    transcript = run(endpoint)
    (result,) = transcript.results
    assert transcript.tool_calls[0].arguments == json.dumps(arguments)
    assert (result.result.value if result.result.ok else result.result.error.code) == outcome
    assert endpoint.requests[1]["messages"][1]["tool_calls"][0]["function"]["arguments"] == (
        json.dumps(arguments)
    )
    assert_sound(transcript, endpoint)


def test_weird_usage_is_ignored_not_fatal():
    endpoint = RawEndpoint(
        completion(
            tool_calls=[call("a", "ping")],
            usage={"prompt_tokens": "many", "completion_tokens": -1, "total_tokens": True},
        ),
        completion("done", usage="lots"),
        completion("never", usage={"total_tokens": 1e300}),
    )
    transcript = run(endpoint)
    assert transcript.status == "completed"
    assert transcript.usage is None
    assert_sound(transcript, endpoint)


def test_integral_usage_counts_are_summed_as_integers():
    endpoint = RawEndpoint(
        completion(tool_calls=[call("a", "ping")], usage={"total_tokens": 7.0, "foo": 1}),
        completion("done"),
    )
    transcript = run(endpoint)
    assert transcript.usage == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 12}
    assert_sound(transcript, endpoint)


def test_lone_surrogates_in_a_reply_do_not_break_the_next_request():
    endpoint = RawEndpoint(
        completion(
            "thinking \ud800", tool_calls=[call("a\udfff", "set_unit", '{"unit": "\ud83d"}')]
        ),
        completion("done"),
    )
    transcript = run(endpoint)
    assert transcript.status == "completed"
    assert len(endpoint.requests) == 2
    assert transcript.tool_calls[0].id == "a\ufffd"
    assert_sound(transcript, endpoint)


# --- one tool message per distinct id -----------------------------------------------------------


def test_duplicate_ids_in_one_turn_are_run_and_answered_once():
    registry, ran = _registry()
    endpoint = RawEndpoint(
        completion(
            tool_calls=[
                call("a", "add", '{"a": 1, "b": 2}'),
                call("a", "add", '{"a": 10, "b": 20}'),
                call("b", "ping"),
                call("a", "ping"),
            ]
        ),
        completion("done"),
    )
    transcript = run(endpoint, registry=registry)
    assert ran == ["add", "ping"]
    assistant, *tools = endpoint.requests[1]["messages"][1:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["a", "b"]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b": 2}'
    assert [(t["tool_call_id"], json.loads(t["content"])["value"]) for t in tools] == [
        ("a", 3),
        ("b", "pong"),
    ]
    events = [(e.id, e.result.ok) for e in transcript.results]
    assert events == [("a", True), ("a#2", False), ("b", True), ("a#3", False)]
    assert transcript.results[1].result.error.code == "DUPLICATE_CALL_ID"
    assert "error DUPLICATE_CALL_ID: Not run: the model used tool call id 'a'" in str(transcript)
    assert_sound(transcript, endpoint)


@pytest.mark.parametrize("missing", [{}, {"id": ""}, {"id": None}, {"id": 7}])
def test_a_call_without_a_usable_id_gets_one_stable_id_in_both_messages(missing):
    bad = {k: v for k, v in call("x", "ping").items() if k != "id"} | missing
    endpoint = RawEndpoint(completion(tool_calls=[call("a", "ping"), bad]), completion("done"))
    transcript = run(endpoint)
    assistant, *tools = endpoint.requests[1]["messages"][1:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["a", "toolsys_call_1_2"]
    assert [t["tool_call_id"] for t in tools] == ["a", "toolsys_call_1_2"]
    assert [e.id for e in transcript.tool_calls] == ["a", "toolsys_call_1_2"]
    assert_sound(transcript, endpoint)


def test_a_synthesized_id_never_takes_an_id_the_model_used():
    endpoint = RawEndpoint(
        completion(tool_calls=[call("", "ping"), call("toolsys_call_1_1", "ping")]),
        completion("done"),
    )
    transcript = run(endpoint)
    ids = [c["id"] for c in endpoint.requests[1]["messages"][1]["tool_calls"]]
    assert ids == ["toolsys_call_1_1_2", "toolsys_call_1_1"]
    assert_sound(transcript, endpoint)


# --- observers and registries that raise are contained -----------------------------------------


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no text for you")


def test_an_observer_raising_an_unprintable_exception_is_contained():
    def observer(event):
        raise Unprintable

    endpoint = RawEndpoint(completion(tool_calls=[call("a", "ping")]), completion("done"))
    transcript = run(endpoint, on_event=observer)
    assert transcript.status == "completed"
    warnings = [e for e in transcript.events if isinstance(e, ObserverError)]
    assert warnings and warnings[0].message == "Unprintable (its message could not be read)"
    assert_sound(transcript, endpoint)


class HostileRegistry:
    """A registry stand-in whose `aexecute` breaks its promise in every way it can."""

    def export(self, fmt: str) -> list[dict[str, Any]]:
        return _registry()[0].export(fmt)

    async def aexecute(self, name: str, arguments: str, **ids: Any) -> Any:
        if name == "add":
            raise Unprintable
        if name == "ping":
            raise RuntimeError("registry bug")
        return {"ok": True}  # not a ToolResult


def test_a_registry_that_raises_or_returns_garbage_is_contained():
    endpoint = RawEndpoint(
        completion(tool_calls=[call("a", "add"), call("b", "ping"), call("c", "set_unit")]),
        completion("done"),
    )
    transcript = run(endpoint, registry=HostileRegistry())
    assert transcript.status == "completed"
    assert [r.result.error.code for r in transcript.results] == ["EXECUTION_ERROR"] * 3
    messages = [r.result.error.message for r in transcript.results]
    assert (
        messages[0] == "Tool 'add' failed: Unprintable: (the exception's message could not be read)"
    )
    assert "registry bug" in messages[1]
    assert "not a ToolResult" in messages[2]
    assert_sound(transcript, endpoint)


# --- property: any body, any sequence of turns --------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
NAMES = st.sampled_from(["add", "ping", "set_unit", "nope", ""])
ARGUMENTS = st.one_of(
    st.sampled_from(['{"a": 1, "b": 2}', "{}", "{", "null", "[]", '{"unit": "kelvin"}', "", "x"]),
    st.text(max_size=12),
    JSON,
)
IDS = st.sampled_from(["call_a", "call_b", "call_a", "", None, 7, "toolsys_call_1_1"]) | JSON


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON value: where a mutation can strike."""
    found = [prefix]
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in items:
        found += _paths(child, (*prefix, key))
    return found


def _mutate(body: Any, path: tuple, replacement: Any, delete: bool) -> Any:
    if not path:
        return replacement
    parent = body
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return body


@st.composite
def malformed_bodies(draw) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=20) | JSON)
    calls = draw(st.lists(st.builds(call, IDS, NAMES, ARGUMENTS), max_size=3))
    body = completion(draw(st.none() | st.text(max_size=10)), calls or None)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(body)))
        body = _mutate(body, path, draw(JSON), draw(st.booleans()))
    return body


@settings(max_examples=80, deadline=None, derandomize=True)
@given(body=malformed_bodies())
def test_any_completion_body_ends_the_run_cleanly(body):
    endpoint = RawEndpoint(body, completion("done"))
    transcript = run(endpoint, max_steps=2)
    event(f"status {transcript.status}")
    assert_sound(transcript, endpoint)


TURNS = st.one_of(
    st.builds(completion, st.text(max_size=10)),
    st.builds(
        lambda calls, text: completion(text, calls),
        st.lists(st.builds(call, IDS, NAMES, ARGUMENTS), min_size=1, max_size=4),
        st.none() | st.text(max_size=6),
    ),
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(turns=st.lists(TURNS, min_size=1, max_size=4), max_steps=st.integers(1, 4))
def test_any_sequence_of_turns_keeps_one_tool_message_per_call_id(turns, max_steps):
    endpoint = RawEndpoint(*turns)
    transcript = run(endpoint, max_steps=max_steps)
    event(f"status {transcript.status}")
    event(f"duplicate ids {any(e.id != e.id.split('#')[0] for e in transcript.tool_calls)}")
    assert_sound(transcript, endpoint)
    sent = sum(len(m.get("tool_calls") or []) for m in transcript.messages)
    assert sent == sum(m["role"] == "tool" for m in transcript.messages)


def test_an_answer_cut_at_the_token_limit_ends_the_run_as_length_not_completed():
    cut = completion("The weather in Par")
    cut["choices"][0]["finish_reason"] = "length"
    transcript = run(RawEndpoint(cut))
    assert transcript.status == "length" and transcript.answer == "The weather in Par"
    assert run(RawEndpoint(completion("Sunny."))).status == "completed"
