"""Read-only SQL for the report tool, refused as data when it tries anything else.

An EXECUTE tool runs text the model wrote, so "read-only" is enforced four times over rather
than asked for: the file is opened with `mode=ro`; `PRAGMA query_only` is on; an authorizer
allows only reading (no ATTACH, no PRAGMA, no writes, however the statement is spelled); and a
progress handler stops a query that runs past its deadline.

The progress handler runs between the virtual machine's instructions, so one instruction that
takes long escapes it: `printf('%.*c', 2147483647, 'x')` is a single function call that loops
for about 15 s (SQLite 3.40) even with the value length limited. So SQLite's own limits are set
(`setlimit`: value length, columns, SQL length, expression depth, compound selects, function
arguments, LIKE pattern length, ATTACH, prepared statement size), and the two functions whose
width and precision have no limit, `printf` and `format`, are refused by the authorizer.

Results are capped in rows, in columns (SQLite's limit), in the length of any value and in their
total size: a row is left out (and `truncated` set) once the values so far pass
`MAX_RESULT_CHARS`, so one query cannot flood the model's context.
"""

from __future__ import annotations

import re
import sqlite3
import time
from typing import Any

from toolsys import ToolError
from toolsys.layers import deadline
from toolsys.shop.db import Shop

MAX_ROWS = 50
MAX_VALUE_CHARS = 10_000
MAX_COLUMNS = 32
MAX_RESULT_CHARS = 16_000
"""The values of the rows returned add up to at most this many characters (as text)."""
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, 33}
"""SELECT, reading a column, calling a function, and 33 = SQLITE_RECURSIVE (a WITH RECURSIVE)."""
_UNBOUNDED = frozenset({"printf", "format"})
"""Functions whose width or precision can make one call loop for seconds, past every limit."""
_LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: MAX_VALUE_CHARS,
    sqlite3.SQLITE_LIMIT_COLUMN: MAX_COLUMNS,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 10_000,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 20,
    sqlite3.SQLITE_LIMIT_VDBE_OP: 50_000,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 32,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 200,
    sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 10,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 1,
    sqlite3.SQLITE_LIMIT_WORKER_THREADS: 0,
}
_REFUSED = "REPORT_REFUSED"
_CALLS_UNBOUNDED = re.compile(r"(?i)\b(?:printf|format)\s*\(")


def run_readonly(shop: Shop, sql: str, *, deadline_s: float = 1.0) -> dict[str, Any]:
    """Run one SELECT on a read-only connection: {"columns", "rows", "truncated"}."""
    conn = sqlite3.connect(f"file:{shop.path}?mode=ro", uri=True, timeout=1.0)
    try:
        conn.execute("PRAGMA query_only = ON")
        for limit, value in _LIMITS.items():
            conn.setlimit(limit, value)
        conn.set_authorizer(_authorize)
        ends = min(time.monotonic() + deadline_s, deadline() or float("inf"))  # a call's, too
        conn.set_progress_handler(lambda: int(time.monotonic() > ends), 1_000)
        try:
            cursor = conn.execute(sql)
            rows, truncated = _capped(cursor)
        except sqlite3.DatabaseError as exc:
            raise _refusal(str(exc), deadline_s, sql) from None
        columns = [d[0] for d in cursor.description or ()]
        return {"columns": columns, "rows": rows, "truncated": truncated}
    finally:
        conn.close()


def _capped(cursor: sqlite3.Cursor) -> tuple[list[list[Any]], bool]:
    """At most MAX_ROWS rows whose values add up to at most MAX_RESULT_CHARS; whether cut."""
    rows: list[list[Any]] = []
    total = 0
    for row in iter(cursor.fetchone, None):
        total += sum(len(value) if isinstance(value, str | bytes) else 8 for value in row)
        if len(rows) == MAX_ROWS or total > MAX_RESULT_CHARS:
            return rows, True
        rows.append(list(row))
    return rows, False


def _authorize(action: int, first: Any, second: Any, *_: Any) -> int:
    if action == sqlite3.SQLITE_FUNCTION and str(second).lower() in _UNBOUNDED:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def _refusal(text: str, deadline_s: float, sql: str) -> ToolError:
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
    if "too many columns" in text:
        return ToolError(
            _REFUSED,
            f"A report returns at most {MAX_COLUMNS} columns; this query asks for more.",
            suggestion="Select only the columns the question needs.",
        )
    if "not authorized" in text and _CALLS_UNBOUNDED.search(sql):
        return ToolError(
            _REFUSED,
            "printf() and format() are not available in reports: their width and precision "
            "have no limit, so one call could run for seconds.",
            suggestion="Format numbers with round(x, 2) and join text with ||; or return the "
            "raw values and format them in your answer.",
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
