"""send_email (WRITE): queue an email to one customer in the outbox (nothing leaves the shop)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolsys import Category, ToolError
from toolsys.injection import Context, Depends
from toolsys.shop._access import customer_scope
from toolsys.shop.db import Shop
from toolsys.shop.tools import shop_tool


@shop_tool(category=Category.WRITE, roles={"agent", "manager"})
def send_email(
    shop: Annotated[Shop, Depends("shop")],
    ctx: Context,
    customer_id: Annotated[str, Field(pattern=r"^C\d{3}$")],
    subject: Annotated[str, Field(min_length=1, max_length=120)],
    body: Annotated[str, Field(min_length=1, max_length=2000)],
) -> dict[str, object]:
    """Email a customer (queued in the outbox). Refunds already email the customer themselves.

    Args:
        customer_id: The customer to write to, e.g. "C003".
        subject: The subject line.
        body: The message, in plain text.
    """
    scope = customer_scope(ctx)
    with shop.transaction() as conn:
        row = conn.execute(
            "SELECT email FROM customers WHERE id = ? AND (? IS NULL OR id = ?)",
            (customer_id, scope, scope),
        ).fetchone()
        if row is None:
            raise ToolError(
                "CUSTOMER_NOT_FOUND",
                f"No customer {customer_id!r} among those you can write to.",
                suggestion="Take the customer id from find_orders or get_order.",
            )
        email_id = conn.execute(
            "INSERT INTO outbox (customer_id, to_email, subject, body) VALUES (?, ?, ?, ?)",
            (customer_id, row["email"], subject, body),
        ).lastrowid
    return {"email_id": email_id, "customer_id": customer_id, "queued": True}
