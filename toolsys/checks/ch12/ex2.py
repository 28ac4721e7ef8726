"""Exercise 12.2, a reship tool that keeps its invariant: the check and its reference,
`reship_order`.

The tool runs on a fresh shop; the cases are a tool without the caller's row filter (another
customer's order is ORDER_NOT_FOUND) and a row written for a refused call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from toolsys.checks import CheckFailed, Described, exercise, expect_equal
from toolsys.checks.ch12._shared import AGENT, _shop, _unfinished
from toolsys.checks.ch12.ex1 import RESHIP_RULE, _broken
from toolsys.errors import ToolError
from toolsys.injection import Context, Depends
from toolsys.shop import Shop, invariants
from toolsys.shop._access import order_row
from toolsys.shop.agent import build
from toolsys.shop.scenarios import CHLOE
from toolsys.shop.tools.get_order import OrderId
from toolsys.spec import Category


def reship_order(
    shop: Annotated[Shop, Depends("shop")],
    ctx: Context,
    order_id: OrderId,
    reason: Literal["damaged", "not_received"],
) -> dict[str, object]:
    """Reference for 12.2: send a delivered order again, once."""
    with shop.transaction() as conn:
        order = order_row(conn, order_id, ctx)
        if order["status"] != "delivered":
            raise ToolError(
                "ORDER_NOT_DELIVERED",
                f"Order {order_id} is {order['status']}, not delivered.",
                suggestion="Only a delivered order can be sent again.",
            )
        if conn.execute("SELECT 1 FROM reships WHERE order_id = ?", (order_id,)).fetchone():
            raise ToolError(
                "ORDER_ALREADY_RESHIPPED",
                f"Order {order_id} was already sent again.",
                suggestion="Offer a refund instead.",
            )
        reship_id = conn.execute(
            "INSERT INTO reships (order_id, reason) VALUES (?, ?)", (order_id, reason)
        ).lastrowid
    return {"reship_id": reship_id, "order_id": order_id, "reason": reason}


_RESHIP_CALLS: list[tuple[Mapping[str, Any], str, str | None]] = [
    (CHLOE, "ORD-1003", None),
    (CHLOE, "ORD-1003", "ORDER_ALREADY_RESHIPPED"),
    (CHLOE, "ORD-1019", "ORDER_NOT_DELIVERED"),
    (CHLOE, "ORD-1011", "ORDER_NOT_DELIVERED"),
    (CHLOE, "ORD-1004", "ORDER_NOT_FOUND"),
    ({"roles": ["customer"]}, "ORD-1004", "ORDER_NOT_FOUND"),
    (AGENT, "ORD-1004", None),
    (AGENT, "ORD-1004", "ORDER_ALREADY_RESHIPPED"),
]


@exercise(
    "12.2",
    title="A reship tool that keeps its invariant",
    hints=[
        "Do everything inside `with shop.transaction() as conn:` and start with "
        "order_row(conn, order_id, ctx): it raises ORDER_NOT_FOUND for an order this caller "
        "may not see.",
        "Then raise ToolError('ORDER_NOT_DELIVERED', ...) unless order['status'] is "
        "'delivered', and ToolError('ORDER_ALREADY_RESHIPPED', ...) if a reships row exists.",
        "Return a dict with reship_id, order_id and reason.",
    ],
    reference=lambda: reship_order,
    timeout=30,
)
def _check_reship_order(student: Callable[..., Any]) -> None:
    with _shop() as shop:
        registry = build(shop)
        try:
            registry.register(student, category=Category.WRITE)
        except NotImplementedError:
            raise
        except Exception as exc:  # a definition error is a wrong answer, shown as one line
            raise CheckFailed(
                f"registry.register(reship_order) failed: {exc}",
                expected=Described("a function the registry can register as a tool"),
                hint="Keep the signature the exercise gives: shop, ctx, order_id, reason.",
            ) from None
        for caller, order, code in _RESHIP_CALLS:
            who = caller.get("user", "a caller without a user id")
            what = f"reship_order({order!r}, 'damaged') by {who}"
            result = registry.execute(
                "reship_order", {"order_id": order, "reason": "damaged"}, context=caller
            )
            _unfinished(result)
            expect_equal(
                None if result.ok else str(result.error.code if result.error else ""),
                code,
                what=f"the error code of {what}",
                hint="ORDER_NOT_FOUND for another customer's order (use order_row), "
                "ORDER_NOT_DELIVERED unless delivered, ORDER_ALREADY_RESHIPPED the second time.",
            )
            broken = _broken(shop, RESHIP_RULE, f"After {what}") + [
                {"order_id": line} for line in invariants(shop)
            ]
            expect_equal(broken, [], what=f"the rows breaking an invariant after {what}")
        expect_equal(
            shop.rows("SELECT order_id, reason FROM reships ORDER BY id"),
            [
                {"order_id": "ORD-1003", "reason": "damaged"},
                {"order_id": "ORD-1004", "reason": "damaged"},
            ],
            what="the reships table at the end",
            hint="One row per successful call, none for a refused one.",
        )
