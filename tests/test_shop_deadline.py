"""The shop's tools stop themselves at a call's deadline, so Timeout runs them inline."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.test_layers_timeout import SLOW_SQL
from toolsys import ErrorCode, Registry
from toolsys.layers import Timeout
from toolsys.shop import Shop, create


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    return create(tmp_path / "shop.db")


def test_a_query_past_the_deadline_is_interrupted_and_its_write_rolled_back(shop: Shop) -> None:
    registry = Registry(layers=[Timeout(seconds=0.2, cooperative={"rename_then_stall"})])

    @registry.tool
    def rename_then_stall() -> int:
        """Renames a customer, then runs a query that never ends, in one transaction."""
        with shop.transaction() as conn:
            conn.execute("UPDATE customers SET name = 'X' WHERE id = 'C001'")
            return conn.execute(SLOW_SQL).fetchone()[0]

    before = shop.rows("SELECT name FROM customers WHERE id = 'C001'")
    started = time.monotonic()
    result = registry.execute("rename_then_stall")
    assert time.monotonic() - started < 2
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert shop.rows("SELECT name FROM customers WHERE id = 'C001'") == before
