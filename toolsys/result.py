"""`ToolResult`: the one value every tool call returns, success or failure.

`execute` never raises; it returns this. `to_message()` is the exact text the model reads, and it
never raises either: strict JSON (no NaN), valid UTF-8, secrets redacted, whatever the tool
returned (see `toolsys._sendable` for how NaN, huge integers, bytes, cycles... are shown).

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolsys._redact import context_secrets, redact_secrets
from toolsys._sendable import dumps, sendable
from toolsys.errors import ErrorCode, ErrorInfo


def _envelope(error: Any) -> ErrorInfo:
    """The failure's envelope; a result built without one still tells the model it failed."""
    if isinstance(error, ErrorInfo):
        return error
    return ErrorInfo(
        ErrorCode.EXECUTION_ERROR,
        "The tool call failed without saying why (the result carried no error envelope).",
        "Answer without this tool, or try a different call.",
    )


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
    """JSON text for any value, for display and validation; never raises.

    Python's own JSON spelling where it can (NaN stays NaN, for a validator that accepts it);
    a value `json.dumps` refuses (a huge integer, a cycle, a broken `__str__`) is shown the way
    `to_message` shows it.
    """
    try:
        return json.dumps(value, default=_jsonable, ensure_ascii=False)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return dumps(value)


def redacted(value: Any, also: Iterable[str] = ()) -> Any:
    """`value` as strict JSON data with the secrets of every string removed: what a saved trace
    or a log may keep. `also`: more secret values, e.g. `secrets_shown` of a whole run."""
    extra = tuple(also)
    return sendable(value, text=lambda text: redact_secrets(text, extra))


def redacted_json(value: Any, also: Iterable[str] = (), indent: int | None = None) -> str:
    """`redacted(value, also)` as strict JSON text (no NaN, valid UTF-8); never raises."""
    extra = tuple(also)
    return dumps(value, text=lambda text: redact_secrets(text, extra), indent=indent)


def secrets_shown(value: Any) -> frozenset[str]:
    """Secrets that some string in `value` shows by their context (a URL's password, a Bearer
    token, password=...), so that a trace can redact the same value where it appears alone:
    a model that copies the password out of the URL does not leak it into the saved trace."""
    found: set[str] = set()
    stack = [sendable(value)]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found |= context_secrets(node)
        elif isinstance(node, dict):
            stack.extend((*node.keys(), *node.values()))
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(found)


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
        """The envelope as plain data (what `to_message` encodes), the value as the tool gave it."""
        if self.ok:
            data: dict[str, Any] = {"ok": True, "value": self.value}
        else:
            data = {"ok": False, "error": _envelope(self.error).to_dict()}
        if self.notice:
            data["notice"] = self.notice
        return data

    def to_message(self) -> str:
        """The exact content of the tool message sent back to the model; never raises.

        Secrets are redacted in each decoded string (keys too) before it is encoded, so a
        secret with a quote or a backslash in it is found before JSON escapes it.
        """
        return dumps(self.to_dict(), text=redact_secrets)

    def __str__(self) -> str:
        if self.ok:
            return f"ok {dumps(self.value, text=redact_secrets)}"
        error = _envelope(self.error)
        text = f"error {error.code}: {error.message}"
        return f"{text} ({error.suggestion})" if error.suggestion else text
