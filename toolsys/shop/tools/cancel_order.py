"""cancel_order (WRITE): cancel an order that has not shipped; cancelling twice changes nothing."""

from __future__ import annotations

from typing import Annotated

from toolsys import Category, ToolError
from toolsys.injection import Context, Depends
from toolsys.shop._access import order_row
from toolsys.shop.db import Shop
from toolsys.shop.tools import shop_tool
from toolsys.shop.tools.get_order import OrderId


@shop_tool(category=Category.WRITE, idempotent=True)
def cancel_order(
    shop: Annotated[Shop, Depends("shop")], ctx: Context, order_id: OrderId
) -> dict[str, object]:
    """Cancel an order that has not shipped yet. It does not refund: call refund_order for that.

    Args:
        order_id: The order to cancel.
    """
    with shop.transaction() as conn:
        order = order_row(conn, order_id, ctx)
        if order["status"] == "cancelled":
            return {"order_id": order_id, "status": "cancelled", "changed": False}
        if order["status"] != "placed":
            raise ToolError(
                "ORDER_ALREADY_SHIPPED",
                f"Order {order_id} is {order['status']} and can no longer be cancelled.",
                suggestion="Offer a refund with refund_order instead.",
            )
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = ?", (order_id,))
    return {"order_id": order_id, "status": "cancelled", "changed": True}
