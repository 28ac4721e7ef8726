"""`run_sync`: a coroutine run from sync code behaves as it would inside a task."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys._sync import _local, run_sync

FLAG: contextvars.ContextVar[str] = contextvars.ContextVar("flag", default="unset")


async def _answer() -> int:
    return 42


def test_a_call_that_finishes_at_once_returns_its_value_and_its_exception() -> None:
    async def fails() -> None:
        raise ValueError("bad")

    assert run_sync(_answer()) == 42
    with pytest.raises(ValueError, match="bad"):
        run_sync(fails())


def test_the_first_step_runs_inside_a_task_so_deadlines_and_task_groups_work() -> None:
    async def uses_a_task() -> tuple[bool, int]:
        task = asyncio.current_task()
        async with asyncio.timeout(5):
            async with asyncio.TaskGroup() as group:
                child = group.create_task(_answer())
        return task is not None, child.result()

    assert run_sync(uses_a_task()) == (True, 42)


def test_a_deadline_set_in_the_first_step_expires_as_a_timeout_and_the_next_call_works() -> None:
    cleaned_up = []

    async def hangs() -> None:
        try:
            async with asyncio.timeout(0.02):
                await asyncio.sleep(10)
        finally:
            cleaned_up.append(True)

    with pytest.raises(TimeoutError):
        run_sync(hangs())
    assert cleaned_up == [True]
    for _ in range(3):
        with pytest.raises(TimeoutError):
            run_sync(hangs())
    assert run_sync(_answer()) == 42


def test_a_call_that_waits_is_finished_on_the_callers_thread() -> None:
    async def waits() -> int:
        await asyncio.sleep(0.001)
        return threading.get_ident()

    assert run_sync(waits()) == threading.get_ident()


def test_context_variables_set_by_the_call_stay_in_the_call() -> None:
    async def sets(wait: bool) -> str:
        seen = FLAG.get()
        FLAG.set("inside")
        if wait:
            await asyncio.sleep(0)
        return seen

    token = FLAG.set("caller")
    try:
        assert run_sync(sets(False)) == "caller"
        assert run_sync(sets(True)) == "caller"
        assert FLAG.get() == "caller"
    finally:
        FLAG.reset(token)


def test_a_token_made_in_the_first_step_can_be_reset_after_waiting() -> None:
    async def resets_later() -> str:
        token = FLAG.set("inside")
        await asyncio.sleep(0.001)
        FLAG.reset(token)
        return FLAG.get()

    assert run_sync(resets_later()) == "unset"


def test_an_interrupt_while_waiting_cancels_the_call_and_the_next_call_works() -> None:
    cleaned_up = []

    async def interrupted() -> None:
        try:
            loop = asyncio.get_running_loop()
            loop.call_later(0.01, _raise_interrupt)
            await asyncio.sleep(10)
        finally:
            cleaned_up.append(True)

    with pytest.raises(KeyboardInterrupt):
        run_sync(interrupted())
    assert cleaned_up == [True]
    assert run_sync(_answer()) == 42


def _raise_interrupt() -> None:
    raise KeyboardInterrupt


def test_deadlines_of_calls_that_finished_at_once_do_not_pile_up_on_the_loop() -> None:
    async def quick_with_deadline() -> int:
        async with asyncio.timeout(60):
            return 1

    for _ in range(2000):
        run_sync(quick_with_deadline())
    assert len(_local.private.loop._scheduled) < 300  # swept every 256 calls


def test_run_sync_inside_a_running_loop_uses_its_own_loop() -> None:
    async def cell() -> int:
        return run_sync(_answer())

    assert asyncio.run(cell()) == 42


def test_a_call_that_cancels_its_own_task_and_waits_is_cancelled_and_nothing_hangs() -> None:
    async def cancels_itself(wait: float | None) -> int:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        if wait is not None:
            await asyncio.sleep(wait)
        return 1

    assert run_sync(cancels_itself(None)) == 1  # it ended before it could be cancelled
    for wait in (0, 0.001):
        with pytest.raises(asyncio.CancelledError):
            run_sync(cancels_itself(wait))
        assert run_sync(_answer()) == 42


OPS = (
    "sleep0",
    "sleep",
    "deadline_met",
    "deadline_missed",
    "deadline_expired",
    "group",
    "group_fails",
    "set_var",
    "raise",
)


async def _program(ops: list[str], cancel_last: bool) -> str:
    trail = []
    for op in ops:
        if op == "sleep0":
            await asyncio.sleep(0)
        elif op == "sleep":
            await asyncio.sleep(0.0005)
        elif op == "deadline_met":
            async with asyncio.timeout(5):
                await asyncio.sleep(0)
        elif op == "deadline_missed":
            try:
                async with asyncio.timeout(0.0005):
                    await asyncio.sleep(5)
            except TimeoutError:
                trail.append("timed out")
        elif op == "deadline_expired":  # passed when set: its cancellation is soon, not timed
            try:
                async with asyncio.timeout(0):
                    await asyncio.sleep(5)
            except TimeoutError:
                trail.append("expired")
        elif op == "group_fails":  # a child that fails at once cancels the task in the group
            try:
                async with asyncio.TaskGroup() as group:
                    group.create_task(_fail_at_once())
                    await asyncio.sleep(5)
            except* ValueError:
                trail.append("group failed")
        elif op == "group":
            async with asyncio.TaskGroup() as group:
                child = group.create_task(_answer())
            trail.append(str(child.result()))
        elif op == "set_var":
            FLAG.set(f"{FLAG.get()}+")
        elif op == "raise":
            raise ValueError(",".join(trail))
        trail.append(op)
    if cancel_last:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)
    return f"{','.join(trail)}|{FLAG.get()}"


async def _fail_at_once() -> None:
    raise ValueError("at once")


def _outcome(runner: Any, ops: list[str], cancel_last: bool) -> tuple[str, str]:
    try:
        return ("value", runner(_program(ops, cancel_last)))
    except BaseException as exc:  # the outcome compared, whatever it is
        return (type(exc).__name__, str(exc))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(OPS), max_size=5), min_size=1, max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_any_sequence_of_calls_ends_as_it_would_in_its_own_task(
    programs: list[list[str]], cancels: list[bool]
) -> None:
    for ops, cancel_last in zip(programs, cancels, strict=False):
        ours = _outcome(run_sync, ops, cancel_last)
        in_a_task = _outcome(asyncio.run, ops, cancel_last)
        assert ours == in_a_task
        assert FLAG.get() == "unset"  # nothing the call set leaked out
    loop = _local.private.loop
    assert all(task is _local.private.host for task in asyncio.all_tasks(loop))


@pytest.mark.parametrize("op", ["deadline_expired", "group_fails"])
def test_a_cancellation_the_first_step_asked_for_reaches_the_call_and_nothing_hangs(
    op: str,
) -> None:
    """A deadline already passed when it is set, or a task group whose child failed at once,
    cancels the host task before the call is handed over to it: the call is cancelled where it
    waits, as in a task of its own; the host used to end instead, and the caller waited forever
    (under load, any short deadline: `test_any_sequence_of_calls...` hung 1 run in 12)."""
    for _ in range(3):  # also on the host task that served the one before
        assert _outcome(run_sync, [op, "sleep0"], False) == _outcome(
            asyncio.run, [op, "sleep0"], False
        )
    assert run_sync(_answer()) == 42


def test_an_async_tool_whose_deadline_has_passed_times_out_through_execute() -> None:
    from toolsys import Registry

    registry = Registry()

    @registry.tool
    async def wait_past_deadline() -> str:
        """Waits under a deadline that has already passed."""
        try:
            async with asyncio.timeout(0):
                await asyncio.sleep(5)
        except TimeoutError:
            return "timed out"
        return "waited"

    assert registry.execute("wait_past_deadline", {}).value == "timed out"


def test_a_call_that_cancels_its_own_task_and_returns_at_once_leaves_a_sound_task() -> None:
    """The host task is looked at only after a call that did not end at once; one that
    cancelled it and still returned at once has it replaced before the next call."""

    async def cancel_and_return() -> int:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        return 1

    async def sound() -> tuple[int, bool]:
        task = asyncio.current_task()
        assert task is not None
        async with asyncio.timeout(5):
            await asyncio.sleep(0)
        return task.cancelling(), task is _local.private.host

    assert run_sync(cancel_and_return()) == 1
    assert run_sync(sound()) == (0, True)
    assert run_sync(cancel_and_return()) == 1
    assert run_sync(_answer()) == 42


def test_a_tool_that_executes_a_layered_call_gets_its_answer_before_and_after_waiting() -> None:
    from toolsys import Registry
    from toolsys.execution import Call, Next
    from toolsys.result import ToolResult

    async def passthrough(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call)

    registry = Registry(layers=[passthrough])

    @registry.tool
    def inner() -> int:
        """The answer."""
        return 42

    @registry.tool
    def outer() -> int:
        """Asks inner, from inside a call this thread is running."""
        result = registry.execute("inner")
        return result.value + 1

    @registry.tool
    async def outer_later() -> int:
        """Asks inner after waiting, while the host task is finishing this call."""
        await asyncio.sleep(0.001)
        return registry.execute("inner").value + 2

    assert registry.execute("outer").value == 43
    assert registry.execute("outer_later").value == 44
    assert run_sync(_answer()) == 42


def test_a_thread_loop_dropped_before_its_host_ever_ran_leaves_no_warning() -> None:
    import gc
    import warnings

    from toolsys._sync import _Private

    async def notebook_cell() -> None:  # another loop runs in this thread: ours cannot run
        private = _Private()
        del private
        gc.collect()

    gc.collect()  # what earlier tests left behind is not this test's concern
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(notebook_cell())
        gc.collect()
    assert [str(w.message) for w in caught] == []


def test_the_private_asyncio_functions_behave_as_relied_on() -> None:
    """toolsys._sync names the private asyncio functions it needs; this pins each one."""
    from asyncio import events, tasks

    from toolsys import _sync

    assert _sync._get_running_loop is events._get_running_loop is asyncio._get_running_loop
    assert _sync._set_running_loop is events._set_running_loop is asyncio._set_running_loop
    assert _sync._enter_task is tasks._enter_task is asyncio._enter_task
    assert _sync._leave_task is tasks._leave_task is asyncio._leave_task
    assert _sync._current_task is tasks.current_task is asyncio.current_task
    loop = asyncio.SelectorEventLoop()
    try:
        task = loop.create_task(asyncio.sleep(0))
        assert events._get_running_loop() is None
        events._set_running_loop(loop)  # a loop that is not running becomes the running one
        try:
            assert asyncio.get_running_loop() is loop and events._get_running_loop() is loop
            assert asyncio.current_task() is None
            tasks._enter_task(loop, task)  # one step of `task` begins
            assert asyncio.current_task() is task and asyncio.current_task(loop) is task
            with pytest.raises(RuntimeError):
                tasks._enter_task(loop, task)  # never two at once
            tasks._leave_task(loop, task)
            assert asyncio.current_task() is None
            with pytest.raises(RuntimeError):
                tasks._leave_task(loop, task)  # only the task that entered leaves
        finally:
            events._set_running_loop(None)
        assert events._get_running_loop() is None
        loop.run_until_complete(task)
        assert loop._closed is loop.is_closed() is False  # run_sync reads the field
    finally:
        loop.close()
    assert loop._closed is loop.is_closed() is True


# An interrupt before the call's first step leaves its coroutine never started, and so reported.
@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")
@pytest.mark.parametrize("waits", [False, True], ids=["finishes at once", "waits"])
@pytest.mark.parametrize("in_a_loop", [False, True], ids=["plain", "in a running loop"])
def test_an_interrupt_at_any_point_of_a_call_leaves_the_threads_running_loop_as_it_was(
    monkeypatch: pytest.MonkeyPatch, waits: bool, in_a_loop: bool
) -> None:
    """A signal handler (Ctrl+C, pytest-timeout's SIGALRM) may raise after any call returns:
    here after each of the n-th call to the running-loop and task bookkeeping of `_sync`. The
    thread's running loop is then what it was (a loop left marked as running makes every later
    `asyncio.run` in the thread fail), and the next call works."""
    from asyncio import events

    from toolsys import _sync

    me = threading.get_ident()
    calls, interrupt_at = [0], [0]

    def interruptible(function: Any) -> Any:
        def wrapped(*args: Any) -> Any:
            result = function(*args)
            if threading.get_ident() == me:
                calls[0] += 1
                if calls[0] == interrupt_at[0]:
                    raise KeyboardInterrupt
            return result

        return wrapped

    for name in ("_set_running_loop", "_enter_task", "_leave_task"):
        monkeypatch.setattr(_sync, name, interruptible(getattr(_sync, name)))

    async def call() -> int:
        if waits:
            await asyncio.sleep(0.001)
        return 42

    def every_point() -> int:
        run_sync(call())  # a thread's first call also makes its loop
        calls[0] = 0
        assert run_sync(call()) == 42
        points, interrupted = calls[0], 0
        assert points >= (6 if waits else 4)
        before = events._get_running_loop()
        for point in range(1, points + 1):
            calls[0], interrupt_at[0] = 0, point
            try:
                run_sync(call())
            except KeyboardInterrupt:
                interrupted += 1
            interrupt_at[0] = 0
            assert events._get_running_loop() is before, f"interrupted after call {point}"
            assert run_sync(call()) == 42
        return interrupted

    async def in_a_cell() -> int:
        return every_point()

    interrupted = asyncio.run(in_a_cell()) if in_a_loop else every_point()
    assert interrupted >= 4


def _passthrough() -> Any:
    from toolsys.execution import Call, Next
    from toolsys.result import ToolResult

    async def passthrough(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call)

    return passthrough


def _layer_sets() -> dict[str, list[Any]]:
    from toolsys.layers import Idempotency, Retry, Timeout

    return {
        "none": [],
        "passthrough": [_passthrough()],
        "timeout": [Timeout(seconds=5)],
        "retry": [Retry(seed=0)],
        "stack": [Idempotency(), Retry(seed=0), Timeout(seconds=5)],
    }


@pytest.mark.timeout(60)
@pytest.mark.parametrize("layers", sorted(_layer_sets()))
def test_an_interrupt_raised_after_a_tools_first_await_reaches_every_caller(layers: str) -> None:
    """Issue 25: sync `execute` used to block forever here; now execute (plain and inside a
    running loop) and aexecute all raise the KeyboardInterrupt, and the next call works."""
    from toolsys import Registry

    registry = Registry(layers=_layer_sets()[layers])
    cleaned_up = []

    @registry.tool
    async def interrupted() -> str:
        """Interrupted after its first await, as a Jupyter interrupt lands inside it."""
        try:
            await asyncio.sleep(0.001)
            raise KeyboardInterrupt
        finally:
            cleaned_up.append(True)

    @registry.tool
    def fine() -> str:
        """Answers."""
        return "fine"

    with pytest.raises(KeyboardInterrupt):
        registry.execute("interrupted")
    assert registry.execute("fine").value == "fine"

    async def cell() -> str:
        with pytest.raises(KeyboardInterrupt):
            registry.execute("interrupted")  # sync code in a running loop (a notebook)
        with pytest.raises(KeyboardInterrupt):
            await registry.aexecute("interrupted")
        return (await registry.aexecute("fine")).value

    assert asyncio.run(cell()) == "fine"
    assert cleaned_up == [True, True, True]
    loop = _local.private.loop
    assert all(task is _local.private.host for task in asyncio.all_tasks(loop))


@pytest.mark.timeout(60)
def test_an_interrupt_while_a_call_ignores_cancellation_returns_and_leaves_it_elsewhere() -> None:
    release = threading.Event()
    ended = threading.Event()

    async def stubborn() -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.01, _raise_interrupt)
        while not release.is_set():
            try:
                await asyncio.sleep(0.005)
            except asyncio.CancelledError:
                continue
        ended.set()

    assert run_sync(_answer()) == 42
    loop = _local.private.loop
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_sync(stubborn())
    assert time.monotonic() - started < 10  # the grace, not forever
    assert run_sync(_answer()) == 42  # this thread's next call is not held up by it
    assert not ended.is_set() and not loop.is_closed()
    release.set()
    assert ended.wait(10)  # it ran on, on a thread of its own, and ended
    assert wait_until(loop.is_closed)  # and so did that thread, closing the loop


def test_a_forked_child_cannot_silence_this_threads_loop() -> None:
    """Issue 35's root cause: a child forked from another thread dropped (closed) a copy of
    this thread's loop, and with `epoll` that unregistered this loop's wake-up pipe in the
    parent too: the next call that waited for a worker thread slept until its deadline."""
    import gc
    import os
    import warnings

    from toolsys import Registry
    from toolsys.layers import Timeout

    registry = Registry(layers=[Timeout(seconds=10)])  # the hang it guards against: 10 s

    @registry.tool
    def on_a_thread() -> str:
        """Runs on a worker thread and wakes the caller's loop when done."""
        time.sleep(0.005)
        return "woken"

    assert registry.execute("on_a_thread").value == "woken"  # this thread now has a loop

    def fork() -> None:
        with warnings.catch_warnings():  # Python 3.12+: fork with threads; the child only exits
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: collect what it copied, as a tool's child would
            gc.collect()
            os._exit(0)
        os.waitpid(pid, 0)

    other = threading.Thread(target=fork)
    other.start()
    other.join()
    started = time.monotonic()
    assert registry.execute("on_a_thread").value == "woken"
    assert time.monotonic() - started < 5  # woken by the worker, not by the 10 s deadline


def test_a_task_a_call_leaves_running_never_holds_up_the_threads_next_call() -> None:
    release = threading.Event()
    ended = threading.Event()
    returned = threading.Event()
    kept: list[Any] = []

    async def leaves_a_task() -> int:
        async def background() -> None:
            # Once the call has returned, not after a sleep: a loop woken late on a loaded
            # machine ran this step before it saw the call end (then nothing was left running).
            while not returned.is_set():
                await asyncio.sleep(0.005)
            release.wait(10)  # blocks whatever loop runs it
            ended.set()

        kept.append(asyncio.get_running_loop().create_task(background()))
        await asyncio.sleep(0.001)
        return 1

    async def waits() -> int:
        await asyncio.sleep(0.05)
        return 2

    first_loop = _local.private.loop if getattr(_local, "private", None) else None
    assert run_sync(leaves_a_task()) == 1
    returned.set()
    started = time.monotonic()
    assert run_sync(waits()) == 2
    assert time.monotonic() - started < 5  # not blocked by the task left behind
    assert _local.private.loop is not first_loop
    release.set()
    assert ended.wait(10)
    assert wait_until(lambda: kept[0].get_loop().is_closed())


def test_tasks_a_call_awaited_leave_nothing_counted_and_the_loop_stays() -> None:
    """The loop's task factory counts pending tasks, so a call that leaves none is not searched
    for leftovers; a count that never came back to zero would search (or hand over) every call."""
    from toolsys import Registry
    from toolsys.layers import Timeout

    registry = Registry(layers=[Timeout(seconds=5)])

    @registry.tool
    async def fans_out(n: int) -> int:
        """Awaits a task group of n tasks."""
        async with asyncio.TaskGroup() as group:
            parts = [group.create_task(asyncio.sleep(0, i)) for i in range(n)]
        return sum(part.result() for part in parts)

    assert registry.execute("fans_out", {"n": 3}).value == 3
    private = _local.private
    for n in range(5):
        assert registry.execute("fans_out", {"n": n}).value == sum(range(n))
        assert private.tasks.pending == 0
    assert _local.private is private and not private.loop.is_closed()


def test_a_task_made_without_the_loops_factory_is_still_handed_over() -> None:
    """`asyncio.Task(...)` called directly is not counted: the thorough look every
    `_SWEEP_EVERY` calls finds it, and the loop moves on with it to a thread of its own."""
    from toolsys import _sync

    async def waits() -> int:
        await asyncio.sleep(0)
        return 2

    stop: list[asyncio.Event] = []

    async def leaves_an_uncounted_task() -> int:
        stop.append(asyncio.Event())
        loop = asyncio.get_running_loop()
        kept.append(asyncio.Task(stop[0].wait(), loop=loop))  # not through loop.create_task
        await asyncio.sleep(0)
        return 1

    kept: list[asyncio.Task[Any]] = []
    assert run_sync(leaves_an_uncounted_task()) == 1
    loop = kept[0].get_loop()

    def loop_now() -> Any:
        private = getattr(_local, "private", None)  # None: handed over, a new one comes next
        return None if private is None else private.loop

    for _ in range(_sync._SWEEP_EVERY + 1):
        assert run_sync(waits()) == 2
        if loop_now() is not loop:
            break
    assert loop_now() is not loop  # handed over
    assert not kept[0].done()
    loop.call_soon_threadsafe(stop[0].set)
    assert wait_until(loop.is_closed)  # it ended on its own thread, which closed the loop
    assert kept[0].done()


def test_a_worker_survives_a_job_whose_notification_fails() -> None:
    """A failed notification used to kill a worker after it was listed idle: the next job
    handed to it never ran."""
    from toolsys import _workers

    notified, ran = threading.Event(), threading.Event()

    def job_with_failing_notification() -> Any:
        def notify() -> None:
            notified.set()  # the worker is listed idle by now (before its notification runs)
            raise ZeroDivisionError

        return notify

    def good_job() -> Any:
        ran.set()
        return lambda: None

    _workers.submit(job_with_failing_notification)
    assert notified.wait(10)  # not a sleep: on a loaded machine the worker may not be idle yet
    _workers.submit(good_job)  # to that idle worker, whose notification just failed
    assert ran.wait(10)


def test_asyncio_to_thread_runs_on_toolsys_workers_that_end_when_idle() -> None:
    from toolsys import _workers

    async def asks_a_thread() -> str:
        return await asyncio.to_thread(lambda: threading.current_thread().name)

    assert run_sync(asks_a_thread()) == "toolsys-tool"
    assert not [t for t in threading.enumerate() if t.name.startswith("asyncio")]
    assert _workers.stop_idle() >= 1


def wait_until(condition: Any, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return bool(condition())
