"""The invoke stage: call the tool itself, and turn whatever it does into a ToolResult.

    invoke    -> EXECUTION_ERROR     the tool raised (or its own ToolError code)

Two ways in, one behaviour: `invoke` (sync; an async tool is run to completion) and `ainvoke`
(the layered path: awaited, or on a worker thread so that a deadline can leave it behind).
`ainvoke` inlines the common case, a tool called with its validated fields as keywords, because
it is on every call (so does `toolsys.execution.ExecutePath.execute`, the sync fast method).
Whatever a tool raises becomes its envelope in one place (`toolsys.stages.tool_failed`); only
KeyboardInterrupt and a real cancellation of the caller's task propagate.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Mapping
from types import CoroutineType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from toolsys import _workers
from toolsys._cancel import is_cancellation
from toolsys.result import ToolResult
from toolsys.stages import tool_failed

if TYPE_CHECKING:
    from toolsys.execution import Call
    from toolsys.tool import Tool

Arguments = Mapping[str, Any] | str | bytes | bytearray | None
allocate = object.__new__
"""`allocate(ToolResult)` and its six slots set in turn: the hot paths' `ToolResult(...)`
(here and in `ExecutePath.execute`).

Calling the dataclass enters its generated `__init__` from C (a new interpreter frame, the
arguments matched to parameters, the `meta` default factory tested), a tenth of a sync `execute`
of a small tool; setting the slots in the caller's own frame costs about half of that. The
object is the same: every field set, no `__init__` of ours skipped (ToolResult has no
`__post_init__`); tests/test_execution.py holds the two spellings equal, field by field.
"""


def invoke(
    tool: Tool,
    arguments: BaseModel,
    context: Mapping[str, Any] | None = None,
    dependencies: Mapping[str, Any] | None = None,
) -> ToolResult:
    """Call a tool synchronously (an async tool is run to completion); the result, never a raise.

    A tool with injected parameters gets them from `context` and `dependencies`."""
    try:
        value = tool.call(arguments, context, dependencies)
        if type(value) is CoroutineType:
            from toolsys._sync import run_sync

            value = run_sync(value)
    except BaseException as exc:
        return tool_failed(tool, exc)
    return ToolResult(True, value, None, {})


RUNNING: contextvars.ContextVar[tuple[Any, Any] | None] = contextvars.ContextVar(
    "toolsys_running", default=None
)
"""The execute path and the call whose async tool is running now (`toolsys.execution.running`)."""

Offloading = Callable[[Any], Callable[[BaseException | None], None] | None]
OFFLOADING: contextvars.ContextVar[Offloading | None] = contextvars.ContextVar(
    "toolsys_offloading", default=None
)
"""Told, with the tool, just before a sync tool's job is handed to a worker thread, inside the
copy of the caller's context that the job will run in; what it returns (if not None) is called
on that thread once the job has ended, with the exception the job raised (or None). A `Timeout`
layer sets it: the call's run exists from the hand-over on, so a deadline that passes before
the job has even started on its thread counts the thread as left running
(`toolsys.layers.timeout`)."""

VALIDATED: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "toolsys_validated", default=None
)
"""A listening audit layer's list of validated calls (`toolsys.execution.VALIDATED`); off while
a tool runs, so a tool calling another registry does not add to this call's record."""


async def ainvoke(path: Any, dependencies: Mapping[str, Any], call: Call) -> ToolResult:
    """Call `call.tool` with its validated arguments: awaited when async, on a thread when
    `call.offload`. A call a layer replaced (not validated any more) is prepared again first
    (`path.prepare`). While an async tool runs, `RUNNING` holds `(path, call)`, so a composite
    tool (always async) sends its inner calls through the same path.

    A tool with injected parameters gets them from the call's context and `dependencies`.
    `path` and `dependencies` come first: the path binds them once (`functools.partial`).
    """
    if call[3] is None or call[2] is None:  # not validated yet, or a layer replaced it
        ready = path.prepare(call)
        if type(ready) is ToolResult:
            return ready
        call = ready
    tool: Tool = call[2]  # type: ignore[assignment]
    arguments: Any = call[3]
    listening = VALIDATED.get() is not None
    if tool.direct and not (call[9] or listening):  # a plain sync tool, not offloaded: inlined
        try:
            spelled = tool._keywords  # type: ignore[attr-defined]  # `fn(**values)`, spelled out
            values = arguments.__dict__
            value = tool._call_by_keyword(values) if spelled is None else spelled(values)
        except BaseException as exc:
            if is_cancellation(exc) and really_cancelled():
                raise
            return tool_failed(tool, exc)
        if type(value) is not CoroutineType:
            done = allocate(ToolResult)  # ToolResult(True, value, None, {}), see `allocate`
            done.ok, done.value, done.error = True, value, None
            done.meta, done.exception, done.notice = {}, None, None
            return done
        return await _awaited(path, call, tool, value)  # a sync function returned a coroutine
    hidden = VALIDATED.set(None) if listening else None
    try:
        if tool.by_keyword and not (tool.injected or call.offload):
            value = tool.fn(**arguments.__dict__)  # the common case of `tool.call`, inlined
        else:
            run = functools.partial(tool.call, context=call.context, dependencies=dependencies)
            if call.offload and not tool.is_async:
                value = await _on_thread(tool, run, arguments)
            else:
                value = run(arguments)
        if type(value) is CoroutineType:  # an async tool, or a callable that returned one
            token = RUNNING.set((path, call))  # composites are async: only they look
            try:
                value = await value
            finally:
                RUNNING.reset(token)
    except BaseException as exc:
        if is_cancellation(exc) and really_cancelled():
            raise
        return tool_failed(tool, exc)
    finally:
        if hidden is not None:
            VALIDATED.reset(hidden)
    return ToolResult(True, value, None, {})


async def _awaited(path: Any, call: Call, tool: Tool, value: Any) -> ToolResult:
    """The coroutine a tool returned, awaited as `ainvoke` awaits an async tool's."""
    token = RUNNING.set((path, call))
    try:
        value = await value
    except BaseException as exc:
        if is_cancellation(exc) and really_cancelled():
            raise
        return tool_failed(tool, exc)
    finally:
        RUNNING.reset(token)
    return ToolResult(True, value, None, {})


def really_cancelled() -> bool:
    """A CancelledError is real when our own task is being cancelled, not when a tool raised one."""
    import asyncio  # imported already: a task is running

    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _on_thread(tool: Tool, fn: Callable[..., Any], *args: Any) -> Any:
    """Run `fn` (`tool`'s call) on a worker thread; awaiting may stop early, the thread then
    runs on. `OFFLOADING`, when set, is told before the job is handed over."""
    import asyncio  # imported already: a loop is running

    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()
    offloading = OFFLOADING.get()
    ended = None if offloading is None else context.run(offloading, tool)

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
        if ended is not None:
            ended(error)

        def notify() -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(settle, value, error)

        return notify

    _workers.submit(worker)
    return await future
