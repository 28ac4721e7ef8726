"""How the offline model words a plain-text answer: each result quoted, each failure explained.

Why a module of its own: the answer is the one place the offline model writes prose, and every
sentence must say what was called, what came back (or what failed and why) and end with the
offline mark, so a reader never takes it for a real model. `offline` decides *when* to answer;
this module only decides *what the answer says*, from the `Task` records of the plan.
"""

from __future__ import annotations

import json
from typing import Any

from toolsys.models._plan import Task
from toolsys.models._repair import read_result
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


def without_tools(tasks: list[Task], turns: list[tuple[list[dict], dict[str, str]]]) -> str:
    """The answer when no tool may be called: quote results so far, or say what it would call."""
    done = []
    for calls, results in turns:
        for call in calls:
            ok, value, error = read_result(results.get(call["id"], ""))
            done.append(
                Task(
                    call["function"]["name"],
                    {},
                    status="done" if ok else "failed",
                    sent=(call["function"]["name"], call["function"]["arguments"]),
                    value=value,
                    error=error,
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


def answer(tasks: list[Task]) -> str:
    """One short sentence per task: the value it returned, or what failed and why."""
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
            sentences.append(f"{call} = {_summary(task.value)}.")
        elif task.sent is None:
            sentences.append(f"{task.error}.")
        else:
            why = f" ({'; '.join(task.notes)})" if task.notes else ""
            sentences.append(f"I could not complete {call}: {task.error.strip()}{why}.")
    if not sentences:
        sentences.append("I have no tool results to answer from.")
    return " ".join(s.replace("..", ".") for s in sentences) + f" {OFFLINE_MARK}"
