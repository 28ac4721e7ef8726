"""Measure the core's costs against a hand-written tool call, in one run.

    python benchmarks/bench_core.py [--rounds 15]

For a small tool, for `find` (a four-value `Literal` whose default is not its first value, a bool
and an int with defaults, one of them left out) and for the shapes of `_shapes.py` (a nested model,
a str and a list[int], six optional fields all left out), none of which the fast path was tuned to,
it prints `execute` with a dict and with raw JSON against their peers (a bare
`Model.model_validate(args)` or `model_validate_json(raw)` followed by the call) and the ratios;
registering a catalog of 300 distinct docstring-annotated tools and exporting them in every format
(`_catalog.py`: no cache can answer for another tool), and the same catalog registered again (a
notebook cell run twice); export of 1,000 tools first and from the cache; then `execute` behind one
pass-through layer (the layered path's floor, issue 9's goal) and behind two (one per stage)
against the unlayered `execute`, from plain sync code and from sync code inside a running event
loop (a Jupyter cell).

Timing: CPU time of this process, and the paths interleaved round by round, each ratio the
median of the per-round ratios: on a shared 2-core machine wall time also counts the moments
another process held the core, and load that drifts during a run would otherwise land on one
side of a ratio only. Printed, never asserted.
Goals: execute <= 1.5x the peer on every shape (issues 18, 25); registration <= 500 us per
tool and 300 tools registered and exported <= 150 ms (issue 18); cached export of 1,000 tools
<= 1 ms; layered execute (one pass-through layer, either stage) <= 2.5x unlayered (issue 25).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import Callable
from typing import Literal

from _catalog import make_catalog
from _shapes import SHAPES
from _timing import interleaved, per_call_us, ratio
from pydantic import BaseModel

from toolsys import Registry
from toolsys.execution import Call, Next
from toolsys.export import TARGETS
from toolsys.result import ToolResult
from toolsys.tool import tool_from_function


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


class AddArgs(BaseModel):
    a: float
    b: float


Mode = Literal["fast", "safe", "deep", "exact"]


def find(query: str, mode: Mode = "safe", exact: bool = False, limit: int = 10) -> list[str]:
    """Find documents: a shape no benchmark was tuned to.

    Args:
        query: Words to look for.
        mode: How hard to look (four values; the default is not the first).
        exact: Match the words exactly.
        limit: How many results at most.
    """
    return [query] * (limit // 5)


class FindArgs(BaseModel):
    query: str
    mode: Mode = "safe"
    exact: bool = False
    limit: int = 10


async def received(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


async def validated(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


validated.stage = "validated"  # type: ignore[attr-defined]


def executing(registry: Registry, name: str, arguments: object) -> Callable[[], object]:
    """`registry.execute(name, arguments)` as a case, called through a lambda like the others."""
    return lambda: registry.execute(name, arguments)  # type: ignore[arg-type]


def median(values: list[float]) -> float:
    return statistics.median(values)


def register_catalog(tools: list[Callable[..., object]]) -> float:
    """CPU milliseconds to register `tools` in a new registry and export them in every format."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        registry = Registry()
        for fn in tools:
            registry.register(fn)
        for target in TARGETS:
            registry.export(target)
        return (time.process_time() - start) * 1000
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    registry = Registry()
    registry.tool(add)
    args = {"a": 1.5, "b": 2.0}
    raw = '{"a": 1.5, "b": 2.0}'

    def peer() -> float:
        model = AddArgs.model_validate(args)
        return add(model.a, model.b)

    def peer_json() -> float:
        model = AddArgs.model_validate_json(raw)
        return add(model.a, model.b)

    registry.tool(find)
    find_args = {"query": "agents", "mode": "deep", "limit": 20}  # `exact` left out
    find_raw = '{"query": "agents", "mode": "deep", "exact": true}'  # `limit` left out

    def peer_find() -> list[str]:
        model = FindArgs.model_validate(find_args)
        return find(model.query, model.mode, model.exact, model.limit)

    def peer_find_json() -> list[str]:
        model = FindArgs.model_validate_json(find_raw)
        return find(model.query, model.mode, model.exact, model.limit)

    cases: dict[str, Callable[[], object]] = {
        "peer": peer,
        "dict": lambda: registry.execute("add", args),
        "peer_json": peer_json,
        "json": lambda: registry.execute("add", raw),
        "peer_find": peer_find,
        "find": lambda: registry.execute("find", find_args),
        "peer_find_json": peer_find_json,
        "find_json": lambda: registry.execute("find", find_raw),
    }
    for name, shape in SHAPES.items():
        registry.tool(shape.tool)
        cases[f"peer_{name}"], cases[f"peer_{name}_json"] = shape.peers()
        cases[name] = executing(registry, name, shape.arguments)
        cases[f"{name}_json"] = executing(registry, name, shape.raw)
    calls = interleaved(cases, rounds)
    print(f"peer: model_validate + call      {median(calls['peer']):8.2f} us")
    print(f"execute(dict)                    {median(calls['dict']):8.2f} us   ratio ", end="")
    print(ratio(calls, "dict", "peer"))
    print(f"peer: model_validate_json + call {median(calls['peer_json']):8.2f} us")
    print(f"execute(raw JSON)                {median(calls['json']):8.2f} us   ratio ", end="")
    print(ratio(calls, "json", "peer_json"))
    for name, label in (
        (
            "find",
            "find(query, mode: 4-value Literal = 'safe', exact=False, limit=10), one left out:",
        ),
        *((name, f"{shape.label}:") for name, shape in SHAPES.items()),
    ):
        print(label)
        for case, what in ((name, "dict"), (f"{name}_json", "raw JSON")):
            peer_label = f"model_validate{'_json' if case != name else ''} + call"
            print(f"  peer: {peer_label:<27}{median(calls[f'peer_{case}']):8.2f} us")
            print(
                f"  execute({what}){'':<{24 - len(what)}}{median(calls[case]):8.2f} us   ratio ",
                end="",
            )
            print(ratio(calls, case, f"peer_{case}"))

    fresh, again = [], []
    for i in range(max(3, rounds // 3)):
        catalog = make_catalog(300, f"search{i}")
        fresh.append(register_catalog(catalog))
        again.append(register_catalog(catalog))
    print(
        f"300 distinct tools, register + export all formats {median(fresh):7.1f} ms "
        f"({median(fresh) / 300 * 1000:.0f} us/tool; range {min(fresh):.0f}-{max(fresh):.0f} ms)"
    )
    print(
        f"  the same 300 registered again              {median(again):7.1f} ms "
        f"({median(again) / 300 * 1000:.0f} us/tool)"
    )
    build_us = per_call_us(lambda: tool_from_function(add), number=200)
    print(f"tool_from_function(add), again and again  {build_us:8.1f} us")

    many = Registry()
    for i in range(1000):
        many.register(add, name=f"add_{i}")
    many.export("openai")
    export_ms = per_call_us(lambda: many.export("openai"), number=1000) / 1000
    first_export_ms = per_call_us(lambda: (many._exports.clear(), many.export("openai")), 5) / 1000

    print(f"export 1,000 tools, first time   {first_export_ms:8.3f} ms")
    print(f"export 1,000 tools, from cache   {export_ms:8.5f} ms")

    one_layer = Registry(layers=[validated])
    received_layer = Registry(layers=[received])
    two_layers = Registry(layers=[received, validated])
    for built in (one_layer, received_layer, two_layers):
        built.tool(add)
    paths = {
        "bare": lambda: registry.execute("add", args),
        "one": lambda: one_layer.execute("add", args),
        "received": lambda: received_layer.execute("add", args),
        "two": lambda: two_layers.execute("add", args),
    }

    async def inside_a_running_loop() -> dict[str, list[float]]:
        return interleaved(paths, rounds, number=2_000)

    for where, times in (
        ("", interleaved(paths, rounds, number=2_000)),
        (" inside a running loop", asyncio.run(inside_a_running_loop())),
    ):
        print(f"{'execute(dict), no layer' + where:<50} {median(times['bare']):8.2f} us")
        for case, label, note in (
            ("one", f"execute(dict), 1 validated layer{where}", " (goal <= 2.5x)"),
            ("received", f"execute(dict), 1 received layer{where}", " (goal <= 2.5x)"),
            ("two", f"  2 layers (one per stage){where}", ""),
        ):
            print(f"{label:<50} {median(times[case]):8.2f} us   ratio ", end="")
            print(ratio(times, case, "bare") + note)


if __name__ == "__main__":
    main()
