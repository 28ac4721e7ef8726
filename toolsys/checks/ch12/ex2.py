"""Exercise 12.2, a reship tool that keeps its invariant: the check and its reference,
`reship_order`.

The tool runs on a fresh shop, registered on the lesson's agent; the cases are a tool without the
caller's row filter (another customer's order is ORDER_NOT_FOUND), a row written for a refused
call, a second reship of the same order, and two identical calls at once: the reships table has
no UNIQUE constraint, so only the tool's one transaction keeps "at most once", and the check runs
two calls side by side on a shop whose reads are slowed down, so that a check made outside the
write's transaction lets both through.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from toolsys.checks import CheckFailed, Described, exercise, expect_equal
from toolsys.checks._plain import text
from toolsys.checks.ch12._shared import AGENT, rule_violations, temporary_shop, unfinished
from toolsys.checks.ch12.ex1 import RESHIP_RULE
from toolsys.errors import ToolError
from toolsys.injection import Context, Depends
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.shop import Shop, invariants, order_row
from toolsys.shop.agent import build
from toolsys.shop.scenarios import CHLOE
from toolsys.shop.tools.get_order import OrderId
from toolsys.spec import Category


def reship_order(
    shop: Annotated[Shop, Depends("shop")],
    ctx: Context,
    order_id: OrderId,
    reason: Literal["broken", "lost"],
) -> dict[str, object]:
    """Ship a replacement parcel for a delivered order, once: when it broke or got lost in transit.

    Args:
        order_id: The delivered order whose parcel is replaced.
        reason: What happened to the parcel.
    """
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


_Call = tuple[Mapping[str, Any], str, str, str | None]
# caller, order, reason, the error code expected (None: the order is sent again)
_RESHIP_CALLS: list[_Call] = [
    (CHLOE, "ORD-1003", "broken", None),
    (CHLOE, "ORD-1003", "broken", "ORDER_ALREADY_RESHIPPED"),
    (CHLOE, "ORD-1019", "broken", "ORDER_NOT_DELIVERED"),
    (CHLOE, "ORD-1011", "lost", "ORDER_NOT_DELIVERED"),
    (CHLOE, "ORD-1004", "broken", "ORDER_NOT_FOUND"),
    ({"roles": ["customer"]}, "ORD-1004", "broken", "ORDER_NOT_FOUND"),
    (AGENT, "ORD-1002", "lost", "ORDER_NOT_DELIVERED"),
    (AGENT, "ORD-1004", "lost", None),
    (AGENT, "ORD-1004", "broken", "ORDER_ALREADY_RESHIPPED"),
    # another customer's order, sent again already: still not this caller's to know about
    (CHLOE, "ORD-1004", "lost", "ORDER_NOT_FOUND"),
    (AGENT, "ORD-1009", "broken", None),
]
_WHY = {
    "ORDER_NOT_FOUND": "Start with order_row(conn, order_id, ctx), before any other look-up: it "
    "raises ORDER_NOT_FOUND for an order this caller may not see (another customer's, or any "
    "when the caller has no user id); an answer about that order's reships or status first tells "
    "the caller that it exists.",
    "ORDER_NOT_DELIVERED": "Only a delivered order is sent again: raise ToolError("
    "'ORDER_NOT_DELIVERED', ...) unless order['status'] is 'delivered'.",
    "ORDER_ALREADY_RESHIPPED": "At most once per order, whatever the reason: look for a reships "
    "row of this order (inside the same transaction) and raise ToolError("
    "'ORDER_ALREADY_RESHIPPED', ...).",
    None: "A delivered order this caller may see, not sent again yet, is sent again: insert the "
    "reships row and return {'reship_id': ..., 'order_id': ..., 'reason': ...}.",
}


def _who(caller: Mapping[str, Any]) -> str:
    return str(caller.get("user", "a caller without a user id"))


def _agent(shop: Shop, student: Callable[..., Any]) -> Registry:
    """The lesson's agent on `shop`, with the student's tool registered as a WRITE tool."""
    registry = build(shop)
    try:
        registry.register(student, name="reship_order", category=Category.WRITE)
    except NotImplementedError:
        raise
    except Exception as exc:  # a definition error is a wrong answer, shown as one line
        raise CheckFailed(
            f"registry.register(reship_order) failed: {exc}",
            expected=Described("a function the registry can register as a tool"),
            hint="Keep the signature the exercise gives: shop, ctx, order_id, reason.",
        ) from None
    return registry


def _outcome(result: ToolResult) -> str | None:
    return None if result.ok else str(result.error.code if result.error else "")


def _expect_call(
    shop: Shop, registry: Registry, call: _Call, before: list[tuple[Mapping[str, Any], str, str]]
) -> None:
    caller, order, reason, code = call
    what = f"reship_order({order!r}, {reason!r}) by {_who(caller)}"
    if (caller, order, reason) in before:
        what += ", the second of two identical calls"
    elif any(o == order for _, o, _ in before):
        what += f", after an earlier call for {order}"
    result = registry.execute("reship_order", {"order_id": order, "reason": reason}, context=caller)
    unfinished(result)
    got = _outcome(result)
    if got != code:
        if code is None:
            message = result.error.message if result.error else ""
            problem = (
                f"{what} was refused with {got} ({text(message)[:160]}); it should send it again."
            )
        elif got is None:
            problem = (
                f"{what} succeeded (it returned {result.value!r}); it should be refused with "
                f"{code}."
            )
        else:
            problem = f"{what} was refused with {got}; it should be refused with {code}."
        raise CheckFailed(
            problem,
            expected=Described(code or "a reship"),
            got=Described(got or "a reship"),
            hint=_WHY[code],
        )
    if code is None:
        (row,) = shop.rows(
            "SELECT id, order_id, reason FROM reships WHERE id = (SELECT MAX(id) FROM reships)"
        )
        expect_equal(
            result.value,
            {"reship_id": row["id"], "order_id": order, "reason": reason},
            what=f"the value of {what}",
            hint="Return the new row's id (cursor.lastrowid), the order and the reason.",
        )
    broken = rule_violations(shop, RESHIP_RULE, f"After {what}") + [
        {"order_id": line} for line in invariants(shop)
    ]
    expect_equal(broken, [], what=f"the rows breaking an invariant after {what}")
    before.append((caller, order, reason))


@dataclass(frozen=True)
class _SlowShop(Shop):
    """A shop whose reads take a while, so two calls at once overlap (as on a busy server)."""

    pause: float = 0.15

    def connect(self) -> sqlite3.Connection:
        return _Slow(super().connect(), self.pause)  # type: ignore[return-value]


class _Slow:
    """A connection that sleeps after each SELECT and each COMMIT it runs; everything else is
    the connection's. The pause after a COMMIT lets the other call in between two transactions
    of one call, as a busy server would: a check committed apart from its insert is seen."""

    def __init__(self, conn: sqlite3.Connection, pause: float) -> None:
        self._conn, self._pause = conn, pause

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        cursor = self._conn.execute(sql, *args)
        if sql.lstrip()[:6].upper() in ("SELECT", "COMMIT"):
            time.sleep(self._pause)
        return cursor

    def __enter__(self) -> _Slow:
        self._conn.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._conn.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@contextmanager
def _slow_shop() -> Iterator[Shop]:
    with temporary_shop() as plain:
        yield _SlowShop(plain.path)


def _expect_one_at_a_time(student: Callable[..., Any]) -> None:
    """Two identical calls at once send the order again once: the check and the insert are one
    transaction (BEGIN IMMEDIATE), and the reships table has no UNIQUE constraint to help."""
    with _slow_shop() as shop:
        registry = _agent(shop, student)
        start, results = threading.Barrier(2), list[ToolResult]()

        def call() -> None:
            start.wait()
            arguments = {"order_id": "ORD-1003", "reason": "broken"}
            results.append(registry.execute("reship_order", arguments, context=CHLOE))

        workers = [threading.Thread(target=call, daemon=True) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(20)
        for result in results:
            unfinished(result)
        rows = shop.rows("SELECT order_id, reason FROM reships")
        codes = sorted(_outcome(result) or "sent again" for result in results)
        if len(rows) != 1 or codes != ["ORDER_ALREADY_RESHIPPED", "sent again"]:
            raise CheckFailed(
                f"Two identical calls of reship_order('ORD-1003', 'broken') by C003 at the same "
                f"time left {len(rows)} reships row(s); they answered {' and '.join(codes)}.",
                expected=Described("1 row; one sent again and one ORDER_ALREADY_RESHIPPED"),
                got=Described(f"{len(rows)} rows; {' and '.join(codes)}"),
                hint="The table has no UNIQUE constraint: only one transaction around the check "
                "and the insert keeps a reship once. Do both inside one `with "
                "shop.transaction() as conn:` (BEGIN IMMEDIATE: the second call waits), not a "
                "read in one connection and a write in another.",
            )


@exercise(
    "12.2",
    title="A reship tool that keeps its invariant",
    hints=[
        "Do everything inside `with shop.transaction() as conn:` and start with "
        "order_row(conn, order_id, ctx): it raises ORDER_NOT_FOUND for an order this caller "
        "may not see.",
        "Then raise ToolError('ORDER_NOT_DELIVERED', ...) unless order['status'] is "
        "'delivered', and ToolError('ORDER_ALREADY_RESHIPPED', ...) if a reships row exists.",
        "Return a dict with reship_id (the new row's id), order_id and reason. The check and "
        "the insert in one transaction: two calls at once must not both pass the check.",
    ],
    reference=lambda: reship_order,
    timeout=60,
)
def _check_reship_order(student: Callable[..., Any]) -> None:
    with temporary_shop() as shop:
        registry = _agent(shop, student)
        made: list[tuple[Mapping[str, Any], str, str]] = []
        for call in _RESHIP_CALLS:
            _expect_call(shop, registry, call, made)
        expect_equal(
            shop.rows("SELECT order_id, reason FROM reships ORDER BY id"),
            [
                {"order_id": "ORD-1003", "reason": "broken"},
                {"order_id": "ORD-1004", "reason": "lost"},
                {"order_id": "ORD-1009", "reason": "broken"},
            ],
            what="the reships table at the end",
            hint="One row per successful call, none for a refused one.",
        )
    _expect_one_at_a_time(student)
