"""Measure what the robustness stack costs per successful call, against the bare registry.

    python benchmarks/bench_layers.py

The stack is the recommended one: ResultBudget, Idempotency, Retry, Timeout. Every call
succeeds (no retries, no cuts), so this is pure overhead. Printed, all in the same run:

- per tool kind (a trivial sync tool, a trivial async tool, a sync tool that waits 1 ms for
  I/O as real tools do), `execute` on the bare registry, with one pass-through layer (the
  layered path's own floor), with the stack minus Timeout, and with the full stack; the
  ratio of the full stack to the bare registry;
- keyed writes (a fresh idempotency key per call) with MemoryStore and SQLiteStore;
- the abandoned-thread count while a hung tool runs past its deadline, and after it ends.

Goal (issue 12): the full stack <= 2x the bare registry. Read the ratios with the floor in
mind: a Timeout on a sync tool runs it on its own thread (that is what lets a deadline leave a
hung tool behind), and a thread handoff costs ~100-200 us, far more than a trivial tool.
"""

from __future__ import annotations

import asyncio
import itertools
import platform
import statistics
import tempfile
import threading
import time
from asyncio.events import _set_running_loop as set_running_loop
from collections.abc import Callable
from pathlib import Path

from _timing import interleaved, per_call_us, ratio

from toolsys import Category, Registry
from toolsys.execution import Call, Next
from toolsys.layers import Idempotency, ResultBudget, Retry, Timeout, abandoned_threads
from toolsys.result import ToolResult
from toolsys.stores import MemoryStore, SQLiteStore, Store


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


async def add_async(a: float, b: float) -> float:
    """Add two numbers, asynchronously.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


def fetch(a: float, b: float) -> float:
    """Add two numbers after a 1 ms wait, as a tool that calls a service would.

    Args:
        a: First addend.
        b: Second addend.
    """
    time.sleep(0.001)
    return a + b


def refund(a: float, b: float) -> float:
    """A write (not idempotent): every call carries its own idempotency key.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


ROUNDS = 21  # of the layered floor: the median of 21 per-round ratios


async def passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


passthrough.stage = "validated"  # type: ignore[attr-defined]


def stack(store: Store | None = None) -> list[object]:
    return [
        ResultBudget(max_chars=4000),
        Idempotency(store or MemoryStore()),
        Retry(max_attempts=4, base_delay=0.5, max_delay=5.0, seed=0),
        Timeout(seconds=10),
    ]


def registry(layers: list[object]) -> Registry:
    built = Registry(layers=layers)  # type: ignore[arg-type]
    for fn in (add, add_async, fetch):
        built.tool(fn)
    built.register(refund, category=Category.WRITE)
    return built


def wall_us(fn: Callable[[], object], number: int) -> float:
    """Wall-clock microseconds of one call, the fastest of five runs (the stack's table)."""
    return per_call_us(fn, number, repeat=5, timer=time.perf_counter)


def main() -> None:
    args = {"a": 1.5, "b": 2.0}
    bare, floor_registry, full = registry([]), registry([passthrough]), registry(stack())
    no_deadline = registry(stack()[:3])
    print(
        f"{'tool':<34}{'bare':>10}{'1 layer':>10}{'no Timeout':>12}{'full stack':>12}{'ratio':>10}"
    )
    ratios: dict[str, float] = {}
    for name, number in (("add", 2000), ("add_async", 2000), ("fetch", 200)):
        times = [
            wall_us(lambda r=r, n=name: r.execute(n, args), number)
            for r in (bare, floor_registry, no_deadline, full)
        ]
        print(
            f"{name:<34}{times[0]:>8.1f}us{times[1]:>8.1f}us{times[2]:>10.1f}us"
            f"{times[3]:>10.1f}us{times[3] / times[0]:>9.2f}x"
        )
        ratios[name] = times[3] / times[0]
    keys = itertools.count()
    with tempfile.TemporaryDirectory() as folder:
        for label, store in (
            ("MemoryStore", MemoryStore()),
            ("SQLiteStore", SQLiteStore(Path(folder) / "durable.db")),
            ("SQLite, durable=False", SQLiteStore(Path(folder) / "fast.db", durable=False)),
        ):
            keyed = registry(stack(store))
            write_us = wall_us(
                lambda k=keyed: k.execute("refund", args, idempotency_key=f"k{next(keys)}"), 300
            )
            bare_us = wall_us(lambda: bare.execute("refund", args), 2000)
            print(
                f"{'refund, keyed, ' + label:<34}{bare_us:>8.1f}us{'':>22}{write_us:>10.1f}us"
                f"{write_us / bare_us:>9.2f}x"
            )

    paths: dict[str, Callable[[], object]] = {
        "bare": lambda: bare.execute("add", args),
        "layered": lambda: floor_registry.execute("add", args),
    }

    def timed(timer: Callable[[], float]) -> dict[str, list[float]]:
        return interleaved(paths, ROUNDS, timer=timer)

    async def in_a_notebook(timer: Callable[[], float]) -> dict[str, list[float]]:
        return timed(timer)  # execute from sync code while the thread's loop runs, as in Jupyter

    floors: dict[str, dict[str, list[float]]] = {}
    for where, clock, timer in (
        ("", "wall", time.perf_counter),
        ("", "CPU", time.thread_time),
        ("inside a running loop, ", "wall", time.perf_counter),
    ):
        times = asyncio.run(in_a_notebook(timer)) if where else timed(timer)
        floors[where + clock] = times
        layered, alone = statistics.median(times["layered"]), statistics.median(times["bare"])
        print(
            f"layered floor (one pass-through layer, add; {where}{clock} time, {ROUNDS} rounds): "
            f"{layered:.2f}us / {alone:.2f}us"
            f", the bare registry's {ratio(times, 'layered', 'bare')} (median of the per-round "
            "ratios, their range; goal <= 2.5x, issue 25)"
        )
    switch = running_loop_switch()
    times = floors["CPU"]
    without = statistics.median(
        (layered - switch) / alone
        for layered, alone in zip(times["layered"], times["bare"], strict=True)
    )
    print(
        f"  of which the running loop set and set back, once per layered call: {switch:.2f}us "
        f"on Python {platform.python_version()} (a getpid syscall each time before 3.12); "
        f"the CPU-time floor without it: {without:.2f}x"
    )
    met = [name for name, ratio in ratios.items() if ratio <= 2] or ["none"]
    print(f"goal: full stack <= 2x the bare registry (issue 12); met by: {', '.join(met)}")
    abandoned_thread_demo()


def running_loop_switch() -> float:
    """Microseconds a layered call from sync code spends making its loop the running one and
    back (`toolsys._sync.run_sync`): the median of `ROUNDS` rounds, in CPU time.

    Python 3.11 records the process id with a running loop, with a getpid syscall each time;
    on a virtual machine where syscalls are slow that is a large part of the layered floor.
    """
    loop = asyncio.new_event_loop()

    def switch() -> None:
        set_running_loop(loop)
        set_running_loop(None)

    try:
        times = interleaved({"switch": switch}, ROUNDS, timer=time.thread_time)
        return statistics.median(times["switch"])
    finally:
        loop.close()


def abandoned_thread_demo() -> None:
    release = threading.Event()
    demo = Registry(layers=[Timeout(seconds=0.05)])

    @demo.tool
    def hang() -> str:
        """Waits until released."""
        release.wait(60)
        return "late"

    before = abandoned_threads()
    result = demo.execute("hang")
    during = abandoned_threads() - before
    release.set()
    ended = time.monotonic()
    while abandoned_threads() > before and time.monotonic() - ended < 10:
        time.sleep(0.001)
    after = abandoned_threads() - before
    waited_ms = (time.monotonic() - ended) * 1000
    code = result.error.code if result.error else "ok"
    print(
        f"abandoned threads: {during} after the {code} (meta abandoned_thread="
        f"{result.meta['abandoned_thread']}), {after} once the tool ended ({waited_ms:.1f} ms)"
    )


if __name__ == "__main__":
    asyncio.run(asyncio.sleep(0))  # the event-loop machinery is imported before timing starts
    main()
