"""Exercise 12.4, a refund rule that a split refund cannot get around: the check and its reference,
`split_proof_rule`.

The rule runs on a fresh shop; the case a first answer misses is a limit checked per call instead of
per order. The reference also closes the race a plain rule leaves open: it counts the order's
refunds inside a `BEGIN IMMEDIATE` transaction and holds it (a context-manager rule, see
`toolsys.governance.policy`) while the refund is written in that same transaction, so two refunds
at once cannot both be decided before either is written (60 of a limit of 50).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks.ch12._shared import AGENT, MANAGER, _shop, _unfinished
from toolsys.governance import Allow, Decision, NeedsApproval, Policy
from toolsys.registry import Registry
from toolsys.shop import Shop, invariants
from toolsys.shop.agent import GRANTS
from toolsys.shop.scenarios import CHLOE
from toolsys.shop.tools import tools


def split_proof_rule(
    shop: Shop, limit: float = 50.0
) -> Callable[..., AbstractContextManager[Decision]]:
    """Reference for 12.4: the limit counts what this order was refunded already, decided and
    written in one BEGIN IMMEDIATE transaction."""

    @contextmanager
    def rule(
        tool: Any, arguments: Mapping[str, Any] | None, context: Mapping[str, Any]
    ) -> Iterator[Decision]:
        roles = set(context.get("roles") or ())
        if "manager" in roles:
            yield Allow()
            return
        arguments = arguments or {}
        amount, order = arguments.get("amount", 0), arguments.get("order_id")
        # the write lock from this count until the refund is written (the tool's own
        # transaction joins this one): no other refund can be decided in between
        with shop.transaction() as conn:
            (cents,) = conn.execute(
                "SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE order_id = ?", (order,)
            ).fetchone()
            total = int(cents) + round(float(amount) * 100)
            if "customer" in roles and total <= round(limit * 100):
                yield Allow()
            else:
                yield NeedsApproval(f"refunds of {total / 100:.2f} on {order} need a manager")

    return rule


_SPLITS: list[tuple[Mapping[str, Any], str, float, str, str | None]] = [
    (CHLOE, "ORD-1003", 30, "goodwill", None),
    (CHLOE, "ORD-1003", 30, "damaged", "APPROVAL_REQUIRED"),
    (CHLOE, "ORD-1003", 20, "late", None),
    (CHLOE, "ORD-1003", 0.01, "not_received", "APPROVAL_REQUIRED"),
    (CHLOE, "ORD-1019", 40, "goodwill", None),
    (CHLOE, "ORD-1019", 60, "late", "APPROVAL_REQUIRED"),
    (AGENT, "ORD-1010", 10, "late", "APPROVAL_REQUIRED"),
    (MANAGER, "ORD-1004", 120, "damaged", None),
    (MANAGER, "ORD-1004", 80, "late", None),
]


@exercise(
    "12.4",
    title="A refund rule that a split refund cannot get around",
    hints=[
        "Managers: Allow(). Everyone else: add what the order was refunded already "
        "(SUM(amount_cents) FROM refunds WHERE order_id = ?) to this amount.",
        "Compare in cents: round(amount * 100). A customer may refund while the total stays "
        "at most the limit (50 included); anyone else, or above it, gets NeedsApproval(reason).",
        "Count per order, not per customer: a refund on another order starts from zero.",
    ],
    reference=lambda: split_proof_rule,
    timeout=30,
)
def _check_split_proof_rule(student: Callable[..., Any]) -> None:
    with _shop(reships=False) as shop:
        rule = call_student(student, shop, what="split_proof_rule(shop)", returns="a rule")
        if not callable(rule):
            raise CheckFailed(
                "split_proof_rule(shop) should return a rule: a function of "
                "(tool, arguments, context).",
                expected=Described("a callable returning Allow() or NeedsApproval(reason)"),
                got=rule,
            )
        registry = Registry(layers=[Policy(rules={"refund_order": rule}, grants=GRANTS)])
        registry.provide(shop=shop)
        for fn, options in tools():
            registry.register(fn, **options)
        for caller, order, amount, reason, code in _SPLITS:
            arguments = {"order_id": order, "amount": amount, "reason": reason}
            result = registry.execute("refund_order", arguments, context=caller)
            _unfinished(result)
            what = f"a refund of {amount:g} on {order} ({reason}) by {caller['user']}"
            expect_equal(
                None if result.ok else str(result.error.code if result.error else ""),
                code,
                what=f"the error code of {what}",
                hint="A customer alone up to 50 per order, counting the refunds already made "
                "on it (50 itself allowed); an agent always asks; a manager never does.",
            )
        expect_equal(invariants(shop), [], what="the shop's broken invariants at the end")
