"""TraceView: watch an agent run call its tools, live or replayed event by event.

A transcript printed as text hides the shape of a run: which calls went out together, which
failed and what the model did next. The view lays each model turn out as a row of call cards
(parallel calls side by side), marks failures in red, and can step through a finished run.

Only `Run.apply` (in `_trace_run`) knows the loop's event classes; everything else renders
`Run`'s plain records, with the HTML pieces of `_trace_html`.
The view is safe to use as `on_event` from any thread (`run_agent` calls it from the caller's).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from toolsys.loop import run_agent
from toolsys.transcript import (
    Event,
    Transcript,
)
from toolsys.widgets._render import (
    MUTED_COLOR,
    SummaryBox,
    call_text,
    compact,
    esc,
    pre,
    result_text,
    text_lines,
    wrapped,
)
from toolsys.widgets._trace_html import (
    answer_html,
    call_html,
    card_border,
    parallel,
    pending_or_result,
    step_notes,
    step_title,
)
from toolsys.widgets._trace_run import Call, Run, Step, ends_run, starts_run

# -- the widget ----------------------------------------------------------------------------------


class _StepBox:
    """The widgets of one step: title, notes, and the row of call cards."""

    def __init__(self, step: Step) -> None:
        self.title = widgets.HTML(step_title(step))
        self.notes = widgets.HTML(step_notes(step))
        self.calls = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self.box = widgets.VBox(
            [self.title, self.notes, self.calls],
            layout=widgets.Layout(border="1px solid #ccc", padding="4px", margin="4px 0"),
        )
        self.box.add_class("toolsys-step")

    def update(self, step: Step) -> None:
        self.title.value = step_title(step)
        self.notes.value = step_notes(step)


class _CallCard:
    """One call: name and arguments, the raw JSON on demand, then its result."""

    def __init__(self, call: Call) -> None:
        self.result = widgets.HTML(pending_or_result(call))
        raw = widgets.Accordion([widgets.HTML(pre(call.raw))], titles=("raw JSON",))
        self.box = widgets.VBox(
            [widgets.HTML(call_html(call)), raw, self.result],
            layout=widgets.Layout(padding="4px 8px", margin="2px", min_width="220px"),
        )
        self.box.add_class("toolsys-call")
        self.update(call)

    def update(self, call: Call) -> None:
        self.result.value = pending_or_result(call)
        self.box.layout.border = card_border(call)


class TraceView(SummaryBox):
    """An agent run as it happens, or replayed: request, model turns, tool calls, answer.

    Live, in one cell:  `transcript = TraceView().run(client, registry, "...")`
    As an observer:     `run_agent(client, registry, "...", on_event=view)` (view displayed first)
    Replay:             `TraceView(transcript)` then ◀ ▶, the slider or Play.
    A saved run:        `TraceView.replay("run.json")` (`transcript.to_json()`), from the start.
    """

    def __init__(self, transcript: Transcript | None = None) -> None:
        self.events: list[Event] = []
        self._lock = threading.RLock()
        self._display_id: str | None = None  # set when displayed: see _ipython_display_
        self._run = Run()
        self._shown = 0
        # Live time: the run's time so far, and since when it is running (None: it is not).
        self._elapsed = 0.0
        self._running_since: float | None = None
        self._duration: float | None = None  # a loaded transcript's own
        self._status: str | None = None
        self._step_boxes: dict[int, _StepBox] = {}
        self._cards: dict[str, _CallCard] = {}
        self.request = widgets.HTML()
        self.body = widgets.VBox()
        self.answer = widgets.HTML()
        self.stats = widgets.HTML()
        self.stats.add_class("toolsys-trace-stats")
        self.back = widgets.Button(description="◀", layout=widgets.Layout(width="40px"))
        self.forward = widgets.Button(description="▶", layout=widgets.Layout(width="40px"))
        self.slider = widgets.IntSlider(min=0, max=0, description="event", readout=True)
        self.play = widgets.Play(min=0, max=0, interval=700, description="Play")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        controls = widgets.HBox([self.back, self.play, self.slider, self.forward])
        controls.add_class("toolsys-trace-controls")
        # Numbers and controls first: a long run must not push them below the fold.
        super().__init__([self.stats, controls, self.request, self.body, self.answer])
        self.add_class("toolsys-trace")
        self.back.on_click(lambda _: self._move(-1))
        self.forward.on_click(lambda _: self._move(1))
        self.slider.observe(lambda change: self.show(change["new"]), names="value")
        if transcript is not None:
            self.load(transcript)
        else:
            self._draw_stats()

    # -- feeding events ------------------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        """Record one event (the loop's `on_event`); drawn at once unless replay is rewound.

        A new run fed to a view whose run has ended replaces it; the clock runs from a run's
        first event to its last (and again while a paused run is resumed), never after.
        """
        with self._lock:
            now = time.perf_counter()
            if self.events and ends_run(self.events[-1]) and starts_run(event):
                self._reset()
                self.events, self._elapsed, self._duration, self._status = [], 0.0, None, None
            if self._running_since is None:
                self._running_since = now
            following = self._shown == len(self.events)
            self.events.append(event)
            if ends_run(event):
                self._elapsed += now - self._running_since
                self._running_since = None
            self._set_range()
            if following:
                self.show(len(self.events))
            else:
                self._draw_stats()
        if ends_run(event):
            self._update_display()

    def load(self, transcript: Transcript | Sequence[Event]) -> None:
        """Replace the view's events with a finished run's and show all of them."""
        with self._lock:
            if isinstance(transcript, Transcript):
                events = list(transcript.events)
                duration, status = transcript.duration_s, transcript.status
            else:
                events, duration, status = list(transcript), None, None
            if events != self.events:  # after a live run they are the same: keep the drawing
                self._reset()
                self.events = events
            self._duration, self._status = duration, status
            self._set_range()
            self.show(len(self.events))
        self._update_display()

    @classmethod
    def replay(cls, source: Transcript | str | os.PathLike[str], *, at: int = 0) -> TraceView:
        """A finished run, rewound to its first `at` events: step through it with ▶ or Play.

        `source`: a `Transcript`, the text of `transcript.to_json()`, or the path of a file that
        holds it (as `toolsys chat --trace FILE` writes). No model is called. A file that is
        not a saved transcript raises ValueError saying where it is wrong.
        """
        if isinstance(source, Transcript):
            transcript = source
        elif isinstance(source, str) and source.lstrip().startswith("{"):
            transcript = Transcript.from_json(source)
        else:
            transcript = Transcript.from_json(Path(source).read_bytes())
        view = cls(transcript)
        view.show(at)
        return view

    def run(
        self, client: Any, registry: Any, prompt: str | list[dict[str, Any]], **options: Any
    ) -> Transcript:
        """Display this view, run the agent with it as `on_event`, return the `Transcript`.

        The display is updated once the run ends, so a saved notebook keeps the final trace.
        Outside IPython nothing is displayed; print the view afterwards.
        """
        from IPython import get_ipython

        if get_ipython() is not None:
            self._ipython_display_()
        transcript = run_agent(client, registry, prompt, on_event=self, **options)
        self.load(transcript)
        return transcript

    # -- the saved output follows the run ------------------------------------------------------

    def _ipython_display_(self) -> None:
        """Display the view under a display id of its own (IPython calls this to display it).

        The text a page without a live kernel shows (text/plain, text/html) is computed when the
        view is displayed. An empty view displayed before a run would keep saying "0 steps" in a
        saved notebook, so when a run fed to it ends, every output showing this view is updated
        to the finished run (`update_display`, which Jupyter also applies to the saved file).
        """
        from IPython.display import display

        if self._display_id is None:
            self._display_id = f"toolsys-trace-{id(self):x}"
        display(self._repr_mimebundle_(), raw=True, display_id=self._display_id)

    def _update_display(self) -> None:
        """Redraw every output of this view with what it shows now (no-op if never displayed)."""
        if self._display_id is None:
            return
        from IPython import get_ipython
        from IPython.display import update_display

        if get_ipython() is not None:
            update_display(self._repr_mimebundle_(), raw=True, display_id=self._display_id)

    # -- replay --------------------------------------------------------------------------------

    def _set_range(self) -> None:
        self.slider.max = self.play.max = len(self.events)

    def _move(self, delta: int) -> None:
        self.play.playing = False  # a step by hand takes over from Play
        self.slider.value = min(max(self.slider.value + delta, 0), len(self.events))

    def show(self, count: int) -> None:
        """Draw the first `count` events (the replay position)."""
        with self._lock:
            count = min(max(count, 0), len(self.events))
            if count < self._shown:
                self._reset()
            for event in self.events[self._shown : count]:
                self._draw(*self._run.apply(event))
            self._shown = count
            if self.slider.value != count:
                self.slider.value = count
            self._draw_stats()

    def _reset(self) -> None:
        self._run = Run()
        self._shown = 0
        self._step_boxes.clear()
        self._cards.clear()
        self.request.value = self.answer.value = ""
        self.body.children = ()

    # -- drawing -------------------------------------------------------------------------------

    def _draw(self, kind: str, record: Any) -> None:
        if kind == "request":
            self.request.value = f"<b>user</b>: {wrapped(record)}"
        elif kind == "step":
            self._step_box(record).update(record)
        elif kind == "call":
            step, call = record
            card = self._cards[call.id] = _CallCard(call)
            box = self._step_box(step)
            box.calls.children = (*box.calls.children, card.box)
            box.update(step)
        elif kind == "result":
            self._cards[record.id].update(record)
        elif kind == "answer":
            self.answer.value = answer_html(self._run.answer or "")
            self._step_box(record).update(record)
        elif kind == "warning":
            self.body.children = (
                *self.body.children,
                widgets.HTML(f'<span style="color:{MUTED_COLOR}">⚠ {wrapped(record)}</span>'),
            )

    def _step_box(self, step: Step) -> _StepBox:
        box = self._step_boxes.get(step.number)
        if box is None:
            box = self._step_boxes[step.number] = _StepBox(step)
            self.body.children = (*self.body.children, box.box)
        return box

    @property
    def status(self) -> str:
        """ "waiting" (no event yet), "running", "completed", "max_steps", "model_error"..., or
        "replay" when rewound."""
        if self._shown < len(self.events):
            return "replay"
        return self._status or self._run.ended or ("running" if self.events else "waiting")

    def _draw_stats(self) -> None:
        if self._duration is not None:
            seconds = self._duration
        else:
            running = self._running_since
            seconds = self._elapsed + (time.perf_counter() - running if running else 0.0)
        # Whole seconds only: a saved notebook must not change because a run took 0.1 s longer.
        took = "under 1 s" if seconds < 1 else f"{seconds:.0f} s"
        parts = [*self._run.stats(self.status).split(" · "), took]
        parts.append(f"event {self._shown}/{len(self.events)}")
        # A narrow view wraps the line between its parts, never inside one ("event / 16/16").
        whole = " · ".join(f'<span style="white-space:nowrap">{esc(p)}</span>' for p in parts)
        self.stats.value = f'<span style="color:{MUTED_COLOR}">{whole}</span>'

    # -- static representation (stable: no timings, no ids) ------------------------------------

    def summary_text(self) -> str:
        run = self._run
        lines = [f"TraceView · {run.stats(self.status)}"]
        if run.request is not None:
            lines.append(f"user    {run.request}")
        for step in run.steps.values():
            lines.append(f"step {step.number}{parallel(step)}")
            if step.content:
                lines.append(f"  says  {compact(step.content, 100)}")
            for call in step.calls:
                lines.append(f"  call  {call_text(call.name, call.arguments)}")
                if call.result is not None:
                    lines.append(f"     {result_text(call.result, 100)}")
            if step.answered:
                lines.append("  answers in text, no more tool calls")
            if step.error:
                lines.append(f"  ✗ model request failed: {step.error}")
        lines += [f"warning {w}" for w in run.warnings]
        if run.answer is not None:
            lines.append(f"answer  {run.answer}")
        return text_lines(lines)

    def summary_html(self) -> str:
        run = self._run
        parts = [f"<div><b>TraceView</b> · {esc(run.stats(self.status))}</div>"]
        if run.request is not None:
            parts.append(f"<div><b>user</b>: {wrapped(run.request)}</div>")
        for step in run.steps.values():
            cards = "".join(
                f'<div style="border:{card_border(c)};padding:4px 8px;margin:2px">'
                f"{call_html(c)}{pending_or_result(c)}</div>"
                for c in step.calls
            )
            parts.append(
                '<div style="border:1px solid #ccc;padding:4px;margin:4px 0">'
                f"{step_title(step)}{step_notes(step)}"
                f'<div style="display:flex;flex-wrap:wrap">{cards}</div></div>'
            )
        parts += [f'<div style="color:{MUTED_COLOR}">⚠ {wrapped(w)}</div>' for w in run.warnings]
        if run.answer is not None:
            parts.append(answer_html(run.answer))
        return "".join(parts)
