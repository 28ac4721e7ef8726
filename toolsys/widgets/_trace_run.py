"""A run as plain records (`Run`, `Step`, `Call`), folded from the loop's events one by one.

Why a module of its own: this is the only place that reads the loop's event classes. The trace
view, its HTML and its text form all draw these records, so a new event type changes `apply`
here and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toolsys.result import ToolResult
from toolsys.transcript import (
    Event,
    FinalAnswer,
    ModelErrorEvent,
    ModelRequest,
    ModelResponse,
    ObserverError,
    RunFinished,
    ToolCallEvent,
    ToolResultEvent,
    UserMessage,
)
from toolsys.widgets._render import plural


def starts_run(event: Event) -> bool:
    """The first event of a run (its user message)."""
    return isinstance(event, UserMessage)


def ends_run(event: Event) -> bool:
    """The last event of a run (or of its part before a pause for approval)."""
    return isinstance(event, RunFinished)


@dataclass
class Call:
    id: str
    name: str
    raw: str
    result: ToolResult | None = None

    @property
    def arguments(self) -> Any:
        """The decoded arguments, or the raw text when the model sent invalid JSON."""
        try:
            return json.loads(self.raw)
        except json.JSONDecodeError:
            return self.raw


@dataclass
class Step:
    number: int
    content: str | None = None
    tokens: int | None = None
    calls: list[Call] = field(default_factory=list)
    error: str | None = None
    answered: bool = False


@dataclass
class Run:
    request: str | None = None
    steps: dict[int, Step] = field(default_factory=dict)
    answer: str | None = None
    warnings: list[str] = field(default_factory=list)
    ended: str | None = None  # how the run ended, once an event says so

    def step(self, number: int) -> Step:
        return self.steps.setdefault(number, Step(number))

    def apply(self, event: Event) -> tuple[str, Any]:
        """Fold one event in; return what changed: (kind, record) for the view to draw."""
        if isinstance(event, UserMessage):
            self.request = event.content
            return "request", event.content
        if isinstance(event, ModelRequest):
            return "step", self.step(event.step)
        if isinstance(event, ModelResponse):
            step = self.step(event.step)
            step.content = event.content if event.tool_calls else None
            step.tokens = (event.usage or {}).get("total_tokens")
            return "step", step
        if isinstance(event, ToolCallEvent):
            step, call = self.step(event.step), Call(event.id, event.name, event.arguments)
            step.calls.append(call)
            return "call", (step, call)
        if isinstance(event, ToolResultEvent):
            call = next(c for c in self.step(event.step).calls if c.id == event.id)
            call.result = event.result
            return "result", call
        if isinstance(event, FinalAnswer):
            self.answer, self.ended = event.content, "completed"
            step = self.step(event.step)
            step.answered = True
            return "answer", step
        if isinstance(event, ModelErrorEvent):
            step = self.step(event.step)
            step.error, self.ended = f"{event.error_type}: {event.message}", "model_error"
            return "step", step
        if isinstance(event, RunFinished):
            self.ended = event.status
            return "finished", event.status
        if isinstance(event, ObserverError):
            self.warnings.append(f"on_event failed on {event.event}: {event.message}")
            return "warning", self.warnings[-1]
        return "ignored", event

    @property
    def calls(self) -> list[Call]:
        return [call for step in self.steps.values() for call in step.calls]

    @property
    def tokens(self) -> int:
        return sum(step.tokens or 0 for step in self.steps.values())

    def stats(self, status: str) -> str:
        """Status, steps, calls, errors, tokens: the stable numbers (no timings)."""
        errors = sum(1 for c in self.calls if c.result is not None and not c.result.ok)
        return (
            f"{status} · {plural(len(self.steps), 'step')} · "
            f"{plural(len(self.calls), 'tool call')} ({errors} failed) · {self.tokens} tokens"
        )
