"""One API operation as an HTTP request, and its response as a value or an error envelope.

The validated arguments are split back into path, query, header and body (kept apart since the
spec was read), sent with the injected httpx2 client, and the response read: 2xx gives the JSON
(or text), anything else a `ToolError` with the status, the API's own message and what to do.
Each argument stays in its place: a path value is percent-encoded whole (`/` too) and may not be
empty, `.` or `..` (a client removes dot segments: `customer_id=".."` on
`/customers/{customer_id}/orders` would ask for `/orders`, everyone's); a header value may not hold
a line break, a control character or non-ASCII text; query values are encoded by the client.
429 and 503 are retryable, with `retry_after` from the Retry-After header; a network failure is
retryable only for a READ operation, because a WRITE may already have reached the server.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel

from toolsys.errors import ErrorCode, ToolError
from toolsys.spec import Category

_MAX_TEXT = 20_000
_SUGGESTIONS = {
    400: "The API rejected these arguments; check them against the tool's description.",
    401: "The API needs credentials this application does not have; tell the user.",
    403: "The API refused this action for this user; do not retry, tell the user.",
    404: "Nothing exists with these identifiers; check them (search or list first).",
    409: "The request conflicts with the current state; read the current state first.",
    422: "The API could not process these arguments; check them against the description.",
    429: "The API is rate-limiting us; wait retry_after seconds, then try once more.",
    503: "The API is unavailable for now; wait retry_after seconds, then try once more.",
}


@dataclass(frozen=True)
class Slot:
    """Where one argument goes: `key` is its name in the arguments, `wire` its name in the
    request, `location` path, query, header or body."""

    key: str
    wire: str
    location: str


@dataclass(frozen=True)
class Route:
    """Everything needed to turn validated arguments into one HTTP request."""

    operation: str
    method: str
    path: str
    base_url: str
    slots: tuple[Slot, ...]
    content_type: str | None
    category: Category

    def request(self, arguments: BaseModel) -> dict[str, Any]:
        """The keyword arguments for `client.request(...)`."""
        values = arguments.model_dump(mode="json", by_alias=True, exclude_unset=True)
        path, params, headers = self.path, {}, {}
        body: Any = None
        for slot in self.slots:
            if slot.key not in values:
                continue
            value = values[slot.key]
            if slot.location == "path":
                path = path.replace("{" + slot.wire + "}", quote(_segment(slot, value), safe=""))
            elif slot.location == "query":
                params[slot.wire] = value if isinstance(value, list) else _text(value)
            elif slot.location == "header":
                headers[slot.wire] = _header(slot, value)
            else:
                body = value
        request: dict[str, Any] = {
            "method": self.method.upper(),
            "url": self.base_url.rstrip("/") + path,
            "params": params,
            "headers": headers,
        }
        if body is not None:
            if self.content_type == "application/x-www-form-urlencoded":
                request["data"] = body
            elif self.content_type and "json" in self.content_type:
                request["json"] = body
            else:
                request["content"] = body if isinstance(body, str) else json.dumps(body)
            if self.content_type:
                headers["Content-Type"] = self.content_type
        return request

    def read(self, response: Any) -> Any:
        """A 2xx response's JSON (or text); any other status raises an HTTP_ERROR ToolError."""
        status = int(response.status_code)
        text = response.text[:_MAX_TEXT]
        if 200 <= status < 300:
            if not text.strip():
                return f"HTTP {status}: done (no content)."
            try:
                return response.json()
            except ValueError:
                return text
        retryable = status in (429, 503) or (
            status in (502, 504) and self.category == Category.READ
        )
        suggestion = _SUGGESTIONS.get(status) or (
            "The API failed; try again later, or answer without this tool."
            if status >= 500
            else "Check the arguments against the tool's description."
        )
        raise ToolError(
            ErrorCode.HTTP_ERROR,
            f"{self.operation} returned HTTP {status}"
            + (f": {_api_message(text)}" if _api_message(text) else "."),
            suggestion=suggestion,
            retryable=retryable,
            retry_after=_retry_after(response.headers.get("retry-after")) if retryable else None,
            details={"status": status},
        )

    def network_error(self, exc: BaseException) -> ToolError:
        """A request that got no response: retryable only when it cannot have changed anything."""
        read = self.category == Category.READ
        return ToolError(
            ErrorCode.NETWORK_ERROR,
            f"{self.operation} got no response from the API ({type(exc).__name__}).",
            suggestion="This may be temporary; try the same call once more."
            if read
            else "The request may have reached the API; check whether it took effect before "
            "repeating it.",
            retryable=read,
        )


def is_network_error(exc: BaseException) -> bool:
    """httpx/httpx2 transport failures (connect, read, timeout), without importing either."""
    return any(
        cls.__name__ == "TransportError" and cls.__module__.startswith("httpx")
        for cls in type(exc).__mro__
    )


def _segment(slot: Slot, value: Any) -> str:
    """A path value that names one segment, never an empty one or a step up (`..`)."""
    text = _text(value)
    if text in ("", ".", ".."):
        raise _misplaced(
            slot,
            value,
            "a path parameter cannot be empty, '.' or '..': the URL would name another resource",
            "Send the identifier itself (look it up first if you do not have it).",
        )
    return text


def _header(slot: Slot, value: Any) -> str:
    """A header value on one line, in ASCII: no line break can add a header of its own."""
    text = _text(value)
    if not text.isascii() or any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in text):
        raise _misplaced(
            slot,
            None,  # not echoed: a header is where credentials go
            "a header value must be printable ASCII on one line (no line breaks, control "
            "characters or non-ASCII letters)",
            "Send the value without line breaks, in plain ASCII.",
        )
    return text


def _misplaced(slot: Slot, value: Any, problem: str, suggestion: str) -> ToolError:
    """INVALID_ARGUMENTS naming the parameter (and its value, unless None: not to be echoed)."""
    shown = "" if value is None else f"={_text(value)[:60]!r}"
    return ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        f"{slot.key}{shown}: {problem}.",
        suggestion=suggestion,
        details={"parameter": slot.key, "in": slot.location},
    )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _api_message(text: str) -> str:
    """The API's own words: a JSON body's message/error/detail field, else the text itself."""
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    for key in ("message", "error", "detail", "title", "error_description"):
        value = data.get(key) if isinstance(data, Mapping) else None
        if isinstance(value, Mapping):
            value = value.get("message")
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:300]
    return " ".join(text.split())[:300]


def _retry_after(header: str | None) -> float | None:
    """Retry-After as seconds: a number, or an HTTP date from now; None when unreadable."""
    if not header:
        return None
    try:
        seconds = float(header)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, min(seconds, 86_400.0))
