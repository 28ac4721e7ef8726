"""Deadlines: TIMEOUT on time, honest about what kept running, and never a hung caller.

Timing: the issue asks for TIMEOUT within the deadline + 50 ms. On a loaded 2-core CI machine a
single wall-clock measurement can be delayed by the scheduler, so each bound is asserted on the
best of three runs (time.monotonic): the layer must be able to meet it, and a slow machine
cannot fail it by chance. Every run, not only the best, must stay under deadline + 2 s (a hang
guard). Whether a tool kept running is proved with threading.Events, never with sleeps.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_execution import arguments, envelope, make, names
from toolsys import Category, ErrorCode, Registry, ToolError, ToolResult
from toolsys.errors import ToolDefinitionError
from toolsys.layers import Idempotency, ResultBudget, Retry, Timeout, abandoned_threads
from toolsys.layers.timeout import LISTENER

DEADLINE = 0.2
SLACK = 0.05  # the bound
HANG_GUARD = 2.0


def best_of_three(run: Callable[[], ToolResult]) -> tuple[float, list[ToolResult]]:
    """The shortest of three runs' durations, and their results."""
    times, results = [], []
    for _ in range(3):
        start = time.monotonic()
        results.append(run())
        times.append(time.monotonic() - start)
    assert max(times) < DEADLINE + HANG_GUARD
    return min(times), results


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def settled_abandoned_threads(seconds: float = 5.0) -> int:
    """`abandoned_threads()` once the threads that earlier tests released have ended.

    A test compares the count with the one it started with; one taken while an earlier test's
    released thread is still ending (a loaded machine takes its time) drops under the test's
    feet: a cap of `before + 3` lets a fourth call through, `before + 1` is seen as `before`.
    """
    wait_until(lambda: abandoned_threads() == 0, seconds)
    return abandoned_threads()


def test_an_async_tool_is_cancelled_and_timeout_returns_within_the_deadline_plus_50_ms() -> None:
    cancelled = threading.Event()
    registry = Registry(layers=[Timeout(seconds=DEADLINE)])

    @registry.tool
    async def slow() -> str:
        """Waits a minute."""
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "done"

    best, results = best_of_three(lambda: registry.execute("slow"))
    assert best < DEADLINE + SLACK
    for result in results:
        assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
        assert result.error.details["side_effects"] == "unknown"
        assert result.error.details["stopped"] == "cancelled"
        assert result.meta["abandoned_thread"] is False
    assert cancelled.is_set()


def test_a_sync_tool_is_left_running_counted_and_the_count_returns_to_zero() -> None:
    release, finished = threading.Event(), threading.Event()
    registry = Registry(layers=[Timeout(seconds=DEADLINE)])

    @registry.tool
    def hang() -> str:
        """Waits until released."""
        release.wait(30)
        finished.set()
        return "late"

    before = settled_abandoned_threads()
    best, results = best_of_three(lambda: registry.execute("hang"))
    assert best < DEADLINE + SLACK
    assert not finished.is_set()  # the threads are still running: nobody pretends otherwise
    assert abandoned_threads() == before + 3
    for result in results:
        error = result.error
        assert error is not None and error.code == ErrorCode.TIMEOUT
        assert result.meta["abandoned_thread"] is True
        assert error.details == {
            "timeout_s": DEADLINE,
            "side_effects": "unknown",
            "still_running": True,
            "stopped": "abandoned",
        }
        assert "still running" in error.message and "cannot be stopped" in error.message
    release.set()
    assert wait_until(lambda: abandoned_threads() == before)


@pytest.mark.parametrize(
    ("category", "idempotent", "retryable"),
    [
        (Category.READ, None, True),
        (Category.WRITE, None, False),
        (Category.EXECUTE, None, False),
        (Category.WRITE, True, True),
        (Category.READ, False, False),
    ],
)
def test_a_timeout_is_retryable_only_for_idempotent_tools(
    category: Category, idempotent: bool | None, retryable: bool
) -> None:
    release = threading.Event()
    registry = Registry(layers=[Timeout(seconds=0.05)])

    def stuck() -> None:
        """Waits until released."""
        release.wait(30)

    registry.register(stuck, category=category, idempotent=idempotent)
    error = registry.execute("stuck").error
    release.set()
    assert error is not None and error.retryable is retryable
    if not retryable:
        assert "Do not repeat this call blindly" in error.suggestion


def test_a_tools_own_timeout_wins_over_the_layers_default() -> None:
    release = threading.Event()
    registry = Registry(layers=[Timeout(seconds=60)])

    @registry.tool(timeout=0.05)
    def quick_deadline() -> None:
        """Waits until released."""
        release.wait(30)

    result = registry.execute("quick_deadline")
    release.set()
    assert result.error is not None and result.error.details["timeout_s"] == 0.05


def test_an_async_tool_that_ignores_cancellation_cannot_hold_the_caller() -> None:
    release = asyncio.Event()
    registry = Registry(layers=[Timeout(seconds=DEADLINE)])

    @registry.tool
    async def stubborn() -> str:
        """Swallows cancellation."""
        while not release.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                continue
        return "finally"

    async def main() -> ToolResult:
        start = time.monotonic()
        result = await registry.aexecute("stubborn")
        assert time.monotonic() - start < DEADLINE + HANG_GUARD
        release.set()
        return result

    result = asyncio.run(main())
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert result.error.details["still_running"] is True
    assert "ignored cancellation" in result.error.message


def test_fast_calls_pass_through_untouched() -> None:
    registry = Registry(layers=[Timeout(seconds=5)])

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add.

        Args:
            a: A.
            b: B.
        """
        return a + b

    @registry.tool
    async def aadd(a: int, b: int) -> int:
        """Add, async.

        Args:
            a: A.
            b: B.
        """
        return a + b

    @registry.tool
    def fails() -> None:
        """Fails."""
        raise ToolError("NOPE", "No.")

    assert registry.execute("add", {"a": 1, "b": 2}).value == 3
    assert registry.execute("aadd", {"a": 1, "b": 2}).value == 3
    error = registry.execute("fails").error
    assert error is not None and error.code == "NOPE"


def test_a_listener_hears_when_a_thread_is_left_running_and_how_it_ended() -> None:
    heard: list[Any] = []
    release = threading.Event()

    class Listener:
        def left_running(self) -> None:
            heard.append("left running")

        def ended(self, result: ToolResult) -> None:
            heard.append(result.value)

    async def listening(call: Any, call_next: Any) -> ToolResult:
        token = LISTENER.set(Listener())
        try:
            return await call_next(call)
        finally:
            LISTENER.reset(token)

    listening.stage = "validated"  # type: ignore[attr-defined]
    registry = Registry(layers=[listening, Timeout(seconds=0.05)])

    @registry.tool
    def slow() -> str:
        """Waits until released."""
        release.wait(30)
        return "the real outcome"

    assert registry.execute("slow").error is not None
    assert heard == ["left running"]
    release.set()
    assert wait_until(lambda: len(heard) == 2)
    assert heard == ["left running", "the real outcome"]


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "10", True])
def test_a_bad_deadline_is_refused_with_the_value_named(bad: Any) -> None:
    with pytest.raises(ValueError, match="Timeout"):
        Timeout(seconds=bad)
    registry = Registry()
    with pytest.raises(ToolDefinitionError, match="timeout="):
        registry.register(lambda: None, name="x", timeout=bad)


def test_two_timeout_layers_count_a_thread_they_both_left_once_each_until_it_ends() -> None:
    release = threading.Event()
    registry = Registry()
    registry.use(Timeout(seconds=0.05), name="outer")
    registry.use(Timeout(seconds=0.1), name="inner")

    @registry.tool
    def hang() -> None:
        """Waits until released."""
        release.wait(30)

    before = settled_abandoned_threads()
    error = registry.execute("hang").error
    assert error is not None and error.details["timeout_s"] == 0.05
    assert abandoned_threads() == before + 1  # the outer deadline left it; the inner never did
    release.set()
    assert wait_until(lambda: abandoned_threads() == before)


TRANSPARENT = (
    make(),
    make(ResultBudget(), Idempotency(), Retry(seed=0), Timeout(seconds=30)),
)


@settings(max_examples=120, deadline=None)
@given(name=names, args=arguments, run=st.none() | st.just("run-1"))
def test_the_robustness_stack_is_transparent_to_calls_that_succeed_in_time(
    name: Any, args: Any, run: str | None
) -> None:
    bare, stacked = TRANSPARENT
    assert envelope(stacked.execute(name, args, run_id=run)) == envelope(bare.execute(name, args))


SLOW_SQL = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


def _stops_at_the_deadline() -> Registry:
    import sqlite3

    from toolsys.layers import deadline

    cooperative = {"count_forever", "where_am_i"}
    registry = Registry(layers=[Timeout(seconds=DEADLINE, cooperative=cooperative)])

    @registry.tool
    def count_forever() -> int:
        """Counts without end; a progress handler stops the query at the call's deadline."""
        conn = sqlite3.connect(":memory:")
        end = deadline()
        assert end is not None
        conn.set_progress_handler(lambda: time.monotonic() > end, 1000)
        return conn.execute(SLOW_SQL).fetchone()[0]

    @registry.tool
    def where_am_i() -> int:
        """The thread it runs on."""
        return threading.get_ident()

    return registry


def test_a_cooperative_tool_that_stops_at_the_deadline_is_a_timeout_leaving_no_thread() -> None:
    registry = _stops_at_the_deadline()
    before = settled_abandoned_threads()
    started = time.monotonic()
    result = registry.execute("count_forever")
    took = time.monotonic() - started
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert result.error.details["stopped"] == "stopped itself"
    assert result.error.details["still_running"] is False
    assert "stopped itself at the deadline" in result.error.message
    assert abandoned_threads() == before
    assert took < HANG_GUARD  # stopped by its own check, not left to run


def test_a_cooperative_tool_runs_on_the_callers_thread_and_sees_no_deadline_outside() -> None:
    from toolsys.layers import deadline

    registry = _stops_at_the_deadline()
    assert registry.execute("where_am_i").value == threading.get_ident()
    assert deadline() is None


@pytest.mark.parametrize(("before", "outcome"), [(True, "TIMEOUT"), (False, "done")])
def test_a_slow_wait_below_a_cooperative_tool_is_cut_and_a_finished_tool_keeps_its_result(
    before: bool, outcome: str
) -> None:
    async def stalls(call: Any, call_next: Any) -> ToolResult:
        if before:
            await asyncio.sleep(HANG_GUARD)
        result = await call_next(call)
        await asyncio.sleep(HANG_GUARD)
        return result

    stalls.stage = "validated"  # type: ignore[attr-defined]
    registry = Registry(layers=[Timeout(seconds=DEADLINE, cooperative={"quick"}), stalls])

    @registry.tool
    def quick() -> str:
        """Returns at once."""
        return "done"

    started = time.monotonic()
    result = registry.execute("quick")
    assert time.monotonic() - started < HANG_GUARD
    if outcome == "TIMEOUT":  # cut before the tool ran: it was cancelled, nothing ran
        assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
        assert result.error.details["stopped"] == "cancelled"
    else:  # the tool had finished when the deadline cut the wait after it
        assert result.value == "done"


@pytest.mark.parametrize("cooperative", ["get_order", [1], {"a", None}])
def test_cooperative_must_name_tools(cooperative: Any) -> None:
    with pytest.raises(ValueError, match="give the names of tools"):
        Timeout(seconds=1, cooperative=cooperative)


def test_past_the_cap_of_abandoned_threads_a_sync_call_is_refused_as_overloaded() -> None:
    """Issue 26: 300 hung calls used to leave 301 threads; past the cap, none is started."""
    release = threading.Event()
    before = settled_abandoned_threads()
    cap = before + 3
    registry = Registry(layers=[Timeout(seconds=0.02, max_abandoned_threads=cap)])

    @registry.tool(idempotent=False)
    def stuck() -> str:
        """Waits until released."""
        release.wait(30)
        return "late"

    @registry.tool
    async def still_fine() -> str:
        """An async tool needs no thread: it is never refused."""
        return "fine"

    threads = threading.active_count()
    try:
        codes = [registry.execute("stuck").error.code for _ in range(40)]  # type: ignore[union-attr]
        assert codes == [ErrorCode.TIMEOUT] * 3 + [ErrorCode.OVERLOADED] * 37
        assert threading.active_count() <= threads + 3
        refused = registry.execute("stuck")
        error = refused.error
        assert error is not None and error.retryable is True
        assert error.details == {"abandoned_threads": cap, "limit": cap, "side_effects": "none"}
        assert "was not run" in error.message and f"limit is {cap}" in error.message
        assert "safe to repeat later" in error.suggestion
        assert registry.execute("still_fine").value == "fine"
    finally:
        release.set()
    assert wait_until(lambda: abandoned_threads() == before)
    assert registry.execute("stuck").value == "late"  # threads again once the hung ones ended


@pytest.mark.parametrize("bad", [0, -1, 1.5, "8", None, True])
def test_a_bad_cap_of_abandoned_threads_is_refused_with_the_value_named(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_abandoned_threads"):
        Timeout(seconds=1, max_abandoned_threads=bad)


@pytest.mark.timeout(60)
def test_an_interrupt_in_an_async_tools_task_reaches_the_awaiting_caller() -> None:
    registry = Registry(layers=[Timeout(seconds=5)])

    @registry.tool
    async def interrupted() -> str:
        """Raises KeyboardInterrupt after its first await."""
        await asyncio.sleep(0.001)
        raise KeyboardInterrupt

    async def caller() -> str:
        try:
            await registry.aexecute("interrupted")
        except KeyboardInterrupt:
            return "the caller heard it"
        return "nothing"

    assert asyncio.run(caller()) == "the caller heard it"  # not out of the loop past the caller


def _threads_start_when(gate: threading.Event, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker threads that start late, once `gate` is set: a loaded machine, made certain."""
    from toolsys import _workers

    hand_over = _workers.submit

    def late(job: Any) -> None:
        threading.Thread(target=lambda: (gate.wait(30), hand_over(job)), daemon=True).start()

    monkeypatch.setattr(_workers, "submit", late)


def test_a_thread_that_starts_after_its_deadline_is_counted_and_capped_from_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load a call's job can start on its worker thread after the call's deadline. It
    used to be counted only once it started: meanwhile `abandoned_threads()` missed it and the
    next calls started threads past the cap (the cap test above failed so on a busy machine)."""
    gate, release = threading.Event(), threading.Event()
    _threads_start_when(gate, monkeypatch)
    before = settled_abandoned_threads()
    registry = Registry(layers=[Timeout(seconds=0.02, max_abandoned_threads=before + 1)])
    ran: list[str] = []

    @registry.tool(idempotent=False)
    def stuck() -> str:
        """Waits until released."""
        ran.append("ran")
        release.wait(30)
        return "late"

    try:
        first = registry.execute("stuck")
        assert first.error is not None and first.error.code == ErrorCode.TIMEOUT
        assert first.meta["abandoned_thread"] is True and not ran  # its thread has not started
        assert abandoned_threads() == before + 1
        refused = registry.execute("stuck").error
        assert refused is not None and refused.code == ErrorCode.OVERLOADED
    finally:
        gate.set()
        release.set()
    assert wait_until(lambda: abandoned_threads() == before)
    assert ran == ["ran"]  # the refused call never ran


def test_a_late_thread_whose_call_fails_before_the_tool_runs_is_not_counted_forever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typing import Annotated

    from toolsys import Depends

    gate = threading.Event()
    _threads_start_when(gate, monkeypatch)
    before = settled_abandoned_threads()
    registry = Registry(layers=[Timeout(seconds=0.02)])

    @registry.tool
    def needs_a_db(db: Annotated[dict[str, int], Depends("db")]) -> int:
        """Reads the database nobody provided."""
        return len(db)

    result = registry.execute("needs_a_db")
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert abandoned_threads() == before + 1
    gate.set()  # its thread starts, and the call fails before the function is called
    assert wait_until(lambda: abandoned_threads() == before)
