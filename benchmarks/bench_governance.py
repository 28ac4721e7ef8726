"""Measure what governance (policy + audit log) costs per call, against the bare registry.

    python benchmarks/bench_governance.py [--rounds 100]

Printed, all in the same run:
1. The goal of issue 13: `Policy()` + `AuditLog` (to a file, no fsync) against the bare
   registry, for three tools: (a) a trivial sync tool (the honest floor: nothing to hide the
   overhead behind), (b) a SQLite read, the shop's `get_order` as a customer (what a real READ
   tool does: a connection, two queries), (c) a sync tool that waits 1 ms (a call to a
   service). Columns: bare, one pass-through layer (the layered path's own floor: any layer
   moves a sync call onto it), the policy alone, the audit log alone, both; the ratio of both
   to the bare registry, and whether it meets the goal (<= 2x).
2. The policy's own paths on the trivial tool: READ allowed, with `Hooks()`, a role grant
   letting a WRITE call through; each against the bare registry and the floor.
3. 1,000 scripted WRITE calls through a policy with no approval: how many executed (must be 0).

Timing: each row is timed in short batches, all rows taking turns round after round, and the
fastest batch kept: on a shared machine, the least disturbed one (a slow neighbour disturbs
every row alike instead of the one that happened to run at that moment).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import timeit
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from toolsys import Category, Registry
from toolsys.execution import Call, Next
from toolsys.governance import AuditLog, Hooks, Policy
from toolsys.result import ToolResult

GOAL = 2.0
ARGS = {"a": 1.5, "b": 2.0, "note": "a short note"}


def add(a: float, b: float, note: str = "", password: str = "") -> float:
    """Add two numbers.

    Args:
        a: First addend.
        b: Second addend.
        note: Anything.
        password: A secret the audit log must not keep.
    """
    return a + b


def fetch(a: float, b: float, note: str = "", password: str = "") -> float:
    """Add two numbers after a 1 ms wait, as a tool that calls a service would.

    Args:
        a: First addend.
        b: Second addend.
        note: Anything.
        password: A secret the audit log must not keep.
    """
    time.sleep(0.001)
    return a + b


def lookup(q: str) -> str:
    """Look something up.

    Args:
        q: What to look up.
    """
    return q


async def passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


def best_of(
    cases: Mapping[str, Callable[[], object]], number: int, rounds: int
) -> dict[str, float]:
    """Microseconds per call of each case: the fastest of `rounds` batches of `number` calls,
    the cases taking turns (so a disturbance hits them alike). Each is warmed up first."""
    timers = {label: timeit.Timer(fn) for label, fn in cases.items()}
    for timer in timers.values():
        timer.timeit(max(1, number // 10))
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(rounds):
        for label, timer in timers.items():
            best[label] = min(best[label], timer.timeit(number) / number * 1e6)
    return best


def per_registry(
    registries: Mapping[str, Registry],
    tool: str,
    arguments: dict[str, Any],
    context: Mapping[str, Any] | None,
    number: int,
    rounds: int,
) -> dict[str, float]:
    """`best_of` one call of `tool` through each registry, after checking each succeeds."""
    for registry in registries.values():
        assert registry.execute(tool, arguments, context=context).ok
    return best_of(
        {
            key: lambda r=r, t=tool, a=arguments, c=context: r.execute(t, a, context=c)
            for key, r in registries.items()
        },
        number,
        rounds,
    )


def verdict(ratio: float) -> str:
    return "yes" if ratio <= GOAL else "no"


def stacks(make: Callable[[list[Any]], Registry], folder: Path) -> dict[str, Registry]:
    """The five registries of the goal table, each with the layers named."""
    return {
        "bare": make([]),
        "1 layer": make([passthrough]),
        "policy": make([Policy()]),
        "audit": make([AuditLog(folder / f"audit-{id(make)}.jsonl")]),
        "policy+audit": make([AuditLog(folder / f"both-{id(make)}.jsonl"), Policy()]),
    }


def simple(*fns: Callable[..., Any]) -> Callable[[list[Any]], Registry]:
    def make(layers: list[Any]) -> Registry:
        registry = Registry(layers=layers)
        for fn in fns:
            registry.register(fn)
        return registry

    return make


def shop_registry(folder: Path) -> Callable[[list[Any]], Registry]:
    """The shop's tools on a fresh seeded database, with these layers."""
    from toolsys.shop import create
    from toolsys.shop.tools import tools

    shop = create(folder / "shop.db")

    def make(layers: list[Any]) -> Registry:
        registry = Registry(layers=layers)
        registry.provide(shop=shop)
        for fn, options in tools():
            registry.register(fn, **options)
        return registry

    return make


def goal_table(rounds: int) -> None:
    from toolsys.shop.scenarios import CHLOE

    print("1. Policy() + AuditLog (no fsync) per call, vs the bare registry (goal <= 2x)")
    header = f"{'tool':<26}" + "".join(
        f"{h:>13}" for h in ("bare", "1 layer", "policy", "audit", "policy+audit")
    )
    print(f"{header}{'ratio':>8}{'<= 2x':>7}")
    with tempfile.TemporaryDirectory(prefix="toolsys-bench-gov-") as name:
        folder = Path(name)
        tools: list[tuple[str, Callable[[list[Any]], Registry], str, Any, Any, int]] = [
            ("(a) trivial (add)", simple(add), "add", ARGS, None, 20),
            (
                "(b) SQLite read",
                shop_registry(folder),
                "get_order",
                {"order_id": "ORD-1003"},
                CHLOE,
                3,
            ),
            ("(c) waits 1 ms", simple(fetch), "fetch", ARGS, None, 2),
        ]
        for label, make, tool, arguments, context, number in tools:
            registries = stacks(make, folder)
            us = per_registry(registries, tool, arguments, context, number, rounds)
            ratio = us["policy+audit"] / us["bare"]
            cells = "".join(f"{value:>11.1f}us" for value in us.values())
            print(f"{label:<26}{cells}{ratio:>7.2f}x{verdict(ratio):>7}")


def policy_table(rounds: int) -> None:
    def registry(*layers: object, category: Category = Category.READ) -> Registry:
        built = Registry(layers=list(layers))  # type: ignore[arg-type]
        built.register(lookup, category=category)
        return built

    ops = {"roles": {"ops"}}
    rows: dict[str, tuple[Registry, dict[str, Any] | None]] = {
        "bare registry": (registry(), None),
        "+ pass-through layer (floor)": (registry(passthrough), None),
        "+ Policy() (READ allowed)": (registry(Policy()), None),
        "+ Hooks() + Policy()": (registry(Hooks(), Policy()), None),
        "+ Policy(grants=...) (WRITE granted)": (
            registry(Policy(grants={"ops": {Category.WRITE}}), category=Category.WRITE),
            ops,
        ),
    }
    us = best_of(
        {
            label: lambda r=r, c=c: r.execute("lookup", {"q": "x"}, context=c)
            for label, (r, c) in rows.items()
        },
        20,
        rounds,
    )
    bare, floor = us["bare registry"], us["+ pass-through layer (floor)"]
    print("\n2. The policy's own paths, trivial tool")
    print(f"{'path':<40} {'us/call':>9} {'vs bare':>8} {'vs floor':>9}")
    for label, value in us.items():
        print(f"{label:<40} {value:>9.1f} {value / bare:>7.2f}x {value / floor:>8.2f}x")


def unapproved_writes(calls: int = 1000) -> int:
    """How many of `calls` WRITE calls ran through a policy that nobody approved."""
    ran = []
    gated = Registry(layers=[Policy()])

    @gated.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict:
        """Refund."""
        ran.append(order_id)
        return {"refunded": amount}

    for i in range(calls):
        result = gated.execute(
            "refund", {"order_id": f"A{i}", "amount": i}, context={"roles": ["x"]}, call_id=f"c{i}"
        )
        assert result.error is not None and result.error.code == "APPROVAL_REQUIRED"
    return len(ran)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100, help="batches per row; the best kept")
    args = parser.parse_args(argv)
    goal_table(args.rounds)
    policy_table(args.rounds)
    print(f"\n3. 1,000 unapproved WRITE calls executed: {unapproved_writes()} (must be 0)")


if __name__ == "__main__":
    main()
