"""A result budget: no tool message larger than the context can afford.

Every tool message is sent again with every later request of the run, so one 200 kB result
(a log dump, a whole web page) costs its size at each step, crowds out the conversation and
may not fit the model's context at all. The budget is measured where it matters, on the text
the model reads (`ToolResult.to_message()`: JSON, escapes included), not on the Python value.

A result that fits passes unchanged. One that does not becomes a RESULT_TOO_LARGE failure
that says how large it was and what the budget is, tells the model to ask for less, and keeps
as much of the beginning as fits (`details.preview`), so the model is never left with
nothing and never mistakes a fragment for the whole.

    registry.use(result_budget(8_000))     # every call, every tool

Chapter 06 builds this by hand first: notebooks/06_agent_loop.ipynb.
"""

from __future__ import annotations

from typing import Any

from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.result import ToolResult

__all__ = ["MIN_BUDGET", "fit_result", "result_budget"]

MIN_BUDGET = 600
"""The smallest budget that still leaves room for the RESULT_TOO_LARGE message itself."""


def _check(max_chars: Any) -> int:
    if type(max_chars) is not int or max_chars < MIN_BUDGET:
        raise ValueError(
            f"max_chars={max_chars!r}: a result budget must be an integer of at least "
            f"{MIN_BUDGET} characters (the over-budget message itself needs room), e.g. 8000."
        )
    return max_chars


def _too_large(tool: str, size: int, budget: int, preview: str) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.RESULT_TOO_LARGE,
        f"The result of {tool!r} is {size:,} characters, over this agent's budget of "
        f"{budget:,} per tool result; only its beginning is kept, in details.preview.",
        f"Call {tool} again asking for less (a narrower query, a smaller limit, fewer fields), "
        "or answer from the preview and say that it is partial.",
        retryable=False,
        details={"size": size, "budget": budget, "preview": preview},
    )


def fit_result(result: ToolResult, max_chars: int, *, tool: str | None = None) -> ToolResult:
    """`result` if its message fits in `max_chars` characters, else a RESULT_TOO_LARGE failure
    whose own message fits, with as much of the original message's beginning as room allows.

    `tool`: the tool's name for the message (default: the result's `meta["tool"]`).
    """
    budget = _check(max_chars)
    text = result.to_message()
    if len(text) <= budget:
        return result
    tool = str(tool or result.meta.get("tool") or "the tool")
    meta = {**result.meta, "truncated_from": len(text)}

    def shrunk(keep: int) -> ToolResult:
        preview = text[:keep] + "…"
        return ToolResult.failure(_too_large(tool, len(text), budget, preview), **meta)

    # The preview's JSON escapes make the message longer than the characters kept: search for
    # the longest preview that fits (the message length grows with `keep`).
    low, high = 0, budget
    while low < high:
        middle = (low + high + 1) // 2
        if len(shrunk(middle).to_message()) <= budget:
            low = middle
        else:
            high = middle - 1
    return shrunk(low)


def result_budget(max_chars: int) -> Any:
    """An execution layer that applies `fit_result` to every call: `registry.use(...)`."""
    budget = _check(max_chars)

    async def result_budget(call: Any, call_next: Any) -> ToolResult:
        return fit_result(await call_next(call), budget, tool=call.name)

    return result_budget
