"""The rules the shop's data must obey after every call, checked by queries, not by trust.

Each rule is one SQL query that returns the rows breaking it, so a violation names the order or
refund at fault. The scenario runner checks them after every tool call: a layer that lets a
refund happen twice shows up here as data, whatever the transcript says.
"""

from __future__ import annotations

from toolsys.shop.db import Shop

RULES: dict[str, str] = {
    "refunded <= paid": """
        SELECT o.id AS order_id, p.amount_cents AS paid, SUM(r.amount_cents) AS refunded
        FROM orders o JOIN payments p ON p.order_id = o.id JOIN refunds r ON r.order_id = o.id
        GROUP BY o.id HAVING SUM(r.amount_cents) > p.amount_cents
    """,
    "one refund per (order, reason, idempotency key)": """
        SELECT order_id, reason, idempotency_key, COUNT(*) AS refunds FROM refunds
        GROUP BY order_id, reason, idempotency_key HAVING COUNT(*) > 1
    """,
    "each refund has exactly one outbox email": """
        SELECT r.id AS refund_id, COUNT(m.id) AS emails
        FROM refunds r LEFT JOIN outbox m ON m.refund_id = r.id
        GROUP BY r.id HAVING COUNT(m.id) != 1
    """,
    "a cancelled order is refunded at most once": """
        SELECT o.id AS order_id, COUNT(r.id) AS refunds
        FROM orders o JOIN refunds r ON r.order_id = o.id
        WHERE o.status = 'cancelled' GROUP BY o.id HAVING COUNT(r.id) > 1
    """,
    "a refund email goes to the order's customer": """
        SELECT r.id AS refund_id, m.customer_id AS emailed, o.customer_id AS owner
        FROM refunds r JOIN orders o ON o.id = r.order_id JOIN outbox m ON m.refund_id = r.id
        WHERE m.customer_id != o.customer_id
    """,
}


def invariants(shop: Shop) -> list[str]:
    """Every broken rule, one line per offending row; an empty list means the data is sound."""
    broken: list[str] = []
    with shop.reading() as conn:
        for rule, sql in RULES.items():
            for row in conn.execute(sql):
                shown = ", ".join(f"{key}={value!r}" for key, value in dict(row).items())
                broken.append(f"{rule}: {shown}")
    return broken
