"""Result budgets: a result too large for the context window is cut, and says exactly how much.

Every tool message is sent again with every later request of the run, so one megabyte result (a
log dump, a whole web page) costs its size at each step, crowds out the conversation and may not
fit the model's context at all. `ResultBudget(max_chars=4000)` is the one layer for this.

Over `max_chars`, the value is cut on JSON boundaries (a string to its first `max_chars`
characters; a list to the whole items that fit; an object to the keys that fit, the last one cut
in turn), so the message still parses, and wrapped with a marker that states the exact total:

    {"truncated": "Cut to fit: shown 4,000 of 1,048,576 characters; ask for a narrower query
                   or pass offset=4000.", "shown": "..."}

`meta["truncated"]` is True, with `meta["shown_chars"]` and `meta["total_chars"]`. "offset=" is
offered only when the tool has an `offset` parameter. Sizes are characters of the text for a
string value and of its JSON for any other value, so an offset counts in the tool's own units.

A tool whose results are useless cut (a document to sign, a file to write back) asks for refusal
instead with the tag `NO_TRUNCATE`; `ResultBudget(refuse=True)` refuses for every tool. A refusal
is the one `fit_result` makes, the plain function: measured on the text the model reads
(`ToolResult.to_message()`, JSON escapes included), a result whose message fits passes
unchanged, and one that does not becomes RESULT_TOO_LARGE giving its size and the budget, telling
the model to ask for less, and keeping as much of the message's beginning as fits in
`details.preview`, so the model is never left with nothing and never takes a fragment for the
whole. The refusal's own message fits in the budget, or in `MIN_BUDGET` characters if the budget
is smaller: the message itself needs room.

Place it outermost of the robustness layers: fresh results and replays (`Idempotency`) are
cut by the same rule at the same place, so a replay reads exactly as the first answer did,
and the store keeps the whole value.

Chapter 06 builds `fit_result` by hand and runs this layer with `refuse=True`:
notebooks/06_agent_loop.ipynb.
Chapter 07 shows it at work: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import json
from typing import Any

from toolsys.execution import Call, Next
from toolsys.layers import _messages
from toolsys.result import ToolResult, to_json
from toolsys.tool import Tool

__all__ = ["MIN_BUDGET", "NO_TRUNCATE", "ResultBudget", "fit_result"]

NO_TRUNCATE = "no_truncate"
"""Tag a tool with this (`tags=("no_truncate",)`) to get RESULT_TOO_LARGE instead of a cut."""

MIN_BUDGET = 600
"""The smallest budget for `fit_result`: its RESULT_TOO_LARGE message itself needs room."""

_MIN_PART = 16  # below this many characters, a part is left out rather than cut


class ResultBudget:
    """`ResultBudget(max_chars=4000)`: see the module docstring."""

    stage = "validated"
    name = "result_budget"

    def __init__(self, max_chars: int = 4000, *, refuse: bool = False) -> None:
        if type(max_chars) is not int or max_chars < 100:
            raise ValueError(
                f"ResultBudget(max_chars={max_chars!r}): give a whole number of characters, "
                "at least 100 (e.g. 4000)."
            )
        self.max_chars, self.refuse = max_chars, refuse

    def __repr__(self) -> str:
        refuse = ", refuse=True" if self.refuse else ""
        return f"ResultBudget(max_chars={self.max_chars}{refuse})"

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        result = await call_next(call)
        if not result.ok:
            return result
        value = result.value
        if type(value) is str:
            total = len(value)
        elif value is None or type(value) in (bool, int, float):
            return result
        else:
            total = len(to_json(value))
        if total <= self.max_chars:
            return result
        tool = call.tool
        assert tool is not None
        if self.refuse or NO_TRUNCATE in tool.tags:
            return _refusal(result, max(self.max_chars, MIN_BUDGET), tool.name)
        cut, marker, shown = self.cut(value, tool, total)
        meta = {**result.meta, "truncated": True, "shown_chars": shown, "total_chars": total}
        wrapped = {"truncated": marker, "shown": cut}
        return ToolResult(True, wrapped, None, meta, result.exception, result.notice)

    def cut(self, value: Any, tool: Tool, total: int) -> tuple[Any, str, int]:
        """The cut value, its marker and how many characters it shows."""
        offers_offset = "offset" in tool.parameters.get("properties", {})
        if isinstance(value, str):
            text = value[: self.max_chars]
            offset = len(text) if offers_offset else None
            return (
                text,
                _messages.truncated(len(text), total, "characters", offset, ""),
                len(text),
            )
        data = _plain(value)
        cut = _cut(data, self.max_chars)
        shown = len(to_json(cut))
        if isinstance(data, list):
            whole = len(cut) - (1 if cut and cut[0] is not data[0] else 0)
            offset = whole if offers_offset and whole else None
            unit = "items" if whole else "items (the first one cut)"
            chars = f" ({shown:,} of {total:,} characters)"
            return cut, _messages.truncated(whole, len(data), unit, offset, chars), shown
        return cut, _messages.truncated(shown, total, "characters", None, ""), shown


def fit_result(result: ToolResult, max_chars: int, *, tool: str | None = None) -> ToolResult:
    """`result` if its message fits in `max_chars` characters, else a RESULT_TOO_LARGE failure
    whose own message fits, with as much of the original message's beginning as room allows.

    Any result, a failure too. `tool`: the tool's name for the message (default: the result's
    `meta["tool"]`). `max_chars` is a whole number of at least `MIN_BUDGET`.
    """
    if type(max_chars) is not int or max_chars < MIN_BUDGET:
        raise ValueError(
            f"fit_result(max_chars={max_chars!r}): give a whole number of characters, at least "
            f"{MIN_BUDGET} (the over-budget message itself needs room), e.g. 8000."
        )
    if len(result.to_message()) <= max_chars:
        return result
    return _refusal(result, max_chars, tool or str(result.meta.get("tool") or "the tool"))


def _refusal(result: ToolResult, budget: int, tool: str) -> ToolResult:
    """RESULT_TOO_LARGE for `result`, with the longest preview that keeps it within `budget`."""
    text = result.to_message()
    meta = {**result.meta, "truncated": False, "total_chars": len(text)}

    def refused(keep: int) -> ToolResult:
        error = _messages.too_large(tool, len(text), budget, text[:keep] + "…")
        return ToolResult.failure(error, **meta)

    # The preview's JSON escapes make the message longer than the characters kept: search for
    # the longest preview that fits (the message grows with `keep`).
    low, high = 0, budget
    while low < high:
        middle = (low + high + 1) // 2
        if len(refused(middle).to_message()) <= budget:
            low = middle
        else:
            high = middle - 1
    return refused(low)


def _plain(value: Any) -> Any:
    """A result value as plain JSON data: models, dataclasses, dates... as the model reads them."""
    return json.loads(to_json(value))


def _size(value: Any) -> int:
    return len(to_json(value))


def _cut(value: Any, budget: int) -> Any:
    """`value` cut on JSON boundaries so that its JSON text is at most `budget` characters."""
    if _size(value) <= budget:
        return value
    if isinstance(value, str):
        return _cut_text(value, budget)
    if isinstance(value, list):
        kept: list[Any] = []
        used = 2  # []
        for item in value:
            comma = 2 if kept else 0
            size = _size(item)
            if used + comma + size <= budget:
                kept.append(item)
                used += comma + size
                continue
            if not kept and budget - used >= _MIN_PART and isinstance(item, str | list | dict):
                kept.append(_cut(item, budget - used))  # not even one item fits: cut it
            break
        return kept
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        used = 2  # {}
        for key, item in value.items():
            comma = 2 if out else 0
            label = _size(key) + 2  # "key":
            size = _size(item)
            if used + comma + label + size <= budget:
                out[key] = item
                used += comma + label + size
                continue
            room = budget - used - comma - label
            if room >= _MIN_PART and isinstance(item, str | list | dict):
                out[key] = _cut(item, room)
            break
        return out
    return None


def _cut_text(text: str, budget: int) -> str:
    """The longest prefix of `text` whose JSON form fits in `budget` characters."""
    low, high = 0, min(len(text), budget)
    while low < high:
        middle = (low + high + 1) // 2
        if _size(text[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low]
