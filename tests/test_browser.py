"""End to end: the widgets render as real controls in JupyterLab and a click reaches the kernel.

State tests (test_widgets.py) prove the Python side; only a browser proves the front end shows
it. One test: start JupyterLab on a generated notebook, run all cells in headless Chromium, click
Run in the playground, see the result appear. Skipped when Chromium is not installed.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "widgets.png"
SERVER_TIMEOUT_S = 20
WAIT_MS = 20_000
# No news pop-up over the screenshot; no "Select Kernel" dialog in front of Run All.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}

NOTEBOOK_CELLS = [
    (
        "from typing import Literal\n"
        "from toolsys import Registry, ToolError\n"
        "from toolsys.widgets import Playground\n"
        "registry = Registry()\n"
        "\n"
        "@registry.tool\n"
        "def get_weather(city: str, units: Literal['celsius', 'fahrenheit'] = 'celsius') -> dict:\n"
        '    """Current weather for a city.\n'
        "\n"
        "    Args:\n"
        "        city: City name, e.g. 'Paris'.\n"
        "        units: Temperature units.\n"
        '    """\n'
        "    if city == 'Atlantis':\n"
        "        raise ToolError('CITY_NOT_FOUND', f'No city named {city!r}.',\n"
        "                        suggestion='Use a real city name, e.g. Paris.')\n"
        "    return {'city': city, 'temperature': 12, 'units': units}"
    ),
    (
        "from toolsys.models import client\n"
        "from toolsys.tools import registry as builtin\n"
        "from toolsys.widgets import TraceView\n"
        "prompt = 'What is 17 times 38, and what is the weather in Atlantis?'\n"
        "transcript = TraceView().run(client(), builtin, prompt)"
    ),
    (
        "playground = Playground(registry)\n"
        "playground.fields['city'].control.value = 'Atlantis'\n"
        "playground"
    ),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVER_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"jupyter lab did not answer {url} within {SERVER_TIMEOUT_S} s")


@pytest.fixture
def lab(tmp_path: Path, write_notebook: Callable[..., Path]) -> Iterator[str]:
    """A JupyterLab server on a free port serving a generated notebook; yields the notebook URL."""
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium not found at /usr/bin/chromium; install it with: apt-get install -y chromium"
        )
    root = tmp_path / "root"
    write_notebook(root / "widgets.ipynb", NOTEBOOK_CELLS)
    for plugin, values in LAB_SETTINGS.items():
        path = tmp_path / "settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    log = (tmp_path / "lab.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
            f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={token}",
            f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        _wait_until_up(f"http://127.0.0.1:{port}/api/status?token={token}", process)
        yield f"http://127.0.0.1:{port}/lab/tree/widgets.ipynb?token={token}&reset"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # the server and the kernel it started
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
        log.close()


@pytest.mark.timeout(60)
def test_widgets_render_in_jupyterlab_and_a_click_runs_the_tool(lab: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.set_default_timeout(WAIT_MS)
            page.goto(lab)
            page.locator(".jp-Notebook .jp-Cell").first.wait_for()
            expect(page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))).to_be_visible()
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

            trace = page.locator(".toolsys-trace")
            expect(trace.locator(".toolsys-call")).to_have_count(2)
            expect(trace).to_contain_text("646")
            expect(trace).to_contain_text("✗ CITY_NOT_FOUND")
            expect(trace).to_contain_text("completed · 2 steps · 2 tool calls (1 failed)")
            expect(trace.locator(".widget-button")).to_have_count(2)

            playground = page.locator(".toolsys-playground")
            expect(playground.locator(".widget-dropdown select").first).to_have_value("get_weather")
            run = playground.locator(".widget-button", has_text="Run")
            run.click()
            expect(playground).to_contain_text("CITY_NOT_FOUND")
            expect(playground).to_contain_text("tool message the model receives")

            if os.environ.get("TOOLSYS_SAVE_SCREENSHOT") == "1":
                page.get_by_role("tab", name=re.compile("File Browser")).click()  # hide sidebar
                page.locator(".jp-Cell").first.scroll_into_view_if_needed()
                SCREENSHOT.parent.mkdir(exist_ok=True)
                page.screenshot(path=str(SCREENSHOT))
        finally:
            browser.close()
