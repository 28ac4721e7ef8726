"""refund_order (WRITE, money): refund part or all of a payment, once, with its email.

The refund and its email to the customer are one transaction: both happen or neither does.
A repeat with the same order, reason and idempotency key returns the first refund (marked
`replayed`) instead of paying twice, so a retry after a timeout that hit after the write is safe.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolsys import Category, ToolError
from toolsys.injection import Context, Depends
from toolsys.shop._access import cents, order_row
from toolsys.shop.db import Shop
from toolsys.shop.tools import shop_tool
from toolsys.shop.tools.get_order import OrderId


class RefundRequest(BaseModel):
    """Refund money paid for an order to the card it was paid with, and email the customer."""

    model_config = ConfigDict(extra="forbid")

    order_id: OrderId
    amount: Annotated[float, Field(gt=0, le=10_000, description="Amount to refund, e.g. 19.9.")]
    reason: Literal["damaged", "late", "not_received", "cancelled", "goodwill"] = Field(
        description="Why the customer is refunded."
    )
    idempotency_key: Annotated[str, Field(min_length=1, max_length=64)] = Field(
        "first",
        description="Leave as is. Set a new value only to refund the same order for the same "
        "reason a second time.",
    )


@shop_tool(category=Category.WRITE, args=RefundRequest, idempotent=True)
def refund_order(
    request: RefundRequest, shop: Annotated[Shop, Depends("shop")], ctx: Context
) -> dict[str, object]:
    amount = cents(request.amount)
    with shop.transaction() as conn:
        order = order_row(conn, request.order_id, ctx)
        earlier = conn.execute(
            "SELECT id, amount_cents FROM refunds "
            "WHERE order_id = ? AND reason = ? AND idempotency_key = ?",
            (request.order_id, request.reason, request.idempotency_key),
        ).fetchone()
        if earlier is not None:
            return _receipt(request, earlier["id"], earlier["amount_cents"], replayed=True)
        refunds = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(amount_cents), 0) FROM refunds WHERE order_id = ?",
            (request.order_id,),
        ).fetchone()
        if order["status"] == "cancelled" and refunds[0] > 0:
            raise ToolError(
                "ORDER_ALREADY_REFUNDED",
                f"Order {request.order_id} is cancelled and was already refunded.",
                suggestion="Tell the customer the refund is on its way; do not refund again.",
            )
        left = order["paid_cents"] - refunds[1]
        if amount > left:
            raise ToolError(
                "REFUND_EXCEEDS_PAYMENT",
                f"Refunding {amount / 100:.2f} on order {request.order_id} would exceed what is "
                f"left of its payment ({left / 100:.2f} of {order['paid_cents'] / 100:.2f}).",
                suggestion=f"Refund at most {left / 100:.2f}.",
                details={"refundable": left / 100},
            )
        refund_id = conn.execute(
            "INSERT INTO refunds (order_id, amount_cents, reason, idempotency_key) "
            "VALUES (?, ?, ?, ?)",
            (request.order_id, amount, request.reason, request.idempotency_key),
        ).lastrowid
        conn.execute(
            "INSERT INTO outbox (customer_id, to_email, subject, body, refund_id) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                order["customer_id"],
                order["email"],
                f"Your refund for {request.order_id}",
                f"Dear {order['name']}, we refunded {amount / 100:.2f} ({request.reason}) to "
                "the card you paid with.",
                refund_id,
            ),
        )
    return _receipt(request, refund_id, amount, replayed=False)


def _receipt(
    request: RefundRequest, refund_id: int | None, amount: int, *, replayed: bool
) -> dict[str, object]:
    return {
        "refund_id": refund_id,
        "order_id": request.order_id,
        "amount": amount / 100,
        "reason": request.reason,
        "replayed": replayed,
    }
