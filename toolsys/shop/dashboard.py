"""ShopDashboard: the run, the approvals it waits on, and the shop's rows it touched, side by side.

What an operator needs to decide an approval is not only the call (tool, arguments, reason) but
the data it would change: the order, what was paid, what was refunded already, what the customer
was told. So the left side is the `ApprovalPanel` (which resumes the run on each click, its
trace below) and the right side the rows of every order the run's calls name, redrawn after
each decision: approve a refund and see the refund row and its outbox email appear.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets

from toolsys.shop.db import Shop
from toolsys.transcript import Transcript
from toolsys.widgets import ApprovalPanel, SummaryBox, esc, text_lines

_ORDERS = (
    "SELECT o.id, o.customer_id, o.status, p.amount_cents / 100.0 AS paid, "
    "COALESCE((SELECT SUM(amount_cents) FROM refunds r WHERE r.order_id = o.id), 0) / 100.0 "
    "AS refunded FROM orders o JOIN payments p ON p.order_id = o.id WHERE o.id IN ({}) "
    "ORDER BY o.id"
)
_REFUNDS = (
    "SELECT id, order_id, amount_cents / 100.0 AS amount, reason FROM refunds "
    "WHERE order_id IN ({}) ORDER BY id"
)
_OUTBOX = (
    "SELECT m.id, m.customer_id, m.subject FROM outbox m "
    "WHERE m.customer_id IN (SELECT customer_id FROM orders WHERE id IN ({})) ORDER BY m.id"
)


class _Panel(ApprovalPanel):
    """An ApprovalPanel that tells the dashboard after every redraw (each decision)."""

    def __init__(self, run: Transcript, on_draw: Any, **options: Any) -> None:
        self._on_draw = on_draw
        super().__init__(run, **options)

    def _draw(self) -> None:
        super()._draw()
        self._on_draw()


class ShopDashboard(SummaryBox):
    """`ShopDashboard(shop, run, client=..., registry=..., context=...)`: decide, and see."""

    def __init__(
        self,
        shop: Shop,
        run: Transcript,
        *,
        client: Any,
        registry: Any,
        context: Mapping[str, Any] | None = None,
        approved_by: str | None = None,
    ) -> None:
        super().__init__()
        self.shop = shop
        self.rows = widgets.HTML()
        self.rows.add_class("toolsys-shop-rows")
        self.panel = _Panel(
            run,
            self._refresh,
            client=client,
            registry=registry,
            context=context,
            approved_by=approved_by,
        )
        self.panel.layout = widgets.Layout(flex="1 1 55%", min_width="0")
        self.rows.layout = widgets.Layout(flex="1 1 45%", min_width="0")
        self.children = (widgets.HBox([self.panel, self.rows]),)
        self.add_class("toolsys-shop-dashboard")
        self._refresh()

    @property
    def orders(self) -> list[str]:
        """The order ids the run's calls name, in order of first mention."""
        found: list[str] = []
        for call in self.panel.transcript.tool_calls:
            try:
                arguments = json.loads(call.arguments)
            except (TypeError, ValueError):
                continue
            order = arguments.get("order_id") if isinstance(arguments, dict) else None
            if isinstance(order, str) and order not in found:
                found.append(order)
        return found

    def tables(self) -> dict[str, list[dict[str, object]]]:
        """The touched rows: {"orders": [...], "refunds": [...], "outbox": [...]}."""
        orders = self.orders
        if not orders:
            return {"orders": [], "refunds": [], "outbox": []}
        marks = ", ".join("?" * len(orders))
        return {
            name: self.shop.rows(sql.format(marks), *orders)
            for name, sql in (("orders", _ORDERS), ("refunds", _REFUNDS), ("outbox", _OUTBOX))
        }

    def _refresh(self) -> None:
        if not hasattr(self, "panel"):  # the panel draws once while it is being built
            return
        parts = []
        for name, rows in self.tables().items():
            parts.append(f"<b>{esc(name)}</b>" + _table(rows))
        self.rows.value = "".join(parts)

    def summary_text(self) -> str:
        lines = [self.panel.summary_text()]
        for name, rows in self.tables().items():
            lines.append(f"{name}:")
            lines += [f"  {row}" for row in rows] or ["  (none)"]
        return text_lines(lines)


def _table(rows: list[dict[str, object]]) -> str:
    if not rows:
        return "<div><i>none</i></div>"
    head = "".join(f"<th style='text-align:left;padding:0 6px'>{esc(k)}</th>" for k in rows[0])
    body = "".join(
        "<tr>"
        + "".join(f"<td style='padding:0 6px'>{esc(str(v))}</td>" for v in row.values())
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"
