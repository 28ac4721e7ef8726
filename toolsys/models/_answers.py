"""How the offline model words a plain-text answer: each result quoted, each failure explained.

Why a module of its own: the answer is the one place the offline model writes prose, and every
sentence must say what was called, what came back (or what failed and why) and end with the
offline mark, so a reader never takes it for a real model. `offline` decides *when* to answer;
this module only decides *what the answer says*, from the `Task` records of the plan.
"""

from __future__ import annotations

import json
from typing import Any

from toolsys.models._messages import Turn
from toolsys.models._plan import Task
from toolsys.models._repair import failure, read_result
from toolsys.models.config import OFFLINE_MARK


def _summary(value: Any, limit: int = 160) -> str:
    """A result value as a short phrase: 646; 'temperature_c: 8, condition: cloudy'; titles."""
    if isinstance(value, dict):
        if isinstance(value.get("summary"), str):
            return value["summary"]
        text = ", ".join(f"{k}: {_summary(v, 40)}" for k, v in list(value.items())[:6])
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        key = next((k for k in ("title", "name", "id") if k in value[0]), None)
        text = "; ".join(str(v.get(key)) for v in value) if key else json.dumps(value)
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_text(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(str(v) for v in args.values())})"


def text(content: str) -> dict[str, Any]:
    return {"content": content, "tool_calls": []}


def without_tools(tasks: list[Task], turns: list[Turn]) -> str:
    """The answer when no tool may be called: quote results so far, or say what it would call."""
    done = []
    for calls, results in turns:
        for call in calls:
            content = results.get(call.id, "")
            ok, value, error = read_result(content)
            code, message = failure(content) if not ok else ("", "")
            done.append(
                Task(
                    call.name,
                    {},
                    status="done" if ok else "failed",
                    sent=(call.name, call.arguments),
                    value=value,
                    error=error,
                    code=code,
                    message=message,
                )
            )
    if done:
        return answer(done)
    if tasks:
        wanted = ", ".join(_call_text(t.tool, t.args) for t in tasks)
        return (
            f"I may not call tools for this request; with tools I would call {wanted}. "
            f"{OFFLINE_MARK}"
        )
    return f"I can only answer by calling tools, and no tool is available here. {OFFLINE_MARK}"


WHAT_HAPPENED = {
    "UNKNOWN_TOOL": "there is no tool by that name",
    "TOOL_NOT_LOADED": "that tool is not loaded yet",
    "INVALID_JSON": "my arguments were not valid JSON, so it did not run",
    "INVALID_ARGUMENTS": "it refused the arguments, so it did not run",
    "EXECUTION_ERROR": "it ran and failed with an error",
    "TIMEOUT": "it timed out",
    "CANCELLED": "it was cancelled before it finished",
    "PERMISSION_DENIED": "it is not permitted here, so it did not run",
    "APPROVAL_REQUIRED": "it is waiting for a person's approval and has not run",
    "APPROVAL_DENIED": "a person declined it, so it did not run",
    "RESULT_TOO_LARGE": "it ran, but its result was too large to send back",
}
"""What each error code of the tool layer means for the user, in the answer's words."""

FINAL = {"UNKNOWN_TOOL", "PERMISSION_DENIED", "APPROVAL_REQUIRED", "APPROVAL_DENIED", "CANCELLED"}
"""Codes whose call no fix of its arguments could make succeed: no "did not retry" note."""


def failure_sentence(call: str, task: Task) -> str:
    """'I could not complete f(x): it timed out (TIMEOUT): ...': what happened, in the words of
    the code, then the message; a tool's own code is quoted as it is."""
    code, message = task.code, task.message or task.error.strip()
    happened = WHAT_HAPPENED.get(code)
    if happened:
        what = f"{happened} ({code})"
    elif code:
        what = f"it failed with {code}"
    else:
        what = "it failed"
    notes = [n for n in task.notes if not (code in FINAL and n.startswith("I did not retry"))]
    why = f" ({'; '.join(notes)})" if notes else ""
    detail = f": {message.rstrip('.')}" if message else ""
    return f"I could not complete {call}: {what}{detail}{why}."


def partial_sentence(call: str, value: dict[str, Any]) -> str | None:
    """A partial success (`toolsys.Partial`): which items were done, which failed and why."""
    done, failed = value.get("done"), value.get("failed")
    if not (isinstance(done, list) and isinstance(failed, list) and failed):
        return None
    total = len(done) + len(failed)
    parts = []
    for entry in failed:
        error = entry.get("error") if isinstance(entry, dict) else None
        item = entry.get("item") if isinstance(entry, dict) else entry
        if isinstance(error, dict):
            reason = f"{error.get('code', 'ERROR')}: {str(error.get('message', '')).rstrip('.')}"
        else:
            reason = str(error)
        parts.append(f"{_summary(item, 40)} ({reason})")
    finished = f" ({', '.join(_summary(d, 40) for d in done)})" if done else ""
    return (
        f"{call} partly succeeded: {len(done)} of {total} done{finished}; "
        f"failed: {'; '.join(parts)}."
    )


def answer(tasks: list[Task]) -> str:
    """One short sentence per task: the value it returned, what failed and why, or which part of
    a partial success failed."""
    sentences = []
    for task in tasks:
        shown = task.args
        if task.sent:
            try:
                shown = json.loads(task.sent[1])
            except json.JSONDecodeError:
                shown = task.args
        call = _call_text(task.sent[0] if task.sent else task.tool, shown)
        if task.status == "done":
            partial = partial_sentence(call, task.value) if isinstance(task.value, dict) else None
            sentences.append(partial or f"{call} = {_summary(task.value)}.")
        elif task.sent is None:
            sentences.append(f"{task.error}.")
        else:
            sentences.append(failure_sentence(call, task))
    if not sentences:
        sentences.append("I have no tool results to answer from.")
    return " ".join(s.replace("..", ".") for s in sentences) + f" {OFFLINE_MARK}"
