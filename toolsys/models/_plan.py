"""The offline model's plan: the calls a user message asks for, one `Task` per sub-request.

Why a module of its own: planning is the part of the offline model a student asks about ("why
did it call that?"), and it needs only the text and the tool definitions, never the
conversation. The message is split into clauses; each clause picks the tool whose words it
shares most (`_text.score_tools`), or completes the previous clause's call, or is glued back to
it; arguments are filled from the clause by the schema (`_arguments.fill`). `OfflineModel.plan`
and `explain` both call `plan`; replaying the conversation and acting on it stay in `offline`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toolsys.models._arguments import fill, missing_required, read_arguments
from toolsys.models._kinds import Kind, param_kind
from toolsys.models._shapes import rank_tools
from toolsys.models._text import THRESHOLD, ToolScore, clause_spans
from toolsys.models.explanation import Step


@dataclass
class Task:
    """One thing the user asked for, and how far the conversation got with it."""

    tool: str
    args: dict[str, Any]
    attempts: int = 0
    status: str = "pending"  # pending -> retry / done / failed
    next_call: tuple[str, str] | None = None  # (name, raw arguments) to send for a retry
    sent: tuple[str, str] | None = None  # the last call actually sent
    value: Any = None
    error: str = ""  # the failure as the model reads it: code, message, suggestion
    code: str = ""  # the failure's code (EXECUTION_ERROR, TIMEOUT, a tool's own...), if any
    message: str = ""  # the failure's message alone: what the answer tells the user
    notes: list[str] = field(default_factory=list)
    source: str = ""  # the text its arguments were read from: its clause(s) of the message
    start: int = 0  # where that text starts in the message


_GLUED = "no call of its own: {}, so it is read together with the previous clause"


def plan(
    text: str,
    functions: list[dict[str, Any]],
    tool_choice: Any = "auto",
    trace: list[Step] | None = None,
) -> list[Task]:
    """The calls this request asks for, before any mistake: one Task per sub-request.

    With a `trace` list, each clause's scores and what was made of it are appended to it.
    """
    by_name = {f["name"]: f for f in functions}

    def task(tool: str, start: int, end: int) -> Task:
        source = text[start:end]
        return Task(tool, fill(by_name[tool], source, text), source=source, start=start)

    def note(clause: str, scores: list[ToolScore], outcome: str) -> None:
        if trace is not None:
            trace.append(Step(clause, tuple(scores), outcome))

    if isinstance(tool_choice, dict):
        name = tool_choice["function"]["name"]
        note(text, rank_tools(text, functions), f"tool_choice names {name}: a call to it")
        return [task(name, 0, len(text))]
    tasks: list[Task] = []
    context: list[tuple[int, int]] = []  # leading clauses with no tool: "I need to get from A to B"
    for start, end in clause_spans(text):
        clause = text[start:end]
        scores = rank_tools(clause, functions)
        tool = scores[0].tool if scores and scores[0].score >= THRESHOLD else None
        reached = f"{tool} reaches the threshold {THRESHOLD:g}" if tool else ""
        if tool is None and not tasks:
            note(clause, scores, f"no tool reaches the threshold {THRESHOLD:g}")
            context.append((start, end))
            continue
        before = ""
        if tool and not tasks and context:  # what came before may hold its arguments
            given = [c for c in context if fill(by_name[tool], text[c[0] : c[1]], "")]
            if given:
                start = given[0][0]
                before = ", read together with the clause(s) before, which give it arguments"
        if tool is None:  # "... and in Tokyo": the same tool, if it completes it
            previous = by_name[tasks[-1].tool]
            args = fill(previous, clause, clause)
            named = _constrained(previous, clause)  # ", high priority": only adds a value
            adds = bool(named) and not named & tasks[-1].args.keys()
            listed = args.keys() <= _lists(previous) & tasks[-1].args.keys()  # "'A-1' and 'A-2'"
            if not args or missing_required(previous, args) or adds or listed:
                tasks[-1] = task(previous["name"], tasks[-1].start, end)
                note(clause, scores, _GLUED.format(f"it does not complete {previous['name']}"))
                continue
            tool, reached = previous["name"], f"it completes {previous['name']} on its own"
        if tasks[-1:] and tasks[-1].tool == tool:
            alone = fill(by_name[tool], clause, clause)
            own = fill(by_name[tool], tasks[-1].source, tasks[-1].source)
            refines = not alone.keys() & own.keys()  # "roll dice, | sides 20"
            lead_in = bool(missing_required(by_name[tool], own))  # "it's freezing | warm it to 23"
            if refines or lead_in or missing_required(by_name[tool], alone):
                tasks[-1] = task(tool, tasks[-1].start, end)
                note(clause, scores, _GLUED.format(f"{tool} again, only adding to its call"))
                continue
        tasks.append(task(tool, start, end))
        note(clause, scores, f"{reached}: a call to {tool}{before}")
    unique = {(t.tool, json.dumps(t.args, sort_keys=True)): t for t in tasks}
    if len(unique) < len(tasks) and trace is not None:
        trace.append(Step(text, (), "the same call asked twice is sent once"))
    tasks = list(unique.values())
    if not tasks and tool_choice == "required":
        scores = rank_tools(text, functions)
        tool = scores[0].tool
        note(text, scores, f"tool_choice 'required': the best-ranked tool, a call to {tool}")
        tasks = [task(tool, 0, len(text))]
    return tasks


def _constrained(function: dict[str, Any], clause: str) -> set[str]:
    """The parameters a clause gives a value of a definite kind (an enum, a number, a name),
    not free text that any leftover words would fill."""
    return {
        r.name
        for r in read_arguments(function, clause, clause)
        if r.found is not None and r.kind not in (Kind.TEXT, Kind.QUERY, Kind.LIST)
    }


def _lists(function: dict[str, Any]) -> set[str]:
    """The array parameters: a clause that only names more items continues their list."""
    properties = (function.get("parameters") or {}).get("properties", {})
    return {n for n, schema in properties.items() if param_kind(n, schema) == Kind.LIST}
