"""Run a coroutine to completion from synchronous code, cheaply, even inside a running loop.

Why: `registry.execute(...)` and `run_agent(...)` are called from plain functions and from Jupyter
cells, where an event loop is already running in the thread and `asyncio.run` refuses to start.
Starting a new loop in a new thread for every call costs ~190 µs and moves thread-bound resources
(a sqlite connection) to another thread. Instead each thread keeps one private loop, and a call's
first step runs at once, the way Python 3.12's eager tasks do: most tool calls finish in that step
(a sync tool behind layers that only await the next layer), so no loop iteration is paid. A call
that really waits (an async tool, a back-off sleep, a deadline) is then finished on the same
private loop, in the same thread. The task is a real `asyncio.Task`: `current_task()`,
`asyncio.timeout()` and cancellation behave as they do anywhere else.

Inside a running loop (a notebook) the caller's loop is blocked while this runs, as it is for any
blocking call; use `await registry.aexecute(...)` to run async tools on the notebook's own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from asyncio import events
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _EagerLoop(asyncio.SelectorEventLoop):
    """A private loop that hands back the first callback scheduled while `capture` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.captured: list[tuple[Callable[..., Any], tuple[Any, ...], Any]] | None = None

    def call_soon(  # type: ignore[override]
        self, callback: Callable[..., Any], *args: Any, context: contextvars.Context | None = None
    ) -> asyncio.Handle | None:
        captured = self.captured
        if captured is not None and not captured:
            captured.append((callback, args, context))
            return None  # Task.__init__, the only caller while capturing, ignores the handle
        return super().call_soon(callback, *args, context=context)


class _Private:
    """One thread's loop; closed when the thread ends and its thread-local data is dropped."""

    def __init__(self) -> None:
        self.loop = _EagerLoop()
        self.depth = 0

    def __del__(self) -> None:
        if not self.loop.is_closed():
            self.loop.close()  # its selector and self-pipe are file descriptors


_local = threading.local()


def _private() -> _Private:
    private: _Private | None = getattr(_local, "private", None)
    if private is None or private.loop.is_closed():
        private = _local.private = _Private()
    return private


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result (or exception), computed in this thread on its private loop."""
    state = _private()
    if state.depth:  # called from code this function is already running: use a fresh loop
        return _in_new_thread(coroutine)
    loop = state.loop
    previous = events._get_running_loop()
    state.depth += 1
    try:
        loop.captured = []
        try:
            task = loop.create_task(coroutine)
            first_step = loop.captured[0]
        finally:
            loop.captured = None
        callback, args, context = first_step
        events._set_running_loop(loop)
        try:
            context.run(callback, *args) if context is not None else callback(*args)
        finally:
            events._set_running_loop(previous)
        if not task.done():
            events._set_running_loop(None)
            try:
                loop.run_until_complete(task)
            except BaseException:
                _cancel(loop, task)
                raise
            finally:
                events._set_running_loop(previous)
        return task.result()
    finally:
        state.depth -= 1


def _cancel(loop: _EagerLoop, task: asyncio.Task[Any]) -> None:
    """An interrupt arrived mid-call: cancel the task so nothing is left pending on the loop."""
    if task.done():
        return
    task.cancel()
    with contextlib.suppress(BaseException):  # the interrupt being raised is the one that matters
        loop.run_until_complete(task)


def _in_new_thread(coroutine: Coroutine[Any, Any, T]) -> T:
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
