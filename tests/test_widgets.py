"""The widgets' state, without a browser: build them, click, set values, read what they show.

The browser test (test_browser.py) proves the front end renders it; these prove what there is to
render, and that the static text (what GitHub and nbval see) is stable.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import threading
from typing import Annotated, Any, Literal

import ipywidgets as widgets
import pytest
from pydantic import Field

from toolsys import ErrorInfo, Registry, ToolError
from toolsys.loop import Transcript, run_agent
from toolsys.models import ScriptedModel, calls, text
from toolsys.widgets import Inspector, Playground, TraceView
from toolsys.widgets._render import _SCROLL_STYLE, LONG_TOKEN, error_html, pre, wrapped

UNSTABLE = re.compile(r"0x[0-9a-f]{6,}|model_id|\d+\.\d{3,}|\d+ ms|\d+\.\d s")


def make_registry() -> Registry:
    registry = Registry()

    @registry.tool
    def get_weather(
        city: str,
        units: Literal["celsius", "fahrenheit"] = "celsius",
        days: Annotated[int, Field(ge=1, le=7)] = 1,
        ratio: float = 0.5,
        count: int = 3,
        tags: list[str] | None = None,
        detailed: bool = False,
    ) -> dict[str, Any]:
        """Current weather for a city.

        Args:
            city: City name, e.g. 'Paris'.
            units: Temperature units.
            days: Days of forecast.
            ratio: A number.
            count: A whole number.
            tags: Labels to attach.
            detailed: Include the wind.
        """
        if city == "Atlantis":
            raise ToolError(
                "CITY_NOT_FOUND", "No city named 'Atlantis'.", suggestion="Use a real city."
            )
        return {"city": city, "temperature": 12, "units": units, "days": days, "tags": tags}

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two whole numbers.

        Args:
            a: First number.
            b: Second number.
        """
        return a + b

    @registry.tool
    def annotate(notes: dict[str, Any], x: int = 0) -> str:
        """Attach free-form notes (parameters left undocumented on purpose)."""
        return "ok"

    return registry


def assert_stable(text: str) -> None:
    assert not UNSTABLE.search(text), f"unstable content in static text: {text!r}"


def scripted_run(script: list[dict[str, Any]], **options: Any) -> Transcript:
    client = ScriptedModel(script).client()
    return run_agent(client, make_registry(), "Weather in Paris and Atlantis, and 2+3?", **options)


PARALLEL_SCRIPT = [
    calls(("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Atlantis"})),
    calls(("add", '{"a": 2, "b": 3')),
    calls(("add", {"a": 2, "b": 3})),
    text("Paris is 12 degrees; Atlantis does not exist; 2+3=5."),
]


# -- Playground -------------------------------------------------------------------------------


def test_playground_builds_a_control_per_schema_type() -> None:
    playground = Playground(make_registry(), tool="get_weather")
    controls = {name: type(field.control) for name, field in playground.fields.items()}
    assert controls == {
        "city": widgets.Text,
        "units": widgets.Dropdown,
        "days": widgets.BoundedIntText,
        "ratio": widgets.FloatText,
        "count": widgets.IntText,
        "tags": widgets.Text,
        "detailed": widgets.Checkbox,
    }
    days = playground.fields["days"].control
    assert (days.min, days.max, days.value) == (1, 7, 1)
    assert playground.fields["units"].control.options == (
        ("celsius", "celsius"),
        ("fahrenheit", "fahrenheit"),
    )


def test_playground_sends_optional_fields_only_when_ticked() -> None:
    playground = Playground(make_registry(), tool="get_weather")
    assert playground.fields["city"].send.value and playground.fields["city"].send.disabled
    playground.fields["city"].control.value = "Paris"
    playground.fields["days"].control.value = 3
    playground.run_button.click()
    assert playground.last_arguments == {"city": "Paris"}

    playground.fields["days"].send.value = True
    playground.fields["tags"].send.value = True
    playground.fields["tags"].control.value = '["a", "b"]'
    playground.run_button.click()
    assert playground.last_arguments == {"city": "Paris", "days": 3, "tags": ["a", "b"]}
    assert playground.last_result is not None and playground.last_result.value["days"] == 3


def test_playground_run_shows_value_and_the_exact_tool_message() -> None:
    playground = Playground(make_registry(), tool="add")
    playground.fields["a"].control.value = 2
    playground.fields["b"].control.value = 40
    playground.run_button.click()
    result = playground.last_result
    assert result is not None and result.ok and result.value == 42
    assert "✓ ok" in playground.output.value
    assert result.to_message() == '{"ok": true, "value": 42}'
    assert "{&quot;ok&quot;: true, &quot;value&quot;: 42}" in playground.output.value


def test_playground_shows_a_tool_error_in_red_with_code_message_and_suggestion() -> None:
    playground = Playground(make_registry(), tool="get_weather")
    playground.fields["city"].control.value = "Atlantis"
    playground.run_button.click()
    html = playground.output.value
    assert "toolsys-error" in html and "color:#b00020" in html
    for part in ("✗ CITY_NOT_FOUND", "No city named", "Use a real city."):
        assert part in html.replace("&#x27;", "'")


def test_playground_raw_mode_sends_invalid_json_on_purpose() -> None:
    playground = Playground(make_registry(), tool="add")
    playground.fields["a"].control.value = 1
    playground.mode.value = "raw JSON"
    assert playground.raw.value == '{"a": 1, "b": 0}'
    assert playground.raw.layout.display is None and playground.form.layout.display == "none"
    playground.raw.value = '{"a": 1, "b": '
    playground.run_button.click()
    assert playground.last_arguments == '{"a": 1, "b": '
    assert playground.last_result is not None
    assert playground.last_result.error is not None
    assert playground.last_result.error.code == "INVALID_JSON"
    assert "INVALID_JSON" in playground.output.value


def test_playground_reports_a_field_that_is_not_json_without_calling_the_tool() -> None:
    playground = Playground(make_registry(), tool="get_weather")
    playground.fields["city"].control.value = "Paris"
    playground.fields["tags"].send.value = True
    playground.fields["tags"].control.value = "[oops"
    assert playground.run() is None
    assert playground.last_result is None
    assert "field &#x27;tags&#x27; is not valid JSON" in playground.output.value


def test_playground_rebuilds_the_form_when_another_tool_is_picked() -> None:
    playground = Playground(make_registry(), tool="get_weather")
    playground.tool.value = "add"
    assert list(playground.fields) == ["a", "b"]
    assert len(playground.form.children) == 2
    assert "Add two whole numbers" in playground.about.value


def test_playground_on_an_empty_registry_says_so() -> None:
    playground = Playground(Registry())
    assert playground.run() is None
    assert "empty" in playground.about.value
    assert repr(playground) == "Playground: 0 tools; selected: none"


def test_playground_static_text_names_the_call_and_the_tool_message() -> None:
    playground = Playground(make_registry(), tool="add")
    playground.fields["a"].control.value = 2
    playground.fields["b"].control.value = 3
    playground.run()
    assert repr(playground) == (
        'Playground: 3 tools; selected: add\n  call: add(a=2, b=3)\n  → {"ok": true, "value": 5}'
    )
    assert "tool message the model receives" in playground._repr_html_()


# -- Inspector --------------------------------------------------------------------------------


def test_inspector_table_lists_every_tool_with_its_numbers() -> None:
    registry = make_registry()
    inspector = Inspector(registry)
    table = inspector.table.value
    for tool in registry.list():
        assert f">{tool.name}<" in table
        assert f">{len(tool.description)}<" in table
    assert "city*, units, days, ratio, count, tags, detailed" in table
    assert ">read<" in table
    annotate = registry.get("annotate")
    assert len(annotate.diagnostics) >= 1
    assert f">{len(annotate.diagnostics)}<" in table


def test_inspector_shows_each_export_format_in_a_tab() -> None:
    inspector = Inspector(make_registry(), tool="add")
    assert inspector.exports.titles == ("openai", "anthropic", "mcp", "openai strict")
    pages = [page.value for page in inspector.exports.children]
    assert "&quot;function&quot;" in pages[0]
    assert "&quot;input_schema&quot;" in pages[1]
    assert "&quot;inputSchema&quot;" in pages[2]
    assert "&quot;strict&quot;: true" in pages[3]


def test_inspector_says_why_strict_mode_refuses_a_schema_and_lists_diagnostics() -> None:
    inspector = Inspector(make_registry(), tool="annotate")
    strict = inspector.exports.children[3].value
    assert "✗" in strict and "free-form object" in strict and "#b00020" in strict
    assert "<li>" in inspector.diagnostics.value
    assert "openai strict: refused" in repr(inspector)


def test_inspector_refresh_picks_up_new_tools() -> None:
    registry = make_registry()
    inspector = Inspector(registry)
    registry.register(lambda: "pong", name="ping", description="Answer pong.")
    inspector.refresh_button.click()
    assert "ping" in inspector.tool.options
    assert ">ping<" in inspector.table.value


def test_inspector_static_text_is_a_stable_table() -> None:
    text = repr(Inspector(make_registry(), tool="add"))
    lines = text.splitlines()
    assert lines[0] == "Inspector: 3 tools"
    assert lines[1].split() == [
        "tool",
        "category",
        "parameters",
        "description",
        "chars",
        "diagnostics",
    ]
    assert lines[3].split() == ["add", "read", "a*,", "b*", "22", "0"]
    assert "selected: add" in text
    assert_stable(text)


def test_inspector_keeps_its_pages_and_the_chosen_tab_when_another_tool_is_picked() -> None:
    inspector = Inspector(make_registry(), tool="add")
    pages = inspector.exports.children
    inspector.exports.selected_index = 3
    inspector.tool.value = "annotate"
    # New page widgets would make JupyterLab redraw the tabs and select "openai" again.
    assert all(new is old for new, old in zip(inspector.exports.children, pages, strict=True))
    assert inspector.exports.selected_index == 3 and inspector.tab == "openai strict"
    assert "free-form object" in inspector.exports.children[3].value


def test_inspector_opens_on_the_tab_asked_for_and_its_static_text_shows_that_tab() -> None:
    inspector = Inspector(make_registry(), tool="annotate", tab="openai strict")
    assert inspector.exports.selected_index == 3
    text = repr(inspector)
    assert "  openai strict: refused\nshown: openai strict\n  ✗ Tool 'annotate' cannot" in text
    html = inspector._repr_html_()
    assert "<b>annotate (openai strict)</b>" in html and "color:#b00020" in html
    assert_stable(text)


def test_inspector_static_text_on_the_default_tab_is_unchanged_by_the_tab_option() -> None:
    default = Inspector(make_registry(), tool="add")
    assert "shown:" not in repr(default)
    assert "<b>add (openai)</b>" in default._repr_html_()
    assert repr(Inspector(make_registry(), tool="add", tab="openai")) == repr(default)


def test_inspector_refuses_an_unknown_tab_and_names_the_tabs() -> None:
    with pytest.raises(ValueError, match=r"Unknown tab 'strict'; pick one of: openai, anthropic"):
        Inspector(make_registry(), tab="strict")


def test_inspector_on_an_empty_registry_says_so_and_hides_the_tabs() -> None:
    inspector = Inspector(Registry())
    assert inspector.exports.layout.display == "none"
    assert "No tools registered" in inspector.diagnostics.value
    assert repr(inspector).startswith("Inspector: 0 tools")


# -- how text wraps --------------------------------------------------------------------------


def test_pre_text_wraps_between_words_not_inside_them() -> None:
    html = pre('{"city": "Amsterdam"}')
    # JupyterLab's own style for output `pre` is `word-break: break-all`: ours must override it.
    assert "white-space:pre-wrap" in html and "word-break:normal" in html
    assert "overflow-wrap:break-word" in html and "anywhere" not in html
    assert "toolsys-long" not in html


def test_a_token_too_long_to_wrap_scrolls_in_its_own_box_without_widening_the_widget() -> None:
    token = "QUJD" * 20
    html = pre(f'{{"data": "{token}", "city": "Amsterdam"}}')
    box = f'<span class="toolsys-long" style="{_SCROLL_STYLE}">&quot;{token}&quot;,</span>'
    assert box in html
    assert "width:0;min-width:100%" in _SCROLL_STYLE and "overflow-x:auto" in _SCROLL_STYLE
    assert "&quot;city&quot;: &quot;Amsterdam&quot;}" in html  # short words stay as they were
    assert wrapped("x" * (LONG_TOKEN - 1)) == "x" * (LONG_TOKEN - 1)
    assert wrapped("<" * LONG_TOKEN).count("&lt;") == LONG_TOKEN  # escaped inside the box too


def test_error_messages_wrap_long_tokens_too() -> None:
    url = "https://api.weather.example/v1/forecast?city=Lyon&key=[redacted]&units=metric"
    html = error_html(ErrorInfo("EXECUTION_ERROR", f"GET {url} failed", suggestion=url))
    assert html.count("toolsys-long") == 2


# -- TraceView --------------------------------------------------------------------------------


def test_trace_view_appends_steps_and_calls_live_as_events_arrive() -> None:
    view = TraceView()
    sizes = []
    run = scripted_run(
        PARALLEL_SCRIPT, on_event=lambda e: (view(e), sizes.append(len(view.body.children)))
    )
    assert run.status == "completed"
    assert sizes[0] == 0 and sizes[-1] == 4 and sizes == sorted(sizes)
    assert len(view.events) == len(run.events)
    assert "Paris is 12 degrees" in view.answer.value


def test_trace_view_puts_parallel_calls_side_by_side() -> None:
    view = TraceView(scripted_run(PARALLEL_SCRIPT))
    first_step = view.body.children[0]
    row = first_step.children[2]
    assert isinstance(row, widgets.HBox) and len(row.children) == 2
    assert "2 calls in parallel" in first_step.children[0].value
    names = [card.children[0].value for card in row.children]
    assert all("get_weather" in name for name in names)


def test_trace_view_marks_a_failed_call_in_red_with_code_message_and_suggestion() -> None:
    view = TraceView(scripted_run(PARALLEL_SCRIPT))
    ok_card, failed_card = view.body.children[0].children[2].children
    assert "✓ ok" in ok_card.children[2].value and "#1b7f3b" in ok_card.layout.border
    failed = failed_card.children[2].value
    assert "✗ CITY_NOT_FOUND" in failed and "Use a real city." in failed
    assert "#b00020" in failed_card.layout.border


def test_trace_view_keeps_the_raw_json_in_a_closed_accordion() -> None:
    view = TraceView(scripted_run(PARALLEL_SCRIPT))
    card = view.body.children[1].children[2].children[0]
    accordion = card.children[1]
    assert isinstance(accordion, widgets.Accordion) and accordion.selected_index is None
    assert accordion.titles == ("raw JSON",)
    assert "{&quot;a&quot;: 2, &quot;b&quot;: 3" in accordion.children[0].value
    assert "not valid JSON" in card.children[0].value


def test_trace_view_stats_show_status_steps_calls_tokens_and_time() -> None:
    run = scripted_run(PARALLEL_SCRIPT)
    view = TraceView(run)
    stats = re.sub(r"<[^>]+>", "", view.stats.value)
    assert "completed · 4 steps · 4 tool calls (2 failed)" in stats
    assert f"{run.usage['total_tokens']} tokens" in stats
    assert re.search(rf"(under 1 s|\d+ s) · event {len(run.events)}/{len(run.events)}$", stats)
    # A narrow view wraps the line between its parts only: each part is one unbreakable span.
    parts = re.findall(r'<span style="white-space:nowrap">([^<]*)</span>', view.stats.value)
    assert " · ".join(parts) == stats and parts[-1] == f"event {len(run.events)}/{len(run.events)}"


def test_trace_view_replay_steps_back_and_forth_through_the_events() -> None:
    view = TraceView(scripted_run(PARALLEL_SCRIPT))
    total = len(view.events)
    assert (view.slider.max, view.play.max, view.slider.value) == (total, total, total)
    view.back.click()  # before RunFinished: the answer is still shown
    assert "Paris is 12 degrees" in view.answer.value and view.status == "replay"
    view.back.click()
    assert view.answer.value == "" and view.status == "replay"
    view.slider.value = 0
    assert view.body.children == () and view.request.value == ""
    view.forward.click()
    assert "Weather in Paris" in view.request.value and view.body.children == ()
    view.slider.value = total
    assert view.status == "completed" and "Paris is 12 degrees" in view.answer.value
    view.forward.click()
    assert view.slider.value == total


def test_trace_view_run_returns_the_transcript_and_shows_all_of_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    view = TraceView()
    client = ScriptedModel(PARALLEL_SCRIPT).client()
    run = view.run(client, make_registry(), "Weather in Paris and Atlantis, and 2+3?")
    assert run.status == "completed" and view.events == run.events
    assert view.status == "completed" and "event 19/19" in view.stats.value
    assert capsys.readouterr().out == ""  # outside IPython nothing is displayed


def test_trace_view_reports_max_steps_which_no_event_announces() -> None:
    view = TraceView(scripted_run(PARALLEL_SCRIPT, max_steps=2))
    assert view.status == "max_steps"
    assert repr(view).startswith("TraceView · max_steps · 2 steps")


def test_trace_view_shows_a_model_error() -> None:
    view = TraceView(scripted_run([text("done")][:0]))
    assert view.status == "model_error"
    assert "model request failed" in view.body.children[0].children[1].value


def test_trace_view_is_fed_from_the_notebooks_own_thread_inside_a_running_loop() -> None:
    view = TraceView()
    threads: set[str] = set()

    def observe(event: Any) -> None:
        threads.add(threading.current_thread().name)
        view(event)

    async def in_a_running_loop() -> Transcript:  # like a Jupyter cell
        return scripted_run(PARALLEL_SCRIPT, on_event=observe)

    run = asyncio.run(in_a_running_loop())
    assert threads == {threading.current_thread().name}  # no worker thread: widgets stay home
    assert view.events == run.events and len(view.body.children) == 4


def test_trace_view_survives_events_from_many_threads_at_once() -> None:
    # Without the user's message: a new run's first event would start the view over.
    events = [e for e in scripted_run(PARALLEL_SCRIPT).events if type(e).__name__ != "UserMessage"]
    view = TraceView()
    workers = [threading.Thread(target=lambda: [view(e) for e in events]) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=10)
    assert len(view.events) == 4 * len(events)
    assert view.slider.max == 4 * len(events)


def test_trace_view_static_text_is_stable_and_says_what_the_widget_shows() -> None:
    first = TraceView(scripted_run(PARALLEL_SCRIPT))
    second = TraceView(scripted_run(PARALLEL_SCRIPT))
    assert repr(first) == repr(second)
    assert first._repr_html_() == second._repr_html_()
    assert_stable(repr(first))
    assert repr(first).splitlines()[:8] == [
        "TraceView · completed · 4 steps · 4 tool calls (2 failed) · "
        + f"{scripted_run(PARALLEL_SCRIPT).usage['total_tokens']} tokens",
        "user    Weather in Paris and Atlantis, and 2+3?",
        "step 1 · 2 calls in parallel",
        '  call  get_weather(city="Paris")',
        '     ✓ {"city": "Paris", "temperature": 12, "units": "celsius", "days": 1, "tags": null}',
        '  call  get_weather(city="Atlantis")',
        "     ✗ CITY_NOT_FOUND: No city named 'Atlantis'. → Use a real city.",
        "step 2",
    ]
    assert repr(first).splitlines()[-1] == (
        "answer  Paris is 12 degrees; Atlantis does not exist; 2+3=5."
    )


@pytest.mark.parametrize(
    "make",
    [lambda: TraceView(), lambda: Playground(make_registry()), lambda: Inspector(make_registry())],
)
def test_widget_mimebundle_keeps_the_view_and_replaces_the_plain_text(make: Any) -> None:
    widget = make()
    bundle = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == repr(widget)
    assert bundle["text/html"] == widget._repr_html_()
    assert_stable(bundle["text/plain"])


@pytest.mark.parametrize("make", [Inspector, Playground])
def test_an_unknown_tool_name_says_which_tools_exist(make: Any) -> None:
    with pytest.raises(KeyError, match=r"Unknown tool 'get_wether'\. Did you mean 'get_weather'"):
        make(make_registry(), tool="get_wether")


def test_importing_toolsys_does_not_import_ipywidgets() -> None:
    code = "import sys, toolsys, toolsys.loop; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_live_trace_view_stops_its_clock_when_the_run_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolsys.widgets.trace as trace

    now = [1000.0]
    monkeypatch.setattr(trace.time, "perf_counter", lambda: now[0])
    view = TraceView()
    for event in scripted_run(PARALLEL_SCRIPT).events:
        now[0] += 0.5  # the run takes a while: 0.5 s per event
        view(event)
    took = re.sub(r"<[^>]+>", "", view.stats.value)
    assert f"· {len(view.events) * 0.5 - 0.5:.0f} s ·" in took
    now[0] += 3600  # an hour later, a click on ◀ and ▶: the run's time, not the time since
    view.back.click()
    view.forward.click()
    assert re.sub(r"<[^>]+>", "", view.stats.value) == took


def test_a_new_run_fed_to_a_trace_view_replaces_the_one_that_ended() -> None:
    view = TraceView()
    first = scripted_run(PARALLEL_SCRIPT)
    for event in first.events:
        view(event)
    for event in scripted_run(PARALLEL_SCRIPT).events:
        view(event)
    assert len(view.events) == len(first.events)
    assert view.summary_text() == TraceView(first).summary_text()


def test_a_trace_view_not_yet_fed_says_it_is_waiting_not_running() -> None:
    assert TraceView().summary_text().startswith("TraceView · waiting · 0 steps")


def test_a_displayed_trace_view_updates_its_saved_output_when_the_run_ends(monkeypatch) -> None:
    import IPython
    import IPython.display

    shown: list[tuple[str, str, str]] = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    for name in ("display", "update_display"):

        def record(bundle: dict, *, raw: bool, display_id: str, name: str = name) -> None:
            assert raw
            shown.append((name, display_id, bundle["text/plain"].splitlines()[0]))

        monkeypatch.setattr(IPython.display, name, record)
    view = TraceView()
    view._ipython_display_()
    script = ScriptedModel([calls(("get_weather", {"city": "Paris"})), text("Mild.")])
    run_agent(script.client(), make_registry(), "Weather in Paris?", on_event=view)
    (first, *updates) = shown
    assert first[0] == "display" and first[2].startswith("TraceView · waiting")
    assert updates and {u[:2] for u in updates} == {("update_display", first[1])}
    assert updates[-1][2].startswith("TraceView · completed · 2 steps · 1 tool call")


def test_a_saved_notebook_shows_the_finished_run_under_the_cell_that_displayed_the_view(
    tmp_path,
) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from toolsys.grading import execute

    notebook = new_notebook(cells=[
        new_code_cell("from toolsys.widgets import TraceView\nview = TraceView()\nview"),
        new_code_cell(
            "from toolsys.loop import run_agent\nfrom toolsys.models import ScriptedModel, calls,"
            " text\nfrom toolsys.tools import registry\n"
            "script = ScriptedModel([calls(('calculator', {'expression': '17 * 38'})),"
            " text('646')])\nrun_agent(script.client(), registry, '17 * 38?', on_event=view)"
        ),
    ])  # fmt: skip
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    done = execute(notebook, tmp_path, timeout=120)
    (saved,) = done.cells[0].outputs
    assert saved["data"]["text/plain"].startswith("TraceView · completed · 2 steps · 1 tool call")
    assert nbformat.validate(done) is None
