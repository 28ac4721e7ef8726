"""One JupyterLab server and one headless Chromium for every browser test, and what a student
does in them: open a notebook, Run All, run one cell again, click.

Why one of each: starting JupyterLab and Chromium costs seconds, and every test can share them
(each notebook gets a kernel of its own anyway). `tests/test_browser.py` holds every browser
test, so that `make test` (tests/conftest.py's scheduler) keeps them on one worker with one server.

The server serves a temporary folder, never the repository: a test copies a lesson or writes a
notebook there (`Lab.add`, `Lab.write`) and opens the copy, and autosave is off, so nothing a test
runs or clicks is ever saved over a committed notebook.

An opened notebook (`Notebook`) tells a test what a student would see: whether JupyterLab marked
it modified before anything was done, the error outputs and browser console errors so far, and
the layout problems at 1400×900 (text cut off, wider than its output area, a word broken in two).
Everything is skipped when Chromium is not installed.
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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from toolsys._kernelspec import KERNELSPEC

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
VIEWPORT = {"width": 1400, "height": 900}  # JupyterLab opens with the file browser shown
# How long JupyterLab may take to answer at all: a hang guard, not an expectation (it answers in
# a few seconds on an idle machine, and the wait ends then). A lab started beside a loaded test
# run took 65 s; the server exiting is noticed at once whatever this is.
SERVER_TIMEOUT_S = 180
WAIT_MS = 30_000
RUN_ALL_MS = 120_000
LAB_SETTINGS = {
    # No news pop-up over the screenshot; no "Select Kernel" dialog in front of Run All.
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    # Render every cell, not only the ones scrolled into view, so that every cell can be measured.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # What a test runs or clicks is never written back, not even to the served copy.
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}
# A closed notebook's kernel is shut down (an open tab keeps it): a session opens many.
LAB_SETTINGS["@jupyterlab/notebook-extension/tracker"]["kernelShutdown"] = True
STDERR = '[data-mime-type="application/vnd.jupyter.stderr"]'
STDOUT = '[data-mime-type="application/vnd.jupyter.stdout"]'
PLAIN = '[data-mime-type="text/plain"]'
IDLE = re.compile(r"Python 3 \(ipykernel\) \| Idle")


# -- the server and the browser ---------------------------------------------------------------


def write_notebook(path: Path, cells: list[str]) -> Path:
    """A notebook of code cells, with the kernelspec JupyterLab would write (so it opens clean)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[new_code_cell(source) for source in cells])
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def write_cleared(source: Path, target: Path) -> int:
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


@contextmanager
def serve(tmp: Path, root: Path) -> Iterator[Callable[[str], str]]:
    """A JupyterLab server for `root` on a free port, with our settings; yields name -> URL."""
    for plugin, values in LAB_SETTINGS.items():
        path = tmp / "settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    root.mkdir(parents=True, exist_ok=True)
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


class Lab:
    """The shared server: a folder it serves, and a URL for each notebook in it."""

    def __init__(self, root: Path, url_for: Callable[[str], str]) -> None:
        self.root = root
        self.url_for = url_for

    def shut_down(self, name: str) -> None:
        """End the kernel sessions of notebook `name` (a closed page leaves its kernel running)."""
        base, _, query = self.url_for(name).partition("/lab/tree/")
        token = query.split("token=")[1].split("&")[0]
        with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as answer:
            sessions = json.loads(answer.read())
        for session in sessions:
            if session.get("path") == name:
                request = urllib.request.Request(
                    f"{base}/api/sessions/{session['id']}?token={token}", method="DELETE"
                )
                urllib.request.urlopen(request, timeout=10).close()

    def add(self, source: Path, name: str | None = None) -> str:
        """Serve a copy of a notebook (as committed); returns its name on the server."""
        name = name or source.name
        (self.root / name).write_bytes(source.read_bytes())
        return name

    def write(self, name: str, cells: list[str]) -> str:
        write_notebook(self.root / name, cells)
        return name


def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """The JupyterLab server for a session fixture (skipped without Chromium)."""
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium not found at /usr/bin/chromium; install it with: apt-get install -y chromium"
        )
    tmp = tmp_path_factory.mktemp("lab")
    with serve(tmp, tmp / "root") as url_for:
        yield Lab(tmp / "root", url_for)


def chromium_browser() -> Iterator[Any]:
    """Headless Chromium for a module fixture (see `chromium` in tests/test_browser.py)."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# -- one open notebook ------------------------------------------------------------------------

# The execution counts shown in the input prompts ("[12]:"), one per code cell (None: never run).
_PROMPTS = """() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
  .map((p) => { const m = /\\[(\\d+)\\]/.exec(p.textContent); return m ? Number(m[1]) : null; })"""


class Notebook:
    """A notebook open in a browser page of its own, its kernel started and idle."""

    def __init__(self, browser: Any, lab: Lab, name: str) -> None:
        self.lab, self.name = lab, name
        self.cells = json.loads((lab.root / name).read_text(encoding="utf-8"))["cells"]
        self.console: list[str] = []
        self._ran = 0  # the highest execution count this kernel has shown
        self.page = page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(WAIT_MS)
        page.on("console", lambda m: m.type == "error" and self.console.append(m.text))
        page.on("pageerror", lambda error: self.console.append(f"uncaught: {error}"))
        page.goto(lab.url_for(name))
        page.locator(".jp-Notebook .jp-Cell").first.wait_for()
        page.get_by_text(IDLE).wait_for()

    def close(self) -> None:
        self.page.close()
        self.lab.shut_down(self.name)

    def switch(self, name: str) -> None:
        """Close this notebook's tab (discarding changes) and open `name` in the same page:
        JupyterLab is not loaded again, and the closed notebook's kernel is shut down."""
        dirty = self.modified
        self._menu("File", "Close Tab")
        if dirty:
            self.page.get_by_role("button", name=re.compile("Discard|Don.t Save")).click()
        self.page.locator(".jp-Notebook").wait_for(state="detached")
        self.name, self._ran = name, 0
        self.cells = json.loads((self.lab.root / name).read_text(encoding="utf-8"))["cells"]
        self._menu("File", "Open from Path…")
        field = self.page.get_by_role("dialog").locator("input")
        field.fill(name)
        field.press("Enter")
        self.page.locator(".jp-Notebook .jp-Cell").first.wait_for()
        self.page.get_by_text(IDLE).wait_for()

    def output_columns(self) -> int:
        """How many characters of printed text a line of the output area holds (0: nothing
        is printed)."""
        return self.page.evaluate(
            """(selector) => {
              const box = document.querySelector(selector + ' pre');
              if (!box) return 0;  // nothing printed
              const probe = document.createElement('span');
              probe.style.font = getComputedStyle(box).font;
              probe.textContent = 'x'.repeat(100);
              box.appendChild(probe);
              const width = probe.getBoundingClientRect().width / 100;
              probe.remove();
              return Math.floor(box.clientWidth / width);
            }""",
            f".jp-OutputArea-output{STDOUT}",
        )

    @property
    def modified(self) -> bool:
        """Is the notebook's tab marked modified (a dot instead of ×; closing asks to save)?"""
        return self.page.locator(".lm-TabBar-tab.jp-mod-dirty").count() > 0

    def modified_on_open(self, settle_s: float = 0.5) -> bool:
        """Marked modified within `settle_s` of the kernel's first Idle, before any action."""
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            if self.modified:
                return True
            time.sleep(0.1)
        return self.modified

    # -- finding cells ----------------------------------------------------------------------

    def index(self, needle: str, after: int = -1) -> int:
        """The index (among all cells, as on the page) of the first cell after `after` whose
        source contains `needle`."""
        for index, cell in enumerate(self.cells):
            if index > after and needle in "".join(cell["source"]):
                return index
        raise AssertionError(f"{self.name}: no cell after {after} contains {needle!r}")

    def cell(self, index: int) -> Any:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    @property
    def code_cells(self) -> int:
        return sum(1 for cell in self.cells if cell["cell_type"] == "code")

    # -- running ------------------------------------------------------------------------------

    def _counts(self) -> list[int | None]:
        return self.page.evaluate(_PROMPTS)

    def _wait_for_counts(self, above: int, cells: list[int] | None, timeout: float) -> None:
        """Until every chosen code cell (all: None) shows a count above `above`, then Idle."""
        self.page.wait_for_function(
            f"([above, chosen]) => ({_PROMPTS})().every((n, i) =>"
            " (chosen !== null && !chosen.includes(i)) || (n !== null && n > above))",
            arg=[above, cells],
            timeout=timeout,
        )
        self.page.get_by_text(IDLE).wait_for()

    def _menu(self, menu: str, item: str) -> None:
        self.page.locator(".lm-MenuBar-itemLabel", has_text=menu).click()
        label = re.compile(f"^{re.escape(item)}$")  # the item's name, without its shortcut
        self.page.locator(".lm-Menu-itemLabel", has_text=label).click()

    def run_all(self, upto: int | None = None) -> None:
        """Run → Run All Cells (or, `upto` a cell: every cell above it, then it), and wait
        until each has run.

        The outputs are cleared first (Edit → Clear Outputs of All Cells): the counts a
        notebook was saved with are not this kernel's, and a cell is done when it shows one.
        """
        self._menu("Edit", "Clear Outputs of All Cells")
        self.page.wait_for_function(f"() => ({_PROMPTS})().every((n) => n === null)")
        above = self._ran
        if upto is None:
            self._menu("Run", "Run All Cells")
            self._wait_for_counts(above, None, RUN_ALL_MS)
        else:
            code = [i for i, cell in enumerate(self.cells) if cell["cell_type"] == "code"]
            self.cell(upto).locator(".jp-InputPrompt").click()
            self._menu("Run", "Run All Above Selected Cell")
            self._wait_for_counts(above, [code.index(i) for i in code if i < upto], RUN_ALL_MS)
            self._ran = max(n for n in self._counts() if n is not None)
            self.run(upto)
        self._ran = max(n for n in self._counts() if n is not None)

    def run(self, index: int) -> None:
        """Select cell `index` and run it (Ctrl+Enter, the selection stays), as a student does.

        After `run_all` only: until then the counts on the page are the saved ones.
        """
        assert self._ran, "run_all() first: the saved execution counts are not this kernel's"
        code = [i for i, cell in enumerate(self.cells) if cell["cell_type"] == "code"]
        assert index in code, f"{self.name}: cell {index} is not a code cell"
        self.cell(index).locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Control+Enter")
        self._wait_for_counts(self._ran, [code.index(index)], RUN_ALL_MS)
        self._ran = max(n for n in self._counts() if n is not None)

    # -- what went wrong ----------------------------------------------------------------------

    def error_outputs(self) -> list[str]:
        """Every output on stderr (tracebacks too), as `cell N: text`."""
        return self.page.evaluate(
            """(stderr) => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].flatMap(
              (cell, i) => [...cell.querySelectorAll(stderr)].map(
                (o) => `cell ${i}: ${o.textContent.trim().slice(0, 600)}`))""",
            STDERR,
        )

    def problems(self) -> list[str]:
        """Error outputs and console errors: what a student would call "it broke"."""
        return self.error_outputs() + [f"console: {line[:600]}" for line in self.console]

    def layout_problems(self, cells: list[int] | None = None) -> list[str]:
        return self.page.evaluate(LAYOUT_PROBLEMS, cells)

    def broken_words(self, cells: list[int] | None = None) -> list[str]:
        """Printed lines (and text results) that the page breaks inside a word."""
        selector = f".jp-OutputArea-output{STDOUT}, .jp-OutputArea-output{PLAIN}"
        return self.page.evaluate(BROKEN_WORDS, [cells, selector])


@contextmanager
def opened(browser: Any, lab: Lab, name: str) -> Iterator[Notebook]:
    notebook = Notebook(browser, lab, name)
    try:
        yield notebook
    finally:
        notebook.close()


# -- what a student would see, measured in the page -----------------------------------------

# Words a line breaks in two: for every text node under the elements `selector` finds in the
# chosen cells, each place where the next character starts a new visual line while both it and
# the one before are word characters, and the word would fit on a line of its own. `quick`
# (printed output: one text node per output, so a line is a line) skips lines that fit without
# measuring each character; a widget's text is split into nodes by its markup and measured whole.
_BROKEN_WORDS_BODY = """
  const found = [];
  const all = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  const where = (el) => `cell ${all.indexOf(el.closest('.jp-Cell'))}`;
  for (const box of chosen.flatMap((cell) => [...cell.querySelectorAll(selector)])) {
    const style = getComputedStyle(box);
    const probe = document.createElement('span');
    probe.style.font = style.font;
    probe.textContent = 'x'.repeat(100);
    document.body.appendChild(probe);
    const perLine = box.clientWidth / (probe.getBoundingClientRect().width / 100);
    probe.remove();
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data;
      let start = 0;
      for (const line of text.split('\\n')) {
        const offset = start;
        start += line.length + 1;
        if (quick && line.length < perLine * 0.8) continue;  // a line this short fits
        let top = null;
        for (let i = offset; i < offset + line.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (!rect) { top = null; continue; }
          const inWord = /\\w/.test(text[i - 1] || '') && /\\w/.test(text[i]);
          if (top !== null && rect.top > top + 2 && inWord) {
            let a = i, b = i;
            while (a > 0 && !/\\s/.test(text[a - 1])) a--;
            while (b < text.length && !/\\s/.test(text[b])) b++;
            if (b - a < perLine) {  // a word that would fit on a line of its own
              found.push(`${where(box)}: "${text.slice(a, i)}|${text.slice(i, b)}" is broken `
                + `across two lines in: ${line.slice(0, 80)}...`);
            }
          }
          top = rect.top;
        }
      }
    }
  }
  return found;
"""
BROKEN_WORDS = f"""
([cells, selector]) => {{
  const cellsAll = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  const chosen = cells === null ? cellsAll : cellsAll.filter((_, i) => cells.includes(i));
  const quick = true;
  {_BROKEN_WORDS_BODY}
}}
"""

# Everything a student would see cut off, sticking out or broken mid-word, each problem naming
# the cell and the element (its tag, classes and the start of its text).
LAYOUT_PROBLEMS = f"""
(cells) => {{
  const problems = [];
  const all = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  const chosen = cells === null ? all : all.filter((_, i) => cells.includes(i));
  const describe = (el) => {{
    const classes = [...el.classList].filter((c) => /^(toolsys|widget|jp-|cm-)/.test(c));
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 50);
    return `<${{el.tagName.toLowerCase()}}${{classes.map((c) => '.' + c).join('')}}> "${{text}}"`;
  }};
  const where = (el) => `cell ${{all.indexOf(el.closest('.jp-Cell'))}}`;
  const widgetText = '.toolsys-trace pre, .toolsys-playground pre, .toolsys-inspector pre, '
    + '.toolsys-approval-panel pre, .toolsys-trace .widget-html-content, '
    + '.toolsys-playground .widget-html-content, .toolsys-inspector .widget-html-content';
  for (const cell of chosen) {{
    for (const scroller of cell.querySelectorAll('.jp-InputArea .cm-scroller')) {{
      if (scroller.scrollWidth > scroller.clientWidth + 1) {{
        const lines = [...scroller.querySelectorAll('.cm-line')].map((l) => l.textContent);
        const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
        problems.push(`${{where(scroller)}}: a code line is hidden behind the editor's edge `
          + `(${{scroller.scrollWidth}} px wide, ${{scroller.clientWidth}} px shown): `
          + `${{longest.length}} characters, "${{longest.slice(0, 60)}}..."`);
      }}
    }}
    for (const output of cell.querySelectorAll('.jp-OutputArea-output')) {{
      const right = output.getBoundingClientRect().right;
      for (const el of output.querySelectorAll('*')) {{  // document order: the outermost first
        const box = el.getBoundingClientRect();
        if (box.width > 0 && box.right > right + 1) {{
          const wider = Math.round(box.right - right);
          problems.push(`${{where(el)}}: ${{describe(el)}} is ${{wider}} px wider than its `
            + 'output area');
          break;
        }}
      }}
    }}
    for (const el of cell.querySelectorAll(widgetText)) {{
      if (el.scrollWidth > el.clientWidth + 1) {{
        problems.push(`${{where(el)}}: ${{describe(el)}} is cut off: its text is `
          + `${{el.scrollWidth}} px wide, ${{el.clientWidth}} px are shown`);
      }}
    }}
  }}
  const selector = widgetText.split(', ').slice(0, 4).join(', ');
  const quick = false;
  const found = (() => {{ {_BROKEN_WORDS_BODY} }})();
  return problems.concat(found);
}}
"""
