"""ApprovalPanel in JupyterLab, in headless Chromium: Approve finishes the run; Deny's reason
reaches the model. Skipped when Chromium is not installed (as tests/test_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lab import notebook_page

CELLS = [
    (
        "from toolsys import Category, Registry\n"
        "from toolsys.governance import Policy\n"
        "from toolsys.models import calls, text\n"
        "from toolsys.models.transport import make_client\n"
        "from toolsys.loop import run_agent\n"
        "from toolsys.widgets import ApprovalPanel\n"
        "registry = Registry(layers=[Policy()])\n"
        "\n"
        "@registry.tool(category=Category.WRITE)\n"
        "def refund(order_id: str, amount: float) -> dict:\n"
        '    """Refund an order."""\n'
        "    return {'refunded': amount}\n"
        "\n"
        "class Echo:\n"
        "    name = 'echo'\n"
        "    def reply(self, request):\n"
        "        tools = [m for m in request['messages'] if m['role'] == 'tool']\n"
        "        if not tools:\n"
        "            return calls(('refund', {'order_id': 'A1', 'amount': 20}))\n"
        "        return text('The tool said: ' + tools[-1]['content'])\n"
        "\n"
        "def paused():\n"
        "    client = make_client(Echo())\n"
        "    return client, run_agent(client, registry, 'Refund A1')"
    ),
    "client, t = paused()\nApprovalPanel(t, client=client, registry=registry, approved_by='li')",
    "client, t = paused()\nApprovalPanel(t, client=client, registry=registry)",
]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The approval notebook, served by its own JupyterLab and run top to bottom once."""
    tmp = tmp_path_factory.mktemp("approval-lab")
    with notebook_page(tmp, CELLS, ".toolsys-approval-panel") as opened:
        opened.locator(".toolsys-approval-panel").nth(1).wait_for()
        yield opened


@pytest.mark.timeout(240)
def test_clicking_approve_in_the_browser_finishes_the_run(page: Any) -> None:
    from playwright.sync_api import expect

    panel = page.locator(".toolsys-approval-panel").nth(0)
    expect(panel).to_contain_text("Waiting for approval: 1 call")
    expect(panel).to_contain_text("refund")
    panel.locator(".widget-button", has_text="Approve").click()
    expect(panel).to_contain_text("Run completed")
    expect(panel).to_contain_text('"refunded": 20.0')


@pytest.mark.timeout(240)
def test_clicking_deny_in_the_browser_sends_the_reason_to_the_model(page: Any) -> None:
    from playwright.sync_api import expect

    panel = page.locator(".toolsys-approval-panel").nth(1)
    panel.locator(".widget-text input").fill("Over 10 needs a manager.")
    panel.locator(".widget-button", has_text="Deny").click()
    expect(panel).to_contain_text("Run completed")
    expect(panel).to_contain_text("APPROVAL_DENIED")
    expect(panel).to_contain_text("Over 10 needs a manager.")
