"""The error envelope: one shape for every failure a tool call can have.

A model cannot read a stack trace, but it can read `{code, message, suggestion, retryable}`.
Tools raise `ToolError` for failures they understand; the registry turns everything else into
the same envelope.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from toolsys._redact import redact


class ErrorCode(StrEnum):
    """Codes the tool layer itself produces. Tools may use their own codes too."""

    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    INVALID_JSON = "INVALID_JSON"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    TIMEOUT = "TIMEOUT"
    CANCELLED = "CANCELLED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE"
    LAYER_ERROR = "LAYER_ERROR"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    IN_PROGRESS = "IN_PROGRESS"


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """What went wrong, in words a model can act on.

    `retry_after` (seconds) is set when the tool knows when a retry can succeed (a rate limit).
    """

    code: str
    message: str
    suggestion: str = ""
    retryable: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    retry_after: float | None = None

    def __post_init__(self) -> None:
        # Whoever builds the envelope, no traceback, secret or machine path gets through.
        object.__setattr__(self, "message", redact(self.message))
        object.__setattr__(self, "suggestion", redact(self.suggestion))
        object.__setattr__(self, "details", _redact_data(self.details))

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
        self.details = dict(details or {})
        self.retry_after = None if retry_after is None else float(retry_after)

    def to_info(self) -> ErrorInfo:
        return ErrorInfo(
            self.code, self.message, self.suggestion, self.retryable, self.details, self.retry_after
        )


class ToolDefinitionError(ValueError):
    """A tool cannot be registered as written (bad name, duplicate, unsupported type...).

    Raised at registration, for the developer, never at call time for the model.
    """


def _seconds(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def _redact_data(data: Any) -> Any:
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {key: _redact_data(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_redact_data(value) for value in data]
    return data
