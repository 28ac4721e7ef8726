"""Read a submission's verdict log without trusting it: every line is checked before it counts.

Why: the log is written from inside the student's kernel, so a submission can write anything
into it. A line counts only if it is one JSON object with exactly the fields `check` writes, an
exercise id like `2.1`, a known status, bounded texts and the HMAC made with this notebook's
random key; a hidden case's verdict has one more field, its `case` name. Anything else is that
student's problem, reported with the line number; it never stops the grading of the others.
What the key cannot stop: a student who reads the key (or patches `toolsys.checks`) in their
own kernel can forge their own verdicts. See the README.
"""

from __future__ import annotations

import hmac
import json
import os
import re
from typing import Any

from toolsys.checks import LOG_FIELD_LIMIT, verdict_mac
from toolsys.checks.hidden import CASE_NAME_LIMIT

MAX_LOG_BYTES = 2**20
"""Bytes of the log that are read; more is reported and ignored."""
MAX_REPORTED = 5
"""Rejected lines named one by one in the gradebook; the rest are counted."""

STATUSES = frozenset({"passed", "failed", "not_done", "error", "timeout"})
FIELDS = frozenset({"exercise", "title", "status", "message", "expected", "got", "hint"})
CASE_FIELDS = FIELDS | {"case"}
_EXERCISE = re.compile(r"\d{1,3}\.\d{1,3}")


class _Rejected(ValueError):
    """Why one line of the log does not count."""


def read_verdicts(fd: int, key: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The valid verdicts in the log open at `fd` (the last per exercise and case), and the
    rejections. A hidden case's verdict is the one with a "case" key."""
    data = os.pread(fd, MAX_LOG_BYTES + 1, 0)
    rejected = []
    if len(data) > MAX_LOG_BYTES:
        rejected.append(f"verdict log over {MAX_LOG_BYTES:,} bytes; the rest was ignored")
        data = data[:MAX_LOG_BYTES]
    verdicts: dict[tuple[str, str | None], dict[str, Any]] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            verdict = _parse(raw, key)
        except _Rejected as why:
            rejected.append(f"verdict log line {number} rejected: {why}")
            continue
        # a re-run check counts with its last verdict
        verdicts[verdict["exercise"], verdict.get("case")] = verdict
    if len(rejected) > MAX_REPORTED:
        rejected[MAX_REPORTED:] = [f"and {len(rejected) - MAX_REPORTED} more rejected lines"]
    return list(verdicts.values()), rejected


def _parse(raw: bytes, key: str) -> dict[str, Any]:
    try:
        verdict = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, too deep, huge numbers
        raise _Rejected(f"not a JSON line ({type(exc).__name__})") from None
    if not isinstance(verdict, dict):
        raise _Rejected(f"a JSON {type(verdict).__name__}, not an object")
    mac = verdict.pop("mac", None)
    expected = CASE_FIELDS if "case" in verdict else FIELDS
    if set(verdict) != expected:
        unexpected = sorted(set(verdict) ^ expected)
        raise _Rejected(f"fields {_short(unexpected)} missing or unexpected")
    name = verdict.get("case", "")
    if not isinstance(name, str) or len(name) > CASE_NAME_LIMIT:
        raise _Rejected(
            f"case {_short(name)} is not a text of at most {CASE_NAME_LIMIT} characters"
        )
    exercise, status = verdict["exercise"], verdict["status"]
    if not isinstance(exercise, str) or not _EXERCISE.fullmatch(exercise):
        raise _Rejected(f"exercise id {_short(exercise)} is not like 2.1")
    if status not in STATUSES:
        raise _Rejected(f"status {_short(status)} is not one of {', '.join(sorted(STATUSES))}")
    for field in FIELDS - {"exercise", "status"}:
        value = verdict[field]
        if value is not None and (not isinstance(value, str) or len(value) > LOG_FIELD_LIMIT):
            raise _Rejected(f"{field} is not a text of at most {LOG_FIELD_LIMIT} characters")
    signed = isinstance(mac, str) and mac.isascii()
    if not signed or not hmac.compare_digest(mac, verdict_mac(key, verdict)):
        raise _Rejected("not written by toolsys.checks for this run (bad or missing signature)")
    return verdict


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
