"""Reading a saved trace back: `Transcript.to_json()` text -> the transcript's parts, checked.

A trace file is input like any other: it may be cut short, edited by hand, or not a trace at
all. Each part is checked against the type its field declares, so a bad file is refused with
one message that names the place (`events[3].step`) instead of loading half a run that fails
later in a widget. The event classes are passed in (the loop's), so this module stays below
the loop and learns about a new kind of event without a change.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any

from toolsys.errors import ErrorInfo
from toolsys.result import ToolResult


class NotATrace(ValueError):
    """The data is not a saved transcript; the message says where and why."""


_TOP: dict[str, Any] = {
    "status": str,
    "steps": int,
    "model": str,
    "duration_s": float,
    "usage": dict | None,
    "messages": list,
    "events": list,
}


def read_trace(data: Any, event_types: Mapping[str, type]) -> dict[str, Any]:
    """The keyword arguments of `Transcript(...)` for saved `data`; raise NotATrace."""
    if not isinstance(data, dict):
        raise NotATrace(f"expected a JSON object with 'events', got {_kind(data)}")
    for key, hint in _TOP.items():
        if key not in data:
            raise NotATrace(f"'{key}' is missing")
        _expect(data[key], hint, key)
    for i, message in enumerate(data["messages"]):
        if not (isinstance(message, dict) and isinstance(message.get("role"), str)):
            raise NotATrace(f"messages[{i}] is not a message with a 'role'")
    events = [_event(item, i, event_types) for i, item in enumerate(data["events"])]
    paused = data.get("paused")
    if paused is not None and not (
        isinstance(paused, dict) and isinstance(paused.get("pending"), list)
    ):
        raise NotATrace("'paused' is not an object with a 'pending' list")
    parts = {key: data[key] for key in _TOP if key != "events"} | {"events": events}
    return parts | ({"paused": paused} if paused else {})


def _event(item: Any, i: int, event_types: Mapping[str, type]) -> Any:
    where = f"events[{i}]"
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        raise NotATrace(f"{where} is not an event with a 'type'")
    cls = event_types.get(item["type"])
    if cls is None:
        raise NotATrace(
            f"{where} has the unknown type {item['type']!r}; known: {', '.join(event_types)}"
        )
    hints = typing.get_type_hints(cls)
    values = {}
    for f in fields(cls):
        if f.name == "result" and hints[f.name] is ToolResult:
            values[f.name] = _result(item, where)
            continue
        if f.name not in item:
            if f.default is not MISSING or f.default_factory is not MISSING:
                continue  # a field added since the trace was saved: its default applies
            raise NotATrace(f"{where} ({item['type']}) has no '{f.name}'")
        _expect(item[f.name], hints[f.name], f"{where}.{f.name}")
        values[f.name] = item[f.name]
    return cls(**values)


def _result(item: dict[str, Any], where: str) -> ToolResult:
    """The `ToolResult` a ToolResultEvent was saved as: ok/value or ok/error, and meta."""
    ok, meta = item.get("ok"), item.get("meta", {})
    if not isinstance(ok, bool) or not isinstance(meta, dict):
        raise NotATrace(f"{where} is a result without a true/false 'ok' and a 'meta' object")
    if ok:
        return ToolResult(True, item.get("value"), None, meta)
    error = item.get("error")
    if not (isinstance(error, dict) and {"code", "message"} <= error.keys()):
        raise NotATrace(f"{where} is a failed result without an 'error' with code and message")
    known = ("code", "message", "suggestion", "retryable", "details")
    return ToolResult(False, None, ErrorInfo(**{k: error[k] for k in known if k in error}), meta)


def _expect(value: Any, hint: Any, where: str) -> None:
    if not _fits(value, hint):
        raise NotATrace(f"{where} is {_kind(value)}, expected {_name(hint)}")


def _fits(value: Any, hint: Any) -> bool:
    """Does JSON-decoded `value` fit the type `hint` (int, str, float, dict, list, unions, Any)?"""
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, option) for option in typing.get_args(hint))
    base = origin or hint
    if base is float:
        return type(value) in (int, float) and math.isfinite(value)
    if base is int:
        return type(value) is int
    return isinstance(base, type) and type(value) is base


def _name(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_name(option) for option in typing.get_args(hint))
    base = typing.get_origin(hint) or hint
    names = {str: "text", int: "an integer", float: "a number", dict: "an object", list: "a list"}
    return "null" if base is type(None) else names.get(base, getattr(base, "__name__", "?"))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is float and not math.isfinite(value):
        return "NaN or infinite"
    names: dict[type, str] = {
        bool: "true/false",
        str: "text",
        int: "an integer",
        float: "a number",
        dict: "an object",
        list: "a list",
    }
    return names.get(type(value), type(value).__name__)
