"""find_orders (READ): a caller's orders, newest first; a customer only ever sees their own."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolsys.injection import Context, Depends
from toolsys.shop._access import customer_scope
from toolsys.shop.db import Shop
from toolsys.shop.tools import shop_tool

Status = Literal["placed", "shipped", "delivered", "cancelled"]


@shop_tool()
def find_orders(
    shop: Annotated[Shop, Depends("shop")],
    ctx: Context,
    customer_id: Annotated[str, Field(pattern=r"^C\d{3}$")] | None = None,
    status: Status | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 10,
) -> list[dict[str, object]]:
    """List orders with their status and total, newest first.

    Use it to find an order id before looking at, changing or refunding an order.

    Args:
        customer_id: Only this customer's orders, e.g. "C003" (staff only; a customer always
            sees just their own).
        status: Only orders in this status.
        limit: How many orders at most.
    """
    scope = customer_scope(ctx)
    wanted = scope if scope is not None else customer_id
    return shop.rows(
        "SELECT o.id, o.customer_id, o.status, o.placed_on, p.amount_cents / 100.0 AS total "
        "FROM orders o JOIN payments p ON p.order_id = o.id "
        "WHERE (? IS NULL OR o.customer_id = ?) AND (? IS NULL OR o.status = ?) "
        "ORDER BY o.placed_on DESC, o.id DESC LIMIT ?",
        wanted,
        wanted,
        status,
        status,
        limit,
    )
