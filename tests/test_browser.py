"""End to end in JupyterLab and headless Chromium: what a student sees, for real.

State tests (test_widgets.py) prove the Python side; only a browser proves the front end shows
it. Two tests: the widgets render as real controls and a click reaches the kernel; and the
welcome notebook, the one `make lab` opens, runs top to bottom in the browser without an error.
Skipped when Chromium is not installed.
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
from typing import Any

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


WELCOME = Path(__file__).resolve().parent.parent / "notebooks" / "00_welcome.ipynb"


def _write_cleared(source: Path, target: Path) -> int:
    """Copy a notebook without outputs, so only a fresh run can fill them; return its code cells."""
    import nbformat

    notebook = nbformat.read(source, as_version=4)
    notebook.metadata.pop("widgets", None)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code:
        cell.outputs, cell.execution_count = [], None
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return len(code)


def _run_all(page: Any, url: str) -> None:
    page.goto(url)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    expect_idle = page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))
    expect_idle.wait_for()
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


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
def lab(tmp_path: Path, write_notebook: Callable[..., Path]) -> Iterator[Callable[[str], str]]:
    """A JupyterLab server on a free port serving `root/`; yields notebook name -> its URL.

    `root` holds a generated widgets notebook and the welcome lesson with its outputs cleared.
    """
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium not found at /usr/bin/chromium; install it with: apt-get install -y chromium"
        )
    root = tmp_path / "root"
    write_notebook(root / "widgets.ipynb", NOTEBOOK_CELLS)
    _write_cleared(WELCOME, root / WELCOME.name)
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
        yield lambda name: f"http://127.0.0.1:{port}/lab/tree/{name}?token={token}&reset"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # the server and the kernel it started
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
        log.close()


@pytest.mark.timeout(60)
def test_widgets_render_in_jupyterlab_and_a_click_runs_the_tool(
    lab: Callable[[str], str],
) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.set_default_timeout(WAIT_MS)
            _run_all(page, lab("widgets.ipynb"))

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


@pytest.mark.timeout(90)
def test_the_welcome_notebook_runs_in_the_browser_without_an_error(
    lab: Callable[[str], str],
) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    code_cells = sum(
        1 for cell in json.loads(WELCOME.read_text())["cells"] if cell["cell_type"] == "code"
    )

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.set_default_timeout(WAIT_MS)
            _run_all(page, lab(WELCOME.name))
            done = page.locator(".jp-CodeCell .jp-InputPrompt", has_text=re.compile(r"\[\d+\]"))
            expect(done).to_have_count(code_cells, timeout=60_000)
            # JupyterLab renders tracebacks, like anything on stderr, with the stderr mime type.
            stderr = page.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
            expect(stderr).to_have_count(0)
            expect(page.locator(".toolsys-trace").first).to_contain_text("646")
        finally:
            browser.close()
