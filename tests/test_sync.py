"""`run_sync`: a coroutine run from sync code behaves as it would inside a task."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

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
