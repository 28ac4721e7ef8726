"""One notebook served by its own JupyterLab in headless Chromium, run top to bottom once.

For browser tests of one widget (the approval panel, the shop dashboard): write the cells,
start JupyterLab on a free port with our settings, open the notebook, run every cell and hand
the page to the test. Skips when Chromium is not installed, as tests/test_browser.py does.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
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


@contextmanager
def serve(tmp: Path, root: Path) -> Iterator[Callable[[str], str]]:
    """A JupyterLab server for `root` on a free port, with our settings; yields name -> URL."""
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
        except subprocess.TimeoutExpired:  # the server and the kernels it started
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
        log.close()


@contextmanager
def notebook_page(tmp: Path, cells: list[str], ready: str) -> Iterator[Any]:
    """The page of a notebook made of `cells`, after running them all and seeing `ready`."""
    if not CHROMIUM.exists():
        pytest.skip("Chromium not found at /usr/bin/chromium; apt-get install -y chromium")
    from playwright.sync_api import expect, sync_playwright

    _write_notebook(tmp / "root" / "widget.ipynb", cells)
    with serve(tmp, tmp / "root") as url_for:
        expect.set_options(timeout=WAIT_MS)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                opened = _open(browser, url_for("widget.ipynb"))
                _run_all(opened, len(cells))
                opened.locator(ready).last.wait_for()
                yield opened
            finally:
                browser.close()
