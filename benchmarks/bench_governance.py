"""Measure what the policy costs per call, against the bare registry, and prove the gate holds.

    python benchmarks/bench_governance.py

Printed, all in the same run, for a trivial sync tool (so the ratio shows pure overhead):
`execute` on the bare registry, with one pass-through layer (the layered path's own floor),
with `Policy()` allowing a READ call, with `Policy()` + `Hooks()` (no hooks), and with a role
grant letting a WRITE call through; the ratio of each to the bare registry. Then 1,000 scripted
WRITE calls through a policy with no approval: how many executed (must be 0).

Read "vs bare" with the floor in mind: the bare registry with no layers takes a sync fast path;
any layer moves calls onto the async layered path, which costs more than the policy itself
("vs floor" is the policy's own share).

Goal (issue 13): policy overhead <= 2x the bare registry (the audit log's fsync-free cost is
measured by the audit helper's own benchmark).
"""

from __future__ import annotations

import timeit

from toolsys import Category, Registry
from toolsys.execution import Call, Next
from toolsys.governance import Hooks, Policy
from toolsys.result import ToolResult


def lookup(q: str) -> str:
    """Look something up.

    Args:
        q: What to look up.
    """
    return q


async def passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


def registry(*layers: object, category: Category = Category.READ) -> Registry:
    built = Registry(layers=list(layers))  # type: ignore[arg-type]
    built.register(lookup, category=category)
    return built


def per_call_us(target: Registry, context: dict | None = None, number: int = 5000) -> float:
    arguments = {"q": "x"}
    target.execute("lookup", arguments, context=context)  # warm up
    best = min(
        timeit.repeat(
            lambda: target.execute("lookup", arguments, context=context), number=number, repeat=5
        )
    )
    return best / number * 1e6


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


def main() -> None:
    bare = per_call_us(registry())
    rows = [
        ("bare registry", bare),
        ("+ pass-through layer (floor)", per_call_us(registry(passthrough))),
        ("+ Policy() (READ allowed)", per_call_us(registry(Policy()))),
        ("+ Hooks() + Policy()", per_call_us(registry(Hooks(), Policy()))),
        (
            "+ Policy(grants=...) (WRITE granted)",
            per_call_us(
                registry(Policy(grants={"ops": {Category.WRITE}}), category=Category.WRITE),
                {"roles": {"ops"}},
            ),
        ),
    ]
    floor = rows[1][1]
    print(f"{'path':<40} {'us/call':>9} {'vs bare':>8} {'vs floor':>9}")
    for label, us in rows:
        print(f"{label:<40} {us:>9.1f} {us / bare:>7.2f}x {us / floor:>8.2f}x")
    print(f"1,000 unapproved WRITE calls executed: {unapproved_writes()} (must be 0)")


if __name__ == "__main__":
    main()
