"""What a conversation changed in the shop, as plain data a scenario can state in advance.

A scenario's expectation is not "the transcript looks right" but "the database ends like this":
the refunds made, the emails queued, the orders whose status or address changed. `changes`
compares the database with a snapshot taken before the run, so the expectation lists only what
should differ, and anything else that differs makes the scenario fail.
"""

from __future__ import annotations

from typing import Any

from toolsys.shop.db import Shop

Snapshot = dict[str, Any]


def snapshot(shop: Shop) -> Snapshot:
    """The parts of the shop a conversation may change."""
    orders = {
        row["id"]: {"status": row["status"], "shipping_address": row["shipping_address"]}
        for row in shop.rows("SELECT id, status, shipping_address FROM orders")
    }
    refunds = [
        (row["order_id"], row["amount_cents"], row["reason"])
        for row in shop.rows("SELECT order_id, amount_cents, reason FROM refunds ORDER BY id")
    ]
    emails = [
        (row["customer_id"], row["subject"])
        for row in shop.rows("SELECT customer_id, subject FROM outbox ORDER BY id")
    ]
    return {"orders": orders, "refunds": refunds, "emails": emails}


def changes(before: Snapshot, after: Snapshot) -> dict[str, Any]:
    """What differs: {"orders": {id: {field: new}}, "refunds": [...], "emails": [...]}.

    Only non-empty parts are present, so "nothing happened" is `{}`. Refunds and emails are
    append-only tables: the new rows are those after the snapshot's count.
    """
    diff: dict[str, Any] = {}
    orders = {
        order_id: {k: v for k, v in fields.items() if before["orders"][order_id][k] != v}
        for order_id, fields in after["orders"].items()
    }
    orders = {order_id: fields for order_id, fields in orders.items() if fields}
    if orders:
        diff["orders"] = orders
    for table in ("refunds", "emails"):
        new = after[table][len(before[table]) :]
        if new:
            diff[table] = new
    return diff
