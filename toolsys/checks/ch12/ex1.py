"""Exercise 12.1, an invariant as a query: the check and its reference, `reship_rule`.

The rule runs on a fresh shop; the cases are a rule that flags sound data, or only one way of
breaking the invariant.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls
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


_ORDERS = [f"ORD-{n}" for n in range(1001, 1025)]  # the fresh shop's 24 orders, of every status


def _reships_call(rng: random.Random, size: int) -> Call:
    """0 to 8 reships, each of one of a few of the shop's orders (placed, shipped, delivered or
    cancelled: the same order often twice), for either reason."""
    orders = rng.sample(_ORDERS, 1 + size // 2)
    reships = [
        (rng.choice(orders), rng.choice(["broken", "lost"]))
        for _ in range(rng.randint(0, min(8, 1 + size)))
    ]
    return Call((reships,))


_GENERATED = calls(_reships_call, seed=121, count=150)


def _named_orders(sql: str, conn: sqlite3.Connection) -> Callable[..., list[str]]:
    """The orders `sql` names on the shop in `conn` with these reships (and no others)."""

    def run(reships: list[tuple[str, str]]) -> list[str]:
        conn.execute("DELETE FROM reships")
        conn.executemany("INSERT INTO reships (order_id, reason) VALUES (?, ?)", reships)
        return sorted({str(row["order_id"]) for row in conn.execute(sql).fetchall()})

    return run


def _in_memory(path: object) -> sqlite3.Connection:
    """A copy of the shop's database in memory: a differential case changes the reships
    hundreds of times, which a file's commits would make slow."""
    conn = sqlite3.connect(":memory:")
    with sqlite3.connect(str(path)) as source:
        source.backup(conn)
    conn.row_factory = sqlite3.Row
    return conn


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
    with temporary_shop() as shop:
        conn = _in_memory(shop.path)
    try:
        agree(
            _named_orders(sql, conn),
            _named_orders(RESHIP_RULE, conn),
            _GENERATED,
            name="With the reships (order_id, reason) {args}, the orders your rule names",
            hint="Count per order (whatever the reason), and name every order reshipped that "
            "is not delivered.",
        )
    finally:
        conn.close()
