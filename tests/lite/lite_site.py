"""`make test-lite`, second half: the built JupyterLite site, opened in Chromium from 127.0.0.1.

The site is served by Python's http.server (static files, as any web host would); Chromium
opens the welcome notebook, runs every cell, and the bootstrap cell must have installed toolsys
from the site's own wheels (the PyPI fallback is off: these machines reach no CDN), the offline
model must have answered, and the TraceView must render as a widget. Skipped without Chromium.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_site" / "lite"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
KERNEL_MS = 240_000  # Pyodide starts and installs IPython and toolsys from the site's wheels
WELCOME = "notebooks/00_welcome.ipynb"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def welcome() -> Iterator[Any]:
    """The welcome notebook in JupyterLite after Run All, and what the page requested."""
    if not CHROMIUM.exists():
        pytest.skip("Chromium not found at /usr/bin/chromium; apt-get install -y chromium")
    if not (SITE / "index.html").exists():
        pytest.skip("no site in _site/lite: run make lite")
    from playwright.sync_api import sync_playwright

    with served(SITE) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            requests: list[str] = []
            console: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.goto(f"{base}/lab/index.html?path={WELCOME}")
            page.locator(".jp-Notebook").wait_for(timeout=120_000)
            page.get_by_text("Python (Pyodide) | Idle").wait_for(timeout=KERNEL_MS)
            code_cells = len(
                [c for c in json.loads((ROOT / WELCOME).read_text())["cells"]
                 if c["cell_type"] == "code"]
            ) + 1  # fmt: skip  # the bootstrap cell
            page.locator(".jp-Notebook").click()
            page.keyboard.press("Escape")
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            done = page.locator(".jp-CodeCell .jp-InputPrompt", has_text=re.compile(r"\[\d+\]"))
            try:
                done.nth(code_cells - 1).wait_for(timeout=KERNEL_MS)
            finally:  # what the page showed and logged, for a look after a failure
                page.screenshot(path=str(ROOT / "_site" / "lite-welcome.png"), full_page=False)
                (ROOT / "_site" / "lite-console.txt").write_text("\n".join(console))
            (ROOT / "_site" / "lite-page.txt").write_text(
                page.locator(".jp-Notebook").inner_text() + "\n\n" + "\n".join(requests)
            )
            yield page, requests, base
        finally:
            browser.close()


def test_the_bootstrap_installs_toolsys_from_the_site(welcome: Any) -> None:
    page, requests, base = welcome
    assert "toolsys is ready in the browser" in page.locator(".jp-OutputArea").first.inner_text()
    wheels = [url for url in requests if urlsplit(url).path.endswith(".whl")]
    assert any("/pypi/toolsys-" in url for url in wheels), wheels
    assert all(url.startswith(base) for url in wheels), "every wheel comes from this site"


def test_the_welcome_notebook_runs_on_the_offline_model(welcome: Any) -> None:
    page, _, _ = welcome
    text = page.locator(".jp-Notebook").inner_text()
    assert "offline teaching model (simulation)" in text
    assert "get_weather(Oslo) = city: Oslo, temperature_c: -3, condition: snow." in text
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_inner_texts()


def test_the_trace_view_renders_as_a_widget(welcome: Any) -> None:
    page, _, _ = welcome
    page.locator(".jp-OutputArea .widget-html, .jp-OutputArea .jupyter-widgets").first.wait_for(
        timeout=30_000
    )
