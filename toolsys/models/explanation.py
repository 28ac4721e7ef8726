"""Why the offline model chose what it chose: the scores and the evidence, as printable text.

    from toolsys import models
    print(models.explain("fly me to Rome tomorrow", registry))

`OfflineModel.explain` runs the same planning code as a real request and keeps what it saw:
for each clause of the message, every tool's score and the words it is the sum of (which word
of the request met which word of the tool's name, description or parameters, and whether as
the same word, the same stem, synonyms or a phrase); which tool it picked and why; and for
each argument of a picked tool, the value it filled, the part of the text it came from and the
rule that read it, or what it looked for and did not find. Then what the model does: the calls
it sends, or the value it asks for. The text is deterministic, so a lesson can print it.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from typing import Any

from toolsys.models._arguments import Reading, missing_required, read_arguments
from toolsys.models._kinds import LOOKS_FOR
from toolsys.models._text import THRESHOLD, ToolScore
from toolsys.models.config import FIXED_NOW, TIMEZONE


@dataclass(frozen=True)
class Step:
    """One clause of the message: every tool's score for it, and what the model made of it."""

    clause: str
    scores: tuple[ToolScore, ...]
    outcome: str


@dataclass(frozen=True)
class PlannedCall:
    """A call the message asks for, with how each of its arguments was read."""

    tool: str
    arguments: dict[str, Any]
    readings: tuple[Reading, ...]
    source: str  # the text the arguments were read from
    missing: tuple[str, ...]  # required parameters the text does not give


@dataclass(frozen=True)
class Explanation:
    """What the offline model does with a request, and why; `print` it."""

    request: str
    tools: tuple[str, ...]
    tool_choice: Any
    steps: tuple[Step, ...]
    planned: tuple[PlannedCall, ...]
    calls: tuple[tuple[str, dict[str, Any]], ...]
    """The calls the model sends first for this message, exactly as through the client."""
    asks: tuple[PlannedCall, ...]
    """Planned calls it does not send because a required value is missing: it asks instead."""
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = [f"Request: {json.dumps(self.request, ensure_ascii=False)}"]
        lines.append(f"Tools: {', '.join(self.tools) or '(none)'}")
        if self.tool_choice != "auto":
            lines.append(f"tool_choice: {json.dumps(self.tool_choice)}")
        for number, step in enumerate(self.steps, 1):
            lines += ["", *_step_lines(step, number, len(self.steps))]
        for number, planned in enumerate(self.planned, 1):
            lines += ["", *_call_lines(planned, number)]
        lines += ["", *_decision_lines(self)]
        if any(r.kind in ("date", "datetime") for p in self.planned for r in p.readings):
            lines.append(
                f"(Dates are read on the fixed clock: {FIXED_NOW:%A %Y-%m-%d %H:%M} {TIMEZONE}.)"
            )
        lines += list(self.notes)
        return "\n".join(part for line in lines for part in _wrapped(line))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


def _wrapped(line: str) -> list[str]:
    """A line cut at 88 characters, its continuation indented 4 more: notebooks show it all."""
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    parts = textwrap.wrap(line, width=88, subsequent_indent=indent, break_on_hyphens=False)
    return parts or [""]


def _points(value: float) -> str:
    return f"{value:.2f}"


def _step_lines(step: Step, number: int, total: int) -> list[str]:
    head = f"Clause {number} of {total}: " if total > 1 else "Clause: "
    lines = [head + json.dumps(step.clause, ensure_ascii=False)]
    width = max((len(s.tool) for s in step.scores), default=0)
    silent = [s.tool for s in step.scores if s.score == 0]
    for score in (s for s in step.scores if s.score > 0):
        lines.append(f"  {score.tool:<{width}}  {_points(score.score):>5}")
        for match in score.matches:
            shared = f", in {match.shared} tools" if match.shared > 1 else ""
            lines.append(
                f"    + {_points(match.points)}  {json.dumps(match.term.word)} ~ "
                f"{json.dumps(match.source.word)}: {match.how}, in the {match.source.where} "
                f"(weight {match.source.weight:g}{shared})"
            )
        if score.bonus:
            lines.append(
                f"    + {_points(score.bonus)}  the request calculates, and so does the tool"
            )
        for shape in score.shapes:
            lines.append(
                f"    + {_points(shape.points)}  {json.dumps(shape.excerpt, ensure_ascii=False)} "
                f"fits parameter {shape.parameter}: {shape.why} (argument shape)"
            )
    if silent:
        lines.append(f"  0, no word in common: {', '.join(silent)}")
    lines.append(f"  -> {step.outcome}")
    return lines


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _call_lines(planned: PlannedCall, number: int) -> list[str]:
    source = json.dumps(planned.source, ensure_ascii=False)
    lines = [f"Call {number}: {planned.tool}, arguments read from {source}"]
    if not planned.readings:
        lines.append("  (no parameters)")
    for reading in planned.readings:
        if reading.found is None and not reading.required:
            lines.append(f"  {reading.name}: not mentioned (optional {reading.kind})")
            continue
        if reading.found is None:
            lines.append(
                f"  {reading.name}: not found (required {reading.kind}); "
                f"looked for {LOOKS_FOR[reading.kind]}"
            )
            continue
        where = f' <- "{reading.excerpt}"' if reading.excerpt else ""
        whole = ", in the whole message" if reading.whole_message else ""
        lines.append(
            f"  {reading.name} = {_value(reading.found.value)}{where}  "
            f"({reading.kind}: {reading.found.rule}{whole})"
        )
    return lines


def _decision_lines(explanation: Explanation) -> list[str]:
    lines = []
    for name, args in explanation.calls:
        lines.append(f"Sends: {name}({_value(args)})")
    for planned in explanation.asks:
        missing = ", ".join(planned.missing)
        lines.append(
            f"Asks instead of calling {planned.tool}: {missing} is required and the message "
            "does not give it."
        )
    if not explanation.calls and not explanation.asks:
        if not explanation.planned:
            best = max(
                (s for step in explanation.steps for s in step.scores[:1]),
                key=lambda s: s.score,
                default=None,
            )
            reached = f" (best: {best.tool}, {_points(best.score)})" if best and best.score else ""
            lines.append(
                f"No call: no tool reaches the threshold {THRESHOLD:g}{reached}; "
                "it answers in text."
            )
        else:
            lines.append("No call: tool_choice is 'none'; it answers in text.")
    return lines


def planned_call(
    tool: str, source: str, args: dict[str, Any], function: dict[str, Any], text: str
) -> PlannedCall:
    """A planned call with the evidence for each argument, read again the way the plan read it."""
    readings = read_arguments(function, source, text)
    read = {r.name: r.found.value for r in readings if r.found is not None}
    if read != args:  # the plan and its explanation must never disagree
        raise RuntimeError(f"explain read {read} for {tool}, the plan read {args}")
    missing = tuple(missing_required(function, read))
    return PlannedCall(tool, dict(read), tuple(readings), source, missing)
