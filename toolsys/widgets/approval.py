"""ApprovalPanel: the calls a paused run waits on, with Approve and Deny buttons that resume it.

A run that needs a person's approval stops (`status == "awaiting_approval"`) instead of
blocking the kernel, so the buttons work in any notebook: each click calls `resume_agent` with
that one call id, and the panel then shows what the run is waiting on next, or how it ended.
The resumed run executes where a cell would run it (the kernel's main thread, see `_cell`), so
its tools find what the cells made (a database connection), click after click.
The run's trace (a `TraceView`) is shown below; approvals and denials appear in it as results
(APPROVAL_REQUIRED, then the tool's result or APPROVAL_DENIED).

    t = run_agent(client, registry, "Refund order A1", context=ctx)
    ApprovalPanel(t, client=client, registry=registry, context=ctx)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets

from toolsys.governance.approval import PendingCall
from toolsys.loop import resume_agent
from toolsys.transcript import Transcript
from toolsys.widgets._cell import CellThread
from toolsys.widgets._render import (
    ERROR_COLOR,
    MUTED_COLOR,
    SummaryBox,
    call_text,
    esc,
    pre,
    pretty,
    text_lines,
)
from toolsys.widgets.trace import TraceView


class ApprovalPanel(SummaryBox):
    """Approve or deny each pending call of a paused run; the run resumes on each click."""

    def __init__(
        self,
        run: Transcript,
        *,
        client: Any,
        registry: Any,
        context: Mapping[str, Any] | None = None,
        approved_by: str | None = None,
        **resume_options: Any,
    ) -> None:
        super().__init__()
        if not isinstance(run, Transcript):
            raise TypeError(
                f"ApprovalPanel(run=...) takes the Transcript run_agent returned, not "
                f"{type(run).__name__}."
            )
        self.transcript = run
        self.client, self.registry, self.context = client, registry, context
        self.approved_by = approved_by
        self.resume_options = resume_options
        self.status = widgets.HTML()
        self.cards = widgets.VBox()
        self.trace = TraceView(run)
        self.error = ""
        self._cell = CellThread()
        self.children = (self.status, self.cards, self.trace)
        self.add_class("toolsys-approval-panel")
        self._draw()

    def approve(self, call_id: str) -> None:
        """Approve one pending call and resume the run (what the Approve button does)."""
        self._resume(approve=[call_id])

    def deny(self, call_id: str, reason: str = "") -> None:
        """Deny one pending call with a reason the model will read, and resume the run."""
        self._resume(deny={call_id: reason or "Declined by the user."})

    def _resume(self, **decision: Any) -> None:
        try:
            self.transcript = resume_agent(
                self.client,
                self.registry,
                self.transcript,
                context=self.context,
                approved_by=self.approved_by,
                **decision,
                **self.resume_options,
            )
            self.error = ""
        except ValueError as exc:
            self.error = str(exc)
        self.trace.load(self.transcript)
        self._draw()

    def _click(self, controls: tuple[widgets.DOMWidget, ...], decide: Callable[[], None]) -> None:
        """A button's decision: its card is disabled at once (one decision per call), and the
        run resumes on the cell's thread. What goes wrong is shown here: a click has no cell
        to print a traceback in."""
        for control in controls:
            control.disabled = True
        self.status.value = pre("Resuming the run…", MUTED_COLOR)

        def resume() -> None:
            try:
                decide()
            except Exception as exc:
                self.error = f"The run could not resume: {type(exc).__name__}: {exc}"
                self._draw()

        self._cell.call(resume)

    def _draw(self) -> None:
        t = self.transcript
        pending = t.pending
        if pending:
            head = f"Waiting for approval: {len(pending)} call" + ("" if len(pending) == 1 else "s")
        else:
            head = f"Run {t.status}" + (f": {t.answer}" if t.answer else "")
        color = ERROR_COLOR if self.error else None
        self.status.value = pre(head + (f"\n{self.error}" if self.error else ""), color)
        self.cards.children = tuple(self._card(p) for p in pending)

    def _card(self, pending: PendingCall) -> widgets.VBox:
        info = widgets.HTML(
            f"<b>{esc(pending.tool)}</b> <span style='color:{MUTED_COLOR}'>"
            f"{esc(pending.category)} · {esc(pending.id)}</span>"
            + pre(pretty(pending.arguments))
            + f"<div>{esc(pending.reason)}</div>"
        )
        approve = widgets.Button(description="Approve", button_style="success")
        deny = widgets.Button(description="Deny", button_style="danger")
        reason = widgets.Text(placeholder="Reason for denying (the model reads it)")
        controls = (approve, deny, reason)

        def denied(_: Any) -> None:
            text = reason.value  # as typed when Deny was clicked
            self._click(controls, lambda: self.deny(pending.id, text))

        approve.on_click(lambda _: self._click(controls, lambda: self.approve(pending.id)))
        deny.on_click(denied)
        card = widgets.VBox([info, widgets.HBox(list(controls))])
        card.add_class("toolsys-approval")
        return card

    def summary_text(self) -> str:
        t = self.transcript
        lines = [f"ApprovalPanel · run {t.status}"]
        lines += [
            f"  {p.id}: {call_text(p.tool, p.arguments)} ({p.category}) · {p.reason}"
            for p in t.pending
        ]
        if t.answer and not t.pending:
            lines.append(f"  answer: {t.answer}")
        return text_lines(lines)
