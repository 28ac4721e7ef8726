"""ShopDashboard: the touched rows next to the approval panel, redrawn after each decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsys.loop import run_agent
from toolsys.models import client
from toolsys.models.scripted import ScriptedModel, calls, text
from toolsys.shop import create
from toolsys.shop.agent import build
from toolsys.shop.dashboard import ShopDashboard

CHLOE = {"user": "C003", "roles": ["customer"]}
PROMPT = "Refund 59 on order ORD-1003 because it arrived damaged"


@pytest.fixture
def dashboard(tmp_path: Path) -> ShopDashboard:
    shop = create(tmp_path / "shop.db")
    registry, model = build(shop), client()
    run = run_agent(model, registry, PROMPT, context=CHLOE)
    assert run.status == "awaiting_approval"
    return ShopDashboard(shop, run, client=model, registry=registry, context=CHLOE)


def test_before_a_decision_it_shows_the_order_and_no_refund(dashboard: ShopDashboard) -> None:
    tables = dashboard.tables()
    assert [row["id"] for row in tables["orders"]] == ["ORD-1003"]
    assert tables["orders"][0]["refunded"] == 0 and tables["refunds"] == []
    assert "Approve" in [b.description for b in _buttons(dashboard)]


def test_approving_shows_the_refund_and_its_email(dashboard: ShopDashboard) -> None:
    dashboard.panel.approve(dashboard.panel.transcript.pending[0].id)
    tables = dashboard.tables()
    assert tables["orders"][0]["refunded"] == 59.0
    assert [(r["order_id"], r["amount"]) for r in tables["refunds"]] == [("ORD-1003", 59.0)]
    assert [m["subject"] for m in tables["outbox"]] == ["Your refund for ORD-1003"]
    assert "59.0" in dashboard.rows.value and "Your refund for ORD-1003" in dashboard.rows.value


def test_denying_changes_no_row(dashboard: ShopDashboard) -> None:
    dashboard.panel.deny(dashboard.panel.transcript.pending[0].id, "Send it back first.")
    assert dashboard.tables()["refunds"] == [] and dashboard.tables()["outbox"] == []
    codes = [r.result.error.code for r in dashboard.panel.transcript.results if r.result.error]
    assert codes[-1] == "APPROVAL_DENIED"


def test_malformed_arguments_name_no_order(tmp_path: Path) -> None:
    shop = create(tmp_path / "shop.db")
    registry = build(shop)
    model = ScriptedModel([calls(("get_order", "{not json")), text("Sorry.")]).client()
    run = run_agent(model, registry, "Show an order", context=CHLOE)
    board = ShopDashboard(shop, run, client=model, registry=registry, context=CHLOE)
    assert board.orders == [] and board.tables()["orders"] == []


def _buttons(board: ShopDashboard) -> list:
    import ipywidgets as widgets

    found, todo = [], [board]
    while todo:
        widget = todo.pop()
        if isinstance(widget, widgets.Button):
            found.append(widget)
        todo.extend(getattr(widget, "children", ()))
    return found
