"""Row-level access: which orders the caller may see, decided from the caller, never the model.

A customer (role "customer", user = their customer id) sees only their own orders; staff roles
see all. An order outside the caller's reach is reported exactly like a missing one, so a probe
cannot learn which order ids exist.
"""

from __future__ import annotations

import sqlite3

from toolsys import ToolError
from toolsys.injection import Context

STAFF = frozenset({"agent", "manager"})


def customer_scope(caller: Context) -> str | None:
    """The only customer id this caller may see, or None for staff (who may see every customer).

    Fails closed: anyone who is not staff sees only the orders of their own user id, and a
    caller without one sees nothing.
    """
    if caller.roles & STAFF:
        return None
    return str(caller.user) if caller.user is not None else "\0nobody"


def order_row(conn: sqlite3.Connection, order_id: str, caller: Context) -> sqlite3.Row:
    """The order, if it exists and this caller may see it; ORDER_NOT_FOUND otherwise."""
    scope = customer_scope(caller)
    row = conn.execute(
        "SELECT o.*, p.amount_cents AS paid_cents, p.card_number, c.email, c.name FROM orders o "
        "JOIN payments p ON p.order_id = o.id JOIN customers c ON c.id = o.customer_id "
        "WHERE o.id = ? AND (? IS NULL OR o.customer_id = ?)",
        (order_id, scope, scope),
    ).fetchone()
    if row is None:
        raise ToolError(
            "ORDER_NOT_FOUND",
            f"No order {order_id!r} among the orders you can see.",
            suggestion="Check the id (like ORD-1001) or list the customer's orders with "
            "find_orders.",
        )
    return row


def cents(amount: float) -> int:
    """Whole cents from a money amount, refusing fractions of a cent."""
    value = round(amount * 100)
    if abs(amount * 100 - value) > 1e-6:
        raise ToolError(
            "INVALID_AMOUNT",
            f"{amount} has more than two decimals.",
            suggestion="Give the amount in the currency's units with at most two decimals, "
            "e.g. 12.5.",
        )
    return value
