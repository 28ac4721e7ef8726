"""Chapter 12 checks reject the invariants, tools, scenarios, policy rules and chain checks a
student is likely to get almost right.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`):
a rule that misses a way of breaking it or flags sound data, a tool without the row filter or
the duplicate check, a scenario that cannot tell the bugged agent from the correct one, a limit
per call instead of per order, a chain check that trusts each line's own hash.
"""

from __future__ import annotations

from typing import Annotated, Literal

import pytest

from tests.solution_code import answer, verdict
from toolsys.checks import Status
from toolsys.injection import Context, Depends
from toolsys.shop import Shop
from toolsys.shop.tools.get_order import OrderId

# -- 12.1 ------------------------------------------------------------------------------------

_HAVING = "HAVING COUNT(*) > 1 OR o.status != 'delivered'"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((_HAVING, "HAVING COUNT(*) > 1"), "a reship of placed ORD-1019"),
        ((_HAVING, "HAVING o.status != 'delivered'"), "two reships of ORD-1003"),
        (("COUNT(*) > 1", "COUNT(*) >= 1"), "one reship of delivered ORD-1003"),
        (("SELECT r.order_id, o.status", "SELECT o.status"), "no order_id column"),
        (("GROUP BY", "GROUP"), "SQLite refused"),
    ],
    ids=["status-missed", "duplicates-missed", "flags-sound-data", "no-order-id", "bad-sql"],
)
def test_a_wrong_invariant_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("12.1", answer("12.1", change)).text()


def test_a_rule_that_counts_the_whole_table_is_rejected() -> None:
    def whole_table() -> str:
        return "SELECT order_id FROM reships WHERE (SELECT COUNT(*) FROM reships) > 1"

    assert "ORD-1004" in verdict("12.1", whole_table).text()


def test_a_rule_that_is_not_a_string_is_rejected() -> None:
    assert "as a string" in verdict("12.1", lambda: ["SELECT 1"]).text()


# -- 12.2 ------------------------------------------------------------------------------------


def test_a_stub_with_the_exercise_signature_is_not_done() -> None:
    def reship_order(
        shop: Annotated[Shop, Depends("shop")],
        ctx: Context,
        order_id: OrderId,
        reason: Literal["damaged", "not_received"],
    ) -> dict[str, object]:
        """Send a delivered order again."""
        raise NotImplementedError("Exercise 12.2")

    verdict("12.2", reship_order, Status.NOT_DONE)


_UNSCOPED = 'conn.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()'
_ALREADY = 'if conn.execute("SELECT 1 FROM reships WHERE order_id = ?", (order_id,)).fetchone():'


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("order_row(conn, order_id, ctx)", _UNSCOPED), "reship_order('ORD-1004', 'damaged')"),
        ((_ALREADY, "if False:"), "ORDER_ALREADY_RESHIPPED"),
        (('order["status"] != "delivered"', 'order["status"] == "cancelled"'), "ORD-1019"),
        (('"ORDER_NOT_DELIVERED"', '"INVALID_STATUS"'), "ORDER_NOT_DELIVERED"),
    ],
    ids=["no-row-filter", "no-duplicate-check", "status-by-exclusion", "wrong-code"],
)
def test_a_wrong_tool_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("12.2", answer("12.2", change)).text()


def test_a_tool_the_registry_cannot_register_is_rejected() -> None:
    def reship_order(*orders: str) -> str:
        return "sent"

    assert "registry.register(reship_order) failed" in verdict("12.2", reship_order).text()


# -- 12.3 ------------------------------------------------------------------------------------


def test_a_scenario_away_from_the_boundary_does_not_catch_the_bug() -> None:
    safe = answer("12.3", ("Refund 50 on", "Refund 19.90 on"), ("5000", "1990"))
    assert "does not catch the bug" in verdict("12.3", safe).text()


def test_a_scenario_that_expects_the_bug_fails_on_the_correct_agent() -> None:
    wrong = answer("12.3", ('called=("refund_order",),', 'human="approve", asks=1,'))
    assert "fails on the correct agent" in verdict("12.3", wrong).text()


def test_something_else_than_a_scenario_is_rejected() -> None:
    assert "should return a Scenario" in verdict("12.3", lambda: {"name": "x"}).text()


# -- 12.4 ------------------------------------------------------------------------------------

_TOTAL = 'total = row["cents"] + round(arguments["amount"] * 100)'
_CUSTOMER_SUM = (
    "WHERE order_id IN (SELECT id FROM orders WHERE customer_id = "
    "(SELECT customer_id FROM orders WHERE id = ?))"
)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((_TOTAL, 'total = round(arguments["amount"] * 100)'), "30 on ORD-1003 (damaged)"),
        (("total <= round(limit * 100)", "total < round(limit * 100)"), "20 on ORD-1003"),
        (('if "manager" in roles:', 'if "admin" in roles:'), "by mia"),
        (("WHERE order_id = ?", _CUSTOMER_SUM), "40 on ORD-1019"),
        (('if "customer" in roles and', "if"), "by sam"),
    ],
    ids=["per-call", "limit-excluded", "no-manager", "per-customer", "any-role"],
)
def test_a_wrong_refund_rule_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("12.4", answer("12.4", change)).text()


def test_a_rule_factory_that_returns_no_rule_is_rejected() -> None:
    assert "should return a rule" in verdict("12.4", lambda shop, limit=50.0: None).text()


# -- 12.5 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (('record["prev"] != previous or record["seq"] != number', "False"), "hash recomputed"),
        (('record["prev"] != previous or ', ""), "inserted"),
        (("enumerate(lines, start=1)", "enumerate(lines)"), "the log as written"),
        (('separators=(",", ":"), ', ""), "the log as written"),
        (("return number - 1", "return number"), "inserted"),
    ],
    ids=["hash-only", "no-prev-check", "zero-based", "wrong-canonical-form", "blames-next-line"],
)
def test_a_wrong_chain_check_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("12.5", answer("12.5", change)).text()


# -- 12.4's reference under concurrency ----------------------------------------------------------


def _guarded(shop: Shop, pause: float) -> object:
    import time

    from toolsys import Registry
    from toolsys.checks.ch12 import split_proof_rule
    from toolsys.governance import Policy
    from toolsys.shop.agent import GRANTS
    from toolsys.shop.tools import tools

    async def slow(call, call_next):  # widens the window between deciding and writing
        time.sleep(pause)
        return await call_next(call)

    slow.stage = "validated"  # type: ignore[attr-defined]
    policy = Policy(rules={"refund_order": split_proof_rule(shop)}, grants=GRANTS)
    registry = Registry(layers=[policy, slow])
    registry.provide(shop=shop)
    for fn, options in tools():
        registry.register(fn, **options)
    return registry


@pytest.mark.timeout(60)
@pytest.mark.parametrize("threads", [2, 6])
def test_concurrent_refunds_cannot_both_pass_the_split_proof_limit(tmp_path, threads) -> None:
    # Deciding outside the refund's own transaction let 2 refunds of 30 pay 60 of a limit of
    # 50 (6 threads: 180); decided and written in one BEGIN IMMEDIATE transaction, one passes.
    import threading

    from toolsys.shop import create, invariants
    from toolsys.shop.scenarios import CHLOE

    shop = create(tmp_path / "shop.db")
    registry = _guarded(shop, pause=0.2)
    start = threading.Barrier(threads)
    codes: list[str | None] = []

    def refund(n: int) -> None:
        start.wait()
        arguments = {"order_id": "ORD-1019", "amount": 30, "reason": "goodwill",
                     "idempotency_key": f"k{n}"}  # fmt: skip
        result = registry.execute("refund_order", arguments, context=CHLOE)  # type: ignore[attr-defined]
        codes.append(None if result.ok else str(result.error.code))

    workers = [threading.Thread(target=refund, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    (row,) = shop.rows("SELECT COALESCE(SUM(amount_cents), 0) AS cents FROM refunds")
    assert row["cents"] == 3000, codes
    assert codes.count(None) == 1 and codes.count("APPROVAL_REQUIRED") == threads - 1
    assert invariants(shop) == []


def test_a_refund_the_held_rule_allowed_but_the_tool_refused_writes_nothing(tmp_path) -> None:
    from toolsys.shop import create
    from toolsys.shop.scenarios import CHLOE

    shop = create(tmp_path / "shop.db")
    registry = _guarded(shop, pause=0.0)
    arguments = {"order_id": "ORD-1003", "amount": 30, "reason": "goodwill"}
    assert registry.execute("refund_order", arguments, context=CHLOE).ok  # type: ignore[attr-defined]
    again = registry.execute("refund_order", {**arguments, "amount": 20}, context=CHLOE)  # type: ignore[attr-defined]
    assert again.ok and again.value["replayed"] is True  # same reason and key: the first refund
    assert shop.rows("SELECT COUNT(*) AS n FROM refunds") == [{"n": 1}]
    other = {"order_id": "ORD-1011", "amount": 9999, "reason": "late"}
    over = registry.execute("refund_order", other, context={**CHLOE, "roles": ["manager"]})  # type: ignore[attr-defined]
    assert over.error.code == "REFUND_EXCEEDS_PAYMENT"
    assert shop.rows("SELECT COUNT(*) AS n FROM refunds") == [{"n": 1}]
