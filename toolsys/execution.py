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
`"received"` (the default: it sees every call as the model sent it, before the tool is resolved,
so it also sees unknown tools and invalid arguments; audit logs live here) or `"validated"` (it
sees `call.tool` and `call.arguments`, the validated arguments; policies, retries and timeouts
live here). Set it as an attribute: `layer.stage = "validated"`. A `Call` is immutable: a layer
passes `call.replace(...)` on, and a call whose name or raw arguments were replaced is resolved and
validated again before the tool runs, so a layer can never run a tool with arguments it did not
validate.

Nothing here raises to the caller: one guard surrounds each stage and each layer, envelope
building included. Only real cancellation (the caller's task being cancelled) and
KeyboardInterrupt propagate.

The first three stages (resolve, decode, validate) and the envelope builder `failure` live in
`toolsys.stages`; this module invokes the tool and runs the layers around it.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from types import CoroutineType, MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel
from pydantic_core import ValidationError

from toolsys import _workers, failures
from toolsys.errors import ToolError
from toolsys.result import ToolResult
from toolsys.stages import (
    MAX_ARGUMENT_CHARS,
    _tool_error,
    crashed,
    failure,
    resolve,
    validate,
)

if TYPE_CHECKING:
    from toolsys.tool import Tool

Arguments = Mapping[str, Any] | str | bytes | bytearray | None
Stage = Literal["received", "validated"]
STAGES: tuple[Stage, ...] = ("received", "validated")

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_log = logging.getLogger("toolsys")

VALIDATED: contextvars.ContextVar[list[Call] | None] = contextvars.ContextVar(
    "toolsys_validated", default=None
)
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
        """This call, resolved to `tool` with validated `arguments` (hot path: no _replace)."""
        return tuple.__new__(Call, (self.name, self.raw_arguments, tool, arguments, *self[4:]))

    @property
    def values(self) -> dict[str, Any]:
        """The validated arguments as plain JSON data (empty before validation)."""
        if self.arguments is None:
            return {}
        return self.arguments.model_dump(mode="json", by_alias=True)


Next = Callable[[Call], Awaitable[ToolResult]]
Layer = Callable[[Call, Next], Awaitable[ToolResult]]

_running: contextvars.ContextVar[tuple[Next, Call] | None] = contextvars.ContextVar(
    "toolsys_running", default=None
)


def running() -> tuple[Next, Call] | None:
    """The whole execute path (layers included) and the call whose tool is running right now.

    A composite tool (`toolsys.compose`) sends its inner calls through this same path, so every
    layer sees them too. None outside a tool run by a registry.
    """
    return _running.get()


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


def run_plain(tool: Tool, arguments: Arguments, coerce: bool = False) -> ToolResult:
    """`validate` then `invoke`, for a sync tool without layers: the sync fast path.

    The same stages, with the common case inlined (arguments valid as sent, a tool called with
    keywords): a call costs little more than the validation itself. Anything else, a failure
    included, takes the general stage functions, so the outcome is theirs.
    """
    model: Any = None
    raw: Any = arguments  # narrowed by `kind`, which mypy does not follow
    kind = type(raw)
    if kind is dict and not coerce and not tool.accepts_anything:
        if not tool.null_means_default or None not in raw.values():
            try:
                model = tool.validator.validate_python(raw, strict=True)
            except ValidationError:
                model = None
    elif kind is str and not coerce and len(raw) <= MAX_ARGUMENT_CHARS:
        try:
            model = tool.validator.validate_json(raw or "{}", strict=True)
        except ValidationError:
            model = None
        else:  # pydantic reads NaN and Infinity, JSON does not: `validate` refuses them
            model = None if "NaN" in raw or "Infinity" in raw else model
    if model is None:
        model = validate(tool, arguments, coerce=coerce)
        if type(model) is ToolResult:
            return model
    values = model.__dict__
    if not tool.by_keyword or len(model.__pydantic_fields_set__) != len(values):
        return invoke(tool, model)
    try:
        value = tool.fn(**values)
        if type(value) is CoroutineType:
            from toolsys._sync import run_sync

            value = run_sync(value)
    except ToolError as exc:
        return _tool_error(exc)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return crashed(tool, exc)
    return ToolResult(True, value, None, {})


def invoke(tool: Tool, arguments: BaseModel) -> ToolResult:
    """Call a tool synchronously (an async tool is run to completion); the result, never a raise."""
    try:
        value = tool.call(arguments)
        if type(value) is CoroutineType:
            from toolsys._sync import run_sync

            value = run_sync(value)
    except ToolError as exc:
        return _tool_error(exc)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return crashed(tool, exc)
    return ToolResult(True, value, None, {})


async def ainvoke(call: Call, dependencies: Mapping[str, Any] = _EMPTY) -> ToolResult:
    """Call the tool of a validated call: awaited when async, on a thread when `offload`.

    A tool with injected parameters gets them from `call.context` and `dependencies`.
    """
    tool, arguments = call.tool, call.arguments
    assert tool is not None and arguments is not None
    try:
        values = arguments.__dict__
        if (
            tool.by_keyword
            and not (tool.injected or call.offload)
            and (len(arguments.__pydantic_fields_set__) == len(values))
        ):
            value = tool.fn(**values)  # the common case of `tool.call`, inlined
        else:
            run: Callable[..., Any] = tool.call
            if tool.injected:
                run = functools.partial(run, context=call.context, dependencies=dependencies)
            if call.offload and not tool.is_async:
                value = await _on_thread(run, arguments)
            else:
                value = run(arguments)
        if type(value) is CoroutineType:  # an async tool, or a callable that returned one
            value = await value
    except ToolError as exc:
        return _tool_error(exc)
    except asyncio.CancelledError as exc:
        if _really_cancelled():
            raise
        return crashed(tool, exc)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return crashed(tool, exc)
    return ToolResult(True, value, None, {})


def _really_cancelled() -> bool:
    """A CancelledError is real when our own task is being cancelled, not when a tool raised one."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _on_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Run `fn` on a worker thread; awaiting may stop early, the thread then runs on."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.cancelled():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def worker() -> Callable[[], None]:
        try:
            value = context.run(fn, *args)
        except BaseException as exc:
            error: BaseException | None = exc
            value = None
        else:
            error = None

        def notify() -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(settle, value, error)

        return notify

    _workers.submit(worker)
    return await future


async def _at_once(result: ToolResult) -> ToolResult:
    return result


# --- layers ------------------------------------------------------------------------------------


def guard_layer(layer: Layer, call_next: Next) -> Next:
    """`call_next` wrapped in `layer`; a layer that fails or returns nonsense is LAYER_ERROR."""
    name = layer_name(layer)

    async def handler(call: Call) -> ToolResult:
        try:
            result = await layer(call, call_next)
        except asyncio.CancelledError:
            if _really_cancelled():
                raise
            result = None
            error: BaseException | None = asyncio.CancelledError()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            result, error = None, exc
        else:
            if isinstance(result, ToolResult):
                return result
            error = TypeError(f"returned {type(result).__name__}, not a ToolResult")
        _log.debug("layer %r failed", name, exc_info=error)
        return failure(failures.layer_error, name, call.name, error, exception=error)

    return handler


def build_handler(
    layers: list[Layer],
    lookup: Callable[[str], Tool | None],
    available: Callable[[], list[str]],
    coerce: Callable[[], bool],
    dependencies: Mapping[str, Any] = _EMPTY,
) -> Next:
    """The whole path as one async function: received layers, prepare, validated layers, invoke.

    Written for the common case (a call valid as sent, a sync tool, layers that only await the
    next one): each stage is entered once, and a sync tool is called in `run_tool`'s own frame.
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
        arguments = validate(tool, call.raw_arguments, coerce=coerce())
        if type(arguments) is ToolResult:
            return arguments
        ready = tuple.__new__(Call, (call[0], call[1], tool, arguments, *call[4:]))
        seen = VALIDATED.get()
        if seen is not None:
            seen.append(ready)
        return ready

    async def run_tool(call: Call) -> ToolResult:
        if call.arguments is None or call.tool is None:  # a layer replaced name or arguments
            ready = prepared(call)
            if type(ready) is ToolResult:
                return ready
            call = ready  # type: ignore[assignment]
        tool = call.tool
        assert tool is not None
        # While the tool runs: composites find the running path (`running()`), and a tool that
        # calls another registry does not add to this call's audit record (VALIDATED off).
        token = _running.set((handler, call))
        hidden = VALIDATED.set(None) if VALIDATED.get() is not None else None
        try:
            return await ainvoke(call, dependencies)
        finally:
            if hidden is not None:
                VALIDATED.reset(hidden)
            _running.reset(token)

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
    for layer in reversed([x for x in layers if layer_stage(x) == "received"]):
        handler = guard_layer(layer, handler)
    return handler
