"""The HTML pieces of a trace: a call card's border and body, a step's title and notes, the answer.

Why a module of its own: the live widget (`TraceView`) and its static representation (what a
saved notebook shows) must draw a run the same way; both take their HTML from here, built from
the plain records of `_trace_run`, never from the loop's events.
"""

from __future__ import annotations

from toolsys.widgets._render import (
    ERROR_COLOR,
    MUTED_COLOR,
    OK_COLOR,
    esc,
    pre,
    pretty,
    result_html,
    wrapped,
)
from toolsys.widgets._trace_run import Call, Step


def card_border(call: Call) -> str:
    color = MUTED_COLOR if call.result is None else OK_COLOR if call.result.ok else ERROR_COLOR
    return f"1px solid {color}"


def call_html(call: Call) -> str:
    arguments = call.arguments
    if isinstance(arguments, str):
        shown = pre(f"not valid JSON: {arguments}", ERROR_COLOR)
    else:
        shown = pre(pretty(arguments))
    return f"<b>{esc(call.name)}</b>{shown}"


def pending_or_result(call: Call) -> str:
    if call.result is None:
        return f'<span style="color:{MUTED_COLOR}">… running</span>'
    return result_html(call.result)


def parallel(step: Step) -> str:
    return f" · {len(step.calls)} calls in parallel" if len(step.calls) > 1 else ""


def step_title(step: Step) -> str:
    tokens = f" · {step.tokens} tokens" if step.tokens is not None else ""
    return f"<b>step {step.number}</b>{parallel(step)}{tokens}"


def step_notes(step: Step) -> str:
    html = ""
    if step.content:
        html += f"<div><i>model:</i> {wrapped(step.content)}</div>"
    if step.answered:
        html += "<div><i>model:</i> answers in text, no more tool calls</div>"
    if step.error:
        failed = f"✗ model request failed: {wrapped(step.error)}"
        html += f'<div style="color:{ERROR_COLOR}">{failed}</div>'
    return html


def answer_html(answer: str) -> str:
    return f'<div style="color:{OK_COLOR}"><b>answer</b></div>' + pre(answer)
