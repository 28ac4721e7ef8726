"""The seam: every route a call can take reaches its tool through one `ExecutePath`.

What the agent loop needs is an `Executor`: `export(...)` (what exists, for this caller) and
`execute(...)` / `aexecute(...)` (run it; never raises). The registry is the base executor. A
namespace view, a deferred session and the registry itself are each a *scope* (which tools its
names reach, and what it lists) with the registry's own layers around it, built into one
`ExecutePath`; composites send their inner calls through the path that runs them, lazy tools load
inside it, and MCP-imported or OpenAPI tools are ordinary tools in it. So listing and calling are
answered by one object, with one decision of who may see what, and no route skips a layer.

Every call goes the same way, and each stage answers its own failures with its own code:

    received layers   see every call as the model sent it (audit logs live here)
    prepare           resolve -> UNKNOWN_TOOL (TOOL_NOT_LOADED in a deferred session),
                      who may see it -> PERMISSION_DENIED, decode -> INVALID_JSON,
                      validate -> INVALID_ARGUMENTS
    validated layers  see `call.tool` and the validated `call.arguments` (policies, retries...)
    invoke            the tool -> EXECUTION_ERROR (or its own ToolError code)
    a layer           fails -> LAYER_ERROR; the tool may not have run

A layer is `async def layer(call, call_next) -> ToolResult` (the `Layer` protocol below, with its
optional attributes `stage`, `name` and `visible`). A `Call` is immutable, and so are the
validated arguments on it (a frozen model): a layer passes `call.replace(...)` on, and whatever it
replaced is checked again before the tool runs: a new name is resolved again, new raw arguments,
new `arguments` or a tool with another argument model are validated again. A layer can never run a
tool with arguments that were not validated for it. `registry.layers` lists the layers in the
order calls meet them: every received layer, then every validated one.

A call valid as sent is built once, already validated (`ExecutePath.start`); any other is built as
received and prepared after the received layers. With no layers, a sync tool runs in
`ExecutePath.execute` itself: the same stages, the common case inlined, no event loop. Behind
layers, `execute` still validates a plain tool's call inline and hands it to the outermost layer,
whose coroutine `toolsys._sync` drives to the end in this thread (no task, no loop iteration for
a call that never waits).

Nothing here raises to the caller: one guard surrounds each layer, and the stages map exceptions
to envelopes in one place each (`toolsys.stages`). Only real cancellation (the caller's task being
cancelled) and KeyboardInterrupt propagate. Every result an executor returns is a new object, its
own meta included: a result a layer kept and hands out again is never changed, and one caller's
edits never reach another's.

The first stages live in `toolsys.stages`, the last one in `toolsys.invoke`; this module runs the
layers around them. Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import CoroutineType, MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel

from toolsys import failures
from toolsys._cancel import is_cancellation
from toolsys.access import Visibility, export_for
from toolsys.injection import caller_context
from toolsys.invoke import RUNNING, Arguments, ainvoke, allocate, invoke, really_cancelled
from toolsys.invoke import VALIDATED as _VALIDATED
from toolsys.result import ToolResult
from toolsys.stages import MAX_ARGUMENT_CHARS, failure, tool_failed, valid_as_sent, validate

if TYPE_CHECKING:
    from toolsys.tool import Tool

Stage = Literal["received", "validated"]
STAGES: tuple[Stage, ...] = ("received", "validated")

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_log = logging.getLogger("toolsys")
_now = time.perf_counter

VALIDATED = _VALIDATED
"""Set by a "received" layer (an audit log) around `call_next` to a list: the call, once
validated (and again if a layer rewrote it), is appended, so the layer learns the tool's
category and the validated arguments. Not seen by tools: a tool calling a registry is another call.
"""


class Call(NamedTuple):
    """One requested tool call as it travels through the stages and layers. Immutable.

    A named tuple rather than a frozen dataclass: a call is built several times per execution
    (received, validated, retried...), and a tuple is built in a fraction of the time.

    `raw_arguments` is what the caller sent; `tool` and `arguments` (the validated, frozen
    Pydantic model) are filled in by the prepare stage. `context` is the caller's (user,
    roles...); `run_id`, `step` and `call_id` (the model's tool_call_id) come from the agent loop.
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
        """A copy with `changes`; whatever they change is checked again before the tool runs.

        A new `name` is resolved again; new `raw_arguments` are validated again; new `arguments`
        (a model or a mapping) are taken as raw arguments and validated again; a new `tool`
        keeps the validated arguments only when they are its own model's, else the raw arguments
        are validated again for it.
        """
        if "arguments" in changes:
            given = changes.pop("arguments")
            if given is not self.arguments:
                changes.setdefault("raw_arguments", _raw(given))
        if "name" in changes or "raw_arguments" in changes:
            changes.setdefault("tool", None)
            changes["arguments"] = None
        elif "tool" in changes:
            tool, arguments = changes["tool"], self.arguments
            if tool is None or arguments is None or type(arguments) is not tool.model:
                changes["arguments"] = None
        return self._replace(**changes)

    @property
    def values(self) -> dict[str, Any]:
        """The validated arguments as plain JSON data, defaults included: exactly what the tool
        receives (empty before validation)."""
        if self.arguments is None:
            return {}
        return self.arguments.model_dump(mode="json", by_alias=True)


def _raw(given: Any) -> Any:
    """New `arguments` given to `replace`, as raw arguments to validate again."""
    if isinstance(given, BaseModel):
        return given.model_dump(by_alias=True, exclude_unset=True, warnings=False)
    if isinstance(given, Mapping):
        return dict(given)
    return given


Next = Callable[[Call], Awaitable[ToolResult]]
"""`call_next(call)`: the rest of the path after a layer (the next layers, then the tool)."""


class Layer(Protocol):
    """An execution layer: `async def layer(call, call_next) -> ToolResult`.

    It gets every call at its stage and passes it on with `await call_next(call)` (or
    `call.replace(...)`), or answers itself without calling the tool. A function or an object
    with `__call__`; three optional attributes, read when it is added (`Registry.use`):

    - `stage`: "received" (the default) sees every call as the model sent it, unknown tools and
      invalid arguments included; a call valid as sent arrives with `call.tool` and
      `call.arguments` filled, the others with None. "validated" sees only calls that resolved
      and validated, always with `call.tool` and `call.arguments`.
    - `name`: what `registry.layers` lists and `use(before=/after=)` and `remove_layer` take
      (default: the function or class name).
    - `visible(tool, context) -> bool`: whether this caller may see and use `tool`. Every
      executor's listing and its calls both consult it (`toolsys.access.visibility`): a tool it
      hides is never listed, never named in an UNKNOWN_TOOL answer, and a call to it is refused
      with PERMISSION_DENIED before its arguments are even validated. A layer that can say why
      may also have `refusal(tool, context) -> str | None` (`Policy` has both).
    """

    def __call__(self, call: Call, call_next: Next, /) -> Awaitable[ToolResult]: ...


class Executor(Protocol):
    """What the agent loop needs from a registry (or a view of one): what exists, and a way to
    run it. `Registry`, `Namespace` and a deferred session are executors."""

    def export(
        self,
        target: str = "openai",
        *,
        strict: bool = False,
        context: Mapping[str, Any] | None = None,
    ) -> list[dict[str, Any]]: ...

    def execute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult: ...

    async def aexecute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult: ...


class ToolExecutor(Protocol):
    """What the agent loop needs of an executor: the listing and `aexecute`. An `Executor` is
    one; so is an older executor whose `export` takes no `context` (the loop then lists all)."""

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


class Scope(Protocol):
    """Which tools one executor's names reach, and what it lists: the part a view changes.

    `lookup(name)` is the tool a name calls here (None: unknown); `entries()` what is listed,
    as (the name the model calls it by here, the tool); `gate(tool)`, when the scope has one,
    refuses a tool that exists but cannot be called yet (a deferred session's TOOL_NOT_LOADED).
    A scope may also have `known()`, entries like `entries()`: the names an UNKNOWN_TOOL answer
    may suggest when they are more than the listing (a deferred session suggests every tool).
    """

    def lookup(self, name: str) -> Tool | None: ...

    def entries(self) -> Iterable[tuple[str, Tool]]: ...

    @property
    def gate(self) -> Callable[[Tool], ToolResult | None] | None: ...


def running() -> tuple[Next, Call] | None:
    """The whole execute path (layers included) and the call whose async tool is running now.

    A composite tool (`toolsys.compose`, always async) sends its inner calls through this same
    path, so every layer sees them too. None outside an async tool run by a registry (a sync
    tool cannot await inner calls, so none is set for it: that is one context switch less on
    every sync call).
    """
    current = RUNNING.get()
    return None if current is None else (current[0].handler, current[1])


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


def in_order(layers: Iterable[Layer]) -> list[Layer]:
    """The layers in the order a call meets them: the received ones, then the validated ones."""
    layers = list(layers)
    return [x for x in layers if layer_stage(x) == "received"] + [
        x for x in layers if layer_stage(x) == "validated"
    ]


class NamedLayer:
    """A layer under a name given to `use(..., name=...)`."""

    def __init__(self, layer: Layer, name: str) -> None:
        self.layer, self.name = layer, name
        self.stage = layer_stage(layer)

    def __call__(self, call: Call, call_next: Next) -> Awaitable[ToolResult]:
        return self.layer(call, call_next)


async def _at_once(result: ToolResult) -> ToolResult:
    return result


def _denied(tool: Tool, reason: str) -> ToolResult:
    """PERMISSION_DENIED for a tool this caller may not see, marked as a policy's decision."""
    result = failure(failures.not_permitted, tool.name, reason)
    return ToolResult(False, None, result.error, {"decision": "deny"}, result.exception)


def shown_name(name: object) -> str:
    """A name that is not a string (a model sent a number, a list...) as text for the envelope."""
    if type(name) is str:
        return name
    try:
        return repr(name)[:100]
    except Exception:
        return f"<{type(name).__name__}>"


def finished(name: str, result: ToolResult, start: float) -> ToolResult:
    """The result an executor returns: a new object with the call's meta, never the path's own.

    A layer may hand out a result it kept (a cache), so the path's result is never changed: the
    caller gets a copy whose meta is its own.
    """
    own = result.meta
    if own:
        meta = {"tool": name, "attempt": 1, **own}
        meta["duration_ms"] = (_now() - start) * 1000
    else:  # the common case: a result no layer added to
        meta = {"tool": name, "attempt": 1, "duration_ms": (_now() - start) * 1000}
    return ToolResult(result.ok, result.value, result.error, meta, result.exception, result.notice)


def guard_layer(layer: Layer, call_next: Next, prepare: Callable[[Call], Any] | None) -> Next:
    """`call_next` wrapped in `layer`; a layer that fails or returns nonsense is LAYER_ERROR.

    With `prepare` (a validated layer), a call a layer before it replaced is prepared again
    first, so this layer too sees the tool and validated arguments.
    """
    name = layer_name(layer)

    async def handler(call: Call) -> ToolResult:
        if prepare is not None and (call[3] is None or call[2] is None):
            ready = prepare(call)
            if type(ready) is ToolResult:
                return ready
            call = ready
        try:
            result = await layer(call, call_next)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if is_cancellation(exc) and really_cancelled():
                raise
            result, error = None, exc
        else:
            if type(result) is ToolResult or isinstance(result, ToolResult):
                return result
            error = TypeError(f"returned {type(result).__name__}, not a ToolResult")
        _log.debug("layer %r failed", name, exc_info=error)
        return failure(failures.layer_error, name, call.name, error, exception=error)

    return handler


class ExecutePath:
    """One executor's way from a call to its tool: a registry's layers around one scope.

    `execute` (sync) and `start` (awaitable) take a call as the caller gives it; `handler` takes
    a `Call` (a composite's inner calls); `visible` and `export` answer who may see what, with the
    same decision a call meets. Built by the registry, once per scope, again when its layers change.
    """

    def __init__(
        self,
        layers: Iterable[Layer],
        scope: Scope,
        *,
        coerce: bool = False,
        dependencies: Mapping[str, Any] = _EMPTY,
    ) -> None:
        layers = in_order(layers)
        self.scope = scope
        self.layers = tuple(layers)
        self._lookup = scope.lookup
        self._gate = scope.gate
        self._coerce = coerce
        self._dependencies = dependencies
        self.visibility = Visibility(layers)
        """Who may see and use what (`toolsys.access.Visibility`), for the listing and calls."""
        self.refusal = self.visibility.refusal
        self._open = self.visibility.open  # only the tools' own checks: an open tool passes
        validated = [x for x in layers if layer_stage(x) == "validated"]
        received = [x for x in layers if layer_stage(x) == "received"]
        self._run_tool: Next = functools.partial(ainvoke, self, dependencies)
        inner: Next = self._run_tool
        after_validated = inner  # what the outermost validated layer calls next
        for layer in reversed(validated):
            after_validated, inner = inner, guard_layer(layer, inner, self.prepare)
        handler: Next = self._core(inner) if validated else self._run_tool
        after_received = handler  # what the outermost received layer calls next
        for layer in reversed(received):
            after_received, handler = handler, guard_layer(layer, handler, None)
        self.handler = handler
        """Runs a `Call` through every layer to its tool."""
        # Where a call that is ready goes: the outermost layer itself, unguarded (its caller
        # guards it: one coroutine less on every call), with the rest of the path after it.
        self._outer: Layer | None = layers[0] if layers else None
        self._outer_name = layer_name(layers[0]) if layers else ""
        self._after_outer = after_received if received else after_validated
        self._bare = not layers and self._gate is None  # sync tools run without a loop
        self._quick = self._gate is None and not coerce and self._open  # `execute` validates
        self._inline = self._bare and not coerce  # ... and with no layers, runs plain tools

    # -- who may see what: the listing and the calls ask the same question ----------------------

    def visible(self, tool: Tool, context: Mapping[str, Any] | None) -> bool:
        """May `tool` be shown to this caller? (Fails closed; never raises.)"""
        return self.visibility.shows(tool, _EMPTY if context is None else caller_context(context))

    def listed(self, context: Mapping[str, Any] | None) -> list[tuple[str, Tool]]:
        """What this scope lists: every entry, or with `context` only those this caller may use."""
        entries = list(self.scope.entries())
        if context is None:
            return entries
        caller = caller_context(context)
        shows = self.visibility.shows
        return [(name, tool) for name, tool in entries if shows(tool, caller)]

    def export(
        self, target: str, strict: bool, context: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        """`listed(context)` in a provider's format, cached while the listing stays the same."""
        return export_for(self, self.listed(context), target, strict)

    def names(self, context: Mapping[str, Any]) -> list[str]:
        """The names an UNKNOWN_TOOL answer may offer this caller: the scope's `known()` (or its
        listing), only the tools this caller may see."""
        known = getattr(self.scope, "known", None)
        entries = known() if known is not None else self.scope.entries()
        shows = self.visibility.shows
        return [name for name, tool in entries if shows(tool, context)]

    # -- the stages around the layers -----------------------------------------------------------

    def prepare(self, call: Call) -> Call | ToolResult:
        """The call resolved, allowed for this caller and validated (or why not); a listening
        audit layer (VALIDATED) is told what the call became."""
        tool = call[2]
        if tool is None:
            name = call[0]
            tool = self._lookup(name) if type(name) is str else None
            if tool is None:
                context = call[4]
                return failure(lambda: failures.unknown_tool(name, self.names(context)))
        elif call[3] is not None:
            return call
        name, raw, _, _, context, run_id, step, call_id, attempt, offload, key = call
        if not (self._open and tool.open):
            reason = self.refusal(tool, context)
            if reason is not None:
                return _denied(tool, reason)
        if self._gate is not None:
            refused = self._gate(tool)
            if refused is not None:
                return refused
        arguments = validate(tool, raw, self._coerce)
        if type(arguments) is ToolResult:
            return arguments
        fields = (name, raw, tool, arguments, context, run_id, step, call_id, attempt, offload, key)
        ready = tuple.__new__(Call, fields)
        seen = VALIDATED.get()
        if seen is not None:
            seen.append(ready)
        return ready

    def _core(self, inner: Next) -> Next:
        prepare = self.prepare

        def core(call: Call) -> Awaitable[ToolResult]:  # not a coroutine: one frame less
            ready = prepare(call)
            if type(ready) is ToolResult:
                return _at_once(ready)
            return inner(ready)  # type: ignore[arg-type]

        return core

    # -- the ways in ------------------------------------------------------------------------------

    def start(
        self,
        name: object,
        arguments: Arguments,
        context: Mapping[str, Any] | None,
        run_id: str | None,
        step: int | None,
        call_id: str | None,
        key: str | None,
    ) -> Awaitable[ToolResult]:
        """The path's result for a call as the caller gives it (every layer guarded)."""
        tool = self._lookup(name) if type(name) is str else None
        try:
            begun = self._begin(tool, name, arguments, context, run_id, step, call_id, key)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the outermost layer raised before it awaited anything
            return _at_once(self._failed_outer(exc, shown_name(name)))
        return self._guarded(begun)

    def _begin(
        self,
        tool: Tool | None,
        name: object,
        arguments: Arguments,
        context: Mapping[str, Any] | None,
        run_id: str | None,
        step: int | None,
        call_id: str | None,
        key: str | None,
    ) -> Awaitable[ToolResult]:
        """A call valid as sent (to a tool this caller may use) is resolved and validated first,
        built once, ready, and handed to the outermost layer as it is: the caller guards that
        one (`_failed_outer`). Any other is built as received, and the path (every layer
        guarded) prepares it after the received layers and says what is wrong."""
        caller = _EMPTY if context is None else caller_context(context)
        if (
            tool is not None
            and self._gate is None
            and ((self._open and tool.open) or self.refusal(tool, caller) is None)
        ):
            model: Any = None
            if type(arguments) is dict and tool.direct and not self._coerce:  # inlined: common
                if not tool.null_check or None not in arguments.values():
                    try:
                        model = tool.validator.validate_python(arguments, strict=True)
                    except Exception:  # invalid, or stranger: `prepare` says which, as data
                        model = None
            else:
                model = valid_as_sent(tool, arguments, self._coerce)
            if model is not None:
                parts = (name, arguments, tool, model, caller, run_id, step, call_id, 1, False, key)
                call = tuple.__new__(Call, parts)
                seen = VALIDATED.get()  # a listener outside this path (inside it, none listens)
                if seen is not None:
                    seen.append(call)
                outer = self._outer
                if outer is None:
                    return self._run_tool(call)
                return outer(call, self._after_outer)
        received = (shown_name(name), arguments, None, None, caller, run_id, step, call_id)
        return self.handler(tuple.__new__(Call, (*received, 1, False, key)))

    async def _guarded(self, awaitable: Awaitable[ToolResult]) -> ToolResult:
        try:
            result = await awaitable
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if is_cancellation(exc) and really_cancelled():
                raise
            return self._failed_outer(exc)
        return result if type(result) is ToolResult else self._checked(result)

    def _failed_outer(self, error: BaseException, name: object = "?") -> ToolResult:
        """What the outermost layer's failure is (it runs unguarded): LAYER_ERROR naming it."""
        _log.debug("layer %r failed", self._outer_name, exc_info=error)
        return failure(failures.layer_error, self._outer_name, name, error, exception=error)

    def _checked(self, result: Any, name: object = "?") -> ToolResult:
        if isinstance(result, ToolResult):
            return result
        error = TypeError(f"returned {type(result).__name__}, not a ToolResult")
        return self._failed_outer(error, name)

    async def aexecute(
        self,
        name: object,
        arguments: Arguments = None,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        key: str | None = None,
    ) -> ToolResult:
        """The call awaited, as the caller's own result (see `finished`)."""
        started = _now()
        tool = self._lookup(name) if type(name) is str else None
        shown = name if type(name) is str else shown_name(name)
        try:
            result = await self._begin(tool, name, arguments, context, run_id, step, call_id, key)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if is_cancellation(exc) and really_cancelled():
                raise
            result = self._failed_outer(exc, shown)
        else:
            if type(result) is not ToolResult:
                result = self._checked(result, shown)
        return finished(shown, result, started)

    def execute(
        self,
        name: object,
        arguments: Arguments = None,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """The call run to completion in this thread: the sync fast method. Never raises.

        `Registry.execute` is this method itself (the registry's attribute gives its path's
        bound method, no frame of its own), so it takes the same options, by the same names.
        They are not keyword-only here: a missing keyword-only argument costs a dict lookup
        per parameter on every call (CPython fills positional defaults from a tuple).

        A plain sync tool (`Tool.direct`) called with arguments valid as sent, by a caller every
        layer lets see it (the common case), is validated here, inline. With no layers it runs
        right here too, with no event loop, so a call costs little more than its validation;
        behind layers the ready call goes to the outermost layer, run to completion by
        `toolsys._sync`. Anything else takes the stage functions (`_plain`, `_begin`), so the
        outcome is theirs; also inside a running event loop (Jupyter).
        """
        started = _now()
        tool = self._lookup(name) if type(name) is str else None
        if tool is not None and tool.direct and self._quick:
            model: Any = None
            raw: Any = arguments  # narrowed by `kind`, which mypy does not follow
            kind = type(raw)
            if kind is dict:  # `valid_as_sent`, inlined: the common case for a caller
                if not tool.null_check or None not in raw.values():
                    try:
                        model = tool.validator.validate_python(raw, strict=True)
                    except Exception:  # invalid, or stranger: `validate` says which, as data
                        model = None
            elif (  # the common case for a model; a null may mean "the default": the long way
                kind is str
                and len(raw) <= MAX_ARGUMENT_CHARS
                and not (tool.null_check and "null" in raw)
            ):
                try:
                    model = tool.validator.validate_json(raw or "{}", strict=True)
                except Exception:
                    model = None
                else:  # pydantic reads NaN and Infinity, JSON does not: `validate` refuses them
                    model = None if "NaN" in raw or "Infinity" in raw else model
            if self._inline:  # no layers: the tool runs right here
                if model is None:
                    model = validate(tool, arguments)
                    if type(model) is ToolResult:
                        return finished(name, model, started)  # type: ignore[arg-type]
                try:
                    # `Tool.call` for a direct tool, inlined: `fn(**values)`, keywords spelled out
                    spelled = tool._keywords  # type: ignore[attr-defined]
                    values = model.__dict__
                    value = tool._call_by_keyword(values) if spelled is None else spelled(values)
                    if type(value) is CoroutineType:  # a sync function that returned a coroutine
                        value = (_run_sync or _sync_runner())(value)
                except BaseException as exc:
                    return finished(name, tool_failed(tool, exc), started)  # type: ignore[arg-type]
                meta = {"tool": name, "attempt": 1, "duration_ms": (_now() - started) * 1000}
                done = allocate(ToolResult)  # ToolResult(True, value, None, meta)
                done.ok, done.value, done.error = True, value, None
                done.meta, done.exception, done.notice = meta, None, None
                return done
            if model is not None:  # `_begin` for a call that is ready, inlined
                caller = _EMPTY if context is None else caller_context(context)
                key = idempotency_key
                parts = (name, arguments, tool, model, caller, run_id, step, call_id, 1, False, key)
                call = tuple.__new__(Call, parts)
                seen = VALIDATED.get()  # a listener outside this path (inside it, none listens)
                if seen is not None:
                    seen.append(call)
                try:
                    result = (_run_sync or _sync_runner())(self._outer(call, self._after_outer))  # type: ignore[misc]
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # the outermost layer failed (it runs unguarded)
                    result = self._failed_outer(exc, name)
                else:
                    if type(result) is not ToolResult:
                        result = self._checked(result, name)
                if result.meta:
                    return finished(name, result, started)  # type: ignore[arg-type]
                meta = {"tool": name, "attempt": 1, "duration_ms": (_now() - started) * 1000}
                done = allocate(ToolResult)  # a copy of `result`, this meta
                done.ok, done.value, done.error = result.ok, result.value, result.error
                done.meta, done.exception, done.notice = meta, result.exception, result.notice
                return done
        if not self._bare or (tool is not None and not tool.sync):
            shown = name if type(name) is str else shown_name(name)
            try:
                key = idempotency_key
                path = self._begin(tool, name, arguments, context, run_id, step, call_id, key)
                result = (_run_sync or _sync_runner())(path)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # the outermost layer failed (it runs unguarded)
                result = self._failed_outer(exc, shown)
            else:
                if type(result) is not ToolResult:
                    result = self._checked(result, shown)
            return finished(shown, result, started)
        return finished(shown_name(name), self._plain(name, arguments, context), started)

    def _plain(
        self, name: object, arguments: Arguments, context: Mapping[str, Any] | None
    ) -> ToolResult:
        """No layers, and an unknown name or a sync tool that is not plain: the stages in turn."""
        caller = _EMPTY if context is None else caller_context(context)
        ready = self.prepare(Call(shown_name(name), arguments, context=caller))
        if type(ready) is ToolResult:
            return ready
        call: Call = ready  # type: ignore[assignment]
        return invoke(call.tool, call.arguments, call.context, self._dependencies)  # type: ignore[arg-type]


class View:
    """An executor that is a view of a registry (a namespace, a deferred session): it lists and
    runs through `path`, the registry's layers around the view's own scope, so a view cannot
    list or run a tool otherwise than the registry does. A view gives `path`."""

    @property
    def path(self) -> ExecutePath:
        raise NotImplementedError

    def export(
        self,
        target: str = "openai",
        *,
        strict: bool = False,
        context: Mapping[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The view's tools in a provider's format, by the names `execute` takes here; with
        `context`, only those this caller may use. Cached while the listing stays the same."""
        return self.path.export(target, strict, context)

    def execute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """Run a tool of this view by its name here; never raises (see `Registry.execute`)."""
        return self.path.execute(name, arguments, context, run_id, step, call_id, idempotency_key)

    async def aexecute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """`execute` from async code."""
        path = self.path
        return await path.aexecute(name, arguments, context, run_id, step, call_id, idempotency_key)


def _sync_runner() -> Callable[[Awaitable[Any]], Any]:
    """`toolsys._sync.run_sync`, imported on the first call that needs it: it brings asyncio,
    which `import toolsys` and the unlayered path do not need."""
    global _run_sync
    from toolsys._sync import run_sync

    _run_sync = run_sync
    return run_sync


_run_sync: Callable[[Awaitable[Any]], Any] | None = None
