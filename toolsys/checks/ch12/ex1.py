"""Exercise 12.1, an invariant as a query: the check and its reference, `reship_rule`.

The rule runs on a fresh shop; the cases are a rule that flags sound data, or only one way of
breaking the invariant.
"""

from __future__ import annotations

from collections.abc import Callable

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks.ch12._shared import rule_violations, temporary_shop

RESHIP_RULE = """
    SELECT r.order_id, o.status, COUNT(*) AS reships
    FROM reships r JOIN orders o ON o.id = r.order_id
    GROUP BY r.order_id HAVING COUNT(*) > 1 OR o.status != 'delivered'
"""
"""Reference for 12.1: reships of an order that was not delivered, or more than one."""


def reship_rule() -> str:
    return RESHIP_RULE


_RESHIP_CASES: list[tuple[str, list[str], set[str]]] = [
    ("no reship at all", [], set()),
    ("one reship of delivered ORD-1003", ["ORD-1003"], set()),
    ("one reship each of delivered ORD-1003 and ORD-1004", ["ORD-1003", "ORD-1004"], set()),
    ("two reships of ORD-1003", ["ORD-1003", "ORD-1003"], {"ORD-1003"}),
    ("a reship of placed ORD-1019", ["ORD-1019"], {"ORD-1019"}),
    ("a reship of cancelled ORD-1011", ["ORD-1003", "ORD-1011"], {"ORD-1011"}),
    ("a reship of shipped ORD-1002", ["ORD-1002"], {"ORD-1002"}),
]


@exercise(
    "12.1",
    title="An invariant as a query",
    hints=[
        "JOIN reships to orders on the order id, GROUP BY the order, and keep a group with "
        "HAVING: more than one reship, or a status other than 'delivered'.",
        "Select r.order_id first, so each row names the order at fault.",
        "Two reships of two different orders are fine: count per order, not over the table.",
    ],
    reference=lambda: reship_rule,
)
def _check_reship_rule(student: Callable[[], str]) -> None:
    sql = call_student(student, what="reship_rule()", returns="a SQL string")
    if not isinstance(sql, str):
        raise CheckFailed(
            "reship_rule() should return the query as a string.",
            expected=Described("a str holding one SELECT"),
            got=sql,
        )
    for case, orders, faulty in _RESHIP_CASES:
        with temporary_shop() as shop:
            with shop.transaction() as conn:
                conn.executemany(
                    "INSERT INTO reships (order_id, reason) VALUES (?, 'broken')",
                    [(order,) for order in orders],
                )
            rows = rule_violations(shop, sql, f"With {case}")
        expect_equal(
            sorted({str(row["order_id"]) for row in rows}),
            sorted(faulty),
            what=f"the orders your rule names with {case}",
            hint="Only delivered orders may be sent again, each at most once.",
        )
