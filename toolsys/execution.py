"""The one execute path: resolve → decode → validate → invoke, with layers around it.

Every call, from `Registry.execute` (sync) or `Registry.aexecute` (async), goes through the same
stage functions below; the sync fast path (no layers, a sync tool) only skips the event loop.
Each stage maps its own failures to its own code, so the model is told what really happened:

    resolve   -> UNKNOWN_TOOL        the name is not registered
    decode    -> INVALID_JSON        the text is not JSON, or is over the size/depth/digit limits
    validate  -> INVALID_ARGUMENTS   the decoded value does not fit the tool's schema
    invoke    -> EXECUTION_ERROR     the tool raised (or its own ToolError code)
    a layer   -> LAYER_ERROR         a layer itself failed; the tool may not have run

A layer is `async def layer(call, call_next) -> ToolResult`. It sits at one of two stages:
`"received"` (the default: it sees every call as the model sent it, so it also sees unknown
tools and invalid arguments; audit logs live here; a call whose arguments are valid as sent
arrives with `call.tool` and `call.arguments` already filled, the others with None) or
`"validated"` (it sees `call.tool` and `call.arguments`, the validated arguments, always;
policies, retries and timeouts live here). Set it as an attribute: `layer.stage = "validated"`.
A `Call` is immutable: a layer passes `call.replace(...)` on, and a call whose name or raw
arguments were replaced is resolved and validated again before the tool runs, so a layer can
never run a tool with arguments it did not validate. A call valid as sent is built once, resolved
and validated (`ExecutePath.start`); only one that is not is built as received, then again.

Nothing here raises to the caller: one guard surrounds each stage and each layer, envelope
building included. Only real cancellation (the caller's task being cancelled) and
KeyboardInterrupt propagate.

The first three stages (resolve, decode, validate) and the envelope builder `failure` live in
`toolsys.stages`, the last one (invoke) in `toolsys.invoke`; this module runs the layers around
them.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel

from toolsys import failures
from toolsys._cancel import is_cancellation
from toolsys.injection import caller_context
from toolsys.invoke import FRESH, RUNNING, Arguments, _really_cancelled, ainvoke
from toolsys.invoke import VALIDATED as _VALIDATED
from toolsys.result import ToolResult
from toolsys.stages import failure, resolve, valid_as_sent, validate

if TYPE_CHECKING:
    from toolsys.tool import Tool

Stage = Literal["received", "validated"]
STAGES: tuple[Stage, ...] = ("received", "validated")

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_log = logging.getLogger("toolsys")

VALIDATED = _VALIDATED
"""Set by a "received" layer (an audit log) around `call_next` to a list: the call, once
validated (and again if a layer rewrote it), is appended, so the layer learns the tool's
category and the validated arguments. Not seen by tools: a tool calling a registry is another call.
"""


class Call(NamedTuple):
    """One requested tool call as it travels through the stages and layers. Immutable.

    A named tuple rather than a frozen dataclass: a call is built several times per execution
    (received, validated, retried...), and a tuple is built in a fraction of the time.

    `raw_arguments` is what the caller sent; `tool` and `arguments` (the validated Pydantic model)
    are filled in by the resolve and validate stages. `context` is the caller's (user, roles...);
    `run_id`, `step` and `call_id` (the model's tool_call_id) come from the agent loop.
    """

    name: str
    raw_arguments: Any = None
    tool: Tool | None = None
    arguments: BaseModel | None = None
    context: Mapping[str, Any] = _EMPTY
    run_id: str | None = None
    step: int | None = None
    call_id: str | None = None
    attempt: int = 1
    offload: bool = False
    """Run a sync tool on its own worker thread, so a deadline can leave it behind."""
    idempotency_key: str | None = None
    """The caller's key for "this exact call": a repeat with the same key is not run twice."""

    def replace(self, **changes: Any) -> Call:
        """A copy with `changes`; a new name or raw arguments are resolved and validated anew."""
        if "name" in changes or "raw_arguments" in changes:
            changes.setdefault("tool", None)
            changes.setdefault("arguments", None)
        return self._replace(**changes)

    def validated(self, tool: Tool, arguments: BaseModel) -> Call:
        """This call, resolved to `tool` with validated `arguments` (hot path: no _replace;
        unpacked, which is faster than slicing)."""
        name, raw, _, _, context, run_id, step, call_id, attempt, offload, key = self
        fields = (name, raw, tool, arguments, context, run_id, step, call_id, attempt, offload, key)
        return tuple.__new__(Call, fields)

    @property
    def values(self) -> dict[str, Any]:
        """The validated arguments as plain JSON data (empty before validation)."""
        if self.arguments is None:
            return {}
        return self.arguments.model_dump(mode="json", by_alias=True)


Next = Callable[[Call], Awaitable[ToolResult]]
Layer = Callable[[Call, Next], Awaitable[ToolResult]]


def running() -> tuple[Next, Call] | None:
    """The whole execute path (layers included) and the call whose async tool is running now.

    A composite tool (`toolsys.compose`, always async) sends its inner calls through this same
    path, so every layer sees them too. None outside an async tool run by a registry (a sync
    tool cannot await inner calls, so none is set for it: that is one context switch less on
    every sync call).
    """
    return RUNNING.get()


class ToolExecutor(Protocol):
    """What the agent loop needs from a registry: what exists, and a way to run it."""

    def export(self, target: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]: ...

    async def aexecute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
    ) -> ToolResult: ...


def layer_stage(layer: Layer) -> Stage:
    """Where a layer sits: its `stage` attribute, "received" when it has none."""
    stage = getattr(layer, "stage", "received")
    if stage not in STAGES:
        raise ValueError(
            f"Layer {layer_name(layer)!r} has stage={stage!r}; use 'received' (sees every call "
            "as sent) or 'validated' (sees the resolved tool and validated arguments)."
        )
    return stage


def layer_name(layer: Layer) -> str:
    """A layer's name: its `name` attribute, else its function or class name."""
    name = getattr(layer, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(layer, "__name__", None) or type(layer).__name__


async def _at_once(result: ToolResult) -> ToolResult:
    return result


# --- a call as received, and its result as returned -------------------------------------------


class NamedLayer:
    """A layer under a name given to `use(..., name=...)`."""

    def __init__(self, layer: Layer, name: str) -> None:
        self.layer, self.name = layer, name
        self.stage = layer_stage(layer)

    def __call__(self, call: Call, call_next: Next) -> Awaitable[ToolResult]:
        return self.layer(call, call_next)


def received(
    name: object,
    arguments: Arguments,
    context: Mapping[str, Any] | None,
    run_id: str | None,
    step: int | None,
    call_id: str | None,
    idempotency_key: str | None,
) -> Call:
    """The call as received (one tuple built in place: this is on every layered call's path)."""
    return tuple.__new__(
        Call,
        (
            name if type(name) is str else shown_name(name),
            arguments,
            None,
            None,
            _EMPTY if context is None else caller_context(context),
            run_id,
            step,
            call_id,
            1,
            False,
            idempotency_key,
        ),
    )


def finished(name: str, result: ToolResult, start: float) -> ToolResult:
    """The path's result with the call's meta.

    A copy, as a layer may hand out a result it kept, and a result once returned must never
    change. Except for the success `ainvoke` built last (`FRESH`), with no meta yet: it is
    filled in place. `FRESH` is cleared here whatever the result, so a layer that kept that
    result and hands it out again later gets a copy: only its first delivery is filled.
    """
    fresh, FRESH[0] = FRESH[0], None
    if result is fresh and not result.meta:
        meta = result.meta
        meta["tool"], meta["attempt"] = name, 1
        meta["duration_ms"] = (time.perf_counter() - start) * 1000
        return result
    meta = {"tool": name, "attempt": 1, **result.meta}
    meta["duration_ms"] = (time.perf_counter() - start) * 1000
    return ToolResult(result.ok, result.value, result.error, meta, result.exception, result.notice)


def shown_name(name: object) -> str:
    """A name that is not a string (a model sent a number, a list...) as text for the envelope."""
    try:
        return repr(name)[:100]
    except Exception:
        return f"<{type(name).__name__}>"


# --- layers ------------------------------------------------------------------------------------


def guard_layer(layer: Layer, call_next: Next) -> Next:
    """`call_next` wrapped in `layer`; a layer that fails or returns nonsense is LAYER_ERROR."""
    name = layer_name(layer)

    async def handler(call: Call) -> ToolResult:
        try:
            result = await layer(call, call_next)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if is_cancellation(exc) and _really_cancelled():
                raise
            result, error = None, exc
        else:
            if type(result) is ToolResult or isinstance(result, ToolResult):
                return result
            error = TypeError(f"returned {type(result).__name__}, not a ToolResult")
        _log.debug("layer %r failed", name, exc_info=error)
        return failure(failures.layer_error, name, call.name, error, exception=error)

    return handler


Start = Callable[..., Awaitable[ToolResult]]
"""`start(name, arguments, context, run_id, step, call_id, idempotency_key)`."""


class ExecutePath(NamedTuple):
    """A built execute path. `handler` runs a `Call`; `start` runs a call from the parts
    `execute` receives (name, arguments, context, run_id, step, call_id, idempotency_key), and
    builds a call valid as sent once, already validated, instead of twice."""

    handler: Next
    start: Start


def build_path(
    layers: list[Layer],
    lookup: Callable[[str], Tool | None],
    available: Callable[[], list[str]],
    coerce: Callable[[], bool],
    dependencies: Mapping[str, Any] = _EMPTY,
) -> ExecutePath:
    """The whole path (received layers, prepare, validated layers, invoke) and its start.

    Written for the common case (a call valid as sent, a sync tool, layers that only await the
    next one): each stage is entered once, and no frame is added that a layer does not need.
    """

    def prepared(call: Call) -> Call | ToolResult:
        """The call resolved and validated (or why not); a listening audit layer (VALIDATED)
        is told what the call became."""
        tool = call.tool
        if tool is None:
            name = call.name
            tool = lookup(name) if type(name) is str else None
            if tool is None:
                return resolve(name, lookup, available)  # type: ignore[return-value]
        elif call.arguments is not None:
            return call
        name, raw, _, _, context, run_id, step, call_id, attempt, offload, key = call
        arguments = validate(tool, raw, coerce())
        if type(arguments) is ToolResult:
            return arguments
        fields = (name, raw, tool, arguments, context, run_id, step, call_id, attempt, offload, key)
        ready = tuple.__new__(Call, fields)  # `call.validated(...)`, inlined: every call
        seen = VALIDATED.get()
        if seen is not None:
            seen.append(ready)
        return ready

    def run_tool(call: Call) -> Awaitable[ToolResult]:  # not a coroutine: one frame less
        if call[3] is None or call[2] is None:  # not validated yet, or a layer replaced it
            ready = prepared(call)
            if type(ready) is ToolResult:
                return _at_once(ready)
            call = ready  # type: ignore[assignment]
        return ainvoke(call, handler, dependencies)

    validated = [x for x in layers if layer_stage(x) == "validated"]
    inner: Next = run_tool
    for layer in reversed(validated):
        inner = guard_layer(layer, inner)

    def core(call: Call) -> Awaitable[ToolResult]:  # not a coroutine: one frame less per call
        ready = prepared(call)
        if type(ready) is ToolResult:
            return _at_once(ready)
        return inner(ready)  # type: ignore[arg-type]

    handler: Next = core if validated else run_tool
    at_receipt = [x for x in layers if layer_stage(x) == "received"]
    for layer in reversed(at_receipt):
        handler = guard_layer(layer, handler)

    first = handler if at_receipt else inner  # where a call that is ready goes

    def start(
        name: object,
        arguments: Arguments,
        context: Mapping[str, Any] | None,
        run_id: str | None,
        step: int | None,
        call_id: str | None,
        key: str | None,
    ) -> Awaitable[ToolResult]:
        """A call valid as sent is resolved and validated first and built once, ready; any
        other is built as received, and the path resolves and validates it after the received
        layers, and says what is wrong."""
        tool = lookup(name) if type(name) is str else None
        model = None if tool is None else valid_as_sent(tool, arguments, coerce())
        if model is None:
            return handler(received(name, arguments, context, run_id, step, call_id, key))
        caller = _EMPTY if context is None else caller_context(context)
        fields = (name, arguments, tool, model, caller, run_id, step, call_id, 1, False, key)
        call = tuple.__new__(Call, fields)
        seen = VALIDATED.get()  # a listener outside this path (inside it, none listens yet)
        if seen is not None:
            seen.append(call)
        return first(call)

    return ExecutePath(handler, start)
