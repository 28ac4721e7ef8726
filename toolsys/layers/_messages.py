"""The words a model reads when a robustness layer answers instead of the tool.

Like `toolsys.failures`: each message says what happened and the bad value; each suggestion says
what to do next. The rule they all follow: a call that may have changed the world is never
presented as safe to repeat.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

from toolsys import _platform
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.tool import Tool

_STOPPED_BY = {
    ("thread", True): "its thread cannot be stopped and is still running in the background",
    ("thread", False): "its thread ended at the deadline, too late for this answer",
    ("task", True): "it ignored cancellation and is still running in the background",
    ("task", False): "it was cancelled",
    ("process", False): "its process group was killed",
    ("cooperative", False): "it stopped itself at the deadline",
}


def when(timestamp: float) -> str:
    """A time as the model reads it: ISO 8601, UTC, to the second."""
    moment = _dt.datetime.fromtimestamp(timestamp, _dt.UTC).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


def show(value: Any, limit: int = 80) -> str:
    """A value quoted as JSON, shortened to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def timeout(tool: Tool, seconds: float, runner: str, still_running: bool) -> ErrorInfo:
    """The deadline passed. Retryable only when a repeat cannot double a side effect."""
    what = _STOPPED_BY[(runner, still_running)]
    if tool.idempotent:
        suggestion = (
            f"Try the same call once more; if it times out again, ask {tool.name} for less "
            "(a narrower query) or answer without it."
        )
    else:
        suggestion = (
            f"Do not repeat this call blindly: {tool.name} is a {tool.category} tool and may "
            "have taken effect (or still will). Check its effect, or ask the user, before "
            "calling it again."
        )
    return ErrorInfo(
        ErrorCode.TIMEOUT,
        f"Tool {tool.name!r} did not finish within its {seconds:g} s deadline; {what}. "
        "Whether it took effect is unknown.",
        suggestion,
        retryable=tool.idempotent,
        details={
            "timeout_s": seconds,
            "side_effects": "unknown",
            "still_running": still_running,
            "stopped": {
                "thread": "abandoned",
                "task": "cancelled",
                "process": "killed",
                "cooperative": "stopped itself",
            }[runner],
        },
    )


def overloaded(tool: Tool, abandoned: int, limit: int) -> ErrorInfo:
    """Too many earlier calls are still hung past their deadlines: this one was not started."""
    return ErrorInfo(
        ErrorCode.OVERLOADED,
        f"Tool {tool.name!r} was not run: {abandoned} earlier calls of sync tools are still "
        f"running past their deadlines (the limit is {limit}), so no thread is started for "
        "another one.",
        "Nothing happened, so this call is safe to repeat later. For now, answer without it or "
        f"tell the user that {tool.name} is stuck.",
        retryable=True,
        details={"abandoned_threads": abandoned, "limit": limit, "side_effects": "none"},
    )


def no_threads(tool: Tool, seconds: float) -> ErrorInfo:
    """A sync tool behind a Timeout where no thread can be started (the browser): not run."""
    return ErrorInfo(
        ErrorCode.EXECUTION_ERROR,
        f"Tool {tool.name!r} was not run: "
        + _platform.unavailable(
            f"its {seconds:g} s deadline (Timeout runs a sync tool on a worker thread)",
            "Nothing was done.",
        ),
        f"Answer without {tool.name}, or tell the user it cannot run here. (Its author can make "
        "it async, or name it in Timeout(cooperative=...) if it checks deadline().)",
        retryable=False,
        details={"unavailable": "threads", "timeout_s": seconds, "side_effects": "none"},
    )


def retries_spent(error: ErrorInfo, attempts: int) -> ErrorInfo:
    """The last attempt failed too: the same error, saying how often it was tried."""
    tried = f"It was tried {attempts} times here, with pauses in between; every attempt failed."
    return ErrorInfo(
        error.code,
        f"{error.message.rstrip()} {tried}",
        f"Do not repeat the same call blindly: it has just failed {attempts} times. Tell the "
        "user it is failing for now, or take a different approach.",
        retryable=False,
        details={**error.details, "attempts": attempts},
        retry_after=error.retry_after,
    )


def in_progress(tool: Tool, started: float) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.IN_PROGRESS,
        f"The same call to {tool.name!r}, with these exact arguments, started at {when(started)} "
        "and is still running; it was not started a second time.",
        "Wait a little, then make the same call again to get its result; do not change the "
        "arguments to get around this.",
        retryable=True,
        details={"started_at": when(started)},
    )


def key_reused(tool: Tool, key: str, used: float) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
        f"The idempotency key {show(key)} was already used at {when(used)} for a different "
        f"call; this call to {tool.name!r} was not run.",
        "A key names one exact call: repeat that call's arguments exactly, or use a new key "
        "for a new call. Tell the user if you cannot tell which was meant.",
        retryable=False,
        details={"idempotency_key": key, "first_used_at": when(used)},
    )


def replay_notice(ran_at: float) -> str:
    return (
        f"This exact call already ran at {when(ran_at)}; it was not run again, and this is its "
        "original result. Ask the user before doing it again."
    )


def too_large(tool: str, total: int, budget: int, preview: str) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.RESULT_TOO_LARGE,
        f"The result of {tool!r} is {total:,} characters, over the {budget:,}-character "
        "budget for a tool result; only its beginning is kept, in details.preview.",
        f"Call {tool} again asking for less (a narrower query, fewer fields, a smaller page), "
        "or answer from the preview and say that it is partial.",
        retryable=False,
        details={"total_chars": total, "max_chars": budget, "preview": preview},
    )


def truncated(shown: int, total: int, unit: str, offset: int | None, chars: str) -> str:
    """The marker inside a cut result: exactly how much is shown, and how to get the rest."""
    more = f" or pass offset={offset}" if offset is not None else ""
    return (
        f"Cut to fit: shown {shown:,} of {total:,} {unit}{chars}; ask for a narrower query{more}."
    )
