"""Measure the core's costs against a hand-written tool call, in one run.

    python benchmarks/bench_core.py

For a small tool it prints `execute` with a dict and with raw JSON against their peers (a bare
`Model.model_validate(args)` or `model_validate_json(raw)` followed by the call) and the ratios,
schema generation per tool, and export of 1,000 tools first and from the cache; then `execute`
behind two pass-through layers (one per stage) against the unlayered `execute`, from plain sync
code and from sync code inside a running event loop (a Jupyter cell).
Goals: execute overhead <= 3x the peer (issue 2); cached export of 1,000 tools <= 1 ms; layered
execute <= 3x unlayered (issue 9).
"""

from __future__ import annotations

import asyncio
import time
import timeit
from collections.abc import Callable

from pydantic import BaseModel

from toolsys import Registry
from toolsys.execution import Call, Next
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


async def received(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


async def validated(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


validated.stage = "validated"  # type: ignore[attr-defined]


def per_call_us(fn: Callable[[], object], number: int = 20_000, repeat: int = 9) -> float:
    """CPU time of one call in microseconds: the fastest of `repeat` runs, the least disturbed.

    CPU time of this process (`time.process_time`), not wall time: on a shared 2-core machine
    wall time also counts the moments another process held the core, and the ratios swing
    by 2-3x from run to run; CPU time keeps them within a few percent.
    """
    timer = timeit.Timer(fn, timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeat)) / number * 1e6


def main() -> None:
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

    peer_us = per_call_us(peer)
    peer_json_us = per_call_us(peer_json)
    dict_us = per_call_us(lambda: registry.execute("add", args))
    json_us = per_call_us(lambda: registry.execute("add", raw))
    build_us = per_call_us(lambda: tool_from_function(add), number=200)

    many = Registry()
    for i in range(1000):
        many.register(add, name=f"add_{i}")
    many.export("openai")
    export_ms = per_call_us(lambda: many.export("openai"), number=1000) / 1000
    first_export_ms = per_call_us(lambda: (many._exports.clear(), many.export("openai")), 5) / 1000

    print(f"peer: model_validate + call      {peer_us:8.2f} us")
    print(f"execute(dict)                    {dict_us:8.2f} us   ratio {dict_us / peer_us:4.2f}x")
    print(f"peer: model_validate_json + call {peer_json_us:8.2f} us")
    print(
        f"execute(raw JSON)                {json_us:8.2f} us   ratio {json_us / peer_json_us:4.2f}x"
    )
    print(f"schema generation per tool       {build_us:8.1f} us")
    print(f"export 1,000 tools, first time   {first_export_ms:8.3f} ms")
    print(f"export 1,000 tools, from cache   {export_ms:8.5f} ms")

    layered = Registry(layers=[received, validated])
    layered.tool(add)
    layered_us = per_call_us(lambda: layered.execute("add", args))
    ratio = layered_us / dict_us
    print(f"execute(dict), 2 layers          {layered_us:8.2f} us   ratio {ratio:4.2f}x")

    async def inside_a_running_loop() -> tuple[float, float]:
        return per_call_us(lambda: registry.execute("add", args)), per_call_us(
            lambda: layered.execute("add", args)
        )

    bare_in_loop, layered_in_loop = asyncio.run(inside_a_running_loop())
    print(
        f"  the same inside a running loop {layered_in_loop:8.2f} us   "
        f"ratio {layered_in_loop / bare_in_loop:4.2f}x"
    )


if __name__ == "__main__":
    main()
