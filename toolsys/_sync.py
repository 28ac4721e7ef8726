"""Run a coroutine to completion from synchronous code, cheaply, even inside a running loop.

Why: `registry.execute(...)` and `run_agent(...)` are called from plain functions and from Jupyter
cells, where an event loop is already running in the thread and `asyncio.run` refuses to start.
Starting a new loop in a new thread for every call costs ~190 µs and moves thread-bound resources
(a sqlite connection) to another thread. Instead each thread keeps one private loop, and a call's
first step runs at once, in the caller's frame: most tool calls finish in that step (a sync tool
behind layers that only await the next layer), so neither a task nor a loop iteration is paid.

A first step still runs inside a real task, the thread's *host* task, so `current_task()`,
`asyncio.timeout()` and task groups work in it. When the call has to wait (an async tool, a
back-off sleep, a deadline), the host task takes the suspended coroutine over and finishes it on
the same private loop, in the same thread; a timeout set in the first step cancels the host,
which is the task that is then running the call, so it behaves as it does anywhere else. Each
call runs in its own copy of the caller's context variables, as a task would.

Inside a running loop (a notebook) the caller's loop is blocked while this runs, as it is for any
blocking call; use `await registry.aexecute(...)` to run async tools on the notebook's own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sys
import threading
import types
from asyncio import events
from asyncio.events import _get_running_loop, _set_running_loop
from asyncio.tasks import _enter_task, _leave_task  # what a task does around each of its steps
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, TypeVar

from toolsys import _platform

T = TypeVar("T")
_SWEEP_EVERY = 256
_WAITING: Any = object()
_Job = tuple[contextvars.Context, Coroutine[Any, Any, Any], Any, "asyncio.Future[Any]"]


class _Private:
    """One thread's loop and host task; the loop is closed when the thread's data is dropped."""

    def __init__(self) -> None:
        self.loop = _platform.new_event_loop()
        self.jobs: asyncio.Queue[_Job] = asyncio.Queue()
        self.host = _host(self.loop, self.jobs)
        self.until_sweep = _SWEEP_EVERY

    def renew_host(self) -> asyncio.Task[None]:
        """A new host task, for one spent by an interrupt or cancelled by the call it hosted."""
        self.host = _host(self.loop, self.jobs)
        return self.host

    def finish(
        self,
        context: contextvars.Context,
        coroutine: Coroutine[Any, Any, T],
        waiting_on: Any,
        cancelled: bool,
        previous: Any,
    ) -> T:
        """Hand a call whose first step has to wait to the host task, and wait for it."""
        if cancelled:  # the call cancelled its own task: it is cancelled where it waits
            waiting_on = _Cancel(waiting_on)
        done: asyncio.Future[T] = self.loop.create_future()
        self.jobs.put_nowait((context, coroutine, waiting_on, done))
        return self._wait(done, previous)

    def _wait(self, done: asyncio.Future[T], previous: Any) -> T:
        _set_running_loop(None)
        try:
            return self.loop.run_until_complete(done)
        except BaseException:
            if not done.done():  # an interrupt arrived mid-call: nothing is left pending
                self.host.cancel()
                with contextlib.suppress(BaseException):  # the interrupt is the one that matters
                    self.loop.run_until_complete(self.host)
            raise
        finally:
            _set_running_loop(previous)

    def sweep(self, previous: Any) -> None:
        """Calls that finished at once may leave cancelled timers (a deadline that was not
        needed) on the loop, which drops them only when it runs: let it run once."""
        self.until_sweep = _SWEEP_EVERY
        if self.loop._scheduled:  # type: ignore[attr-defined]
            self._wait(self.loop.create_task(asyncio.sleep(0)), previous)

    def __del__(self) -> None:
        loop = self.loop
        if loop.is_closed():
            return
        if events._get_running_loop() is None:  # (module globals may be gone at exit)
            self.host.cancel()  # not left pending: the loop's tasks end before it closes
            with contextlib.suppress(BaseException):
                loop.run_until_complete(self.host)
        loop.close()  # its selector and self-pipe are file descriptors


def _host(loop: asyncio.AbstractEventLoop, jobs: asyncio.Queue[_Job]) -> asyncio.Task[None]:
    """A new host task. It may never run (every call finished at once) and be dropped with its
    thread: that is not the forgotten task asyncio warns about, so it is not reported."""
    task = loop.create_task(_Serving(jobs), name="toolsys-host")
    task._log_destroy_pending = False  # type: ignore[attr-defined]  # as asyncio.gather does
    return task


@types.coroutine
def _serve(jobs: asyncio.Queue[_Job]) -> Generator[Any, Any, None]:
    """The host task: finish each call whose first step had to wait, one after another.

    A generator-based coroutine: one that never started is dropped silently.
    """
    while True:
        context, coroutine, waiting_on, done = yield from jobs.get()
        try:
            value = yield from _resume(context, coroutine, waiting_on)
        except asyncio.CancelledError:
            done.cancel()
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the host itself was cancelled (an interrupt): `run` makes a new one
        except (KeyboardInterrupt, SystemExit):
            raise  # out of run_until_complete, as from any task
        except BaseException as exc:
            done.set_exception(exc)
        else:
            done.set_result(value)


class _Serving(Coroutine[Any, Any, None]):
    """`_serve` as a task takes it: Python 3.12+ runs only coroutines as tasks, and a generator
    in a Coroutine's clothes is still dropped silently when it never started."""

    def __init__(self, jobs: asyncio.Queue[_Job]) -> None:
        self._steps = _serve(jobs)

    def send(self, value: Any) -> Any:
        return self._steps.send(value)

    def throw(self, *error: Any) -> Any:
        return self._steps.throw(*error)

    def close(self) -> None:
        self._steps.close()

    def __await__(self) -> Generator[Any, Any, None]:
        return self._steps


class _Cancel:
    """What a call that cancelled its own task waits on: it is cancelled there first."""

    def __init__(self, waiting_on: Any) -> None:
        self.waiting_on = waiting_on


@types.coroutine
def _resume(
    context: contextvars.Context, coroutine: Coroutine[Any, Any, T], waiting_on: Any
) -> Generator[Any, Any, T]:
    """Continue a started coroutine inside the awaiting task: what it waits on is waited on here,
    and what the task is sent or thrown (a cancellation) goes on to the coroutine."""
    step: Callable[[Any], Any] | None = None
    argument: Any = None
    if type(waiting_on) is _Cancel:
        if isinstance(waiting_on.waiting_on, asyncio.Future):
            waiting_on.waiting_on.cancel()
        step, argument = coroutine.throw, asyncio.CancelledError()
    while True:
        if step is None:
            try:
                sent = yield waiting_on
            except BaseException as exc:
                step, argument = coroutine.throw, exc
            else:
                step, argument = coroutine.send, sent
        try:
            waiting_on = context.run(step, argument)
        except StopIteration as finished:
            return finished.value
        step = None


_local = threading.local()
_TASK_PER_THREAD = sys.version_info >= (3, 14)


def run_sync(awaitable: Awaitable[T]) -> T:
    """The awaitable's result (or exception), computed in this thread on its private loop.

    The first step runs at once as the thread's host task, in a copy of the caller's context;
    only a call that has to wait goes on to the loop (`_Private.finish`). Written as one function
    because it is on every layered call's path.
    """
    coroutine = awaitable if type(awaitable) is types.CoroutineType else _awaiting(awaitable)
    state: _Private | None = getattr(_local, "private", None)
    if state is None or state.loop.is_closed():
        state = _local.private = _Private()
    loop, host = state.loop, state.host
    previous = _get_running_loop()
    if previous is loop:  # called by a call this thread is running: use a fresh loop
        return _in_new_thread(coroutine)
    if _TASK_PER_THREAD and previous is not None:  # Python 3.14: one current task per thread
        return _beside(previous, coroutine)
    if host.done() or host.cancelling():  # spent by an interrupt
        host = state.renew_host()
    context = contextvars.copy_context()
    result: Any = _WAITING
    _set_running_loop(loop)
    _enter_task(loop, host)
    try:
        waiting_on = context.run(coroutine.send, None)
    except StopIteration as finished:
        result = finished.value
    finally:
        _leave_task(loop, host)
        _set_running_loop(previous)
    cancelled = host.cancelling() > 0  # the call cancelled its own task: as any task, it is spent
    if cancelled:
        state.renew_host()
    if result is _WAITING:
        return state.finish(context, coroutine, waiting_on, cancelled, previous)
    state.until_sweep -= 1
    if not state.until_sweep:
        state.sweep(previous)
    return result


def _beside(previous: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run the call with the caller's task (a notebook cell's) stepped aside: from Python 3.14
    a thread has one current task, whatever the loop, and the host task must be it."""
    outer = asyncio.current_task(previous)
    if outer is not None:
        _leave_task(previous, outer)
    _set_running_loop(None)
    try:
        return run_sync(coroutine)
    finally:
        _set_running_loop(previous)
        if outer is not None:
            _enter_task(previous, outer)


async def _awaiting(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _in_new_thread(coroutine: Coroutine[Any, Any, T]) -> T:
    if not _platform.THREADS:  # in the browser: a fresh private loop, nested in this thread
        outer = _local.private
        _local.private = None
        try:
            return run_sync(coroutine)
        finally:
            _local.private = outer
    box: dict[str, Any] = {}

    def worker() -> None:
        try:
            box["result"] = run_sync(coroutine)
        except BaseException as exc:
            box["error"] = exc

    context = contextvars.copy_context()  # the caller's context variables follow the call
    thread = threading.Thread(target=context.run, args=(worker,), name="toolsys-run-sync")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
