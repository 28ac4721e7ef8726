"""toolsys next to its peers: the same tool, each library's own call path, in one run.

    pip install -e '.[bench]'          # smolagents, langchain-core, openai-agents, pydantic-ai-slim
    python benchmarks/bench_peers.py   # [--rounds 15] [--quick]

Every library registers the same `search(query, limit=5, sort="relevance")` tool
(`_search_tool.py`) and runs it the way its documentation shows (`_peers.py`: toolsys
`Registry.execute`, smolagents `execute_tool_call`, openai-agents `FunctionTool.on_invoke_tool`,
pydantic-ai `ToolManager.handle_call`, mcp `MCPServer.call_tool` and `Client.call_tool`,
langchain-core `StructuredTool.invoke`). Each path is timed as the median per call over
`--rounds` rounds, wall clock and process CPU time, with the garbage collector paused as in
`timeit`; the rounds interleave all paths and a bare pydantic `model_validate` + call
(`model_validate_json` for JSON input), and each ratio is the median of the per-round ratios, so
a machine whose load drifts during the run still compares like with like. Registration (schema +
validator + the schema the model is sent) is timed the same way on fresh copies of the function:
toolsys builds a simple signature's model and validator on the tool's first call, so a second
toolsys row adds one call per tool. Then 300 fresh tools are registered in one registry and
exported (the size of a large catalog), with and without one call each.
Last, the import time of toolsys beyond pydantic (`bench_import.py`).

Each path is also probed once with a bad enum value, "2" for an integer and an unknown
argument, and with a good call to see which thread runs the tool: the table shows what each path
checks and where it runs the tool, measured rather than claimed. Async paths run on one event
loop kept for the whole run (set-up such as opening an MCP client session is not timed).
A peer that is not installed is skipped with a line saying so; the toolsys rows always run.
Offline: no model is ever called, no network is used. Numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import gc
import logging
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import _peers
from _peers import Path, Peer
from _search_tool import SEEN, make_search
from bench_import import import_ms

GOOD = {"query": "agents", "limit": 3, "sort": "date"}
Elapsed = tuple[float, float]  # seconds: wall clock, CPU time of the whole process
PROBES = {
    "enum": {"query": "q", "sort": "bogus"},
    "int": {"query": "q", "limit": "2"},
    "extra": {"query": "q", "page": 2},
}


class AsyncRunner:
    """Runs one async path's calls in batches on a loop that outlives the batches.

    A worker task enters the path's context once (e.g. an MCP client session) and serves batch
    requests, so set-up stays untimed and every batch runs in the same task.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, context: Any) -> None:
        self._loop = loop
        self._requests: asyncio.Queue[tuple[int, asyncio.Future[Elapsed]] | None] = asyncio.Queue()
        self._task = loop.create_task(self._serve(context))

    async def _serve(self, context: Any) -> None:
        async with context as call:
            while (job := await self._requests.get()) is not None:
                n, done = job
                try:
                    start = clocks()
                    for _ in range(n):
                        await call()
                    done.set_result(since(start))
                except Exception as error:
                    done.set_exception(error)

    def batch(self, n: int) -> Elapsed:
        done = self._loop.create_future()
        self._requests.put_nowait((n, done))
        return self._loop.run_until_complete(done)

    def close(self) -> None:
        self._requests.put_nowait(None)
        self._loop.run_until_complete(self._task)


def clocks() -> Elapsed:
    return time.perf_counter(), time.process_time()


def since(start: Elapsed) -> Elapsed:
    wall, cpu = clocks()
    return wall - start[0], cpu - start[1]


def sync_batch(call: Callable[[], object]) -> Callable[[int], Elapsed]:
    def batch(n: int) -> Elapsed:
        start = clocks()
        for _ in range(n):
            call()
        return since(start)

    return batch


def without_gc(batch: Callable[[int], Elapsed], n: int) -> Elapsed:
    """One batch with the garbage collector paused, as `timeit` does."""
    gc.disable()
    try:
        return batch(n)
    finally:
        gc.enable()


def calibrate(batch: Callable[[int], Elapsed], target: float) -> int:
    """The number of calls that takes at least `target` seconds (also warms the path up)."""
    n = 1
    while without_gc(batch, n)[0] < target and n < 1_000_000:
        n *= 2
    return n


@dataclass
class Row:
    peer: str
    label: str
    arguments: str
    is_async: bool
    batch: Callable[[int], Elapsed]
    n: int = 0
    per_call: list[Elapsed] = field(default_factory=list)
    checks: dict[str, str] = field(default_factory=dict)


def probe(path: Path, loop: asyncio.AbstractEventLoop) -> dict[str, str]:
    """What the path does with bad input, and which thread runs the tool."""

    def ran(arguments: dict[str, Any]) -> tuple[int, object, object] | None:
        SEEN.clear()
        with contextlib.suppress(Exception):
            if path.is_async:

                async def once() -> None:
                    async with path.build(arguments) as call:
                        await call()

                loop.run_until_complete(once())
            else:
                path.build(arguments)()
        return SEEN.get("call")

    enum = ran(PROBES["enum"])
    as_text = ran(PROBES["int"])
    extra = ran(PROBES["extra"])
    good = ran(GOOD)
    thread = None if good is None else good[0] == threading.get_ident()
    return {
        "enum": "checked" if enum is None else "NOT checked",
        "int": "rejected" if as_text is None else ("coerced" if as_text[1] == 2 else "passed on"),
        "extra": "rejected" if extra is None else "ignored",
        "thread": {None: "?", True: "caller", False: "worker"}[thread],
    }


def time_calls(peers: list[Peer], rounds: int, target: float) -> list[Row]:
    loop = asyncio.new_event_loop()
    rows: list[Row] = []
    runners: list[AsyncRunner] = []
    try:
        for peer in peers:
            for path in peer.paths:
                if path.is_async:
                    runner = AsyncRunner(loop, path.build(GOOD))
                    runners.append(runner)
                    batch = runner.batch
                else:
                    batch = sync_batch(path.build(GOOD))
                row = Row(peer.name, path.label, path.arguments, path.is_async, batch)
                row.checks = probe(path, loop)
                row.n = calibrate(batch, target)
                rows.append(row)
        for _ in range(rounds):
            for row in rows:
                wall, cpu = without_gc(row.batch, row.n)
                row.per_call.append((wall / row.n, cpu / row.n))
    finally:
        for runner in runners:
            runner.close()
        loop.close()
    return rows


def medians(samples: list[Elapsed], reference: list[Elapsed]) -> tuple[float, ...]:
    """Median wall and CPU µs, then the medians of the per-round ratios to the reference."""
    pairs = list(zip(samples, reference, strict=True))
    return (
        statistics.median(wall for wall, _ in samples) * 1e6,
        statistics.median(a[0] / b[0] for a, b in pairs),
        statistics.median(cpu for _, cpu in samples) * 1e6,
        statistics.median(a[1] / b[1] for a, b in pairs),
    )


def time_registration(peers: list[Peer], rounds: int, per_batch: int) -> dict[str, list[Elapsed]]:
    """Per-tool registration times per round, each batch on fresh copies of `search`."""
    samples: dict[str, list[Elapsed]] = {peer.name: [] for peer in peers}
    copies = {
        peer.name: [
            [make_search(f"search_{index}_{r}_{i}") for i in range(per_batch)]
            for r in range(rounds + 1)
        ]
        for index, peer in enumerate(peers)
    }
    for peer in peers:
        peer.register(copies[peer.name][rounds])  # warm-up: first-use imports and caches
    for r in range(rounds):
        for peer in peers:
            gc.disable()
            try:
                start = clocks()
                peer.register(copies[peer.name][r])
                wall, cpu = since(start)
                samples[peer.name].append((wall / per_batch, cpu / per_batch))
            finally:
                gc.enable()
    return samples


def time_catalog(size: int, rounds: int, gc_paused: bool) -> tuple[Elapsed, Elapsed]:
    """Median seconds (wall, CPU) to register `size` fresh tools in one registry and export them
    all, and to do that and then call each tool once (its validator is built on that call)."""
    peers = [_peers.toolsys(), _peers.toolsys_first_call()]
    samples: list[list[Elapsed]] = [[], []]
    for r in range(rounds):
        for index, peer in enumerate(peers):
            functions = [make_search(f"catalog_{index}_{r}_{i}") for i in range(size)]
            gc.collect()
            if gc_paused:
                gc.disable()
            try:
                start = clocks()
                peer.register(functions)
                samples[index].append(since(start))
            finally:
                gc.enable()
    return tuple(  # type: ignore[return-value]
        (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for s in samples
    )


def report_catalog(size: int, rounds: int) -> None:
    print(f"A catalog: {size} fresh tools registered and exported (median of {rounds} rounds):")
    print()
    print("| toolsys | GC | ms | CPU ms |")
    print("|---|---|---:|---:|")
    for gc_paused in (True, False):
        plain, called = time_catalog(size, rounds, gc_paused)
        label = "paused" if gc_paused else "running"
        for what, (wall, cpu) in (("", plain), (" + one call each", called)):
            print(
                f"| register + export('openai'){what} | {label} "
                f"| {wall * 1e3:.0f} | {cpu * 1e3:.0f} |"
            )
    print()
    print("(goal: register + export of 300 tools <= 150 ms)")


def report(
    rows: list[Row], registration: dict[str, list[Elapsed]], peers: list[Peer], per_batch: int
) -> None:
    reference = {row.arguments: row.per_call for row in rows if row.peer == "pydantic"}
    print(
        "| path | args | API | µs/call | × pydantic | CPU µs | CPU × | enum values "
        "| '2' for int | unknown arg | tool runs in |"
    )
    print("|---|---|---|---:|---:|---:|---:|---|---|---|---|")
    for row in rows:
        wall, ratio, cpu, cpu_ratio = medians(row.per_call, reference[row.arguments])
        checks, api = row.checks, "async" if row.is_async else "sync"
        print(
            f"| {row.label} | {row.arguments} | {api} | {wall:.2f} | {ratio:.2f} | {cpu:.2f} "
            f"| {cpu_ratio:.2f} | {checks['enum']} | {checks['int']} | {checks['extra']} "
            f"| {checks['thread']} thread |"
        )
    print()
    print(f"Registration, per tool (batches of {per_batch} fresh functions):")
    print()
    print("| library | what is timed | µs/tool | × pydantic | CPU µs | CPU × |")
    print("|---|---|---:|---:|---:|---:|")
    for peer in peers:
        wall, ratio, cpu, cpu_ratio = medians(registration[peer.name], registration["pydantic"])
        print(
            f"| {peer.name} | {peer.register_note} | {wall:.0f} | {ratio:.2f} | {cpu:.0f} "
            f"| {cpu_ratio:.2f} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="timing rounds (default 15)")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run, numbers rough")
    parser.add_argument("--import-runs", type=int, help="fresh processes (15; --quick: 2)")
    options = parser.parse_args(argv)
    rounds, target, per_batch = (2, 0.001, 2) if options.quick else (options.rounds, 0.02, 10)
    import_runs = options.import_runs or (2 if options.quick else 15)
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    for noisy in ("mcp", "openai.agents"):  # probes make them log the rejected calls
        logging.getLogger(noisy).setLevel(logging.CRITICAL)

    load_before = os.getloadavg()
    peers, skipped = _peers.load(_peers.PEERS)
    peers = [_peers.baseline(), _peers.toolsys(), *peers]
    versions = ", ".join(f"{peer.name} {peer.version}" for peer in peers)
    print(
        f"bench_peers {datetime.date.today()} · Python {platform.python_version()} · "
        f"{os.cpu_count()} cores · {rounds} rounds"
    )
    print(f"versions: {versions}")
    for line in skipped:
        print(line)
    print()
    rows = time_calls(peers, rounds, target)
    registering = [*peers[:2], _peers.toolsys_first_call(), *peers[2:]]
    registration = time_registration(registering, rounds, per_batch)
    report(rows, registration, registering, per_batch)
    print()
    report_catalog(300, 2 if options.quick else 7)
    print()
    for peer in peers[1:]:
        for note in peer.notes:
            print(f"- {note}")
    print()
    print(f"import: {import_ms(import_runs)}")
    print(f"(medians of {import_runs} fresh processes; goal: toolsys adds <= 50 ms)")
    load_after = os.getloadavg()
    print(
        "load average (1, 5, 15 min): "
        f"{' '.join(f'{x:.2f}' for x in load_before)} before, "
        f"{' '.join(f'{x:.2f}' for x in load_after)} after"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
