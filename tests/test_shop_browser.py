"""The shop dashboard in JupyterLab, in headless Chromium: approving a refund shows the refund
row and its outbox email; denying it leaves both tables empty."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lab import notebook_page

CELLS = [
    (
        "import tempfile, pathlib\n"
        "from toolsys.loop import run_agent\n"
        "from toolsys.models import client\n"
        "from toolsys.shop import create\n"
        "from toolsys.shop.agent import build\n"
        "from toolsys.shop.dashboard import ShopDashboard\n"
        "CHLOE = {'user': 'C003', 'roles': ['customer']}\n"
        "def board():\n"
        "    shop = create(pathlib.Path(tempfile.mkdtemp()) / 'shop.db')\n"
        "    registry, model = build(shop), client()\n"
        "    prompt = 'Refund 59 on order ORD-1003 because it arrived damaged'\n"
        "    run = run_agent(model, registry, prompt, context=CHLOE)\n"
        "    return ShopDashboard(shop, run, client=model, registry=registry, context=CHLOE)"
    ),
    "board()",
    "board()",
]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with notebook_page(tmp_path_factory.mktemp("shop-lab"), CELLS, ".toolsys-shop-dashboard") as p:
        yield p


@pytest.mark.timeout(240)
def test_approving_a_refund_shows_its_row_and_its_email(page: Any) -> None:
    from playwright.sync_api import expect

    board = page.locator(".toolsys-shop-dashboard").nth(0)
    rows = board.locator(".toolsys-shop-rows")
    expect(board).to_contain_text("Waiting for approval: 1 call")
    expect(rows).not_to_contain_text("Your refund for ORD-1003")
    board.locator(".widget-button", has_text="Approve").click()
    expect(board).to_contain_text("Run completed")
    expect(rows).to_contain_text("Your refund for ORD-1003")
    expect(rows).to_contain_text("damaged")


@pytest.mark.timeout(240)
def test_denying_a_refund_leaves_the_rows_unchanged(page: Any) -> None:
    from playwright.sync_api import expect

    board = page.locator(".toolsys-shop-dashboard").nth(1)
    board.locator(".widget-text input").fill("Send the parcel back first.")
    board.locator(".widget-button", has_text="Deny").click()
    expect(board).to_contain_text("Run completed")
    expect(board).to_contain_text("Send the parcel back first.")
    expect(board.locator(".toolsys-shop-rows")).not_to_contain_text("Your refund")
