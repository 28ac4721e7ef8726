"""Result budgets: a result too large for the context window is cut, and says exactly how much.

A tool that returns a megabyte fills the model's context and pushes the conversation out. Over
`max_chars`, the value is cut on JSON boundaries (a string to its first `max_chars` characters;
a list to the whole items that fit; an object to the keys that fit, the last one cut in turn),
so the message still parses, and wrapped with a marker that states the exact total:

    {"truncated": "Cut to fit: shown 4,000 of 1,048,576 characters; ask for a narrower query
                   or pass offset=4000.", "shown": "..."}

`meta["truncated"]` is True, with `meta["shown_chars"]` and `meta["total_chars"]`. "offset=" is
offered only when the tool has an `offset` parameter. Sizes are characters of the text for a
string value and of its JSON for any other value. A tool whose results are useless cut (a
document to sign, a file to write back) asks for refusal instead with the tag `NO_TRUNCATE`:
it gets RESULT_TOO_LARGE and no partial value. `ResultBudget(refuse=True)` refuses for all.

Place it outermost of the robustness layers: fresh results and replays (`Idempotency`) are
cut by the same rule at the same place, so a replay reads exactly as the first answer did,
and the store keeps the whole value.

Chapter 07 shows it at work: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import json
from typing import Any

from toolsys.execution import Call, Next, failure
from toolsys.layers import _messages
from toolsys.result import ToolResult, to_json
from toolsys.tool import Tool

NO_TRUNCATE = "no_truncate"
"""Tag a tool with this (`tags=("no_truncate",)`) to get RESULT_TOO_LARGE instead of a cut."""

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
        return f"ResultBudget(max_chars={self.max_chars})"

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
            refused = failure(_messages.too_large, tool, total, self.max_chars)
            refused.meta.update(result.meta, truncated=False, total_chars=total)
            return refused
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
