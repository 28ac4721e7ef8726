"""ApprovalPanel in JupyterLab, in headless Chromium: Approve finishes the run; Deny's reason
reaches the model. Skipped when Chromium is not installed (as tests/test_browser.py)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    LAB_SETTINGS,
    WAIT_MS,
    _free_port,
    _open,
    _run_all,
    _wait_until_up,
    _write_notebook,
)

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
    if not CHROMIUM.exists():
        pytest.skip("Chromium not found at /usr/bin/chromium; apt-get install -y chromium")
    from playwright.sync_api import expect, sync_playwright

    tmp = tmp_path_factory.mktemp("approval-lab")
    _write_notebook(tmp / "root" / "approval.ipynb", CELLS)
    for plugin, values in LAB_SETTINGS.items():
        path = tmp / "settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
    }
    log = (tmp / "lab.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
            f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={token}",
            f"--ServerApp.root_dir={tmp / 'root'}", "--ServerApp.port_retries=0",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    notebook = f"http://127.0.0.1:{port}/lab/tree/approval.ipynb?token={token}&reset"
    try:
        _wait_until_up(f"http://127.0.0.1:{port}/api/status?token={token}", process)
        expect.set_options(timeout=WAIT_MS)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                opened = _open(browser, notebook)
                _run_all(opened, len(CELLS))
                opened.locator(".toolsys-approval-panel").nth(1).wait_for()
                yield opened
            finally:
                browser.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
        log.close()


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
