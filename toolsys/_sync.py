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

The loop outlives the calls, so nothing a call leaves on it may reach a later call:

- A forked child (`isolate="process"`, multiprocessing) inherits every thread's loop. It waits
  with `poll`, whose registrations live in one process: an `epoll` instance is a kernel object
  shared with every child, and a child that closed its copy of an inherited loop unregistered
  the parent's wake-up pipe, so the parent's loop slept through every later wake-up
  (`call_soon_threadsafe`) and the next call that waited for a thread never returned. A child
  also never runs, closes or collects an inherited loop (`os.register_at_fork`): each thread
  there starts with a new one.
- Tasks a call leaves running (an async tool that ignored a Timeout's cancellation, a task
  started and not awaited) would otherwise run only inside this thread's later calls and could
  hold them up: the loop is handed, with them, to a thread of its own that runs it until they
  end, and this thread's next call starts on a new loop. The loop's task factory counts them,
  so a call that left none pays no search for them.
- The thread's running loop (what `get_running_loop()` returns) is the private one only while
  a first step runs, and is set back to the caller's in a `finally` that encloses the setting:
  an interrupt at any instant (Ctrl+C, pytest-timeout's SIGALRM) leaves the thread as it found
  it, so a later `asyncio.run` in that thread still starts.
- Cancelled timers (a deadline that was not needed) stay on a loop until it runs: after every
  `_SWEEP_EVERY` calls that finished at once, the loop runs once.
- `asyncio.to_thread` runs on toolsys's worker threads (`toolsys._workers`), which end when idle,
  not on a pool per loop whose threads never end and which hung calls could fill up.
- The loop is closed, its host task finished, when its thread ends or the interpreter exits.

Private asyncio functions this needs (no public API runs one step of a coroutine as a given task,
or makes a loop the running one without running it); each is exported by `asyncio` on Python
3.11-3.13, and tests/test_sync.py::test_the_private_asyncio_functions_behave_as_relied_on pins
what is relied on:

    asyncio.events._get_running_loop()      the running loop of this thread, or None
    asyncio.events._set_running_loop(loop)  what get_running_loop() returns, until set again
    asyncio.tasks._enter_task(loop, task)   what current_task() returns during one step, and
    asyncio.tasks._leave_task(loop, task)   back: for "third-party task implementations" under
                                            "Task lifetime support" in the asyncio docs
                                            (library/asyncio-extending.html, 3.12+)
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import contextvars
import functools
import os
import selectors
import sys
import threading
import types
import weakref
from asyncio.events import _get_running_loop, _set_running_loop
from asyncio.tasks import _enter_task, _leave_task  # what a task does around each of its steps
from asyncio.tasks import current_task as _current_task
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, Protocol, TypeVar

from toolsys import _platform, _workers

T = TypeVar("T")
_SWEEP_EVERY = 256
_STOP_GRACE = 1.0  # seconds an interrupted call has to end before it is left to end elsewhere
_CoroutineType = types.CoroutineType
_copy_context = contextvars.copy_context
_Driver = Generator[Any, Any, None]
_Job = tuple[contextvars.Context, "_Driver", Any, "asyncio.Future[Any]", "_Private"] | None


class _Private:
    """One thread's loop and host task; the loop is closed when the thread's data is dropped."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = (
            _platform.new_event_loop()  # no self-pipe in the browser: a loop that sleeps
            if _platform.BROWSER
            else asyncio.SelectorEventLoop(_selector())
        )
        self.loop.set_default_executor(_pool())
        self.tasks = _Counted()
        self.loop.set_task_factory(self.tasks)
        self.jobs: asyncio.Queue[_Job] = asyncio.Queue()
        self.stopping = _Stopping()
        self.host = self.loop.create_task(_serve(self.jobs, self.stopping), name="toolsys-host")
        self.value: Any = None  # where this thread's drivers put a returned value (`_driver`)
        self.send: Callable[[Any], Any] | None = _driver(self).send  # the driver's, bound once
        self.until_sweep = _SWEEP_EVERY
        _everywhere.add(self)

    def renew_host(self) -> asyncio.Task[None]:
        """A new host task, for one spent by an interrupt or cancelled by the call it hosted."""
        _retrieved(self.host)
        self.stopping.requested = True  # the spent host serves no more calls, if still running
        self.stopping = _Stopping()
        self.host = self.loop.create_task(_serve(self.jobs, self.stopping), name="toolsys-host")
        return self.host

    def finish(
        self,
        context: contextvars.Context,
        driver: _Driver,
        waiting_on: Any,
        cancelled: bool,
        previous: Any,
    ) -> Any:
        """Hand a call whose first step has to wait (its driver) to the host task, and wait."""
        if cancelled:  # the call cancelled its own task: it is cancelled where it waits
            waiting_on = _Cancel(waiting_on)
        done: asyncio.Future[Any] = self.loop.create_future()
        self.jobs.put_nowait((context, driver, waiting_on, done, self))
        return self._wait(done, previous)

    def _wait(self, done: asyncio.Future[T], previous: Any) -> T:
        try:
            _set_running_loop(None)
            return self.loop.run_until_complete(done)
        except BaseException:
            if not done.done():  # an interrupt arrived mid-call: nothing is left pending
                self._stop_host()
            raise
        finally:
            _set_running_loop(previous)
            self.until_sweep -= 1
            thorough = not self.until_sweep
            if thorough:
                self.until_sweep = _SWEEP_EVERY
            self._hand_over_leftovers(thorough)

    def _stop_host(self) -> bool:
        """Cancel the host task and give it `_STOP_GRACE` seconds to end (a second interrupt
        cuts that short); False if it is still running (its call ignores cancellation).

        A task that ended with KeyboardInterrupt is not run to completion again: asyncio never
        stops the loop for such a task (it assumes the interrupt already did), so that waits
        forever.
        """
        host = self.host
        if not host.done():
            self.stopping.requested = True
            host.cancel()
            with contextlib.suppress(BaseException):  # the interrupt is the one that matters
                self.loop.run_until_complete(asyncio.wait({host}, timeout=_STOP_GRACE))
        _retrieved(host)
        return host.done()

    def _hand_over_leftovers(self, thorough: bool) -> None:
        """Tasks still pending after a call (a host task that is still ending among them) move,
        with the loop, to a thread of their own.

        Looked for only when the loop's task factory counted one (`all_tasks` walks every task
        of the process: ~10 µs a call), or when `thorough`, every `_SWEEP_EVERY` calls, for a
        task made without the factory (`asyncio.Task(...)` called directly).
        """
        if not (thorough or self.tasks.pending or self.host.cancelling()):
            return
        if not _platform.THREADS:  # the browser: no thread to hand them to; they stay here
            return
        left = asyncio.all_tasks(self.loop)
        if not self.host.cancelling():
            left.discard(self.host)  # waiting for the next call: not left behind
        if left:
            if getattr(_local, "private", None) is self:
                _disown()  # this thread's next call starts on a new loop
            self._run_out_elsewhere()

    def _run_out_elsewhere(self) -> None:
        thread = threading.Thread(target=self._run_out, name="toolsys-left-running", daemon=True)
        thread.start()

    def _run_out(self) -> None:
        """On its own thread: run the loop until its tasks have ended, then close it."""
        loop = self.loop
        try:
            self.stopping.requested = True
            self.host.cancel()
            self.jobs.put_nowait(None)  # a host whose call swallowed the cancellation stops next
            while pending := asyncio.all_tasks(loop):
                done, _ = loop.run_until_complete(asyncio.wait(pending))
                for task in done:  # abandoned: their outcome has no one left to hear it
                    if not task.cancelled():
                        task.exception()
        finally:
            loop.close()

    def sweep(self, previous: Any) -> None:
        """Calls that finished at once may leave cancelled timers (a deadline that was not
        needed) or new tasks on the loop, which it handles only when it runs: run it once."""
        self.until_sweep = _SWEEP_EVERY
        try:
            _set_running_loop(None)
            self.loop.call_soon(self.loop.stop)
            self.loop.run_forever()
        finally:
            _set_running_loop(previous)
            self._hand_over_leftovers(thorough=True)

    def close(self) -> None:
        """Finish the host task and close the loop (its selector and self-pipe are file
        descriptors); tasks still running first move to a thread of their own."""
        if self.loop.is_closed() or self.loop.is_running():
            return
        previous = _get_running_loop()
        try:
            _set_running_loop(None)  # another loop may run in this thread (a notebook cell)
            left = asyncio.all_tasks(self.loop)
            left.discard(self.host)
            if left or not self._stop_host():
                self._run_out_elsewhere()
                return
            self.loop.close()
        finally:
            _set_running_loop(previous)

    def __del__(self) -> None:
        """Only for a loop no thread owns (`_Owner` closes a thread's loop at the thread's end)."""
        try:
            if self.pid == os.getpid() and not sys.is_finalizing():
                self.close()
        except Exception:  # the thread or the interpreter is going away: nothing to report to
            pass


class _Counted:
    """A loop's task factory that counts its pending tasks other than host tasks: a call that
    leaves none (the counter is back at zero) needs no look at `asyncio.all_tasks`.

    A task's count drops in its done callback, which the loop runs soon after the task ends:
    until then it is counted still, which only costs a look.
    """

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending = 0

    def __call__(
        self, loop: asyncio.AbstractEventLoop, coroutine: Any, **options: Any
    ) -> asyncio.Task[Any]:
        task = asyncio.Task(coroutine, loop=loop, **options)
        if getattr(coroutine, "cr_code", None) is not _serve.__code__:
            self.pending += 1
            task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self.pending -= 1


class _Owner:
    """Closes a thread's loop when the thread ends.

    Only the thread's own data refers to it, so it is dropped, and the loop closed, as the
    thread ends, on that thread. The loop itself may live on (a traceback kept somewhere can
    refer to it): left to the cycle collector, it would be closed at an arbitrary moment on an
    arbitrary thread, after the collector had already forgotten its tasks.
    """

    __slots__ = ("private",)

    def __init__(self, private: _Private) -> None:
        self.private: _Private | None = private

    def __del__(self) -> None:
        private = self.private
        try:
            if private is not None and private.pid == os.getpid() and not sys.is_finalizing():
                private.close()
        except Exception:  # the thread is going away: nothing to report to
            pass


def _own(private: _Private) -> _Private:
    """Make `private` this thread's loop (and close the one it had, if any)."""
    _local.owner = _Owner(private)
    _local.private = private
    return private


def _disown() -> None:
    """This thread stops using its loop, without closing it (it was handed on, or inherited)."""
    owner = getattr(_local, "owner", None)
    if owner is not None:
        owner.private = None
    _local.private = None


def _retrieved(task: asyncio.Task[Any]) -> None:
    """Mark a spent task's exception (an interrupt) as seen: it was raised to the caller."""
    if task.done() and not task.cancelled():
        task.exception()


def _selector() -> selectors.BaseSelector:
    """`poll`: nothing of it is shared with a forked child (see the module docstring)."""
    poll = getattr(selectors, "PollSelector", None)
    return poll() if poll is not None else selectors.SelectSelector()


class _WorkerPool(concurrent.futures.ThreadPoolExecutor):
    """The loops' default executor (`asyncio.to_thread`): toolsys's worker threads.

    A ThreadPoolExecutor in name only (`set_default_executor` takes nothing else): it starts no
    thread of its own, and a job goes to an idle worker or a new one, so a hung job never makes
    a later one wait, and idle workers end (see `toolsys._workers`).
    """

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="toolsys-unused")

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def job() -> Callable[[], None]:
            if not future.set_running_or_notify_cancel():
                return _nothing
            try:
                value = fn(*args, **kwargs)
            except BaseException as exc:
                return functools.partial(future.set_exception, exc)
            return functools.partial(future.set_result, value)

        _workers.submit(job)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to shut down: the workers are shared and end once idle."""


def _nothing() -> None:
    pass


_shared_pool: list[_WorkerPool] = []


def _pool() -> _WorkerPool:
    if not _shared_pool:
        _shared_pool.append(_WorkerPool())
    return _shared_pool[0]


class _Stopping:
    """Whether the host task is being stopped (an interrupt, a retired loop): a cancellation
    it gets otherwise was asked of the call its first step ran (see `_serve`)."""

    __slots__ = ("requested",)

    def __init__(self) -> None:
        self.requested = False


async def _serve(jobs: asyncio.Queue[_Job], stopping: _Stopping) -> None:
    """The host task: finish each call whose first step had to wait, one after another, until
    it is cancelled or its loop is retired.

    A call's first step runs as this task, so what it started may cancel this task before the
    call is handed over: a deadline that had already passed when it was set (`call_soon`, ahead
    of the hand-over), a task group whose child failed at once. That cancellation is the call's:
    it goes to the call where it waits, as it would in a task of its own, and the job is not
    lost (the caller would wait for it forever).

    A native coroutine (Python 3.12+ runs no other kind as a task); one that never started is
    cancelled before it is dropped, so it is never reported as "never awaited".
    """
    while True:
        try:
            job = await jobs.get()
        except asyncio.CancelledError:
            if stopping.requested or jobs.empty():
                raise  # the host itself is stopped
            job = jobs.get_nowait()
            if job is not None and type(job[2]) is not _Cancel:
                job = (job[0], job[1], _Cancel(job[2]), job[3], job[4])
        if job is None:  # the loop is retired
            return
        context, driver, waiting_on, done, box = job
        try:
            value = await _resume(context, driver, waiting_on, box)
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


_DONE: Any = object()


class _Box(Protocol):
    value: Any


def _driver(box: _Box) -> Generator[Any, Any, None]:
    """A started driver: send it a coroutine and it runs the coroutine's first step.

    Sent a coroutine, it answers `_DONE` when the coroutine returned at once (the common case),
    its value put in `box.value`, or what the coroutine waits on. A coroutine's own `send` says
    "returned" by raising StopIteration, which costs a traceback in the caller's frame on every
    call; a coroutine awaited here returns its value inside the driver, without an exception.
    The value is read from `box` (the thread's `_Private`) right after the answer, before any
    other code runs in the thread, and cleared. A driver whose coroutine had to wait goes with
    the call to the host task (`_resume`), one whose coroutine raised is spent: the thread's
    next call gets a new one (`run_sync`).
    """
    driver = _drive(box)
    driver.send(None)
    return driver


@types.coroutine
def _drive(box: _Box) -> Generator[Any, Any, None]:
    coroutine = yield
    while True:  # the finished coroutine is dropped when the next one is sent
        box.value = yield from coroutine
        coroutine = yield _DONE


class _Cancel:
    """What a call that cancelled its own task waits on: it is cancelled there first."""

    def __init__(self, waiting_on: Any) -> None:
        self.waiting_on = waiting_on


@types.coroutine
def _resume(
    context: contextvars.Context, driver: _Driver, waiting_on: Any, box: _Box
) -> Generator[Any, Any, Any]:
    """Continue a call whose first step had to wait, inside the awaiting task: what it waits on
    is waited on here, and what the task is sent or thrown (a cancellation) goes on to the call's
    driver, until the driver says its coroutine returned (`_driver`)."""
    step: Callable[[Any], Any] | None = None
    argument: Any = None
    if type(waiting_on) is _Cancel:
        if isinstance(waiting_on.waiting_on, asyncio.Future):
            waiting_on.waiting_on.cancel()
        step, argument = driver.throw, asyncio.CancelledError()
    while True:
        if step is None:
            try:
                sent = yield waiting_on
            except BaseException as exc:
                step, argument = driver.throw, exc
            else:
                step, argument = driver.send, sent
        waiting_on = context.run(step, argument)
        if waiting_on is _DONE:
            driver.close()  # spent: it goes no further with this thread's calls
            value, box.value = box.value, None
            return value
        step = None


_local = threading.local()
_TASK_PER_THREAD = sys.version_info >= (3, 14)
_everywhere: weakref.WeakSet[_Private] = weakref.WeakSet()
_held: list[_Private] = []  # every thread's loop, while a fork copies this process
_inherited: list[_Private] = []  # in a forked child: the parent's loops, never dropped here


def _before_fork() -> None:
    _held[:] = list(_everywhere)


def _after_fork_in_parent() -> None:
    _held.clear()


def _after_fork_in_child() -> None:
    """A loop copied from the parent is the parent's: dropping it would close or run it here."""
    _inherited.extend(_held)
    _held.clear()
    _disown()


def _at_exit() -> None:
    state = getattr(_local, "private", None)
    if state is not None and state.pid == os.getpid():
        state.close()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_in_parent,
        after_in_child=_after_fork_in_child,
    )
atexit.register(_at_exit)


def run_sync(awaitable: Awaitable[T]) -> T:
    """The awaitable's result (or exception), computed in this thread on its private loop.

    The first step runs at once as the thread's host task, in a copy of the caller's context,
    driven by the thread's driver (`_driver`: no StopIteration for a call that returns at once);
    only a call that has to wait goes on to the loop (`_Private.finish`). Written as one function
    because it is on every layered call's path.
    """
    coroutine = awaitable if type(awaitable) is _CoroutineType else _awaiting(awaitable)
    try:
        state: _Private | None = _local.private
    except AttributeError:  # this thread's first call
        state = None
    if state is None or state.loop._closed:  # type: ignore[attr-defined]  # is_closed(), as read
        state = _own(_Private())
    loop, host = state.loop, state.host
    previous = _get_running_loop()
    if previous is loop:  # called by a call this thread is running: use a fresh loop
        return _in_new_thread(coroutine)
    if _TASK_PER_THREAD and previous is not None:  # Python 3.14: one current task per thread
        return _beside(previous, coroutine)
    # The driver is taken for this call and given back once its coroutine returned and the
    # host task was found sound: one whose coroutine raised, went on to the loop, or was
    # interrupted is never sent another, and the next call looks at the host first.
    send = state.send
    if send is None:
        if host.done() or host.cancelling():  # spent by an interrupt
            host = state.renew_host()
        send = _driver(state).send
    else:
        state.send = None
    context = _copy_context()
    try:  # restores the caller's running loop on every path, after an interrupt at any point
        _set_running_loop(loop)
        try:
            _enter_task(loop, host)
            out = context.run(send, coroutine)
        finally:
            try:  # noqa: SIM105  (suppress() costs a context manager on every call)
                _leave_task(loop, host)
            except RuntimeError:  # it was not entered: an interrupt came first
                pass
    finally:
        _set_running_loop(previous)
    if out is not _DONE or host.cancelling():  # the call has to wait, or cancelled its task
        cancelled = host.cancelling() > 0
        if cancelled:  # as any task, it is spent: a new host serves the next call
            state.renew_host()
        if out is not _DONE:
            return state.finish(context, send.__self__, out, cancelled, previous)  # type: ignore[attr-defined]
    state.until_sweep -= 1
    if not state.until_sweep:
        state.sweep(previous)
    state.send = send
    value, state.value = state.value, None
    return value


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


def _nested(coroutine: Coroutine[Any, Any, T]) -> T:
    """A call made by a call this thread is running, where no thread can be started (the
    browser): on a fresh private loop in this thread, with the outer call's task stepped aside
    while it runs and while its loop is closed (one task runs at a time in a thread)."""
    outer, outer_owner = getattr(_local, "private", None), getattr(_local, "owner", None)
    loop = _get_running_loop()
    task = _current_task(loop) if loop is not None else None
    if loop is not None and task is not None:
        _leave_task(loop, task)
    _local.private = None
    try:
        _set_running_loop(None)
        return run_sync(coroutine)
    finally:
        inner = getattr(_local, "private", None)
        _local.private, _local.owner = outer, outer_owner
        if inner is not None and inner is not outer:
            inner.close()
        _set_running_loop(loop)
        if loop is not None and task is not None:
            _enter_task(loop, task)


async def _awaiting(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _in_new_thread(coroutine: Coroutine[Any, Any, T]) -> T:
    if not _platform.THREADS:  # in the browser: a fresh private loop, nested in this thread
        return _nested(coroutine)
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
