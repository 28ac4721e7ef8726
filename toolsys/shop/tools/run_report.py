"""run_report (EXECUTE): one read-only SQL query for staff, sandboxed (see toolsys.shop.sandbox)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from toolsys import Category
from toolsys.injection import Depends
from toolsys.shop.db import Shop
from toolsys.shop.sandbox import run_readonly
from toolsys.shop.tools import shop_tool


@shop_tool(category=Category.EXECUTE, roles={"manager"})
def run_report(
    shop: Annotated[Shop, Depends("shop")],
    sql: Annotated[str, Field(min_length=1, max_length=4000)],
) -> dict[str, Any]:
    """Run one read-only SQL SELECT over the shop's tables and return at most 50 rows.

    Tables: customers, orders, order_lines, payments, refunds, outbox (amounts in cents).

    Args:
        sql: A single SELECT statement, e.g. "SELECT status, COUNT(*) FROM orders GROUP BY status".
    """
    return run_readonly(shop, sql)
