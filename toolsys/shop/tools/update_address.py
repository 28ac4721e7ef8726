"""update_address (WRITE): change where an order ships, only while it has not shipped."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolsys import Category, ToolError
from toolsys.injection import Context, Depends
from toolsys.shop._access import order_row
from toolsys.shop.db import Shop
from toolsys.shop.tools import shop_tool
from toolsys.shop.tools.get_order import OrderId


@shop_tool(category=Category.WRITE, idempotent=True)
def update_address(
    shop: Annotated[Shop, Depends("shop")],
    ctx: Context,
    order_id: OrderId,
    address: Annotated[str, Field(min_length=5, max_length=200)],
) -> dict[str, object]:
    """Change the shipping address of an order that has not shipped yet.

    Args:
        order_id: The order to change.
        address: The full new address, e.g. "12 Mill Lane, Leeds".
    """
    with shop.transaction() as conn:
        order = order_row(conn, order_id, ctx)
        if order["status"] != "placed":
            raise ToolError(
                "ORDER_ALREADY_SHIPPED",
                f"Order {order_id} is {order['status']}; its address can no longer change.",
                suggestion="Tell the customer; a shipped order can be refunded or returned "
                "instead.",
            )
        conn.execute("UPDATE orders SET shipping_address = ? WHERE id = ?", (address, order_id))
    return {"order_id": order_id, "shipping_address": address}
