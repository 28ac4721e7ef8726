"""The fresh shop every chapter 12 check runs on, the callers it uses, a stub's verdict, and the
rows an invariant query returns (12.1, 12.2).

Each check gets its own shop in a temporary folder (`toolsys.shop.create`), with the reships
table of exercises 12.1 and 12.2 added.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolsys.checks import CheckFailed, Described
from toolsys.result import ToolResult
from toolsys.shop import Shop, create

RESHIPS = """
CREATE TABLE IF NOT EXISTS reships (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(id),
    reason TEXT NOT NULL
)
"""
"""The table exercises 12.1, 12.2 and 12.5 add to the shop: one row per parcel sent again (no
UNIQUE constraint: the tool's one transaction is what keeps "at most once")."""


AGENT = {"user": "sam", "roles": ["agent"]}
MANAGER = {"user": "mia", "roles": ["manager"]}


@contextmanager
def temporary_shop(*, reships: bool = True) -> Iterator[Shop]:
    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        shop = create(Path(folder) / "shop.db")
        if reships:
            with shop.transaction() as conn:
                conn.execute(RESHIPS)
        yield shop


def unfinished(result: ToolResult) -> None:
    """A stub's NotImplementedError, caught by the registry, still means "not done yet"."""
    if isinstance(result.exception, NotImplementedError):
        raise result.exception


def rule_violations(shop: Shop, sql: str, what: str) -> list[dict[str, object]]:
    """The rows an invariant query `sql` returns on `shop` (exercises 12.1, 12.2): a query SQLite
    refuses, or rows without an order_id, fail the check."""
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
