"""Measure the capstone: the whole scenario suite, and what every layer costs per shop call.

    python benchmarks/bench_shop.py [--rounds 5] [--calls 300]

Printed, all in the same run:
- the scenario suite (`toolsys.shop.runner.run_all`: a fresh SQLite shop per scenario, every
  layer on, the invariant queries after every tool call): wall time and CPU time, how many
  invariant checks ran and how many broke (must be 0), how many scenarios passed;
- one `get_order` call (a real SQLite read) on the bare registry (the tools, no layer), then
  with the layers of `toolsys.shop.agent.build` added one at a time, innermost first (timeout,
  retry, policy, hooks, the audit log to a file without fsync: the last row is the full
  stack); per call, wall and CPU, best of `--rounds`, and the ratio to the bare registry.

Goals (issue 17): the suite in under 30 s on 2 cores; the full stack at most 2x the bare
registry per call. A shop call does real work (a connection, a query, a transaction), so the
ratio is what the layers add to a tool that touches a database, not to an empty function.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolsys import Registry
from toolsys.governance import AuditLog, Hooks, Policy
from toolsys.layers import Retry, Timeout
from toolsys.shop import Shop, create
from toolsys.shop.agent import GRANTS, build, hide_personal, refund_rule
from toolsys.shop.runner import run_all
from toolsys.shop.scenarios import CHLOE, SCENARIOS
from toolsys.shop.tools import tools

GOAL_SUITE_S = 30.0
GOAL_RATIO = 2.0


def bare(shop: Shop, layers: list[Any] | None = None) -> Registry:
    registry = Registry(layers=layers)
    registry.provide(shop=shop)
    for fn, options in tools():
        registry.register(fn, **options)
    return registry


def per_call(registry: Registry, calls: int, rounds: int) -> tuple[float, float]:
    """Best-of-`rounds` (wall µs, CPU µs) per get_order call as Chloe."""
    arguments = {"order_id": "ORD-1003"}
    result = registry.execute("get_order", arguments, context=CHLOE)
    assert result.ok, result.error
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            registry.execute("get_order", arguments, context=CHLOE)
        walls.append((time.perf_counter() - wall) / calls * 1e6)
        cpus.append((time.process_time() - cpu) / calls * 1e6)
    return min(walls), min(cpus)


def suite() -> tuple[float, float, list[Any]]:
    wall, cpu = time.perf_counter(), time.process_time()
    outcomes = run_all(SCENARIOS)
    return time.perf_counter() - wall, time.process_time() - cpu, outcomes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="repeats; the best is kept")
    parser.add_argument("--calls", type=int, default=300, help="calls per repeat")
    args = parser.parse_args(argv)

    wall, cpu, outcomes = suite()
    checks = sum(o.calls for o in outcomes)
    broken = sum(len(o.violations) for o in outcomes)
    passed = sum(o.passed for o in outcomes)
    print(f"scenario suite: {len(outcomes)} scenarios, {passed} pass")
    print(f"  wall {wall:.2f} s, CPU {cpu:.2f} s (goal: under {GOAL_SUITE_S:.0f} s)")
    print(f"  invariant checks after every call: {checks} checks, {broken} violations")

    with tempfile.TemporaryDirectory(prefix="toolsys-bench-shop-") as folder:
        shop = create(Path(folder) / "shop.db")
        policy = Policy(rules={"refund_order": refund_rule()}, grants=GRANTS)
        audit = AuditLog(Path(folder) / "audit.jsonl")
        layers: list[Any] = [Timeout(seconds=2.0), Retry(seed=0), policy]
        layers += [Hooks(after=[hide_personal]), audit]
        stacks: list[tuple[str, Callable[[], Registry]]] = [("bare registry", lambda: bare(shop))]
        for n, layer in enumerate(layers, start=1):
            label = ("+ " if n < len(layers) else "+ (full stack) ") + type(layer).__name__
            stacks.append((label, lambda n=n: bare(shop, layers[:n][::-1])))
        stacks.append(("build(shop, audit=...)", lambda: build(shop, audit=folder + "/b.jsonl")))
        print(f"\nget_order as a customer, best of {args.rounds} x {args.calls} calls:")
        print(f"  {'stack':<30} {'wall µs':>9} {'CPU µs':>9} {'wall x':>7} {'CPU x':>7}")
        floor: tuple[float, float] | None = None
        for label, make in stacks:
            us = per_call(make(), args.calls, args.rounds)
            floor = floor or us
            print(
                f"  {label:<30} {us[0]:>9.1f} {us[1]:>9.1f} "
                f"{us[0] / floor[0]:>7.2f} {us[1] / floor[1]:>7.2f}"
            )
    print(f"\ngoal: full stack <= {GOAL_RATIO:.0f}x the bare registry per call")


if __name__ == "__main__":
    main()
