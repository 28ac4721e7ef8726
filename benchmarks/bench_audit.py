"""Measure what the audit log costs per call, against the bare registry.

    python benchmarks/bench_audit.py

Printed, all in the same run, per tool (a trivial sync tool, a trivial async tool, a sync tool
that waits 1 ms for I/O as real tools do): `execute` on the bare registry, with one
pass-through "received" layer (the layered path's own floor), with `AuditLog` to a file (no
fsync, the default) and with `AuditLog(fsync=True)`; the ratio of the audit log to the bare
registry and to the floor. Then the cost of one record alone (built, redacted, sealed and
appended), and whether the file verifies.

Goal (issue 13): policy + audit <= 2x the bare registry without fsync. Read the ratio with the
floor in mind: any layer moves a sync call onto the async path, which costs more than a
trivial tool; against a tool that does real work (1 ms of I/O) the audit log is a few percent.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path

from toolsys import Registry
from toolsys.execution import Call, Next
from toolsys.governance import AuditLog
from toolsys.governance.audit import verify
from toolsys.result import ToolResult

ARGS = {"a": 1.5, "b": 2.0, "note": "a short note", "password": "hunter2-hunter2"}


def add(a: float, b: float, note: str = "", password: str = "") -> float:
    """Add two numbers.

    Args:
        a: First addend.
        b: Second addend.
        note: Anything.
        password: A secret the log must not keep.
    """
    return a + b


async def add_async(a: float, b: float, note: str = "", password: str = "") -> float:
    """Add two numbers, asynchronously.

    Args:
        a: First addend.
        b: Second addend.
        note: Anything.
        password: A secret the log must not keep.
    """
    return a + b


def fetch(a: float, b: float, note: str = "", password: str = "") -> float:
    """Add two numbers after a 1 ms wait, as a tool that calls a service would.

    Args:
        a: First addend.
        b: Second addend.
        note: Anything.
        password: A secret the log must not keep.
    """
    time.sleep(0.001)
    return a + b


async def passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


def registry(layers: list[object]) -> Registry:
    built = Registry(layers=layers)  # type: ignore[arg-type]
    for fn in (add, add_async, fetch):
        built.tool(fn)
    return built


def per_call_us(fn: Callable[[], object], number: int, repeat: int = 5) -> float:
    """Time of one call in microseconds: the fastest of `repeat` runs, the least disturbed."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        log = AuditLog(Path(folder) / "audit.jsonl")
        synced = AuditLog(Path(folder) / "synced.jsonl", fsync=True)
        bare, floor, audited, durable = (
            registry([]),
            registry([passthrough]),
            registry([log]),
            registry([synced]),
        )
        print(
            f"{'tool':<12}{'bare':>10}{'1 layer':>10}{'audit':>10}{'fsync':>12}"
            f"{'audit/bare':>12}{'audit/floor':>13}"
        )
        for name, number in (("add", 2000), ("add_async", 2000), ("fetch", 200)):
            times = [
                per_call_us(lambda r=r, n=name: r.execute(n, ARGS), number)
                for r in (bare, floor, audited)
            ]
            fsync_us = per_call_us(lambda n=name: durable.execute(n, ARGS), 50, repeat=3)
            print(
                f"{name:<12}{times[0]:>8.1f}us{times[1]:>8.1f}us{times[2]:>8.1f}us"
                f"{fsync_us:>10.1f}us{times[2] / times[0]:>11.2f}x{times[2] / times[1]:>12.2f}x"
            )
        record_us = per_call_us(lambda: one_record(log), 2000)
        print(f"one record alone (build, redact, seal, append): {record_us:.1f}us")
        result = verify(Path(folder) / "audit.jsonl")
        print(f"the log verifies: {result}")
        secret_count = (Path(folder) / "audit.jsonl").read_text().count("hunter2-hunter2")
        print(f"the planted password appears {secret_count} times in it")


def one_record(log: AuditLog) -> None:
    call = Call("add", ARGS)
    log._journal.append(log.record(call, None, ToolResult(True, 3.5), 0.000_01))


if __name__ == "__main__":
    asyncio.run(asyncio.sleep(0))  # the event-loop machinery is imported before timing starts
    main()
