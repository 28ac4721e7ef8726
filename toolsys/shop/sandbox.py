"""Read-only SQL for the report tool, refused as data when it tries anything else.

An EXECUTE tool runs text the model wrote, so "read-only" is enforced four times over rather
than asked for: the file is opened with `mode=ro`; `PRAGMA query_only` is on; an authorizer
allows only reading (no ATTACH, no PRAGMA, no writes, however the statement is spelled); and a
progress handler stops a query that runs past its deadline. Results are capped in rows and in
the length of any value, so one query cannot flood the model's context.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from toolsys import ToolError
from toolsys.layers import deadline
from toolsys.shop.db import Shop

MAX_ROWS = 50
MAX_VALUE_CHARS = 10_000
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, 33}
"""SELECT, reading a column, calling a function, and 33 = SQLITE_RECURSIVE (a WITH RECURSIVE)."""
_REFUSED = "REPORT_REFUSED"


def run_readonly(shop: Shop, sql: str, *, deadline_s: float = 1.0) -> dict[str, Any]:
    """Run one SELECT on a read-only connection: {"columns", "rows", "truncated"}."""
    conn = sqlite3.connect(f"file:{shop.path}?mode=ro", uri=True, timeout=1.0)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_CHARS)
        conn.set_authorizer(_authorize)
        ends = min(time.monotonic() + deadline_s, deadline() or float("inf"))  # a call's, too
        conn.set_progress_handler(lambda: int(time.monotonic() > ends), 1_000)
        try:
            cursor = conn.execute(sql)
            rows = cursor.fetchmany(MAX_ROWS + 1)
        except sqlite3.DatabaseError as exc:
            raise _refusal(str(exc), deadline_s) from None
        columns = [d[0] for d in cursor.description or ()]
        return {
            "columns": columns,
            "rows": [list(row) for row in rows[:MAX_ROWS]],
            "truncated": len(rows) > MAX_ROWS,
        }
    finally:
        conn.close()


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def _refusal(text: str, deadline_s: float) -> ToolError:
    if text == "interrupted":
        return ToolError(
            "REPORT_TIMEOUT",
            f"The report query ran past its {deadline_s:g} s deadline and was stopped.",
            suggestion="Narrow the query (a WHERE clause, a LIMIT) or aggregate fewer rows.",
        )
    if "one statement" in text:
        return ToolError(
            _REFUSED,
            "A report runs exactly one statement; this text has more than one.",
            suggestion="Send a single SELECT, without a second statement after a ';'.",
        )
    if "not authorized" in text or "readonly" in text or "read-only" in text:
        return ToolError(
            _REFUSED,
            "Reports may only read: this statement tries to write, attach a file or change a "
            "setting.",
            suggestion="Use a single SELECT over customers, orders, order_lines, payments, "
            "refunds or outbox.",
        )
    return ToolError(
        "REPORT_SQL_ERROR",
        f"The report query is not valid SQL here: {text}",
        suggestion="Check the table and column names; tables: customers, orders, order_lines, "
        "payments, refunds, outbox.",
    )
