"""The error envelope: one shape for every failure a tool call can have.

A model cannot read a stack trace, but it can read `{code, message, suggestion, retryable}`.
Tools raise `ToolError` for failures they understand; the registry turns everything else into
the same envelope.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeGuard

from toolsys._redact import redact_secrets, redactor
from toolsys._sendable import sendable, text_of


class ErrorCode(StrEnum):
    """Codes the tool layer itself produces. Tools may use their own codes too."""

    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    TOOL_NOT_LOADED = "TOOL_NOT_LOADED"
    INVALID_JSON = "INVALID_JSON"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    TIMEOUT = "TIMEOUT"
    OVERLOADED = "OVERLOADED"
    CANCELLED = "CANCELLED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    APPROVAL_REQUIRED = "APPROVAL_REQUIRED"
    APPROVAL_DENIED = "APPROVAL_DENIED"
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE"
    LAYER_ERROR = "LAYER_ERROR"
    AUDIT_UNAVAILABLE = "AUDIT_UNAVAILABLE"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    IN_PROGRESS = "IN_PROGRESS"
    COMPOSITE_TOO_DEEP = "COMPOSITE_TOO_DEEP"
    TOOL_LOAD_FAILED = "TOOL_LOAD_FAILED"
    MISSING_DEPENDENCY = "MISSING_DEPENDENCY"
    INVALID_CONTEXT = "INVALID_CONTEXT"
    HTTP_ERROR = "HTTP_ERROR"
    NETWORK_ERROR = "NETWORK_ERROR"
    MCP_TOOL_ERROR = "MCP_TOOL_ERROR"
    MCP_UNAVAILABLE = "MCP_UNAVAILABLE"


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """What went wrong, in words a model can act on.

    Built from anything, it never raises: `code` becomes text (EXECUTION_ERROR when missing),
    `message` and `suggestion` become redacted text (`ToolError("E", 42)` says "42"),
    `retryable` a bool, and `details` redacted, strict JSON data (a `Path` shortened like any
    path, a circular reference marked, keys as text). `retry_after` (seconds) is set when the
    tool knows when a retry can succeed (a rate limit); anything but a number >= 0 is dropped.
    """

    code: str
    message: str
    suggestion: str = ""
    retryable: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    retry_after: float | None = None

    def __post_init__(self) -> None:
        # Whoever builds the envelope, no traceback, secret or machine path gets through.
        object.__setattr__(self, "code", _code(self.code))
        clean = redactor()  # the secrets known now, for every text of this envelope
        message = clean(_text(self.message)) or "The tool reported an error without a message."
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "suggestion", clean(_text(self.suggestion)))
        object.__setattr__(self, "retryable", _flag(self.retryable))
        details = sendable(_details(self.details), text=clean)
        object.__setattr__(self, "details", details if isinstance(details, dict) else {})
        seconds = float(self.retry_after) if _seconds(self.retry_after) else None
        object.__setattr__(self, "retry_after", seconds)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "suggestion": self.suggestion,
            "retryable": self.retryable,
        }
        if self.retry_after is not None:
            data["retry_after"] = self.retry_after
        if self.details:
            data["details"] = self.details
        return data


class ToolError(Exception):
    """Raise inside a tool to report a failure the model can understand and act on.

    >>> raise ToolError("ORDER_NOT_FOUND", "No order 'ORD-9'.",
    ...                 suggestion="List orders with search_orders first.")

    `retryable=True` says a repeat of the same call can succeed and is safe; `retry_after`
    says when, in seconds: `ToolError("RATE_LIMITED", "...", retryable=True, retry_after=1.5)`.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        suggestion: str = "",
        retryable: bool = False,
        details: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        if retry_after is not None and not _seconds(retry_after):
            raise ValueError(
                f"ToolError retry_after={retry_after!r}: give the seconds to wait as a number "
                ">= 0, e.g. retry_after=1.5, or leave it out."
            )
        self.code = code
        self.message = message
        self.suggestion = suggestion
        self.retryable = retryable
        self.details = dict(_details(details))
        self.retry_after = None if retry_after is None else float(retry_after)

    def to_info(self) -> ErrorInfo:
        return ErrorInfo(
            self.code,
            self.message,
            self.suggestion,
            self.retryable,
            self.details,
            getattr(self, "retry_after", None),
        )


class ToolDefinitionError(ValueError):
    """A tool cannot be registered as written (bad name, duplicate, unsupported type...).

    Raised at registration, for the developer, never at call time for the model.
    """


def _seconds(value: Any) -> TypeGuard[float]:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def _code(code: Any) -> str:
    if isinstance(code, str) and code.strip():
        return code if isinstance(code, ErrorCode) else redact_secrets(text_of(code))
    if code is None or isinstance(code, str):
        return ErrorCode.EXECUTION_ERROR
    return redact_secrets(text_of(code))


def _text(value: Any) -> str:
    return "" if value is None else text_of(value)


def _flag(value: Any) -> bool:
    try:
        return bool(value)
    except KeyboardInterrupt:
        raise
    except BaseException:  # a hostile __bool__: not retryable
        return False


def _details(details: Any) -> dict[Any, Any]:
    """Details as a dict: a mapping copied, None empty, anything else under "value"."""
    if details is None:
        return {}
    try:
        if isinstance(details, dict):
            return details
        if isinstance(details, Mapping):
            return dict(details)
    except KeyboardInterrupt:
        raise
    except BaseException:  # a mapping that cannot be copied is shown as one value
        pass
    return {"value": details}
