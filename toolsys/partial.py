"""`Partial`: a result for a tool that works on many items, when only some succeeded.

Failing the whole call hides the items that were done (the model may redo them: refund twice);
succeeding hides the failures. A Partial is a success (`ok: true`) that lists both and says in a
sentence exactly which items to retry:

    return Partial(
        done=["A-1", "A-3"],
        failed=[{"item": "A-2", "error": ToolError("RATE_LIMITED", "...", retryable=True)},
                {"item": "A-4", "error": ToolError("NOT_FOUND", "No order A-4.")}])

reads, for the model:

    {"message": "2 of 4 items done; 2 failed. Retry only these: \\"A-2\\". Do not retry these
     unchanged (their errors are not temporary): \\"A-4\\". Do not repeat the items that are done.",
     "done": ["A-1", "A-3"], "failed": [...], "retry": ["A-2"]}

An error may be a ToolError, an ErrorInfo, an exception (retryable when it is a TimeoutError
or ConnectionError), a dict with "code" and "message", or a plain message. A Partial is a dict,
so it needs no special handling anywhere: it is JSON as it is.

Chapter 07 shows it at work: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolsys.errors import ErrorInfo, ToolError

_TRANSIENT = (TimeoutError, ConnectionError)


class Partial(dict[str, Any]):
    """A partial success: `Partial(done=[...], failed=[{"item": ..., "error": ...}, ...])`."""

    def __init__(self, done: Iterable[Any] = (), failed: Iterable[Any] = ()) -> None:
        if isinstance(done, str | bytes | Mapping) or isinstance(failed, str | bytes | Mapping):
            raise TypeError(
                "Partial(done=..., failed=...) takes two lists: the items done, and one "
                '{"item": ..., "error": ...} per item that failed.'
            )
        done = list(done)
        failures = [_failure(entry) for entry in failed]
        retry = [f["item"] for f in failures if f["error"].get("retryable") is True]
        keep = [f for f in failures if f["error"].get("retryable") is not True]
        super().__init__(
            message=_message(len(done), failures, retry, keep),
            done=done,
            failed=failures,
            retry=retry,
        )

    @property
    def done(self) -> list[Any]:
        return self["done"]

    @property
    def failed(self) -> list[dict[str, Any]]:
        return self["failed"]

    @property
    def retry(self) -> list[Any]:
        """The items worth retrying: those whose error is retryable."""
        return self["retry"]


def _failure(entry: Any) -> dict[str, Any]:
    """One failed item as {"item": ..., "error": {code, message, ...}}."""
    if isinstance(entry, Mapping) and "item" in entry and "error" in entry:
        item, error = entry["item"], entry["error"]
    elif isinstance(entry, tuple) and len(entry) == 2:
        item, error = entry
    else:
        raise TypeError(
            f"Partial: each failed entry must be {{'item': ..., 'error': ...}} or (item, error), "
            f"got {entry!r:.80}."
        )
    return {"item": item, "error": _error(error).to_dict()}


def _error(error: Any) -> ErrorInfo:
    if isinstance(error, ErrorInfo):
        return error
    if isinstance(error, ToolError):
        return error.to_info()
    if isinstance(error, BaseException):
        try:
            text = str(error).strip()
        except Exception:
            text = ""
        what = f"{type(error).__name__}: {text}" if text else type(error).__name__
        return ErrorInfo("ITEM_FAILED", what, retryable=isinstance(error, _TRANSIENT))
    if isinstance(error, Mapping) and isinstance(error.get("code"), str):
        return ErrorInfo(
            error["code"],
            str(error.get("message", "")),
            str(error.get("suggestion", "")),
            error.get("retryable") is True,
            dict(error.get("details") or {}),
        )
    if isinstance(error, str):
        return ErrorInfo("ITEM_FAILED", error)
    raise TypeError(
        f"Partial: an item's error must be a ToolError, an ErrorInfo, an exception, a dict with "
        f"'code' and 'message', or a message; got {type(error).__name__}."
    )


def _message(
    done: int, failures: list[dict[str, Any]], retry: list[Any], keep: list[dict[str, Any]]
) -> str:
    total = done + len(failures)
    if not failures:
        return f"All {total} items done."
    parts = [f"{done} of {total} items done; {len(failures)} failed."]
    if retry:
        parts.append(f"Retry only these: {_listed(retry)}.")
    if keep:
        codes = sorted({f["error"]["code"] for f in keep})
        parts.append(
            f"Do not retry these unchanged (their errors, {', '.join(codes)}, are not "
            f"temporary): {_listed([f['item'] for f in keep])}."
        )
    if done:
        parts.append("Do not repeat the items that are done.")
    return " ".join(parts)


def _listed(values: Sequence[Any], limit: int = 20) -> str:
    """Items for a sentence, as JSON: the first `limit`, then how many more."""
    shown = [json.dumps(v, ensure_ascii=False, default=str) for v in values[:limit]]
    shown = [text if len(text) <= 60 else text[:57] + "..." for text in shown]
    rest = len(values) - limit
    more = f" and {rest} more (all listed in this result)" if rest > 0 else ""
    return ", ".join(shown) + more
