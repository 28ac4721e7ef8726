"""What one agent run did: its events, in order, and the `Transcript` that holds and shows them.

Every step of the loop is an event (a frozen dataclass): the user's message, each model request
and response, each tool call and its result, the final answer, errors, and how the run ended.
The transcript prints as a stable trace, serialises to redacted, strict JSON and loads back
(`Transcript.from_json`), so a run can be saved, replayed and compared without the model.

Chapter 06 builds this by hand first: notebooks/06_agent_loop.ipynb.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any, get_args

from toolsys._lines import fit
from toolsys._tracefile import NotATrace, read_trace
from toolsys.result import ToolResult, redacted, redacted_json, secrets_shown

if TYPE_CHECKING:
    from toolsys.governance.approval import PendingCall

# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UserMessage:
    """The user's request that starts the run."""

    content: str


@dataclass(frozen=True)
class ModelRequest:
    """A request to the model is about to be sent: step number, message count, tool choice."""

    step: int
    messages: int
    tool_choice: Any


@dataclass(frozen=True)
class ModelResponse:
    """The model's turn: text and/or tool calls, token usage when the endpoint reports it."""

    step: int
    content: str | None
    tool_calls: list[dict[str, Any]]
    usage: dict[str, int] | None
    model: str


@dataclass(frozen=True)
class ToolCallEvent:
    """One tool call as the model wrote it: the arguments are the raw JSON string."""

    step: int
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolResultEvent:
    """The result of one tool call, as the `ToolResult` envelope the model will read."""

    step: int
    id: str
    name: str
    result: ToolResult


@dataclass(frozen=True)
class ApprovalDecision:
    """A person (or an approver function) approved or denied one pending call."""

    step: int
    id: str
    name: str
    approved: bool
    by: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class FinalAnswer:
    """The model answered in text: the run is complete."""

    step: int
    content: str


@dataclass(frozen=True)
class ModelErrorEvent:
    """A request to the model failed (HTTP error, no connection...) or its reply was unusable."""

    step: int
    error_type: str
    message: str


@dataclass(frozen=True)
class ObserverError:
    """`on_event` raised while handling an event; the run went on without it."""

    event: str
    error_type: str
    message: str


@dataclass(frozen=True)
class RunFinished:
    """The run is over: how it ended, after how many steps, with what token usage (if known)."""

    status: str
    steps: int
    usage: dict[str, int] | None


Event = (
    UserMessage
    | ModelRequest
    | ModelResponse
    | ToolCallEvent
    | ToolResultEvent
    | ApprovalDecision
    | FinalAnswer
    | ModelErrorEvent
    | ObserverError
    | RunFinished
)


# --- transcript --------------------------------------------------------------------------------

_WIDTH = 10  # label column of the printed trace


def _line(label: str, text: Any, seen: frozenset[str] = frozenset()) -> str:
    """A trace line; continuation lines (and a long line, wrapped between words to fit a
    notebook's output area) are indented under the text column."""
    lines = f"{label:<{_WIDTH}}{_visible(text, seen)}".split("\n")
    indent = " " * _WIDTH
    return "\n".join(fit(line if i == 0 else indent + line) for i, line in enumerate(lines))


def _visible(value: Any, seen: frozenset[str] = frozenset()) -> str:
    """Text for the trace: a string as it is, anything else as JSON; secrets redacted.

    `seen`: secrets the run showed in context (`secrets_shown`), redacted wherever they are.
    """
    return redacted(value, seen) if isinstance(value, str) else redacted_json(value, seen)


def _short(text: Any, limit: int = 300, seen: frozenset[str] = frozenset()) -> str:
    """At most `limit` characters, redacted *before* it is cut, so no secret survives halved."""
    text = _visible(text, seen)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Transcript:
    """Everything one run did, in order, and how it ended."""

    events: list[Event] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    status: str = "running"  # completed | length | max_steps | model_error | deadline | cancelled
    # | awaiting_approval (then `pending` lists the calls; continue with `resume_agent`)
    steps: int = 0
    duration_s: float = 0.0
    usage: dict[str, int] | None = None
    model: str = ""
    paused: dict[str, Any] | None = None
    """While awaiting approval: the turn's calls, the answers so far, the pending calls."""

    @property
    def pending(self) -> list[PendingCall]:
        """The calls waiting for a person's decision (empty unless awaiting approval)."""
        if not self.paused:
            return []
        from toolsys.governance.approval import PendingCall

        return [PendingCall.from_dict(p) for p in self.paused.get("pending", [])]

    @property
    def answer(self) -> str | None:
        """The final text answer, or None if the run did not complete."""
        return next((e.content for e in reversed(self.events) if isinstance(e, FinalAnswer)), None)

    @property
    def tool_calls(self) -> list[ToolCallEvent]:
        return [e for e in self.events if isinstance(e, ToolCallEvent)]

    @property
    def results(self) -> list[ToolResultEvent]:
        return [e for e in self.events if isinstance(e, ToolResultEvent)]

    def __str__(self) -> str:
        """The trace: ToolCall / Result / Answer / Steps / Status, stable from run to run.

        Redacted like `to_json()`, each part before it is shortened.
        """
        seen = secrets_shown(self._data())
        lines = []
        for event in self.events:
            if isinstance(event, ToolCallEvent):
                call = f"{event.name}({_short(event.arguments, seen=seen)})"
                lines.append(_line("ToolCall", call, seen))
            elif isinstance(event, ToolResultEvent):
                lines.append(_line("Result", _result_text(event.result, seen), seen))
            elif isinstance(event, ApprovalDecision):
                verdict = f"approved by {event.by or 'a person'}" if event.approved else "denied"
                reason = f": {event.reason}" if event.reason and not event.approved else ""
                lines.append(_line("Approval", f"{event.name} {verdict}{reason}", seen))
            elif isinstance(event, FinalAnswer):
                lines.append(_line("Answer", event.content, seen))
            elif isinstance(event, ModelErrorEvent):
                lines.append(_line("Error", f"{event.error_type}: {event.message}", seen))
            elif isinstance(event, ObserverError):
                warning = f"on_event failed on {event.event}: {event.error_type}: {event.message}"
                lines.append(_line("Warning", warning, seen))
        for pending in self.pending:
            args = _short(pending.arguments, seen=seen)
            waiting = f"{pending.id}: {pending.tool}({args}) · {pending.reason}"
            lines.append(_line("Pending", waiting, seen))
        lines.append(_line("Steps", f"{self.steps} · {len(self.messages)} messages"))
        lines.append(_line("Status", self.status))
        return "\n".join(lines)

    def summary(self) -> str:
        """One line with the numbers that vary between runs: steps, calls, tokens, duration."""
        total = (self.usage or {}).get("total_tokens")
        tokens = f", {total} tokens" if total is not None else ""
        return (
            f"{self.status}: {self.steps} steps, {len(self.tool_calls)} tool calls"
            f"{tokens}, {self.duration_s * 1000:.0f} ms"
        )

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON data: status, answer, numbers, messages and every event.

        What a saved trace keeps, so it is redacted like a tool message: every string (user
        prompt, arguments, results, answers) has its secrets removed, every value is sendable.
        """
        raw = self._data()
        data = redacted(raw, secrets_shown(raw))
        return data if isinstance(data, dict) else {"status": str(self.status)}

    def _data(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "answer": self.answer,
            "steps": self.steps,
            "model": self.model,
            "duration_s": round(self.duration_s, 4),
            "usage": self.usage,
            "messages": self.messages,
            "events": [_event_dict(e) for e in self.events],
            **({"paused": self.paused} if self.paused else {}),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict()` as strict JSON text (no NaN, valid UTF-8); never raises."""
        raw = self._data()
        return redacted_json(raw, secrets_shown(raw), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> Transcript:
        """The transcript `to_dict()` saved, to replay without the model; ValueError if not one."""
        return cls(**read_trace(data, {t.__name__: t for t in get_args(Event)}))

    @classmethod
    def from_json(cls, text: str | bytes) -> Transcript:
        """The transcript `to_json()` wrote; ValueError (one line: where, what) if it is not one."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise NotATrace(f"not JSON ({exc})") from None
        return cls.from_dict(data)


def _result_text(result: ToolResult, seen: frozenset[str] = frozenset()) -> str:
    envelope = result.to_dict()
    if envelope["ok"]:
        return _short("ok " + redacted_json(envelope["value"], seen), seen=seen)
    error = envelope["error"]
    text = _visible(f"error {error['code']}: {error['message']}", seen)
    return text + (f"\n→ {_visible(error['suggestion'], seen)}" if error["suggestion"] else "")


def _event_dict(event: Any) -> dict[str, Any]:
    """One event as data: its fields (shallow, converted later), and its type's name."""
    if isinstance(event, ToolResultEvent):
        data = {
            "step": event.step,
            "id": event.id,
            "name": event.name,
            **event.result.to_dict(),
            "meta": event.result.meta,
        }
    elif is_dataclass(event) and not isinstance(event, type):
        data = {f.name: getattr(event, f.name) for f in fields(event)}
    else:
        data = {"value": event}
    return {"type": type(event).__name__, **data}
