"""Chapter 12 checks reject the invariants, tools, scenarios, policy rules and agents a student
is likely to get almost right, and pass correct ones written differently.

Each wrong answer is the solution notebook's own answer with one change, made on its syntax tree
(`swap`/`drop` of `tests/solution_code`), or a function written another way: a rule that misses
a way of breaking it or flags sound data, a tool without the row filter, the duplicate check or
its one transaction, a scenario that cannot tell the bugged agent from the correct one, a limit
per call instead of per order or counted in a counter of its own, an agent whose layers are in
the wrong order or miss a piece.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest

from tests.solution_code import answer, drop, swap, verdict
from toolsys import Category, Registry, ToolError
from toolsys.checks import Status
from toolsys.governance import Allow, AuditLog, Hooks, NeedsApproval, Policy
from toolsys.injection import Context, Depends
from toolsys.layers import Retry, Timeout
from toolsys.shop import Shop
from toolsys.shop._access import order_row
from toolsys.shop.agent import GRANTS, hide_personal
from toolsys.shop.tools import tools
from toolsys.shop.tools.get_order import OrderId

# -- 12.1 ------------------------------------------------------------------------------------

_HAVING = "COUNT(*) > 1 OR o.status != 'delivered'"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("HAVING COUNT(*) > 1 OR o.status != 'delivered'", "HAVING COUNT(*) > 1"),
         "placed ORD-1019"),
        (("HAVING COUNT(*) > 1 OR o.status != 'delivered'", "HAVING o.status != 'delivered'"),
         "two reships of ORD-1003"),
        (("COUNT(*) > 1", "COUNT(*) >= 1"), "one reship of delivered ORD-1003"),
        (("SELECT r.order_id, o.status", "SELECT o.status"), "no order_id column"),
        (("GROUP BY", "GROUP"), "SQLite refused"),
    ],
    ids=["status-missed", "duplicates-missed", "flags-sound-data", "no-order-id", "bad-sql"],
)  # fmt: skip
def test_a_wrong_invariant_is_rejected(change: tuple[str, str], words: str) -> None:
    # The answer is one SQL string: a change of its text is the change of the code.
    assert words in verdict("12.1", answer("12.1", change)).text()


def test_a_rule_that_counts_the_whole_table_is_rejected() -> None:
    def whole_table() -> str:
        return "SELECT order_id FROM reships WHERE (SELECT COUNT(*) FROM reships) > 1"

    assert "ORD-1004" in verdict("12.1", whole_table).text()


def test_a_rule_that_is_not_a_string_is_rejected() -> None:
    assert "as a string" in verdict("12.1", lambda: ["SELECT 1"]).text()


def test_an_invariant_written_another_way_passes() -> None:
    def reship_rule() -> str:
        return """
            SELECT order_id FROM reships
            WHERE order_id NOT IN (SELECT id FROM orders WHERE status = 'delivered')
            UNION
            SELECT order_id FROM reships GROUP BY order_id HAVING COUNT(id) >= 2
        """

    verdict("12.1", reship_rule, Status.PASSED)


# -- 12.2 ------------------------------------------------------------------------------------


def test_a_stub_with_the_exercise_signature_is_not_done() -> None:
    def reship_order(
        shop: Annotated[Shop, Depends("shop")],
        ctx: Context,
        order_id: OrderId,
        reason: Literal["broken", "lost"],
    ) -> dict[str, object]:
        """Send a delivered order again."""
        raise NotImplementedError("Exercise 12.2")

    verdict("12.2", reship_order, Status.NOT_DONE)


_UNSCOPED = "conn.execute('SELECT * FROM orders WHERE id = ?', (order_id,)).fetchone()"
_ALREADY = "conn.execute('SELECT 1 FROM reships WHERE order_id = ?', (order_id,)).fetchone()"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap("order_row(conn, order_id, ctx)", _UNSCOPED), "by C003 succeeded"),
        (swap(_ALREADY, "None"), "the second of two identical calls"),
        (swap("order['status'] != 'delivered'", "order['status'] == 'cancelled'"), "ORD-1019"),
        (swap("'ORDER_NOT_DELIVERED'", "'INVALID_STATUS'"), "ORDER_NOT_DELIVERED"),
        (swap("(order_id, reason)", "(order_id, 'broken')"), "the reships table at the end"),
        (swap("{'reship_id': reship_id, 'order_id': order_id, 'reason': reason}",
              "{'reship_id': 1, 'order_id': order_id, 'reason': reason}"), "the value of"),
    ],
    ids=["no-row-filter", "no-duplicate-check", "status-by-exclusion", "wrong-code",
         "reason-dropped", "fixed-id"],
)  # fmt: skip
def test_a_wrong_tool_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("12.2", answer("12.2", change)).text()


def test_a_second_identical_call_that_succeeds_is_named_as_such() -> None:
    # Issue 27: "is None, not a str" did not say it was the second of two identical calls.
    again = answer("12.2", swap(_ALREADY, "None"))
    text = verdict("12.2", again).text()
    assert (
        "reship_order('ORD-1003', 'broken') by C003, the second of two identical calls succeeded"
        in text
    )
    assert "succeeded" in text and "ORDER_ALREADY_RESHIPPED" in text


def _check_apart_from_insert(checked_in: str) -> Callable[..., dict[str, object]]:
    """A 12.2 whose check runs in `shop.<checked_in>()` and whose insert runs in a transaction
    of its own after it: two identical calls at once can both pass the check."""

    def reship_order(
        shop: Annotated[Shop, Depends("shop")],
        ctx: Context,
        order_id: OrderId,
        reason: Literal["broken", "lost"],
    ) -> dict[str, object]:
        """Ship a replacement parcel for a delivered order, once: when it broke or got lost."""
        with getattr(shop, checked_in)() as conn:
            order = order_row(conn, order_id, ctx)
            if order["status"] != "delivered":
                raise ToolError("ORDER_NOT_DELIVERED", f"Order {order_id} is not delivered.")
            if conn.execute("SELECT 1 FROM reships WHERE order_id = ?", (order_id,)).fetchone():
                raise ToolError("ORDER_ALREADY_RESHIPPED", f"Order {order_id} was sent again.")
        with shop.transaction() as conn:
            reship_id = conn.execute(
                "INSERT INTO reships (order_id, reason) VALUES (?, ?)", (order_id, reason)
            ).lastrowid
        return {"reship_id": reship_id, "order_id": order_id, "reason": reason}

    return reship_order


_check_then_write = _check_apart_from_insert("reading")  # the check in a plain connection
_checked_then_inserted = _check_apart_from_insert("transaction")  # in a transaction of its own


def test_a_tool_that_checks_and_writes_in_two_transactions_is_rejected() -> None:
    # Issue 27: the reships table has no UNIQUE constraint; only one transaction keeps "once".
    text = verdict("12.2", _check_then_write).text()
    assert "at the same time left 2 reships row(s); they answered sent again and sent again" in text
    assert "None" not in text


def test_a_check_committed_just_before_its_insert_is_rejected() -> None:
    # Held-out round 5: both in shop.transaction(), but two of them, one straight after the
    # other. The second call used to lose the race for the lock (SQLite's busy handler sleeps
    # while the first call opens its second transaction at once), so the check passed it.
    text = verdict("12.2", _checked_then_inserted).text()
    assert "at the same time left 2 reships row(s); they answered sent again and sent again" in text


def test_a_tool_that_looks_for_a_reship_before_the_row_filter_is_rejected() -> None:
    # adv2: another customer's reshipped order answered ORDER_ALREADY_RESHIPPED, so a probe
    # learned that it exists and was sent again.
    def reship_order(
        shop: Annotated[Shop, Depends("shop")],
        ctx: Context,
        order_id: OrderId,
        reason: Literal["broken", "lost"],
    ) -> dict[str, object]:
        """Ship a replacement parcel for a delivered order, once."""
        with shop.transaction() as conn:
            if conn.execute("SELECT 1 FROM reships WHERE order_id = ?", (order_id,)).fetchone():
                raise ToolError("ORDER_ALREADY_RESHIPPED", f"Order {order_id} was sent again.")
            order = order_row(conn, order_id, ctx)
            if order["status"] != "delivered":
                raise ToolError("ORDER_NOT_DELIVERED", f"Order {order_id} is not delivered.")
            reship_id = conn.execute(
                "INSERT INTO reships (order_id, reason) VALUES (?, ?)", (order_id, reason)
            ).lastrowid
        return {"reship_id": reship_id, "order_id": order_id, "reason": reason}

    text = verdict("12.2", reship_order).text()
    assert "reship_order('ORD-1004', 'lost') by C003, after an earlier call for ORD-1004" in text
    assert "refused with ORDER_ALREADY_RESHIPPED; it should be refused with ORDER_NOT_FOUND" in text
    assert "before any other look-up" in text


def test_a_tool_the_registry_cannot_register_is_rejected() -> None:
    def reship_order(*orders: str) -> str:
        return "sent"

    assert "registry.register(reship_order) failed" in verdict("12.2", reship_order).text()


def test_a_tool_written_another_way_passes() -> None:
    def reship_order(
        shop: Annotated[Shop, Depends("shop")],
        ctx: Context,
        order_id: OrderId,
        reason: Literal["broken", "lost"],
    ) -> dict[str, object]:
        """Replace a delivered parcel that broke or got lost, at most once per order."""
        with shop.transaction() as conn:
            status = order_row(conn, order_id, ctx)["status"]
            (sent,) = conn.execute(
                "SELECT COUNT(*) FROM reships WHERE order_id = ?", (order_id,)
            ).fetchone()
            problem = (
                ("ORDER_NOT_DELIVERED", f"{order_id} is {status}")
                if status != "delivered"
                else ("ORDER_ALREADY_RESHIPPED", f"{order_id} was replaced before")
                if sent
                else None
            )
            if problem:
                raise ToolError(*problem, suggestion="Tell the customer what happened.")
            cursor = conn.execute(
                "INSERT INTO reships (reason, order_id) VALUES (:reason, :order)",
                {"reason": reason, "order": order_id},
            )
            return {"order_id": order_id, "reason": reason, "reship_id": cursor.lastrowid}

    verdict("12.2", reship_order, Status.PASSED)


# -- 12.3 ------------------------------------------------------------------------------------


def test_a_scenario_away_from_the_boundary_does_not_catch_the_bug() -> None:
    safe = answer(
        "12.3",
        swap("'Refund 50 on order ORD-1003 because it arrived damaged'",
             "'Refund 19.90 on order ORD-1003 because it arrived damaged'"),
        swap("('ORD-1003', 5000, 'damaged')", "('ORD-1003', 1990, 'damaged')"),
    )  # fmt: skip
    assert "does not catch the bug" in verdict("12.3", safe).text()


def test_a_scenario_that_expects_the_bug_fails_on_the_correct_agent() -> None:
    def expects_the_bug():
        from dataclasses import replace

        return replace(answer("12.3")(), human="approve", asks=1)

    assert "fails on the correct agent" in verdict("12.3", expects_the_bug).text()


def test_something_else_than_a_scenario_is_rejected() -> None:
    assert "should return a Scenario" in verdict("12.3", lambda: {"name": "x"}).text()


def test_a_scenario_written_another_way_passes() -> None:
    from toolsys.shop.scenarios import Scenario

    def catching_scenario():
        return Scenario(
            "a manager asks nothing, a customer's 50 on their own order neither",
            {"user": "C003", "roles": ["customer"]},
            ("Refund 50 on order ORD-1003 as goodwill",),
            {
                "refunds": [("ORD-1003", 5000, "goodwill")],
                "emails": [("C003", "Your refund for ORD-1003")],
            },
            asks=0,
        )

    verdict("12.3", catching_scenario, Status.PASSED)


# -- 12.4 ------------------------------------------------------------------------------------

_TOTAL = "row['cents'] + round(arguments['amount'] * 100)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap(_TOTAL, "round(arguments['amount'] * 100)"), "30 on ORD-1003 (damaged)"),
        (swap("total <= round(limit * 100)", "total < round(limit * 100)"), "20 on ORD-1003"),
        (swap("'manager' in roles", "'admin' in roles"), "by mia"),
        (swap("'customer' in roles and total <= round(limit * 100)",
              "total <= round(limit * 100)"), "by sam"),
        (swap("round(limit * 100)", "round(50.0 * 100)"), "a limit of 0.57"),
        (swap("round(arguments['amount'] * 100)", "int(arguments['amount'] * 100)"),
         "a cent too many"),
        (swap("round(arguments['amount'] * 100)", "arguments['amount'] * 100"), "a limit of 0.07"),
        (swap("round(limit * 100)", "limit * 100"), "a limit of 0.57"),
    ],
    ids=["per-call", "limit-excluded", "no-manager", "any-role", "limit-ignored", "truncated-cents",
         "amount-in-floats", "limit-in-floats"],
)  # fmt: skip
def test_a_wrong_refund_rule_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("12.4", answer("12.4", change)).text()


def test_a_rule_that_counts_per_customer_is_rejected() -> None:
    per_customer = answer(
        "12.4",
        swap("'SELECT COALESCE(SUM(amount_cents), 0) AS cents FROM refunds WHERE order_id = ?'",
             "'SELECT COALESCE(SUM(amount_cents), 0) AS cents FROM refunds WHERE order_id IN "
             "(SELECT id FROM orders WHERE customer_id = (SELECT customer_id FROM orders WHERE "
             "id = ?))'"),
    )  # fmt: skip
    assert "40 on ORD-1019" in verdict("12.4", per_customer).text()


def test_a_rule_that_counts_what_it_allowed_is_rejected() -> None:
    def counting(shop, limit=50.0):
        allowed: dict[str, int] = {}

        def rule(tool, arguments, context):
            if "manager" in set(context.get("roles") or ()):
                return Allow()
            order, cents = arguments["order_id"], round(arguments["amount"] * 100)
            total = allowed.get(order, 0) + cents
            if "customer" in set(context.get("roles") or ()) and total <= round(limit * 100):
                allowed[order] = total
                return Allow()
            return NeedsApproval("over the limit")

        return rule

    assert "a manager's refund on the same order" in verdict("12.4", counting).text()


def test_a_rule_that_sums_in_floats_is_rejected() -> None:
    def floats(shop, limit=50.0):
        def rule(tool, arguments, context):
            roles = set(context.get("roles") or ())
            if "manager" in roles:
                return Allow()
            rows = shop.rows(
                "SELECT amount_cents FROM refunds WHERE order_id = ?", arguments["order_id"]
            )
            total = sum(row["amount_cents"] / 100 for row in rows) + arguments["amount"]
            return Allow() if "customer" in roles and total <= limit else NeedsApproval("over")

        return rule

    assert "50.00000000000001" in verdict("12.4", floats).text()


def test_a_rule_that_compares_in_floats_is_rejected() -> None:
    # adv2: refunded / 100 + amount <= limit: with a limit of 0.3, 0.10 + 0.20 asked a manager.
    def floats(shop, limit=50.0):
        def rule(tool, arguments, context):
            roles = set(context.get("roles") or ())
            if "manager" in roles:
                return Allow()
            if arguments is None:
                return NeedsApproval("refunds above the limit need a manager")
            (row,) = shop.rows(
                "SELECT COALESCE(SUM(amount_cents), 0) AS c FROM refunds WHERE order_id = ?",
                arguments["order_id"],
            )
            if "customer" in roles and row["c"] / 100 + arguments["amount"] <= limit:
                return Allow()
            return NeedsApproval(f"over {limit}")

        return rule

    text = verdict("12.4", floats).text()
    assert "a limit of 0.3 (0.10 refunded + 0.20 is 0.30000000000000004" in text
    assert "was refused with APPROVAL_REQUIRED; it should be refunded" in text


def test_a_rule_factory_that_returns_no_rule_is_rejected() -> None:
    assert "should return a rule" in verdict("12.4", lambda shop, limit=50.0: None).text()


def test_a_rule_that_fails_when_the_tools_are_listed_is_rejected() -> None:
    # asked with arguments=None when the tools are listed, it raised: refund_order was hidden
    broken = answer("12.4", drop("if arguments is None: return NeedsApproval(...)"))
    text = verdict("12.4", broken).text()
    assert "leave out refund_order" in text and "arguments=None" in text


def test_a_refund_rule_written_another_way_passes() -> None:
    def split_proof_rule(shop, limit=50.0):
        def rule(tool, arguments, context):
            roles = context.get("roles") or []
            if "manager" in roles:
                return Allow()
            arguments = arguments or {"order_id": None, "amount": 0}  # listed: no refund yet
            with shop.reading() as conn:
                (earlier,) = conn.execute(
                    "SELECT TOTAL(amount_cents) FROM refunds WHERE order_id = ?",
                    (arguments["order_id"],),
                ).fetchone()
            cents = int(earlier) + round(float(arguments["amount"]) * 100)
            if "customer" not in roles or cents > round(limit * 100):
                return NeedsApproval(f"{cents / 100:.2f} on {arguments['order_id']} is too much")
            return Allow()

        return rule

    verdict("12.4", split_proof_rule, Status.PASSED)


# -- 12.5 ------------------------------------------------------------------------------------

_PER_CALL = "__import__('toolsys.shop.agent', fromlist=['x']).refund_rule(refund_limit)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap("split_proof_rule(shop, refund_limit)", _PER_CALL),
         "a second refund of 30"),
        (swap("split_proof_rule(shop, refund_limit)", "split_proof_rule(shop)"),
         "refund_limit=20.0"),
        (swap("registry.register(reship_order, category=Category.WRITE)",
              "registry.register(reship_order, category=Category.READ)"), "with no role"),
        (swap("registry.register(reship_order, category=Category.WRITE)", "None"), "reship_order"),
        (drop("with shop.transaction() as conn:\n    conn.execute(RESHIPS)"), "reships"),
        (swap("Registry(layers=stack + list(layers or []))", "Registry(layers=stack)"),
         "put the layers given after it, innermost"),
        (swap("Registry(layers=stack + list(layers or []))",
              "Registry(layers=list(layers or []) + stack)"), "put the layers given after it"),
        (swap("[Hooks(after=[hide_personal]), policy, Retry(seed=0), deadline(timeout)]",
              "[policy, Retry(seed=0), deadline(timeout)]"), "a customer reads own order"),
        (swap("[Hooks(after=[hide_personal]), policy, Retry(seed=0), deadline(timeout)]",
              "[Hooks(after=[hide_personal]), policy, deadline(timeout)]"), "UPSTREAM_BUSY"),
        # adv2: the retry inside the deadline, one deadline for every attempt
        (swap("[Hooks(after=[hide_personal]), policy, Retry(seed=0), deadline(timeout)]",
              "[Hooks(after=[hide_personal]), policy, deadline(timeout), Retry(seed=0)]"),
         "whose first attempt takes 0.8 s, with timeout=0.3 was refused with TIMEOUT; it should "
         "succeed"),
        (swap("deadline(timeout)", "deadline(2.0)"), "timeout=0.3"),
        (swap("audit if isinstance(audit, AuditLog) else AuditLog(audit)", "AuditLog(audit)"),
         "AuditLog"),
        (drop("if audit is not None:\n    stack.append(audit if isinstance(audit, AuditLog) "
              "else AuditLog(audit))"), "an AuditLog passed as audit="),
    ],
    ids=["per-call-rule", "limit-not-passed", "reship-as-read", "no-reship-tool", "no-table",
         "layers-ignored", "layers-outermost", "no-hooks", "no-retry", "retry-inside-the-deadline",
         "timeout-ignored",
         "audit-log-wrapped", "no-audit"],
)  # fmt: skip
def test_a_wrong_agent_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("12.5", answer("12.5", change)).text()


def test_an_agent_with_its_hooks_innermost_passes() -> None:
    # the prose leaves the hooks' place to the student: an after-hook that rewrites only
    # successes does the same anywhere (adv3 leftover: no order anyone can observe)
    innermost = answer(
        "12.5",
        swap(
            "[Hooks(after=[hide_personal]), policy, Retry(seed=0), deadline(timeout)]",
            "[policy, Retry(seed=0), deadline(timeout), Hooks(after=[hide_personal])]",
        ),
    )
    verdict("12.5", innermost, Status.PASSED)


def test_an_agent_whose_table_cannot_be_made_twice_is_rejected() -> None:
    once = answer(
        "12.5", swap("conn.execute(RESHIPS)", "conn.execute(RESHIPS.replace('IF NOT EXISTS ', ''))")
    )
    assert "built again on the same shop" in verdict("12.5", once).text()


def test_an_agent_assembled_another_way_passes() -> None:
    from toolsys.checks.ch12 import RESHIPS, reship_order, split_proof_rule

    def replacement(
        shop: Annotated[Shop, Depends("shop")],
        ctx: Context,
        order_id: OrderId,
        reason: Literal["broken", "lost"],
    ) -> dict[str, object]:
        """A new parcel for a delivered one that broke or went missing (once per order)."""
        return reship_order(shop, ctx, order_id, reason)

    def assemble(shop, *, audit=None, layers=None, refund_limit=50.0, timeout=2.0):
        shop.rows(RESHIPS)  # a CREATE runs through a plain connection too
        agent = Registry()
        if isinstance(audit, AuditLog):
            agent.use(audit)
        elif audit:
            agent.use(AuditLog(audit))
        agent.use(Hooks(after=[hide_personal]))
        rules = {"refund_order": split_proof_rule(shop, limit=refund_limit)}
        agent.use(Policy(rules=rules, grants=GRANTS))
        agent.use(Retry(seed=0))
        agent.use(Timeout(seconds=timeout, cooperative={fn.__name__ for fn, _ in tools()}))
        for layer in layers or ():
            agent.use(layer)
        agent.provide(shop=shop)
        for fn, options in tools():
            agent.register(fn, **options)
        agent.register(replacement, name="reship_order", category=Category.WRITE)
        return agent

    verdict("12.5", assemble, Status.PASSED)


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
