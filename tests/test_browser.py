"""What a student sees in JupyterLab, measured in headless Chromium at 1400×900, file browser open.

State tests (test_widgets.py) prove the Python side; only a browser proves the front end shows
it. Here: the widgets render as real controls and a click reaches the kernel; nothing a lesson or
a widget shows is cut off or wider than its output area, and widget text wraps between words (the
layout probe measures rendered widths and names the element at fault); the inspector keeps its tab;
the welcome notebook, the one `make lab` opens, runs top to bottom without an error. The browser
tests are skipped when Chromium is not installed. The first tests read the stored lessons and need
no browser: the lines a lesson writes and prints fit the page, the chart's labels use its axis'
unit, chapter 03 shows both columns whole and the inspector's strict refusal.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import textwrap
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "solutions"
WELCOME = NOTEBOOKS / "00_welcome.ipynb"
SCHEMAS = NOTEBOOKS / "03_schemas.ipynb"
ERRORS = NOTEBOOKS / "04_errors.ipynb"
SCREENSHOT = ROOT / "docs" / "widgets.png"

# At 1400×900 with the file browser open a code cell shows about 120 characters of a line and an
# output area about 123; 100 leaves room for a narrower window (and is ruff's line length).
COLUMNS = 100

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
SERVER_TIMEOUT_S = 30
WAIT_MS = 30_000
RUN_ALL_MS = 120_000
LAB_SETTINGS = {
    # No news pop-up over the screenshot; no "Select Kernel" dialog in front of Run All.
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    # Render every cell, not only the ones scrolled into view, so that every cell can be measured.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}

# Long enough to wrap twice in every widget that shows it: JupyterLab's own `pre` style breaks
# such lines anywhere, in the middle of "Amsterdam" too.
SUMMARY_PARTS = (
    "Amsterdam: 12 degrees, cloudy, a light wind from the northwest, dry until the evening, then ",
    "showers moving in from the North Sea towards Rotterdam, Utrecht and Copenhagen overnight, ",
    "clearing by the morning with sunshine in Stockholm and Helsinki later in the afternoon",
)
SUMMARY = "".join(SUMMARY_PARTS)
NOTEBOOK_CELLS = [
    (
        "from typing import Literal\n"
        "from toolsys import Registry, ToolError\n"
        "from toolsys.widgets import Inspector, Playground\n"
        "registry = Registry()\n"
        "SUMMARY = ''\n" + "".join(f"SUMMARY += {part!r}\n" for part in SUMMARY_PARTS) + "\n"
        "\n"
        "@registry.tool\n"
        "def get_weather(city: str, units: Literal['celsius', 'fahrenheit'] = 'celsius') -> dict:\n"
        '    """Current weather for a city: temperature, sky, wind and rain, from the bundled\n'
        "    sample data for Amsterdam, Copenhagen, Rotterdam, Stockholm and a few more places.\n"
        "\n"
        "    Args:\n"
        "        city: City name, e.g. 'Amsterdam', 'Copenhagen' or 'Rotterdam'.\n"
        "        units: Temperature units.\n"
        '    """\n'
        "    if city == 'Atlantis':\n"
        "        raise ToolError('CITY_NOT_FOUND', f'No city named {city!r}.',\n"
        "                        suggestion='Use a real city name, e.g. Paris.')\n"
        "    station = 'AMS-' + '0123456789' * 8  # a token too long to wrap: it scrolls\n"
        "    return {'city': city, 'units': units, 'summary': SUMMARY, 'station': station}\n"
        "\n"
        "@registry.tool\n"
        "def label_city(city: str, labels: dict[str, str]) -> str:\n"
        '    """Attach labels to a city.\n'
        "\n"
        "    Args:\n"
        "        city: City name.\n"
        "        labels: Label name to label value.\n"
        '    """\n'
        "    return 'ok'"
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
    (
        "long_answer = Playground(registry)\n"
        "long_answer.fields['city'].control.value = 'Amsterdam'\n"
        "long_answer.run()\n"
        "long_answer"
    ),
    "Inspector(registry)",
    (
        "from toolsys.loop import run_agent\n"
        "from toolsys.models import ScriptedModel, calls, text\n"
        "cities = [('get_weather', {'city': city}) for city in ('Amsterdam', 'Atlantis')]\n"
        "both = calls(*cities)\n"
        "scripted = ScriptedModel([both, text('Done.')]).client()\n"
        "TraceView(run_agent(scripted, registry, 'Weather in Amsterdam and Atlantis?'))"
    ),
]

# Run in the page: everything a student would see cut off, sticking out or broken mid-word, each
# problem naming the cell and the element (its tag, classes and the start of its text).
LAYOUT_PROBLEMS = """
(cells) => {
  const problems = [];
  const all = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  const chosen = cells === null ? all : all.filter((_, i) => cells.includes(i));
  const describe = (el) => {
    const classes = [...el.classList].filter((c) => /^(toolsys|widget|jp-|cm-)/.test(c));
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 50);
    return `<${el.tagName.toLowerCase()}${classes.map((c) => '.' + c).join('')}> "${text}"`;
  };
  const where = (el) => `cell ${all.indexOf(el.closest('.jp-Cell'))}`;
  const widgetText = '.toolsys-trace pre, .toolsys-playground pre, .toolsys-inspector pre, '
    + '.toolsys-trace .widget-html-content, .toolsys-playground .widget-html-content, '
    + '.toolsys-inspector .widget-html-content';
  for (const cell of chosen) {
    for (const scroller of cell.querySelectorAll('.jp-InputArea .cm-scroller')) {
      if (scroller.scrollWidth > scroller.clientWidth + 1) {
        const lines = [...scroller.querySelectorAll('.cm-line')].map((l) => l.textContent);
        const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
        problems.push(`${where(scroller)}: a code line is hidden behind the editor's edge `
          + `(${scroller.scrollWidth} px wide, ${scroller.clientWidth} px shown): `
          + `${longest.length} characters, "${longest.slice(0, 60)}..."`);
      }
    }
    for (const output of cell.querySelectorAll('.jp-OutputArea-output')) {
      const right = output.getBoundingClientRect().right;
      for (const el of output.querySelectorAll('*')) {  // document order: the outermost first
        const box = el.getBoundingClientRect();
        if (box.width > 0 && box.right > right + 1) {
          problems.push(`${where(el)}: ${describe(el)} is ${Math.round(box.right - right)} px `
            + 'wider than its output area');
          break;
        }
      }
    }
    for (const el of cell.querySelectorAll(widgetText)) {
      if (el.scrollWidth > el.clientWidth + 1) {
        problems.push(`${where(el)}: ${describe(el)} is cut off: its text is ${el.scrollWidth} `
          + `px wide, ${el.clientWidth} px are shown`);
      }
    }
    for (const pre of cell.querySelectorAll(widgetText.split(', ').slice(0, 3).join(', '))) {
      const style = getComputedStyle(pre);
      const probe = document.createElement('span');
      probe.style.font = style.font;
      probe.textContent = 'x'.repeat(100);
      document.body.appendChild(probe);
      const perLine = pre.clientWidth / (probe.getBoundingClientRect().width / 100);
      probe.remove();
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.data;
        let top = null;
        for (let i = 0; i < text.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (text[i] === '\\n' || !rect) { top = null; continue; }
          const inWord = /\\w/.test(text[i - 1]) && /\\w/.test(text[i]);
          if (top !== null && rect.top > top + 2 && inWord) {
            let start = i, end = i;
            while (start > 0 && !/\\s/.test(text[start - 1])) start--;
            while (end < text.length && !/\\s/.test(text[end])) end++;
            if (end - start < perLine) {  // a word that would fit on a line of its own
              problems.push(`${where(pre)}: ${describe(pre)} breaks the word `
                + `"${text.slice(start, i)}|${text.slice(i, end)}" across two lines`);
            }
          }
          top = rect.top;
        }
      }
    }
  }
  return problems;
}
"""


# -- the stored lessons, no browser needed ----------------------------------------------------


def _cells(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict[str, Any]) -> str:
    return "".join(cell["source"])


def _printed(cell: dict[str, Any]) -> str:
    return "".join("".join(o["text"]) for o in cell.get("outputs", []) if o.get("text"))


def _plain(cell: dict[str, Any]) -> str:
    return "".join("".join(o["data"]["text/plain"]) for o in cell.get("outputs", []) if "data" in o)


def _cell(path: Path, needle: str) -> dict[str, Any]:
    found = [cell for cell in _cells(path) if needle in _source(cell)]
    assert found, f"{path.name}: no cell contains {needle!r}"
    return found[0]


# Lines printed in a format the package owns, not the lesson: a run's transcript (toolsys.loop),
# `models.describe()` and the offline model's own sentence. JupyterLab wraps them; the lessons
# print what the package gives.
PACKAGE_FORMATS = re.compile(r"^(ToolCall|Result|Answer) |^offline teaching model|^None of the")


# Every lesson and every solution, so a new chapter is covered; exercises are generated from the
# solutions, so they follow.
EDITED = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(SOLUTIONS.glob("*.ipynb"))


@pytest.mark.parametrize("path", EDITED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_code_line_in_the_lesson_runs_past_the_editor(path: Path) -> None:
    long = [
        f"cell {index}: {len(line)} characters: {line[:60]}..."
        for index, cell in enumerate(_cells(path))
        if cell["cell_type"] == "code"
        for line in _source(cell).splitlines()
        if len(line) > COLUMNS
    ]
    assert not long, f"{path.name}: code lines longer than {COLUMNS}:\n" + "\n".join(long)


@pytest.mark.parametrize("path", [WELCOME, ERRORS], ids=lambda p: p.stem)
def test_lines_the_lesson_prints_itself_fit_the_output_area(path: Path) -> None:
    long = [
        f"cell {index}: {len(line)} characters: {line[:60]}..."
        for index, cell in enumerate(_cells(path))
        for line in _printed(cell).splitlines()
        if len(line) > COLUMNS and not PACKAGE_FORMATS.search(line)
    ]
    assert not long, f"{path.name}: printed lines longer than {COLUMNS}:\n" + "\n".join(long)


def test_the_chart_in_lesson_04_labels_its_bars_in_the_unit_of_its_axis() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace: dict[str, Any] = {"first_a": 0.63, "final_v": 0.63, "final_a": 1.0}
    plt.show = lambda *args, **kwargs: None  # type: ignore[assignment]
    try:
        exec(_source(_cell(ERRORS, "bar_label")), namespace)
        (axes,) = namespace["fig"].axes
        namespace["fig"].canvas.draw()
        ticks = [t.get_text() for t in axes.get_xticklabels() if t.get_text()]
        bars = [t.get_text() for t in axes.texts]
    finally:
        plt.close("all")
        del plt.show
    assert bars == ["63%", "63%", "100%"]
    assert ticks and all(tick.endswith("%") for tick in ticks), (
        f"the bars say {bars} but the axis says {ticks}: use one unit for both"
    )


def test_hints_are_printed_in_lines_that_fit_and_keep_every_word(
    clean_registry: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolsys.checks import exercises, hint

    for exercise in exercises():
        for _ in exercise.hints:
            hint(exercise.id)
        printed = capsys.readouterr().out
        lines = printed.splitlines()
        assert all(len(line) <= COLUMNS for line in lines), (
            f"hint {exercise.id}: lines longer than {COLUMNS}: "
            + repr([line for line in lines if len(line) > COLUMNS])
        )
        for text in exercise.hints:
            assert " ".join(text.split()) in " ".join(printed.split())


def test_side_by_side_in_lesson_03_keeps_every_word_of_both_columns_and_fits() -> None:
    cell = _cell(SCHEMAS, "def side_by_side")
    printed = _printed(cell).splitlines()
    assert printed and all(len(line) <= COLUMNS for line in printed), (
        "side_by_side prints lines longer than the output area: "
        + repr([line for line in printed if len(line) > COLUMNS])
    )
    column = max(set(p := [line.find(" | ") for line in printed]), key=p.count)
    left = " ".join(line[:column] for line in printed).split()
    right = " ".join(line[column + 3 :] for line in printed).split()
    source = textwrap.dedent(_source(_cell(SCHEMAS, "def book_room(room: str")))
    book_room = source[source.index("def book_room") :].split("\n\n\n")[0]
    assert left == book_room.split(), "side_by_side lost part of the left column"
    assert 'note: str = "") -> str:' in " ".join(left)
    assert right[0] == "{" and right[-1] == "}" and '"additionalProperties":' in right


def test_lesson_03_shows_the_inspector_on_a_tool_strict_mode_refuses() -> None:
    shown = _plain(_cell(SCHEMAS, 'tab="openai strict"'))
    assert "openai strict: refused" in shown
    assert "shown: openai strict" in shown and "✗" in shown and "cannot be exported" in shown


# -- in the browser ---------------------------------------------------------------------------


def _write_notebook(path: Path, cells: list[str]) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[new_code_cell(source) for source in cells])
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)


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


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], str]]:
    """A JupyterLab server on a free port; yields notebook name -> its URL.

    It serves a generated widgets notebook, the welcome lesson with its outputs cleared, and
    lessons 03 and 04 as committed (what a student sees on opening them, before running).
    """
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium not found at /usr/bin/chromium; install it with: apt-get install -y chromium"
        )
    from tests.lab import serve  # here, not at the top: tests.lab imports this module

    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    _write_notebook(root / "widgets.ipynb", NOTEBOOK_CELLS)
    _write_cleared(WELCOME, root / WELCOME.name)
    for lesson in (SCHEMAS, ERRORS):
        (root / lesson.name).write_bytes(lesson.read_bytes())
    with serve(tmp, root) as url_for:
        yield url_for


@pytest.fixture(scope="module")
def chromium(lab: Callable[[str], str]) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _open(chromium: Any, url: str) -> Any:
    page = chromium.new_page(viewport=VIEWPORT)
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for()
    return page


def _run_all(page: Any, code_cells: int) -> None:
    from playwright.sync_api import expect

    page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    done = page.locator(".jp-CodeCell .jp-InputPrompt", has_text=re.compile(r"\[\d+\]"))
    expect(done).to_have_count(code_cells, timeout=RUN_ALL_MS)


def _layout_problems(page: Any, cells: list[int] | None = None) -> list[str]:
    return page.evaluate(LAYOUT_PROBLEMS, cells)


@pytest.fixture(scope="module")
def widgets_page(chromium: Any, lab: Callable[[str], str]) -> Iterator[Any]:
    """The generated widgets notebook, run top to bottom once for the tests that read it."""
    page = _open(chromium, lab("widgets.ipynb"))
    try:
        _run_all(page, len(NOTEBOOK_CELLS))
        page.locator(".toolsys-inspector").wait_for()
        yield page
    finally:
        page.close()


@pytest.mark.timeout(240)
def test_widgets_render_in_jupyterlab_and_a_click_runs_the_tool(widgets_page: Any) -> None:
    from playwright.sync_api import expect

    page = widgets_page
    trace = page.locator(".toolsys-trace").first
    expect(trace.locator(".toolsys-call")).to_have_count(2)
    expect(trace).to_contain_text("646")
    expect(trace).to_contain_text("✗ CITY_NOT_FOUND")
    expect(trace).to_contain_text("completed · 2 steps · 2 tool calls (1 failed)")
    expect(trace.locator(".widget-button")).to_have_count(2)

    playground = page.locator(".toolsys-playground").first
    expect(playground.locator(".widget-dropdown select").first).to_have_value("get_weather")
    playground.locator(".widget-button", has_text="Run").click()
    expect(playground).to_contain_text("CITY_NOT_FOUND")
    expect(playground).to_contain_text("tool message the model receives")

    if os.environ.get("TOOLSYS_SAVE_SCREENSHOT") == "1":  # the README's picture: trace, playground
        browser_tab = page.get_by_role("tab", name=re.compile("File Browser"))
        browser_tab.click()  # hide the sidebar
        page.set_viewport_size({"width": 1280, "height": 1500})
        page.evaluate("document.querySelectorAll('.jp-Cell')[1].scrollIntoView()")
        SCREENSHOT.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
        page.set_viewport_size(VIEWPORT)
        browser_tab.click()  # as the other tests measure it: file browser open


@pytest.mark.timeout(120)
def test_widgets_fit_their_output_area_and_wrap_long_text_between_words(
    widgets_page: Any,
) -> None:
    from playwright.sync_api import expect

    expect(widgets_page.locator(".toolsys-playground").nth(1)).to_contain_text("AMS-0123")
    expect(widgets_page.locator(".toolsys-trace").nth(1)).to_contain_text("AMS-0123")
    problems = _layout_problems(widgets_page)
    assert not problems, "what a student sees at 1400×900:\n" + "\n".join(problems)


@pytest.mark.timeout(120)
def test_the_inspector_keeps_the_chosen_tab_when_another_tool_is_picked(
    widgets_page: Any,
) -> None:
    from playwright.sync_api import expect

    inspector = widgets_page.locator(".toolsys-inspector")
    strict = inspector.get_by_role("tab", name="openai strict")
    strict.click()
    expect(strict).to_have_attribute("aria-selected", "true")
    inspector.locator(".widget-dropdown select").select_option("label_city")
    expect(inspector).to_contain_text("cannot be exported in strict mode")
    expect(strict).to_have_attribute("aria-selected", "true")
    assert not _layout_problems(widgets_page)


@pytest.mark.timeout(240)
def test_the_welcome_notebook_runs_in_the_browser_without_an_error_and_fits_the_page(
    chromium: Any, lab: Callable[[str], str]
) -> None:
    from playwright.sync_api import expect

    code_cells = sum(1 for cell in _cells(WELCOME) if cell["cell_type"] == "code")
    page = _open(chromium, lab(WELCOME.name))
    try:
        _run_all(page, code_cells)
        # JupyterLab renders tracebacks, like anything on stderr, with the stderr mime type.
        stderr = page.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
        expect(stderr).to_have_count(0)
        expect(page.locator(".toolsys-trace").first).to_contain_text("646")
        problems = _layout_problems(page)
        assert not problems, f"{WELCOME.name} at 1400×900:\n" + "\n".join(problems)
    finally:
        page.close()


@pytest.mark.timeout(120)
def test_lesson_04_as_saved_fits_the_page(chromium: Any, lab: Callable[[str], str]) -> None:
    page = _open(chromium, lab(ERRORS.name))
    try:
        page.locator(".jp-OutputArea-output img").first.wait_for()
        problems = _layout_problems(page)
        assert not problems, f"{ERRORS.name} at 1400×900:\n" + "\n".join(problems)
    finally:
        page.close()


@pytest.mark.timeout(120)
def test_lesson_03_side_by_side_and_the_strict_inspector_fit_the_page(
    chromium: Any, lab: Callable[[str], str]
) -> None:
    cells = _cells(SCHEMAS)
    side = next(i for i, c in enumerate(cells) if "def side_by_side" in _source(c))
    strict = next(i for i, c in enumerate(cells) if 'tab="openai strict"' in _source(c))
    page = _open(chromium, lab(SCHEMAS.name))
    try:
        output = page.locator(".jp-Notebook .jp-Cell").nth(side).locator(".jp-OutputArea-output")
        lines, rendered = output.evaluate(
            "(el) => [el.textContent.replace(/\\n$/, '').split('\\n').length,"
            " Math.round(el.querySelector('pre').getBoundingClientRect().height"
            " / parseFloat(getComputedStyle(el.querySelector('pre')).lineHeight))]"
        )
        assert rendered == lines, (
            f"cell {side}: side_by_side prints {lines} lines, the page shows {rendered}: "
            "long lines wrap back under the left column"
        )
        problems = _layout_problems(page, [side, strict])
        assert not problems, f"{SCHEMAS.name} at 1400×900:\n" + "\n".join(problems)
    finally:
        page.close()
