"""Checks for chapter 12, the capstone: an invariant query and the tool it guards, a scenario
that catches a planted bug, a refund rule that a split refund cannot get around, and a
hand-written audit-chain check that finds the tampered line.

Every check runs on a fresh shop (`toolsys.shop.create`) in a temporary folder, through the
same agent the lesson builds (`toolsys.shop.agent.build`). The cases are the ones a first
answer misses: a rule that flags sound data or only one way of breaking it, a tool without
the caller's row filter, a scenario that passes whatever the code does, a limit checked per
call instead of per order, and a chain check that looks only at each line's own hash.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_true,
)
from toolsys.errors import ToolError
from toolsys.governance import Allow, AuditLog, Decision, NeedsApproval, Policy
from toolsys.governance.audit import verify
from toolsys.injection import Context, Depends
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.shop import Shop, create, invariants
from toolsys.shop._access import order_row
from toolsys.shop.agent import GRANTS, build
from toolsys.shop.scenarios import CHLOE, Scenario
from toolsys.shop.tools import tools
from toolsys.shop.tools.get_order import OrderId
from toolsys.spec import Category

RESHIPS = """
CREATE TABLE reships (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(id),
    reason TEXT NOT NULL
)
"""
"""The table exercises 12.1 and 12.2 add to the shop: one row per parcel sent again."""
AGENT = {"user": "sam", "roles": ["agent"]}
MANAGER = {"user": "mia", "roles": ["manager"]}


@contextmanager
def _shop(*, reships: bool = True) -> Iterator[Shop]:
    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        shop = create(Path(folder) / "shop.db")
        if reships:
            with shop.transaction() as conn:
                conn.execute(RESHIPS)
        yield shop


def _unfinished(result: ToolResult) -> None:
    """A stub's NotImplementedError, caught by the registry, still means "not done yet"."""
    if isinstance(result.exception, NotImplementedError):
        raise result.exception


# -- 12.1 ------------------------------------------------------------------------------------

RESHIP_RULE = """
    SELECT r.order_id, o.status, COUNT(*) AS reships
    FROM reships r JOIN orders o ON o.id = r.order_id
    GROUP BY r.order_id HAVING COUNT(*) > 1 OR o.status != 'delivered'
"""
"""Reference for 12.1: reships of an order that was not delivered, or more than one."""


def reship_rule() -> str:
    return RESHIP_RULE


def _broken(shop: Shop, sql: str, what: str) -> list[dict[str, object]]:
    try:
        rows = shop.rows(sql)
    except sqlite3.Error as exc:
        raise CheckFailed(
            f"{what}: SQLite refused the query ({exc}).",
            expected=Described("a SELECT over reships (and orders) that SQLite runs"),
            got=sql,
            hint="Try the query on the lesson's shop with shop.rows(...) first.",
        ) from None
    if rows and "order_id" not in rows[0]:
        raise CheckFailed(
            f"{what}: the rows have no order_id column.",
            expected=Described("rows with an order_id column naming the order at fault"),
            got=rows,
            hint="SELECT r.order_id, ... so a broken rule names the order to look at.",
        )
    return rows


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
        with _shop() as shop:
            with shop.transaction() as conn:
                conn.executemany(
                    "INSERT INTO reships (order_id, reason) VALUES (?, 'damaged')",
                    [(order,) for order in orders],
                )
            rows = _broken(shop, sql, f"With {case}")
        expect_equal(
            sorted({str(row["order_id"]) for row in rows}),
            sorted(faulty),
            what=f"the orders your rule names with {case}",
            hint="Only delivered orders may be sent again, each at most once.",
        )


# -- 12.2 ------------------------------------------------------------------------------------


def reship_order(
    shop: Annotated[Shop, Depends("shop")],
    ctx: Context,
    order_id: OrderId,
    reason: Literal["damaged", "not_received"],
) -> dict[str, object]:
    """Reference for 12.2: send a delivered order again, once."""
    with shop.transaction() as conn:
        order = order_row(conn, order_id, ctx)
        if order["status"] != "delivered":
            raise ToolError(
                "ORDER_NOT_DELIVERED",
                f"Order {order_id} is {order['status']}, not delivered.",
                suggestion="Only a delivered order can be sent again.",
            )
        if conn.execute("SELECT 1 FROM reships WHERE order_id = ?", (order_id,)).fetchone():
            raise ToolError(
                "ORDER_ALREADY_RESHIPPED",
                f"Order {order_id} was already sent again.",
                suggestion="Offer a refund instead.",
            )
        reship_id = conn.execute(
            "INSERT INTO reships (order_id, reason) VALUES (?, ?)", (order_id, reason)
        ).lastrowid
    return {"reship_id": reship_id, "order_id": order_id, "reason": reason}


_RESHIP_CALLS: list[tuple[Mapping[str, Any], str, str | None]] = [
    (CHLOE, "ORD-1003", None),
    (CHLOE, "ORD-1003", "ORDER_ALREADY_RESHIPPED"),
    (CHLOE, "ORD-1019", "ORDER_NOT_DELIVERED"),
    (CHLOE, "ORD-1011", "ORDER_NOT_DELIVERED"),
    (CHLOE, "ORD-1004", "ORDER_NOT_FOUND"),
    ({"roles": ["customer"]}, "ORD-1004", "ORDER_NOT_FOUND"),
    (AGENT, "ORD-1004", None),
    (AGENT, "ORD-1004", "ORDER_ALREADY_RESHIPPED"),
]


@exercise(
    "12.2",
    title="A reship tool that keeps its invariant",
    hints=[
        "Do everything inside `with shop.transaction() as conn:` and start with "
        "order_row(conn, order_id, ctx): it raises ORDER_NOT_FOUND for an order this caller "
        "may not see.",
        "Then raise ToolError('ORDER_NOT_DELIVERED', ...) unless order['status'] is "
        "'delivered', and ToolError('ORDER_ALREADY_RESHIPPED', ...) if a reships row exists.",
        "Return a dict with reship_id, order_id and reason.",
    ],
    reference=lambda: reship_order,
    timeout=30,
)
def _check_reship_order(student: Callable[..., Any]) -> None:
    with _shop() as shop:
        registry = build(shop)
        try:
            registry.register(student, category=Category.WRITE)
        except NotImplementedError:
            raise
        except Exception as exc:  # a definition error is a wrong answer, shown as one line
            raise CheckFailed(
                f"registry.register(reship_order) failed: {exc}",
                expected=Described("a function the registry can register as a tool"),
                hint="Keep the signature the exercise gives: shop, ctx, order_id, reason.",
            ) from None
        for caller, order, code in _RESHIP_CALLS:
            who = caller.get("user", "a caller without a user id")
            what = f"reship_order({order!r}, 'damaged') by {who}"
            result = registry.execute(
                "reship_order", {"order_id": order, "reason": "damaged"}, context=caller
            )
            _unfinished(result)
            expect_equal(
                None if result.ok else str(result.error.code if result.error else ""),
                code,
                what=f"the error code of {what}",
                hint="ORDER_NOT_FOUND for another customer's order (use order_row), "
                "ORDER_NOT_DELIVERED unless delivered, ORDER_ALREADY_RESHIPPED the second time.",
            )
            broken = _broken(shop, RESHIP_RULE, f"After {what}") + [
                {"order_id": line} for line in invariants(shop)
            ]
            expect_equal(broken, [], what=f"the rows breaking an invariant after {what}")
        expect_equal(
            shop.rows("SELECT order_id, reason FROM reships ORDER BY id"),
            [
                {"order_id": "ORD-1003", "reason": "damaged"},
                {"order_id": "ORD-1004", "reason": "damaged"},
            ],
            what="the reships table at the end",
            hint="One row per successful call, none for a refused one.",
        )


# -- 12.3 ------------------------------------------------------------------------------------


def planted_bug(shop: Shop, **options: Any) -> Registry:
    """The bugged agent of 12.3: a customer's refund of exactly 50 now waits for approval."""
    options.pop("refund_limit", None)
    return build(shop, refund_limit=49.99, **options)


def catching_scenario() -> Scenario:
    """Reference for 12.3: the limit pinned at its boundary."""
    return Scenario(
        "a customer refunds exactly the limit without asking",
        CHLOE,
        ("Refund 50 on order ORD-1003 because it arrived damaged",),
        {
            "refunds": [("ORD-1003", 5000, "damaged")],
            "emails": [("C003", "Your refund for ORD-1003")],
        },
        called=("refund_order",),
    )


def _run(scenario: Scenario, builder: Callable[..., Registry]) -> Any:
    from toolsys.shop.runner import run_scenario

    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        return run_scenario(scenario, Path(folder), builder=builder)


@exercise(
    "12.3",
    title="A scenario that catches a planted bug",
    hints=[
        "The bug is at the boundary: a customer's refund of exactly 50 on their own order. "
        "Chloe (CHLOE) owns ORD-1003 (59.00 paid).",
        "Expect what the correct agent does: one refund of 5000 cents, one email, no approval "
        "(asks=0, human=None), refund_order called.",
        "A refund of 19.90 or of 59 passes on both agents: it cannot tell them apart.",
    ],
    reference=lambda: catching_scenario,
    timeout=60,
)
def _check_catching_scenario(student: Callable[[], Scenario]) -> None:
    scenario = call_student(student, what="catching_scenario()", returns="a Scenario")
    if not isinstance(scenario, Scenario):
        raise CheckFailed(
            "catching_scenario() should return a Scenario.",
            expected=Described("a toolsys.shop.scenarios.Scenario"),
            got=scenario,
        )
    correct = _run(scenario, build)
    expect_true(
        correct.passed,
        "Your scenario fails on the correct agent: " + "; ".join(correct.problems)[:600],
        hint="A scenario states what the correct shop does; only the bugged one may fail it.",
    )
    bugged = _run(scenario, planted_bug)
    expect_true(
        not bugged.passed,
        "Your scenario passes on the bugged agent too: it does not catch the bug.",
        hint="Refund exactly 50 as a customer on their own order: the bugged agent asks for "
        "approval, the correct one does not.",
    )


# -- 12.4 ------------------------------------------------------------------------------------


def split_proof_rule(shop: Shop, limit: float = 50.0) -> Callable[..., Decision]:
    """Reference for 12.4: the limit counts what this order was refunded already."""

    def rule(tool: Any, arguments: Mapping[str, Any] | None, context: Mapping[str, Any]):
        roles = set(context.get("roles") or ())
        if "manager" in roles:
            return Allow()
        arguments = arguments or {}
        amount, order = arguments.get("amount", 0), arguments.get("order_id")
        with shop.reading() as conn:
            (cents,) = conn.execute(
                "SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE order_id = ?", (order,)
            ).fetchone()
        total = int(cents) + round(float(amount) * 100)
        if "customer" in roles and total <= round(limit * 100):
            return Allow()
        return NeedsApproval(f"refunds of {total / 100:.2f} on {order} need a manager")

    return rule


_SPLITS: list[tuple[Mapping[str, Any], str, float, str, str | None]] = [
    (CHLOE, "ORD-1003", 30, "goodwill", None),
    (CHLOE, "ORD-1003", 30, "damaged", "APPROVAL_REQUIRED"),
    (CHLOE, "ORD-1003", 20, "late", None),
    (CHLOE, "ORD-1003", 0.01, "not_received", "APPROVAL_REQUIRED"),
    (CHLOE, "ORD-1019", 40, "goodwill", None),
    (CHLOE, "ORD-1019", 60, "late", "APPROVAL_REQUIRED"),
    (AGENT, "ORD-1010", 10, "late", "APPROVAL_REQUIRED"),
    (MANAGER, "ORD-1004", 120, "damaged", None),
    (MANAGER, "ORD-1004", 80, "late", None),
]


@exercise(
    "12.4",
    title="A refund rule that a split refund cannot get around",
    hints=[
        "Managers: Allow(). Everyone else: add what the order was refunded already "
        "(SUM(amount_cents) FROM refunds WHERE order_id = ?) to this amount.",
        "Compare in cents: round(amount * 100). A customer may refund while the total stays "
        "at most the limit (50 included); anyone else, or above it, gets NeedsApproval(reason).",
        "Count per order, not per customer: a refund on another order starts from zero.",
    ],
    reference=lambda: split_proof_rule,
    timeout=30,
)
def _check_split_proof_rule(student: Callable[..., Any]) -> None:
    with _shop(reships=False) as shop:
        rule = call_student(student, shop, what="split_proof_rule(shop)", returns="a rule")
        if not callable(rule):
            raise CheckFailed(
                "split_proof_rule(shop) should return a rule: a function of "
                "(tool, arguments, context).",
                expected=Described("a callable returning Allow() or NeedsApproval(reason)"),
                got=rule,
            )
        registry = Registry(layers=[Policy(rules={"refund_order": rule}, grants=GRANTS)])
        registry.provide(shop=shop)
        for fn, options in tools():
            registry.register(fn, **options)
        for caller, order, amount, reason, code in _SPLITS:
            arguments = {"order_id": order, "amount": amount, "reason": reason}
            result = registry.execute("refund_order", arguments, context=caller)
            _unfinished(result)
            what = f"a refund of {amount:g} on {order} ({reason}) by {caller['user']}"
            expect_equal(
                None if result.ok else str(result.error.code if result.error else ""),
                code,
                what=f"the error code of {what}",
                hint="A customer alone up to 50 per order, counting the refunds already made "
                "on it (50 itself allowed); an agent always asks; a manager never does.",
            )
        expect_equal(invariants(shop), [], what="the shop's broken invariants at the end")


# -- 12.5 ------------------------------------------------------------------------------------


def first_bad_line(lines: list[str]) -> int | None:
    """Reference for 12.5: what `verify` says, for lines given as strings."""
    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        path = Path(folder) / "audit.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return verify(path).line


def _reseal(record: dict[str, Any]) -> str:
    body = {key: value for key, value in record.items() if key != "hash"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    body["hash"] = hashlib.sha256(canonical.encode("ascii")).hexdigest()
    return json.dumps(body, separators=(",", ":"))


@functools.cache
def _log() -> tuple[str, ...]:
    """A real audit log of seven calls (a fixed clock: the same file every time)."""
    ticks = iter(range(1_796_115_600, 1_796_116_600))
    with _shop(reships=False) as shop, tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        registry = build(shop, audit=AuditLog(path, clock=lambda: float(next(ticks))))
        for order in ("ORD-1003", "ORD-1004", "ORD-1019", "ORD-1011"):
            registry.execute("get_order", {"order_id": order}, context=CHLOE)
        for amount in (10, 60, 5):
            arguments = {"order_id": "ORD-1003", "amount": amount, "reason": "goodwill"}
            registry.execute(
                "refund_order", arguments | {"idempotency_key": f"k{amount}"}, context=CHLOE
            )
        return tuple(path.read_text(encoding="utf-8").splitlines())


def _tamperings() -> list[tuple[str, list[str]]]:
    lines = list(_log())
    records = [json.loads(line) for line in lines]
    edited = lines.copy()
    edited[5] = edited[5].replace('"outcome":"APPROVAL_REQUIRED"', '"outcome":"ok"')
    resealed = lines.copy()
    resealed[5] = _reseal(records[5] | {"outcome": "ok", "decision": "allow"})
    forged = records[2] | {"tool": "refund_order", "category": "write", "outcome": "ok"}
    first = records[0] | {"user": "C004"}
    return [
        ("the log as written", lines),
        ("line 6 edited", edited),
        ("line 6 edited and its hash recomputed", resealed),
        ("line 3 deleted", lines[:2] + lines[3:]),
        ("lines 4 and 5 swapped", [*lines[:3], lines[4], lines[3], *lines[5:]]),
        ("a forged line inserted after line 2", [*lines[:2], _reseal(forged), *lines[2:]]),
        ("a forged first line inserted", [_reseal(first), *lines]),
        ("the first line edited", [lines[0].replace('"C003"', '"C004"'), *lines[1:]]),
    ]


@exercise(
    "12.5",
    title="Find the tampered audit line",
    hints=[
        "For each record (1-based line number n): its hash must be the SHA-256 of the record "
        "without 'hash', as json.dumps(body, sort_keys=True, separators=(',', ':'), "
        "ensure_ascii=True) encoded as ASCII.",
        "Its 'prev' must be the previous record's 'hash' (GENESIS, 64 zeros, for the first), "
        "and its 'seq' must be one more than the previous record's (1 for the first).",
        "Return the first n where any of the three fails, None when none does.",
        "One exception: when line n's prev is the hash of line n-2 (GENESIS if n is 2), line "
        "n-1 was inserted (its own hash recomputed by the forger): return n-1.",
    ],
    reference=lambda: first_bad_line,
    timeout=30,
)
def _check_first_bad_line(student: Callable[[list[str]], int | None]) -> None:
    for case, lines in _tamperings():
        expected = first_bad_line(lines)
        got = call_student(
            student, list(lines), what=f"first_bad_line(...) for {case}", returns="an int or None"
        )
        expect_equal(
            got,
            expected,
            what=f"first_bad_line(...) for {case}",
            hint="Check each line's own hash, its prev link and its seq (= its line number, "
            "from 1); a line whose prev skips one back blames the line before it (inserted).",
        )
