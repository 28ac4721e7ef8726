"""The staged execution core: one path for every call, layers at two stages, and no escapes."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import Category, ErrorCode, Registry, ToolError, ToolResult
from toolsys.execution import Call, Next
from toolsys.loop import run_agent
from toolsys.models import ScriptedModel
from toolsys.models.scripted import calls, text
from toolsys.stages import MAX_DEPTH, MAX_INT_DIGITS
from toolsys.tool import tool_from_function


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


def shout(text: str) -> str:
    """Upper-case a text.

    Args:
        text: The text.
    """
    return text.upper()


async def double(x: int) -> int:
    """Double a number after a short wait.

    Args:
        x: The number.
    """
    await asyncio.sleep(0)
    return 2 * x


def make(*layers: Any) -> Registry:
    registry = Registry(layers=list(layers))
    for fn in (add, shout, double):
        registry.tool(fn)
    return registry


async def passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


async def validated_passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


validated_passthrough.stage = "validated"  # type: ignore[attr-defined]


def envelope(result: ToolResult) -> str:
    """The envelope as comparable text (NaN in a detail is not equal to itself as a value)."""
    return repr(result.to_dict())


hostile_text = st.sampled_from(
    [
        "[" * 1001,
        "{" * 5000,
        '{"a": ' + "9" * 5000 + ', "b": 1}',
        '{"a": 1e999, "b": 1}',
        '{"a": NaN, "b": 1}',
        "\ud800",
        '{"text": "\\ud800"}',
        "",
        "null",
        "[]",
        '"a string"',
        '{"a": 1, "b": 2}',
        '{"a": 2.0, "b": 1}',
    ]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
arguments = (
    hostile_text
    | st.text(max_size=20)
    | st.binary(max_size=8)
    | json_values
    | st.fixed_dictionaries({"a": json_values, "b": json_values})
    | st.fixed_dictionaries({"text": st.text(max_size=6)})
)
names = st.sampled_from(["add", "shout", "double", "nope", "", "ADD"]) | st.integers() | st.none()


BARE, LAYERED = make(), make(passthrough, validated_passthrough)
VALIDATED_ONLY = make(validated_passthrough)  # starts from the call's parts (Path.start)


@settings(max_examples=250, deadline=None)
@given(name=names, args=arguments)
def test_layered_and_unlayered_execution_agree_on_every_input(name: Any, args: Any) -> None:
    bare = BARE.execute(name, args)
    assert envelope(LAYERED.execute(name, args)) == envelope(bare)
    assert envelope(VALIDATED_ONLY.execute(name, args)) == envelope(bare)
    json.loads(bare.to_message())


@settings(max_examples=150, deadline=None)
@given(name=names, args=arguments)
def test_execute_and_aexecute_give_the_same_envelope(name: Any, args: Any) -> None:
    assert envelope(asyncio.run(BARE.aexecute(name, args))) == envelope(BARE.execute(name, args))


@pytest.mark.parametrize(
    ("raw", "code", "words"),
    [
        ("[" * 1001, ErrorCode.INVALID_JSON, "levels"),
        (
            '{"a": ' + "9" * 5000 + ', "b": 1}',
            ErrorCode.INVALID_JSON,
            f"limit is {MAX_INT_DIGITS:,}",
        ),
        ("x" * 1_000_001, ErrorCode.INVALID_JSON, "limit is 1,000,000"),
    ],
)
def test_oversized_arguments_are_refused_with_the_limit_named(
    raw: str, code: str, words: str
) -> None:
    result = make().execute("add", raw)
    assert result.error is not None and result.error.code == code
    assert words in result.error.message


def test_arguments_that_refer_to_themselves_or_nest_too_deep_are_refused() -> None:
    loop: dict[str, Any] = {"b": 1}
    loop["a"] = loop
    deep: Any = 1
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    for value in (loop, {"a": deep, "b": 1}):
        error = make().execute("add", value).error
        assert error is not None and error.code == ErrorCode.INVALID_ARGUMENTS


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


class Exotic(BaseException):
    pass


@pytest.mark.parametrize(
    "exc",
    [
        Unprintable(),
        GeneratorExit(),
        Exotic("odd"),
        SystemExit(2),
        asyncio.CancelledError(),
        StopIteration(),
        RecursionError("deep"),
        MemoryError(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_whatever_a_tool_raises_is_an_envelope(exc: BaseException) -> None:
    registry = Registry()

    @registry.tool
    def boom() -> None:
        """Raises."""
        raise exc

    @registry.tool
    async def aboom() -> None:
        """Raises, asynchronously."""
        raise exc

    for name in ("boom", "aboom"):
        sync = registry.execute(name)
        assert sync.error is not None and sync.error.code == ErrorCode.EXECUTION_ERROR
        assert envelope(asyncio.run(registry.aexecute(name))) == envelope(sync)


def test_a_tool_error_that_cannot_build_its_envelope_is_still_an_envelope() -> None:
    registry = Registry()

    @registry.tool
    def odd() -> None:
        """Raises a ToolError with a circular detail."""
        details: dict[str, Any] = {}
        details["self"] = details
        raise ToolError("ODD", 42, details=details)  # type: ignore[arg-type]

    result = registry.execute("odd")
    assert not result.ok and result.error is not None
    json.loads(result.to_message())


def test_keyboard_interrupt_is_not_swallowed() -> None:
    def interrupted() -> None:
        """Interrupted."""
        raise KeyboardInterrupt

    for registry in (Registry(), Registry(layers=[passthrough])):
        registry.tool(interrupted)
        with pytest.raises(KeyboardInterrupt):
            registry.execute("interrupted")


def test_a_validated_layer_sees_the_tool_and_the_validated_arguments() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def policy(call: Call, call_next: Next) -> ToolResult:
        assert call.tool is not None
        seen.append((call.tool.category, call.values))
        return await call_next(call)

    policy.stage = "validated"  # type: ignore[attr-defined]
    registry = make(policy)
    assert registry.execute("add", '{"a": 1, "b": 2}').value == 3
    assert registry.execute("add", '{"a": "x"}').error is not None  # never reaches the layer
    assert seen == [(Category.READ, {"a": 1, "b": 2})]


@pytest.mark.parametrize("stage", ["received", "validated"])
def test_a_layer_that_renames_the_call_runs_the_new_tool_with_validated_arguments(
    stage: str,
) -> None:
    async def reroute(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call.replace(name="shout", raw_arguments={"text": "hi"}))

    reroute.stage = stage  # type: ignore[attr-defined]
    assert make(reroute).execute("add", {"a": 1, "b": 2}).value == "HI"

    async def reroute_badly(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call.replace(name="shout", raw_arguments={"text": 3}))

    reroute_badly.stage = stage  # type: ignore[attr-defined]
    error = make(reroute_badly).execute("add", {"a": 1, "b": 2}).error
    assert (
        error is not None and error.code == ErrorCode.INVALID_ARGUMENTS and "shout" in error.message
    )


def test_a_call_is_immutable() -> None:
    call = Call("add", {"a": 1})
    with pytest.raises(AttributeError):
        call.name = "other"  # type: ignore[misc]
    assert call.replace(name="b").name == "b" and call.name == "add"


def test_a_layer_that_returns_nonsense_is_a_layer_error_naming_it() -> None:
    async def sloppy(call: Call, call_next: Next) -> Any:
        await call_next(call)
        return "done"

    error = make(sloppy).execute("add", {"a": 1, "b": 2}).error
    assert error is not None and error.code == ErrorCode.LAYER_ERROR and "'sloppy'" in error.message


@pytest.mark.parametrize("stage", ["received", "validated"])
@pytest.mark.parametrize(
    "arguments", [{"a": 1, "b": 2}, '{"a": 1, "b": 2}', {"a": "x"}], ids=["dict", "json", "invalid"]
)
def test_an_outermost_layer_that_raises_before_it_awaits_is_a_layer_error_not_a_raise(
    stage: str, arguments: Any
) -> None:
    """A plain function as a layer raises when it is called, before any coroutine exists: the
    outermost layer runs unguarded, so its caller turns that into LAYER_ERROR too."""

    def eager(call: Call, call_next: Next) -> Any:
        raise RuntimeError("boom")

    eager.stage = stage  # type: ignore[attr-defined]
    registry = make(eager)
    for result in (
        registry.execute("add", arguments),
        asyncio.run(registry.aexecute("add", arguments)),
    ):
        error = result.error
        if stage == "validated" and arguments == {"a": "x"}:  # refused before the layer
            assert error is not None and error.code == ErrorCode.INVALID_ARGUMENTS
        else:
            assert error is not None and error.code == ErrorCode.LAYER_ERROR
            assert "'eager'" in error.message and result.meta["tool"] == "add"


def test_aexecute_does_not_change_the_result_a_layer_hands_back() -> None:
    shared = ToolResult.success("cached")

    async def cache(call: Call, call_next: Next) -> ToolResult:
        return shared

    registry = make(cache)
    registry.execute("add", {"a": 1, "b": 2})
    asyncio.run(registry.aexecute("shout", {"text": "x"}))
    assert shared.meta == {}


def test_layers_can_be_named_inserted_and_removed() -> None:
    order: list[str] = []

    def recorder(label: str) -> Any:
        async def layer(call: Call, call_next: Next) -> ToolResult:
            order.append(label)
            return await call_next(call)

        return layer

    registry = make()
    registry.use(recorder("a"), name="a")
    registry.use(recorder("c"), name="c")
    registry.use(recorder("b"), name="b", before="c")
    registry.use(recorder("z"), name="z", after="c")
    assert registry.layers == ["a", "b", "c", "z"]
    registry.execute("add", {"a": 1, "b": 1})
    assert order == ["a", "b", "c", "z"]
    registry.remove_layer("b")
    assert registry.layers == ["a", "c", "z"]
    with pytest.raises(ValueError, match="already in use"):
        registry.use(recorder("again"), name="a")
    with pytest.raises(ValueError, match="No layer named 'nope'"):
        registry.remove_layer("nope")
    bad = recorder("bad")
    bad.stage = "later"
    with pytest.raises(ValueError, match="stage='later'"):
        registry.use(bad)


def test_the_loop_hands_its_ids_and_the_callers_context_to_the_layers() -> None:
    seen: list[Call] = []

    async def spy(call: Call, call_next: Next) -> ToolResult:
        seen.append(call)
        return await call_next(call)

    model = ScriptedModel([calls(("add", {"a": 1, "b": 2})), text("3")])
    transcript = run_agent(model.client(), make(spy), "add", context={"user": "ana"})
    assert transcript.status == "completed"
    (call,) = seen
    assert call.call_id == transcript.tool_calls[0].id and call.step == 1
    assert call.run_id and call.context == {"user": "ana"}


def test_a_deadline_layer_can_leave_a_hung_sync_tool_behind() -> None:
    release, finished = threading.Event(), threading.Event()
    registry = Registry()

    @registry.tool
    def hang() -> str:
        """Waits until released."""
        release.wait(10)
        finished.set()
        return "late"

    async def deadline(call: Call, call_next: Next) -> ToolResult:
        try:
            return await asyncio.wait_for(call_next(call.replace(offload=True)), 0.05)
        except TimeoutError:
            return ToolResult.failure(ToolError("TIMEOUT", "Took too long.").to_info())

    deadline.stage = "validated"  # type: ignore[attr-defined]
    registry.use(deadline)
    result = registry.execute("hang")
    assert result.error is not None and result.error.code == "TIMEOUT"
    assert not finished.is_set()  # the tool was still running when execute returned
    release.set()
    assert finished.wait(10)


def test_layered_execute_inside_a_running_loop_keeps_sync_tools_on_the_callers_thread() -> None:
    connection = sqlite3.connect(":memory:")  # usable only from the thread that made it
    registry = Registry(layers=[passthrough])

    @registry.tool
    def count() -> int:
        """Counts rows."""
        return connection.execute("select 1").fetchone()[0]

    @registry.tool
    async def wait_a_bit() -> str:
        """Waits, with a deadline."""
        async with asyncio.timeout(1):
            await asyncio.sleep(0.001)
        return "waited"

    async def jupyter_cell() -> tuple[Any, Any]:
        return registry.execute("count").value, registry.execute("wait_a_bit").value

    assert asyncio.run(jupyter_cell()) == (1, "waited")


@pytest.mark.parametrize(
    ("category", "retryable"),
    [(Category.READ, True), (Category.WRITE, False), (Category.EXECUTE, False)],
)
def test_a_timeout_is_retryable_only_when_repeating_cannot_double_a_side_effect(
    category: Category, retryable: bool
) -> None:
    registry = Registry()

    def flaky() -> None:
        """Times out."""
        raise TimeoutError("upstream timed out")

    registry.register(flaky, category=category)
    error = registry.execute("flaky").error
    assert error is not None and error.retryable is retryable
    if not retryable:
        assert "may already have taken effect" in error.suggestion


def test_a_secret_cut_by_a_message_limit_is_redacted_before_the_cut() -> None:
    from tests.hostile_tools import ENV_SECRET

    registry = Registry()

    @registry.tool
    def verbose() -> None:
        """Fails with a long message that ends in a secret."""
        raise ValueError("x" * 470 + ENV_SECRET)

    message = registry.execute("verbose").to_message()
    assert ENV_SECRET[:8] not in message
    broken = registry.execute("verbose", '{"k": "' + ENV_SECRET + '" ')
    assert ENV_SECRET[:8] not in broken.to_message()


def test_offloaded_calls_reuse_idle_workers_and_never_wait_behind_a_hung_one() -> None:
    release = threading.Event()
    registry = Registry()

    @registry.tool
    def hang() -> str:
        """Waits until released."""
        release.wait(10)
        return "late"

    @registry.tool
    def quick() -> str:
        """Returns at once."""
        return threading.current_thread().name

    async def offload(call: Call, call_next: Next) -> ToolResult:
        deadline = 0.05 if call.name == "hang" else 60
        try:
            return await asyncio.wait_for(call_next(call.replace(offload=True)), deadline)
        except TimeoutError:
            return ToolResult.failure(ToolError("TIMEOUT", "Took too long.").to_info())

    offload.stage = "validated"  # type: ignore[attr-defined]
    registry.use(offload)
    assert registry.execute("hang").error is not None  # its worker is now stuck
    threads_before = threading.active_count()
    names = {registry.execute("quick").value for _ in range(20)}
    assert names == {"toolsys-tool"}  # ran on a worker, not on the caller's thread
    assert threading.active_count() <= threads_before + 1  # one idle worker reused 20 times
    release.set()


def test_threads_that_ran_tools_close_their_event_loops() -> None:
    import gc
    import warnings

    registry = make(passthrough)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            worker = threading.Thread(target=registry.execute, args=("add", {"a": 1, "b": 2}))
            worker.start()
            worker.join()
        gc.collect()
    unclosed = [w for w in caught if "unclosed event loop" in str(w.message)]
    assert unclosed == []  # closed when each thread ended, not left to the garbage collector


def _keywords(query: str, limit: int = 3, json: str = "x") -> str:
    """Search.

    Args:
        query: Words.
        limit: At most.
        json: A name that shadows a Pydantic attribute.
    """
    return f"{query}:{limit}:{json}"


def _positional(query: str, /, limit: int = 3) -> str:
    """Search.

    Args:
        query: Words.
        limit: At most.
    """
    return f"{query}:{limit}"


def _plain(query: str, limit: int = 3) -> str:
    """Search.

    Args:
        query: Words.
        limit: At most.
    """
    if query == "boom":
        raise ValueError("boom")
    return f"{query}:{limit}"


@settings(max_examples=150, deadline=None)
@given(
    fn=st.sampled_from([_keywords, _positional, _plain]),
    args=st.fixed_dictionaries(
        {"query": st.sampled_from(["a", "boom"]) | json_values},
        optional={
            "limit": st.integers(0, 3) | json_values,
            "json": st.sampled_from(["x", "y"]) | json_values,
        },
    )
    | arguments,
    as_text=st.booleans(),
    coerce=st.booleans(),
)
def test_the_sync_fast_path_gives_what_the_stages_give(
    fn: Any, args: Any, as_text: bool, coerce: bool
) -> None:
    from toolsys.invoke import invoke
    from toolsys.result import to_json
    from toolsys.stages import validate

    tool = tool_from_function(fn)
    if as_text and isinstance(args, dict):
        args = to_json(args)
    validated = validate(tool, args, coerce=coerce)
    staged = validated if isinstance(validated, ToolResult) else invoke(tool, validated)
    registry = Registry(coerce=coerce)
    registry.add(tool)  # no layers: `ExecutePath.execute` runs it itself
    assert envelope(registry.execute(tool.name, args)) == envelope(staged)


def test_only_a_tool_called_with_plain_keywords_takes_the_inline_call() -> None:
    assert tool_from_function(_plain).by_keyword
    assert not tool_from_function(_keywords).by_keyword  # `json` is renamed in the model
    assert not tool_from_function(_positional).by_keyword


def test_a_validator_that_cannot_be_built_at_the_first_call_is_an_envelope_not_a_raise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolsys._deferred

    def cannot_build(self: object) -> None:
        raise RuntimeError("cannot build the validator")

    monkeypatch.setattr(toolsys._deferred._FirstUse, "_built", cannot_build)
    for layers in ([], [passthrough]):
        registry = Registry(layers=layers)

        @registry.tool
        def never_built_before(first_of_its_kind: int) -> int:
            """A signature no other test registers, so its validator is still a stand-in.

            Args:
                first_of_its_kind: A number.
            """
            return first_of_its_kind

        tool = registry.get("never_built_before")
        assert isinstance(tool.validator, toolsys._deferred._FirstUse)
        for arguments in ({"first_of_its_kind": 1}, '{"first_of_its_kind": 1}'):
            result = registry.execute("never_built_before", arguments)
            assert result.error is not None
            assert result.error.code == ErrorCode.INVALID_ARGUMENTS, result.error


def _recording_registry(stage: str) -> tuple[Registry, list[Call]]:
    seen: list[Call] = []

    async def record(call: Call, call_next: Next) -> ToolResult:
        seen.append(call)
        return await call_next(call)

    record.stage = stage  # type: ignore[attr-defined]
    return make(record), seen


@pytest.mark.parametrize("stage", ["received", "validated"])
def test_a_layer_sees_every_id_the_caller_gave_on_both_starts(stage: str) -> None:
    registry, seen = _recording_registry(stage)
    ids = {"run_id": "r1", "step": 2, "call_id": "c3", "idempotency_key": "k4"}
    sync = registry.execute("add", {"a": 1, "b": 2}, context={"user": "ana"}, **ids)  # type: ignore[arg-type]
    done = asyncio.run(registry.aexecute("add", '{"a": 1, "b": 2}', context={"user": "ana"}, **ids))  # type: ignore[arg-type]
    assert sync.value == done.value == 3
    assert sync.meta["tool"] == done.meta["tool"] == "add"
    assert len(seen) == 2
    for call in seen:
        given_ids = (call.name, call.run_id, call.step, call.call_id, call.idempotency_key)
        assert given_ids == ("add", "r1", 2, "c3", "k4")
        assert dict(call.context) == {"user": "ana"} and (call.attempt, call.offload) == (1, False)
        assert call.tool is registry.get("add") and call.values == {"a": 1, "b": 2}


def test_a_received_layer_sees_a_call_not_valid_as_sent_unresolved_and_the_same_failure() -> None:
    registry, seen = _recording_registry("received")
    bare = make()
    for name, arguments in [("add", {"a": "x", "b": 2}), ("add", '{"a": 1'), ("nope", {})]:
        result = registry.execute(name, arguments)
        assert (seen[-1].tool, seen[-1].arguments) == (None, None)
        assert seen[-1].raw_arguments == arguments
        assert envelope(result) == envelope(bare.execute(name, arguments))


def test_the_running_path_is_set_for_async_tools_only() -> None:
    from toolsys.execution import running

    registry = Registry(layers=[validated_passthrough])
    found: dict[str, Any] = {}

    @registry.tool
    def sync_tool() -> str:
        """A sync tool cannot await inner calls, so no path is set for it."""
        found["sync"] = running()
        return "ok"

    @registry.tool
    async def async_tool() -> str:
        """An async tool (every composite is one) finds the path and its own call."""
        found["async"] = running()
        return "ok"

    assert registry.execute("sync_tool").ok and registry.execute("async_tool", call_id="c9").ok
    assert found["sync"] is None
    path, call = found["async"]
    assert (call.name, call.call_id) == ("async_tool", "c9") and callable(path)
    assert running() is None  # reset once the tool is done


@pytest.mark.parametrize("stage", ["received", "validated"])
def test_a_result_once_returned_never_changes_when_a_layer_hands_it_out_again(stage: str) -> None:
    kept: list[ToolResult] = []

    async def cache(call: Call, call_next: Next) -> ToolResult:
        if not kept:
            kept.append(await call_next(call))  # the tool's own, fresh result
        return kept[0]

    cache.stage = stage  # type: ignore[attr-defined]
    registry = make(cache)
    first = registry.execute("add", {"a": 1, "b": 2})
    seen = dict(first.meta)
    again = registry.execute("add", {"a": 1, "b": 2})
    later = asyncio.run(registry.aexecute("add", {"a": 1, "b": 2}))
    assert first.meta == seen and set(seen) == {"tool", "attempt", "duration_ms"}
    assert again is not first and later is not first and again.value == later.value == 3


@pytest.mark.parametrize("stage", [None, "received", "validated"])
def test_the_fast_paths_result_is_the_dataclass_one_field_by_field(stage: str | None) -> None:
    """`ExecutePath.execute` builds its ToolResult slot by slot (`invoke.allocate`): a field added
    to ToolResult and not set there would make the result raise on reading it."""
    import copy
    import dataclasses
    import pickle

    inner: list[ToolResult] = []

    async def noted(call: Call, call_next: Next) -> ToolResult:
        result = await call_next(call)  # the tool's own (`invoke` builds it slot by slot too)
        inner.append(result)
        return dataclasses.replace(result, notice="noted", meta={})

    if stage is not None:
        noted.stage = stage  # type: ignore[attr-defined]
    registry = Registry(layers=[] if stage is None else [noted])
    registry.tool(add)
    result = registry.execute("add", {"a": 1, "b": 2})
    notice = None if stage is None else "noted"
    built = ToolResult(True, 3, None, dict(result.meta), None, notice)
    for f in dataclasses.fields(ToolResult):
        assert getattr(result, f.name) == getattr(built, f.name), f.name
    assert type(result) is ToolResult and result == built and repr(result) == repr(built)
    assert dataclasses.asdict(result) == dataclasses.asdict(built)
    assert pickle.loads(pickle.dumps(result)) == copy.copy(result) == built
    assert dataclasses.replace(result, value=4) == dataclasses.replace(built, value=4)
    if stage is not None:
        assert [dataclasses.astuple(x) for x in inner] == [(True, 3, None, {}, None, None)]
    result.meta["mine"] = True  # the caller's own meta, a real dict
    assert registry.execute("add", {"a": 1, "b": 2}).meta.keys() == {
        "tool",
        "attempt",
        "duration_ms",
    }


def test_the_fast_path_calls_a_tool_with_exactly_its_fields_as_keywords() -> None:
    """The inline call spells the keywords out (`_tool.keyword_caller`), compiled on first use;
    names that are not identifiers keep `fn(**values)`; a replaced tool compiles its own."""
    import dataclasses

    from toolsys._tool import keyword_caller

    seen: list[dict[str, Any]] = []

    def record(**values: Any) -> dict[str, Any]:
        seen.append(values)
        return values

    odd = {"class": 1, "a-b": 2, "ok": 3}
    assert keyword_caller(record, tuple(odd))(odd) == odd
    assert keyword_caller(record, ("x", "y"))({"x": 1, "y": None}) == {"x": 1, "y": None}
    assert keyword_caller(lambda: "none", ())({}) == "none"

    def ping() -> str:
        """Answer.

        Returns: pong.
        """
        return "pong"

    registry = Registry()
    registry.tool(add)
    registry.tool(ping)
    tool = registry.lookup("add")
    assert tool is not None and tool.direct
    assert [registry.execute("add", {"a": i, "b": 1}).value for i in range(3)] == [1, 2, 3]
    assert registry.execute("ping", "{}").value == "pong"
    assert registry.execute("add", {"a": "x", "b": 1}).error.code == ErrorCode.INVALID_ARGUMENTS
    renamed = dataclasses.replace(tool, name="plus", fn=lambda a, b: a * b)
    registry.add(renamed)
    assert registry.execute("plus", {"a": 2, "b": 5}).value == 10
    assert registry.execute("add", {"a": 2, "b": 5}).value == 7

    def fails(a: int) -> int:
        """Fail.

        Args:
            a: A.
        """
        raise ValueError(f"no {a}")

    registry.tool(fails)
    failed = registry.execute("fails", {"a": 4})
    assert failed.error.code == ErrorCode.EXECUTION_ERROR and "no 4" in str(failed.exception)


def test_a_null_for_a_field_that_may_be_left_out_means_its_default_on_every_path() -> None:
    """The fast method looks for a None in a dict only when strict validation might accept it
    (`Tool.null_check`): never for a simple signature's model, whose validation refuses it, so
    the call goes the long way and gets the default; always for a model of the developer's."""
    from typing import Annotated, Literal

    from pydantic import BaseModel, BeforeValidator

    def find(query: str, mode: Literal["a", "b"] = "b", limit: int = 10) -> list[Any]:
        """Find.

        Args:
            query: Words.
            mode: How.
            limit: How many.
        """
        return [query, mode, limit]

    class Loose(BaseModel):
        query: str
        limit: Annotated[int, BeforeValidator(lambda v: 5 if v is None else v)] = 3

    def loose(arguments: Loose) -> int:
        """Loose."""
        return arguments.limit

    async def passthrough(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call)

    for registry in (Registry(), Registry(layers=[passthrough])):
        registry.register(find)
        registry.register(loose, args=Loose)
        assert not registry.get("find").null_check and registry.get("loose").null_check
        for sent in ({"query": "q", "limit": None, "mode": None}, '{"query":"q","limit":null}'):
            assert registry.execute("find", sent).value == ["q", "b", 10]
        for sent in ({"query": "q", "limit": None}, '{"query": "q", "limit": null}'):
            assert registry.execute("loose", sent).value == 3
            assert asyncio.run(registry.aexecute("loose", sent)).value == 3
        assert registry.get("loose").validate_json('{"query": "q", "limit": null}').limit == 3
        assert registry.execute("loose", '{"query": "null", "limit": 7}').value == 7
        assert registry.execute("find", {"query": "q", "limit": 2}).value == ["q", "b", 2]
