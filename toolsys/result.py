"""`ToolResult`: the one value every tool call returns, success or failure.

`execute` never raises; it returns this. `to_message()` is the exact text the model reads.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
from dataclasses import dataclass, field
from typing import Any

from toolsys._redact import redact_secrets
from toolsys.errors import ErrorInfo


def _jsonable(value: Any) -> Any:
    """Fallback for json.dumps: turn common Python values into JSON-friendly ones."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, _dt.date | _dt.time | _dt.datetime):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return str(value)


def to_json(value: Any) -> str:
    """JSON text for any value; what cannot be encoded becomes its string form."""
    return json.dumps(value, default=_jsonable, ensure_ascii=False)


@dataclass(slots=True)
class ToolResult:
    """The outcome of one tool call.

    `value` holds the tool's return value when `ok`; `error` the envelope when not. `meta` says
    which tool ran, how long it took and which attempt this was. `exception` keeps the original
    exception for the developer; it never reaches the model. `notice` is a sentence the model
    does read, beside the value or error: how this result came about (e.g. a replay).
    """

    ok: bool
    value: Any = None
    error: ErrorInfo | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    exception: BaseException | None = field(default=None, repr=False, compare=False)
    notice: str | None = None

    @classmethod
    def success(cls, value: Any, **meta: Any) -> ToolResult:
        return cls(True, value, None, meta)

    @classmethod
    def failure(
        cls, error: ErrorInfo, *, exception: BaseException | None = None, **meta: Any
    ) -> ToolResult:
        return cls(False, None, error, meta, exception)

    def to_dict(self) -> dict[str, Any]:
        """The envelope as plain data (what `to_message` encodes)."""
        if self.ok:
            data: dict[str, Any] = {"ok": True, "value": self.value}
        else:
            assert self.error is not None
            data = {"ok": False, "error": self.error.to_dict()}
        if self.notice:
            data["notice"] = self.notice
        return data

    def to_message(self) -> str:
        """The exact content of the tool message sent back to the model."""
        return redact_secrets(to_json(self.to_dict()))

    def __str__(self) -> str:
        if self.ok:
            return f"ok {to_json(self.value)}"
        assert self.error is not None
        text = f"error {self.error.code}: {self.error.message}"
        return f"{text} ({self.error.suggestion})" if self.error.suggestion else text
