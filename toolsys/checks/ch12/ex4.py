"""Exercise 12.4, a refund rule that a split refund cannot get around: the check and its reference,
`split_proof_rule`.

The rule runs on a fresh shop; the case a first answer misses is a limit checked per call instead of
per order. The reference also closes the race a plain rule leaves open: it counts the order's
refunds inside a `BEGIN IMMEDIATE` transaction and holds it (a context-manager rule, see
`toolsys.governance.policy`) while the refund is written in that same transaction, so two refunds
at once cannot both be decided before either is written (60 of a limit of 50).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks.ch12._shared import AGENT, MANAGER, temporary_shop, unfinished
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


_Step = tuple[Mapping[str, Any], str, float, str, str | None]
# caller, order, amount, reason, the error code expected (None: refunded)
_C008 = {"user": "C008", "roles": ["customer"]}
_ROLELESS = {"user": "C003"}
# Each scenario runs on a fresh shop: what it shows, the refunds made before the rule exists
# (order, cents, reason), the limit (None: the default), its steps.
_SCENARIOS: list[tuple[str, list[tuple[str, int, str]], float | None, list[_Step]]] = [
    (
        "refunds split into pieces",
        [],
        None,
        [
            (CHLOE, "ORD-1003", 30, "goodwill", None),
            (CHLOE, "ORD-1003", 30, "damaged", "APPROVAL_REQUIRED"),
            (CHLOE, "ORD-1003", 20, "late", None),
            (CHLOE, "ORD-1003", 0.01, "not_received", "APPROVAL_REQUIRED"),
            (CHLOE, "ORD-1019", 40, "goodwill", None),
            (CHLOE, "ORD-1019", 60, "late", "APPROVAL_REQUIRED"),
            (AGENT, "ORD-1010", 10, "late", "APPROVAL_REQUIRED"),
            (MANAGER, "ORD-1004", 120, "damaged", None),
            (MANAGER, "ORD-1004", 80, "late", None),
            (_C008, "ORD-1024", 50, "damaged", None),
        ],
    ),
    (
        "the limit to the cent",
        [],
        None,
        [
            (CHLOE, "ORD-1003", 30, "goodwill", None),
            (CHLOE, "ORD-1003", 20.01, "damaged", "APPROVAL_REQUIRED"),
            (CHLOE, "ORD-1003", 20, "damaged", None),
        ],
    ),
    (
        "a cent too many, written 0.29 (0.29 * 100 is 28.999999999999996)",
        [],
        None,
        [
            (CHLOE, "ORD-1019", 49.72, "goodwill", None),
            (CHLOE, "ORD-1019", 0.29, "damaged", "APPROVAL_REQUIRED"),
            (CHLOE, "ORD-1019", 0.28, "late", None),
        ],
    ),
    (
        "pieces whose sum in floats is 50.00000000000001",
        [],
        None,
        [
            (CHLOE, "ORD-1019", 1.07, "goodwill", None),
            (CHLOE, "ORD-1019", 48.84, "damaged", None),
            (CHLOE, "ORD-1019", 0.09, "late", None),
            (CHLOE, "ORD-1019", 0.01, "not_received", "APPROVAL_REQUIRED"),
        ],
    ),
    (
        "a manager's refund on the same order",
        [],
        None,
        [
            (MANAGER, "ORD-1003", 40, "goodwill", None),
            (CHLOE, "ORD-1003", 10.01, "damaged", "APPROVAL_REQUIRED"),
            (CHLOE, "ORD-1003", 10, "damaged", None),
        ],
    ),
    (
        "a refund made before the rule was",
        [("ORD-1003", 4500, "goodwill")],
        None,
        [
            (CHLOE, "ORD-1003", 5.01, "damaged", "APPROVAL_REQUIRED"),
            (CHLOE, "ORD-1003", 5, "damaged", None),
        ],
    ),
    (
        "refunds the tool refused (a cancelled order is refunded once)",
        [],
        None,
        [
            (CHLOE, "ORD-1011", 20, "goodwill", None),
            (CHLOE, "ORD-1011", 10, "damaged", "ORDER_ALREADY_REFUNDED"),
            (CHLOE, "ORD-1011", 25, "late", "ORDER_ALREADY_REFUNDED"),
        ],
    ),
    (
        "a caller with no role",
        [],
        None,
        [(_ROLELESS, "ORD-1003", 5, "goodwill", "APPROVAL_REQUIRED")],
    ),
    (
        "a limit of 0.57 (0.57 * 100 is 56.99999999999999: compare in cents)",
        [],
        0.57,
        [
            (CHLOE, "ORD-1003", 0.57, "goodwill", None),
            (CHLOE, "ORD-1003", 0.01, "damaged", "APPROVAL_REQUIRED"),
        ],
    ),
    (
        "a limit of 0.07 (0.07 * 100 is 7.000000000000001: compare in cents)",
        [],
        0.07,
        [(CHLOE, "ORD-1019", 0.07, "goodwill", None)],
    ),
    (
        "a limit of 0.3 (0.10 refunded + 0.20 is 0.30000000000000004 in floats: compare in cents)",
        [],
        0.3,
        [
            (CHLOE, "ORD-1003", 0.1, "goodwill", None),
            (CHLOE, "ORD-1003", 0.2, "damaged", None),
            (CHLOE, "ORD-1003", 0.01, "late", "APPROVAL_REQUIRED"),
        ],
    ),
    (
        "a limit of 20",
        [],
        20.0,
        [
            (CHLOE, "ORD-1003", 15, "goodwill", None),
            (CHLOE, "ORD-1003", 5, "damaged", None),
            (CHLOE, "ORD-1003", 0.01, "late", "APPROVAL_REQUIRED"),
        ],
    ),
]
_HINT = (
    "A customer alone up to the limit per order, counting every refund already in the refunds "
    "table for it (the limit itself allowed, compared in cents); an agent or a caller without a "
    "role always asks; a manager never does."
)


def _registry(shop: Shop, rule: Any) -> Registry:
    registry = Registry(layers=[Policy(rules={"refund_order": rule}, grants=GRANTS)])
    registry.provide(shop=shop)
    for fn, options in tools():
        registry.register(fn, **options)
    return registry


def _said(code: str | None) -> str:
    return "refunded" if code is None else f"refused with {code}"


def _refunded(shop: Shop, order: str) -> str:
    with shop.reading() as conn:
        (cents,) = conn.execute(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE order_id = ?", (order,)
        ).fetchone()
    return f"{int(cents) / 100:.2f}"


_ROLE_FORMS: list[list[str] | None] = [
    ["customer"], ["customer"], ["manager"], ["agent"], ["customer", "manager"], [], None,
]  # fmt: skip
_AMOUNTS = [0.01, 0.1, 0.2, 0.3, 19.9, 20, 20.1, 30.1, 19.99, 50, 50.01, 33.33, 16.67, 30]
_LIMITS = [None, None, 50.0, 0.3, 100, 33.34, 20]


def _decision_call(rng: random.Random, size: int) -> Call:
    """Refunds made already (on this order and the customer's others, in cents), a limit (the
    default too), a caller (customer, manager, agent, both, no role) and a refund to decide
    (amounts whose sum in floats is not their sum in cents: 0.1 + 0.2), or arguments None."""
    orders = ["ORD-1003", "ORD-1004", "ORD-1019", "ORD-1010"]
    earlier = [
        (rng.choice(orders), rng.choice([1, 990, 1990, 2000, 3000, 3010, 4999, 5000, 10]))
        for _ in range(rng.randint(0, min(4, size)))
    ]
    context: dict[str, Any] = {"user": "C001"}
    roles = rng.choice(_ROLE_FORMS)
    if roles is not None or rng.random() < 0.5:
        context["roles"] = roles
    arguments: dict[str, Any] | None = {
        "order_id": rng.choice(orders), "amount": rng.choice(_AMOUNTS), "reason": "late",
    }  # fmt: skip
    if rng.random() < 0.15:
        arguments = None
    return Call((earlier, rng.choice(_LIMITS), context, arguments))


_GENERATED = calls(_decision_call, seed=124, count=150)


def _deciding(
    make: Callable[..., Any], shop: Shop, writer: sqlite3.Connection
) -> Callable[..., Any]:
    """The decision of the rule `make(shop, limit)` makes, once the refunds table holds
    `earlier`: Allow or NeedsApproval by name ("listed" for either when tools are listed)."""
    tool = _registry(shop, Allow()).get("refund_order")

    def run(
        earlier: list[tuple[str, int]], limit: float | None, context: Any, arguments: Any
    ) -> str:
        writer.execute("BEGIN")
        writer.execute("DELETE FROM refunds")
        writer.executemany(
            "INSERT INTO refunds (order_id, amount_cents, reason, idempotency_key) "
            "VALUES (?, ?, 'late', ?)",
            [(order, cents, f"k{n}") for n, (order, cents) in enumerate(earlier)],
        )
        writer.execute("COMMIT")
        rule = make(shop) if limit is None else make(shop, limit)
        decision = rule(tool, arguments, context)
        if isinstance(decision, AbstractContextManager):
            with decision as decided:
                decision = decided
        name = type(decision).__name__
        if arguments is None and name in ("Allow", "NeedsApproval"):
            return "listed (Allow or NeedsApproval)"
        return name if name in ("Allow", "NeedsApproval") else repr(decision)

    return run


@exercise(
    "12.4",
    title="A refund rule that a split refund cannot get around",
    hints=[
        "Managers: Allow(). Everyone else: add what the order was refunded already "
        "(SUM(amount_cents) FROM refunds WHERE order_id = ?) to this amount.",
        "Compare in cents: round(amount * 100). A customer may refund while the total stays "
        "at most the limit (50 included); anyone else, or above it, gets NeedsApproval(reason).",
        "Count per order, from the database at each call (not a counter of your own): a "
        "manager's refund counts too, and a refund the tool refused does not.",
    ],
    reference=lambda: split_proof_rule,
    timeout=60,
)
def _check_split_proof_rule(student: Callable[..., Any]) -> None:
    for name, earlier, limit, steps in _SCENARIOS:
        with temporary_shop(reships=False) as shop:
            if earlier:
                bare = _registry(shop, Allow())
                for order, cents, reason in earlier:
                    arguments = {"order_id": order, "amount": cents / 100, "reason": reason}
                    assert bare.execute("refund_order", arguments, context=MANAGER).ok
            shown = (
                "split_proof_rule(shop)" if limit is None else f"split_proof_rule(shop, {limit:g})"
            )
            args = (shop,) if limit is None else (shop, limit)
            rule = call_student(student, *args, what=shown, returns="a rule")
            if not callable(rule):
                raise CheckFailed(
                    f"{shown} should return a rule: a function of (tool, arguments, context).",
                    expected=Described("a callable returning Allow() or NeedsApproval(reason)"),
                    got=rule,
                )
            registry = _registry(shop, rule)
            for caller, order, amount, reason, code in steps:
                arguments = {"order_id": order, "amount": amount, "reason": reason}
                so_far = _refunded(shop, order)
                result = registry.execute("refund_order", arguments, context=caller)
                unfinished(result)
                who = caller.get("user")
                roles = ", ".join(caller.get("roles") or ()) or "no role"
                what = (
                    f"{shown}, {name}: a refund of {amount:g} on {order} ({reason}) by {who} "
                    f"({roles}), {order} refunded {so_far} so far"
                )
                got = None if result.ok else str(result.error.code if result.error else "")
                if got != code:
                    raise CheckFailed(
                        f"{what} was {_said(got)}; it should be {_said(code)}.",
                        expected=Described(code or "refunded"),
                        got=Described(got or "refunded"),
                        hint=_HINT,
                    )
            expect_equal(invariants(shop), [], what=f"the shop's broken invariants after {name}")
    with temporary_shop(reships=False) as shop:
        rule = call_student(student, shop, what="split_proof_rule(shop)", returns="a rule")
        listed = [tool.name for tool in _registry(shop, rule).list(context=CHLOE)]
        if "refund_order" not in listed:
            raise CheckFailed(
                "The tools listed to Chloe (a customer) leave out refund_order: when the tools are "
                "listed, the policy asks your rule with arguments=None, and it failed or denied.",
                expected=Described("refund_order among the tools listed to a customer"),
                got=listed,
                hint="Answer for arguments=None too: `if arguments is None: return "
                "NeedsApproval(...)` (or Allow()) offers the tool; each call is decided on its own "
                "arguments.",
            )
    with temporary_shop(reships=False) as shop:
        writer = sqlite3.connect(str(shop.path), isolation_level=None)
        writer.execute("PRAGMA synchronous=OFF")  # the cases rewrite the table: no need to sync
        try:
            agree(
                _deciding(student, shop, writer),
                _deciding(split_proof_rule, shop, writer),
                _GENERATED,
                name="With the refunds (order, cents) {args} (refunds so far, limit, context, "
                "arguments), the rule's decision",
                hint=_HINT,
            )
        finally:
            writer.close()
