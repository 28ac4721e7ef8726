"""Exercise 12.3, a scenario that catches a planted bug: the check and its reference,
`catching_scenario`.

The scenario is run against the honest agent and the planted bug: a scenario that passes whatever
the code does fails here.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_true
from toolsys.registry import Registry
from toolsys.shop import Shop
from toolsys.shop.agent import build
from toolsys.shop.scenarios import CHLOE, Scenario


def planted_bug(shop: Shop, **options: Any) -> Registry:
    """The bugged agent of 12.3: a customer's refund of exactly 50 now waits for approval."""
    options.pop("refund_limit", None)
    return build(shop, refund_limit=49.99, **options)


def catching_scenario() -> Scenario:
    """Reference for 12.3: the limit pinned at its boundary."""
    return Scenario(
        "a customer refunds exactly the limit without asking",
        CHLOE,
        ("Refund 50 on order ORD-1003 because it arrived damaged",),
        {
            "refunds": [("ORD-1003", 5000, "damaged")],
            "emails": [("C003", "Your refund for ORD-1003")],
        },
        called=("refund_order",),
    )


def _run(scenario: Scenario, builder: Callable[..., Registry]) -> Any:
    from toolsys.shop.runner import run_scenario

    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        return run_scenario(scenario, Path(folder), builder=builder)


@exercise(
    "12.3",
    title="A scenario that catches a planted bug",
    hints=[
        "The bug is at the boundary: a customer's refund of exactly 50 on their own order. "
        "Chloe (CHLOE) owns ORD-1003 (59.00 paid).",
        "Expect what the correct agent does: one refund of 5000 cents, one email, no approval "
        "(asks=0, human=None), refund_order called.",
        "A refund of 19.90 or of 59 passes on both agents: it cannot tell them apart.",
    ],
    reference=lambda: catching_scenario,
    timeout=60,
)
def _check_catching_scenario(student: Callable[[], Scenario]) -> None:
    scenario = call_student(student, what="catching_scenario()", returns="a Scenario")
    if not isinstance(scenario, Scenario):
        raise CheckFailed(
            "catching_scenario() should return a Scenario.",
            expected=Described("a toolsys.shop.scenarios.Scenario"),
            got=scenario,
        )
    correct = _run(scenario, build)
    expect_true(
        correct.passed,
        "Your scenario fails on the correct agent: " + "; ".join(correct.problems)[:600],
        hint="A scenario states what the correct shop does; only the bugged one may fail it.",
    )
    bugged = _run(scenario, planted_bug)
    expect_true(
        not bugged.passed,
        "Your scenario passes on the bugged agent too: it does not catch the bug.",
        hint="Refund exactly 50 as a customer on their own order: the bugged agent asks for "
        "approval, the correct one does not.",
    )
