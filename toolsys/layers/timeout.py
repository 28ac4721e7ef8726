"""Deadlines: a call that runs too long comes back as TIMEOUT, and says what became of it.

How a call can be stopped depends on what runs it, and the result never pretends otherwise:

    async tool           cancelled at the deadline; one that ignores cancellation is left
                         running as an abandoned task (details.still_running)
    sync tool            runs on its own worker thread (`Call.offload`); at the deadline the
                         thread is abandoned, still running: meta["abandoned_thread"] is True and
                         `abandoned_threads()` counts it until it ends. Past
                         `max_abandoned_threads` (in the whole process) a new call is not run:
                         it comes back as OVERLOADED, so hung calls cannot pile up threads
    cooperative tool     a sync tool named in `Timeout(cooperative=...)` stops itself once
                         `deadline()` has passed (a SQLite progress handler, a loop that checks):
                         it runs inline on the caller's thread, with no thread hop per call
    isolate="process"    its whole process group is killed (see `toolsys.isolate`)

A KeyboardInterrupt (or SystemExit) raised by the tool reaches the caller as it would without
the layer, also from an async tool running in its own task.

Every TIMEOUT says `details.side_effects: "unknown"`: the call may have done part or all of its
work. It is retryable only for idempotent tools, where a repeat cannot double a side effect.
A tool's own `timeout=` wins over the layer's default. When a thread or task left behind ends
later, an outer layer that asked (`Idempotency`, through `LISTENER`) hears how it ended, so a
write that timed out is recorded once it has really happened.

Chapter 07 builds this by hand first: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import logging
import math
import os
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Protocol

from toolsys import _platform, failures
from toolsys.errors import ToolError
from toolsys.execution import Call, Next
from toolsys.invoke import OFFLOADING
from toolsys.layers import _messages
from toolsys.result import ToolResult
from toolsys.stages import crashed, failure
from toolsys.tool import Tool


class Listener(Protocol):
    """An outer layer that wants to know when a call is left running, and how it ends."""

    def left_running(self) -> None:
        """The deadline passed and the call goes on in the background (called at once)."""

    def ended(self, result: ToolResult) -> None:
        """The call left running has ended (called later, from its thread or task)."""


LISTENER: contextvars.ContextVar[Listener | None] = contextvars.ContextVar(
    "toolsys_listener", default=None
)
"""Set by an outer layer around `call_next` to become the Listener of the calls below it."""

_log = logging.getLogger("toolsys")
_lock = threading.Lock()
_abandoned = 0
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "toolsys_deadline", default=None
)
_tasks: set[asyncio.Task[Any]] = set()  # abandoned tasks, kept alive until they end
_tickets: contextvars.ContextVar[tuple[_Ticket, ...]] = contextvars.ContextVar(
    "toolsys_timeout_tickets", default=()
)
_tracked: weakref.WeakKeyDictionary[Tool, Tool] = weakref.WeakKeyDictionary()
_handed_over: contextvars.ContextVar[_Run | None] = contextvars.ContextVar(
    "toolsys_timeout_run", default=None
)  # set in the context a worker thread runs a tracked tool in: that call's run, made earlier


def deadline() -> float | None:
    """When the running cooperative tool must stop (`time.monotonic()`), or None without one."""
    return _DEADLINE.get()


def abandoned_threads() -> int:
    """How many worker threads were left behind at a deadline and are still running."""
    return _abandoned


MAX_ABANDONED_THREADS = 32
"""`Timeout`'s default `max_abandoned_threads`."""


class Timeout:
    """A deadline for every call: `Timeout(seconds=10)`; a tool's `timeout=` overrides it.

    `cancel_grace` is how long a cancelled async tool may take to stop before it is left
    running (keep it small: TIMEOUT comes back within the deadline plus about this much).
    `cooperative` names sync tools that stop themselves once `deadline()` has passed: they run
    inline, saving the hop to a worker thread (~100 µs), and a failure they return after the
    deadline is reported as TIMEOUT. Name only tools that really check: one that does not can
    overrun its deadline, since nothing else can stop a sync call on the caller's thread.
    `max_abandoned_threads`: while this many threads left behind at a deadline (by any Timeout
    in the process, `abandoned_threads()`) are still running, a sync tool's call is not run and
    comes back as OVERLOADED (nothing happened, safe to repeat later).
    """

    stage = "validated"
    name = "timeout"

    def __init__(
        self,
        seconds: float = 30.0,
        *,
        cancel_grace: float = 0.02,
        cooperative: Collection[str] = (),
        max_abandoned_threads: int = MAX_ABANDONED_THREADS,
    ) -> None:
        for label, value in (("seconds", seconds), ("cancel_grace", cancel_grace)):
            if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
                raise ValueError(
                    f"Timeout({label}={value!r}): give a number of seconds >= 0, "
                    "e.g. Timeout(seconds=10)."
                )
        if seconds == 0:
            raise ValueError("Timeout(seconds=0) would fail every call; give e.g. seconds=10.")
        if isinstance(cooperative, str) or not all(isinstance(n, str) for n in cooperative):
            raise ValueError(
                f"Timeout(cooperative={cooperative!r}): give the names of tools, "
                "e.g. cooperative={'get_order'}."
            )
        if type(max_abandoned_threads) is not int or max_abandoned_threads < 1:
            raise ValueError(
                f"Timeout(max_abandoned_threads={max_abandoned_threads!r}): give a whole number "
                f">= 1, e.g. {MAX_ABANDONED_THREADS}."
            )
        self.seconds, self.cancel_grace = float(seconds), float(cancel_grace)
        self.cooperative = frozenset(cooperative)
        self.max_abandoned_threads = max_abandoned_threads

    def __repr__(self) -> str:
        return f"Timeout(seconds={self.seconds:g})"

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        tool = call.tool
        assert tool is not None
        seconds = tool.timeout if tool.timeout is not None else self.seconds
        if tool.isolate is not None:
            return await _killable(tool, call, call_next, seconds)
        if tool.is_async:
            return await _cancellable(tool, call, call_next, seconds, self.cancel_grace)
        if tool.name in self.cooperative:
            return await _cooperative(tool, call, call_next, seconds)
        if _abandoned >= self.max_abandoned_threads:
            return failure(_messages.overloaded, tool, _abandoned, self.max_abandoned_threads)
        return await _abandonable(tool, call, call_next, seconds)


async def _killable(tool: Tool, call: Call, call_next: Next, seconds: float) -> ToolResult:
    """An isolated tool: cancelling it kills its process group before the TIMEOUT is built."""
    try:
        async with asyncio.timeout(seconds):
            return await call_next(call)
    except TimeoutError:
        return _timed_out(tool, seconds, "process", still_running=False)


async def _cooperative(tool: Tool, call: Call, call_next: Next, seconds: float) -> ToolResult:
    """A sync tool that stops itself at `deadline()`: inline, no thread. What is awaited on the
    way (a slow layer below) is cut at the deadline as in any task; if the tool itself had
    already finished by then, its own result stands, as for a thread that ended in time."""
    ticket = _Ticket()
    tickets = _tickets.set((*_tickets.get(), ticket))
    end = time.monotonic() + seconds
    stop = _DEADLINE.set(end)
    try:
        async with asyncio.timeout(seconds):
            result = await call_next(call.replace(tool=_tracking(tool)))
    except TimeoutError:
        run = ticket.run
        if run is not None and run.finished:
            return run.result()
        return _timed_out(tool, seconds, "task", still_running=False)
    finally:
        _DEADLINE.reset(stop)
        _tickets.reset(tickets)
    if not result.ok and time.monotonic() >= end:  # it gave up because the deadline passed
        return _timed_out(tool, seconds, "cooperative", still_running=False)
    return result


async def _cancellable(
    tool: Tool, call: Call, call_next: Next, seconds: float, grace: float
) -> ToolResult:
    """An async tool, in its own task: even one that ignores cancellation cannot hold us."""
    task = asyncio.ensure_future(_carrying_interrupts(call_next(call)))
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if done:
            return _unwrapped(task.result())
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=grace)
    except asyncio.CancelledError:  # the caller stopped waiting: stop the tool, do not wait
        task.cancel()
        reason = "the caller stopped waiting for it"
        _leave_behind(task, lambda: failure(failures.cancelled, tool.name, reason))
        raise
    if done and not task.cancelled():
        return _unwrapped(task.result())  # it finished after all, just in time
    if not done:
        _leave_behind(task, lambda: _timed_out(tool, seconds, "task", still_running=False))
    return _timed_out(tool, seconds, "task", still_running=not done)


class _Interrupted:
    """A KeyboardInterrupt or SystemExit, carried out of the tool's task as its result.

    Raised in a task, either would leave the event loop itself instead of reaching the caller
    who awaits the call; carried out, it is raised again in the caller's own task.
    """

    __slots__ = ("exception",)

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception


async def _carrying_interrupts(awaitable: Awaitable[ToolResult]) -> Any:
    try:
        return await awaitable
    except (KeyboardInterrupt, SystemExit) as exc:
        return _Interrupted(exc)


def _unwrapped(result: Any) -> ToolResult:
    if type(result) is _Interrupted:
        raise result.exception
    return result


def _leave_behind(task: asyncio.Task[Any], stopped: Callable[[], ToolResult]) -> None:
    """Keep an abandoned task alive until it ends; tell the listener how it ended.

    `stopped` builds the outcome to report if the task ends cancelled or raising.
    """
    listener = LISTENER.get()
    _tasks.add(task)
    if listener is not None:
        _tell(listener.left_running)

    def ended(task: asyncio.Task[Any]) -> None:
        _tasks.discard(task)
        ended_well = not task.cancelled() and task.exception() is None  # (retrieved either way)
        if listener is None:
            return
        value = task.result() if ended_well else None
        ok = ended_well and type(value) is not _Interrupted
        _tell(listener.ended, value if ok else stopped())

    task.add_done_callback(ended)


async def _abandonable(tool: Tool, call: Call, call_next: Next, seconds: float) -> ToolResult:
    """A sync tool, on its own thread: at the deadline the thread is left running, counted."""
    if not _platform.THREADS:  # in the browser: refused at once, never run without its deadline
        return failure(_messages.no_threads, tool, seconds)
    ticket = _Ticket()
    token = _tickets.set((*_tickets.get(), ticket))  # an outer Timeout's ticket stays too
    told = OFFLOADING.set(_handing_over)
    try:
        async with asyncio.timeout(seconds):
            return await call_next(call.replace(tool=_tracking(tool), offload=True))
    except TimeoutError:
        if not ticket.abandon(LISTENER.get()):  # it ended just as the deadline passed
            return ticket.result()
        return _timed_out(tool, seconds, "thread", still_running=True)
    except asyncio.CancelledError:  # the caller stopped waiting: the thread runs on all the same
        ticket.abandon(LISTENER.get())
        raise
    finally:
        OFFLOADING.reset(told)
        _tickets.reset(token)


def _handing_over(tool: Tool) -> Callable[[BaseException | None], None] | None:
    """A tracked tool's job is about to go to a worker thread (`toolsys.invoke.OFFLOADING`, in
    the context that job runs in): its run is made and attached to the waiting tickets now, not
    once the job starts on its thread. On a loaded machine that can be after the deadline;
    counted only then, it would be missing from `abandoned_threads()` meanwhile, and the calls
    after it would start threads past `max_abandoned_threads`."""
    tickets = _tickets.get()
    if not tickets or not getattr(tool.fn, "_toolsys_reports", False):
        return None
    this = _Run(tool)
    for ticket in tickets:
        ticket.attach(this)
    _handed_over.set(this)

    def ended(error: BaseException | None) -> None:
        if not this.started:  # the call failed before the tool's function ran (an injection)
            this.finish(None, error or RuntimeError("the tool's function was never called"))

    return ended


def _timed_out(tool: Tool, seconds: float, runner: str, *, still_running: bool) -> ToolResult:
    result = failure(_messages.timeout, tool, seconds, runner, still_running)
    meta = {**result.meta, "abandoned_thread": runner == "thread" and still_running}
    return ToolResult(False, None, result.error, meta, result.exception)


class _Run:
    """One run of a sync tool on its worker thread: has it ended, was it left running."""

    __slots__ = ("abandoned", "error", "finished", "listeners", "started", "tool", "value")

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.finished = self.abandoned = self.started = False
        self.value: Any = None
        self.error: BaseException | None = None
        self.listeners: list[Listener] = []

    def abandon(self, listener: Listener | None) -> bool:
        """Counted once, however many deadlines leave it; False if it has already ended."""
        global _abandoned
        with _lock:
            if self.finished:
                return False
            if not self.abandoned:
                self.abandoned = True
                _abandoned += 1
            if listener is not None:
                self.listeners.append(listener)
        if listener is not None:
            _tell(listener.left_running)
        return True

    def finish(self, value: Any, error: BaseException | None) -> None:
        """Called on the worker thread when the tool returns or raises."""
        global _abandoned
        with _lock:
            self.finished, self.value, self.error = True, value, error
            if self.abandoned:
                _abandoned -= 1
            listeners = list(self.listeners)
        for listener in listeners:
            _tell(listener.ended, self.result())

    def result(self) -> ToolResult:
        if self.error is None:
            return ToolResult(True, self.value, None, {})
        if isinstance(self.error, ToolError):
            return failure(self.error.to_info, exception=self.error)
        return crashed(self.tool, self.error)


class _Ticket:
    """One Timeout layer waiting for one call: the run it waits for, once its job is handed to a
    worker thread (`_handing_over`) or, inline, once it starts."""

    __slots__ = ("abandoned", "listener", "run")

    def __init__(self) -> None:
        self.run: _Run | None = None
        self.abandoned = False
        self.listener: Listener | None = None

    def attach(self, run: _Run) -> None:
        """The call's run exists (an attempt inside may make several, one by one)."""
        with _lock:
            self.run = run
            abandoned, listener = self.abandoned, self.listener
        if abandoned:  # the deadline passed before the run was made
            run.abandon(listener)

    def abandon(self, listener: Listener | None) -> bool:
        """Stop waiting; False when the run had already ended (then `result()` is ready)."""
        with _lock:
            self.abandoned, self.listener, run = True, listener, self.run
        if run is None:
            if listener is not None:
                _tell(listener.left_running)
            return True
        return run.abandon(listener)

    def result(self) -> ToolResult:
        assert self.run is not None
        return self.run.result()


def _tracking(tool: Tool) -> Tool:
    """The tool with its function wrapped to report to the call's tickets (made once per tool)."""
    if getattr(tool.fn, "_toolsys_reports", False):  # already wrapped by an outer Timeout
        return tool
    tracked = _tracked.get(tool)
    if tracked is None:
        tracked = _tracked[tool] = dataclasses.replace(tool, fn=_reporting(tool))
    return tracked


def _reporting(tool: Tool) -> Callable[..., Any]:
    """`tool.fn`, reporting its run to the tickets of the Timeout layers waiting for it."""
    fn = tool.fn

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        this = _handed_over.get()
        if this is None or this.started:  # inline (a cooperative tool), not a thread's job
            this = _Run(tool)
            for ticket in _tickets.get():
                ticket.attach(this)
        this.started = True
        try:
            value = fn(*args, **kwargs)
        except BaseException as exc:
            this.finish(None, exc)
            raise
        this.finish(value, None)
        return value

    run._toolsys_reports = True  # type: ignore[attr-defined]
    return run


def _tell(method: Callable[..., None], *args: Any) -> None:
    try:
        method(*args)
    except Exception:  # a listener's failure must not break the thread it runs on
        _log.warning("a listener of a timed-out call failed", exc_info=True)


def _after_fork_in_child() -> None:
    """A forked child has none of the parent's threads: none of them is abandoned there, and a
    lock one of them held at the fork would never be released."""
    global _lock, _abandoned
    _lock = threading.Lock()
    _abandoned = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
