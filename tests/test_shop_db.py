"""The capstone shop's database: a deterministic seed, invariants that catch each kind of
corruption, a read-only report sandbox that refuses everything else, and a change log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toolsys import ToolError
from toolsys.shop import create, invariants
from toolsys.shop.db import NOTE_INJECTION, Shop
from toolsys.shop.sandbox import MAX_ROWS, run_readonly
from toolsys.shop.state import changes, snapshot


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    return create(tmp_path / "shop.db")


def _dump(shop: Shop) -> list[list[dict[str, object]]]:
    tables = ["customers", "orders", "order_lines", "payments", "refunds", "outbox"]
    return [shop.rows(f"SELECT * FROM {table} ORDER BY 1, 2") for table in tables]


def test_the_same_seed_gives_the_same_shop(tmp_path: Path) -> None:
    assert _dump(create(tmp_path / "a.db")) == _dump(create(tmp_path / "b.db"))
    assert _dump(create(tmp_path / "c.db", seed=1)) != _dump(create(tmp_path / "a.db"))


def test_create_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    shop = create(path)
    with shop.transaction() as conn:
        conn.execute("DELETE FROM outbox")
        conn.execute("UPDATE orders SET status = 'cancelled'")
    assert _dump(create(path)) == _dump(create(tmp_path / "fresh.db"))


def test_a_fresh_shop_breaks_no_rule_and_has_the_injected_note(shop: Shop) -> None:
    assert invariants(shop) == []
    notes = [row["note"] for row in shop.rows("SELECT note FROM orders WHERE note != ''")]
    assert notes == [NOTE_INJECTION]


def _refund(conn: sqlite3.Connection, order_id: str, cents: int, key: str = "k") -> int:
    refund_id = conn.execute(
        "INSERT INTO refunds (order_id, amount_cents, reason, idempotency_key) "
        "VALUES (?, ?, 'late', ?)",
        (order_id, cents, key),
    ).lastrowid
    assert refund_id is not None
    return refund_id


def _email(conn: sqlite3.Connection, customer_id: str, refund_id: int | None) -> None:
    conn.execute(
        "INSERT INTO outbox (customer_id, to_email, subject, body, refund_id) "
        "VALUES (?, 'x@example.com', 's', 'b', ?)",
        (customer_id, refund_id),
    )


@pytest.mark.parametrize(
    ("corrupt", "rule"),
    [
        (lambda c: _email(c, "C003", _refund(c, "ORD-1003", 10_000_000)), "refunded <= paid"),
        (lambda c: _refund(c, "ORD-1003", 100), "each refund has exactly one outbox email"),
        (
            lambda c: [_email(c, "C005", _refund(c, "ORD-1005", 1, key)) for key in "ab"],
            "a cancelled order is refunded at most once",
        ),
        (
            lambda c: _email(c, "C001", _refund(c, "ORD-1003", 100)),
            "a refund email goes to the order's customer",
        ),
    ],
)
def test_each_rule_names_the_row_that_breaks_it(shop: Shop, corrupt, rule: str) -> None:
    with shop.transaction() as conn:
        corrupt(conn)
    broken = invariants(shop)
    assert any(line.startswith(rule + ":") for line in broken), broken


def test_the_database_itself_refuses_a_duplicate_refund_key(shop: Shop) -> None:
    with pytest.raises(sqlite3.IntegrityError), shop.transaction() as conn:
        _refund(conn, "ORD-1003", 100)
        _refund(conn, "ORD-1003", 100)
    assert shop.rows("SELECT * FROM refunds") == []


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM orders",
        "UPDATE orders SET status = 'placed'",
        "INSERT INTO refunds VALUES (9, 'ORD-1001', 1, 'x', 'k')",
        "ATTACH DATABASE '/tmp/elsewhere.db' AS other",
        "PRAGMA query_only = OFF",
        "SELECT load_extension('x')",
        "DROP TABLE refunds",
        "CREATE TABLE t (x)",
        "SELECT 1; DELETE FROM orders",
    ],
)
def test_a_report_that_would_write_attach_or_configure_is_refused(shop: Shop, sql: str) -> None:
    before = _dump(shop)
    with pytest.raises(ToolError) as caught:
        run_readonly(shop, sql)
    assert caught.value.code == "REPORT_REFUSED"
    assert _dump(shop) == before


def test_a_report_past_its_deadline_is_stopped(shop: Shop) -> None:
    endless = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c"
    )
    with pytest.raises(ToolError) as caught:
        run_readonly(shop, endless, deadline_s=0.05)
    assert caught.value.code == "REPORT_TIMEOUT"


def test_a_report_is_capped_in_rows_and_value_size(shop: Shop) -> None:
    many = run_readonly(shop, "SELECT a.id FROM orders a, orders b")
    assert len(many["rows"]) == MAX_ROWS and many["truncated"] is True
    with pytest.raises(ToolError) as caught:
        run_readonly(shop, "SELECT randomblob(1000000)")
    assert caught.value.code == "REPORT_SQL_ERROR"


def test_a_report_reads(shop: Shop) -> None:
    report = run_readonly(shop, "SELECT status, COUNT(*) AS n FROM orders GROUP BY status")
    assert report["columns"] == ["status", "n"]
    assert sum(n for _, n in report["rows"]) == 24 and report["truncated"] is False


def test_changes_lists_only_what_a_run_changed(shop: Shop) -> None:
    before = snapshot(shop)
    assert changes(before, snapshot(shop)) == {}
    with shop.transaction() as conn:
        conn.execute("UPDATE orders SET status = 'cancelled' WHERE id = 'ORD-1001'")
        _email(conn, "C003", _refund(conn, "ORD-1003", 250))
    assert changes(before, snapshot(shop)) == {
        "orders": {"ORD-1001": {"status": "cancelled"}},
        "refunds": [("ORD-1003", 250, "late")],
        "emails": [("C003", "s")],
    }


# --- one instruction cannot outrun the deadline, one result cannot flood the context ----------


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT printf('%.*c', 2147483647, 'x')",  # one opcode, ~15 s of looping in SQLite 3.40
        "SELECT format('%.*c', 2147483647, 'x')",
        "SELECT PrintF('%2147483647d', 1)",
        "SELECT length(printf('%.*c', 9, 'x'))",
    ],
)
def test_printf_and_format_are_refused_their_width_has_no_limit(shop: Shop, sql: str) -> None:
    with pytest.raises(ToolError) as caught:
        run_readonly(shop, sql, deadline_s=1.0)
    assert caught.value.code == "REPORT_REFUSED" and "printf" in caught.value.message


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("SELECT " + ", ".join(f"{i} AS c{i}" for i in range(40)), "REPORT_REFUSED"),
        ("SELECT zeroblob(100000000)", "REPORT_SQL_ERROR"),
        ("SELECT " + "(" * 200 + "1" + ")" * 200, "REPORT_SQL_ERROR"),
        (" UNION ALL ".join(["SELECT 1"] * 30), "REPORT_SQL_ERROR"),
        ("SELECT char(" + ", ".join(["65"] * 40) + ")", "REPORT_SQL_ERROR"),
        ("SELECT 'a' LIKE '" + "%a" * 150 + "'", "REPORT_SQL_ERROR"),
    ],
)
def test_sqlites_own_limits_refuse_oversized_queries(shop: Shop, sql: str, code: str) -> None:
    with pytest.raises(ToolError) as caught:
        run_readonly(shop, sql)
    assert caught.value.code == code


def test_a_report_is_capped_in_total_size_and_columns(shop: Shop) -> None:
    from toolsys.shop.sandbox import MAX_COLUMNS, MAX_RESULT_CHARS

    wide = ", ".join(f"hex(zeroblob(4000)) AS c{i}" for i in range(MAX_COLUMNS))
    report = run_readonly(shop, f"SELECT {wide} FROM orders")
    size = sum(len(value) for row in report["rows"] for value in row)
    assert report["truncated"] is True and size <= MAX_RESULT_CHARS
    assert len(report["columns"]) == MAX_COLUMNS
    rows = run_readonly(shop, "SELECT id, substr(hex(zeroblob(200)), 1, 300) FROM orders")
    assert len(rows["rows"]) == 24 and rows["truncated"] is False
