"""Exercise 7.2, a retry gate: the check and its reference, `may_retry`.

The gate of `toolsys.layers.Retry` on the same envelope; the cases are a retry of a write that
carries no key, a string 'false' read as true, and the last attempt retried.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls, plain, text


def may_retry(
    result: dict[str, Any], attempt: int, max_attempts: int, idempotent: bool, key: str | None
) -> bool:
    """Reference for 7.2: the gate of `toolsys.layers.Retry`, on the same envelope."""
    from toolsys.layers import Retry

    error = result.get("error") if result.get("ok") is False else None
    if type(error) is not dict or attempt >= max_attempts:
        return False
    call = SimpleNamespace(tool=SimpleNamespace(idempotent=idempotent), idempotency_key=key)
    verdict = SimpleNamespace(retryable=error.get("retryable"))
    return Retry(max_attempts=max_attempts).may_retry(call, verdict)  # type: ignore[arg-type]


def _failure(code: str, retryable: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": f"{code.replace('_', ' ').lower()}."}
    if retryable is not None:
        error["retryable"] = retryable
    return {"ok": False, "error": error}


_LIMITED, _KEY = _failure("RATE_LIMITED", True), "run-7:refund:3f2a9c"
_WHY = {
    "yes": "A retryable failure of an idempotent tool, with attempts left, may be retried.",
    "ok": "A call that succeeded is never retried: check result['ok'] first.",
    "final": "retryable False means the same call fails the same way: never repeat it.",
    "write": "A write without a key must not be repeated: it may already have happened. Retry "
    "only when the tool is idempotent or the call carries a key.",
    "keyed": "A key makes a repeat of a write safe: whoever does the work recognises it.",
    "left": "After attempt 2 of 3, one attempt is left.",
    "last": "Attempt 3 of max_attempts=3 was the last: max_attempts counts every attempt, the "
    "first included (attempt < max_attempts).",
    "one": "max_attempts=1 means no retries at all.",
    "missing": "An error without 'retryable' has not said a repeat can succeed: treat it as False.",
    "string": "Only the boolean True counts: the string 'false' is truthy. Compare with `is True`.",
    "text": "Only the boolean True counts: a tool that wrote the text 'true' or 'True' has not "
    "said yes (reading str(flag) or flag.lower() lets it through). Compare with `is True`.",
    "int": "Only the boolean True counts: 1 == True in Python, so `== True` lets 1 through. "
    "Compare with `is True`.",
    "empty": "An empty string is no key: test bool(key), not `key is not None`.",
    "timeout": "A write that timed out may have happened (retryable False): even a key does not "
    "make a non-retryable error retryable.",
    "top": "The flag that counts is the error's own: result['error'].get('retryable'). A "
    "'retryable' beside 'ok', outside the error, is not the error saying so.",
    "busy": "IN_PROGRESS with a key is safe to ask again: the key stops a second run.",
}
# result, attempt, max_attempts, idempotent, key, expected, why
_GATE_CASES: list[tuple[dict[str, Any], int, int, bool, str | None, bool, str]] = [
    (_LIMITED, 1, 3, True, None, True, "yes"),
    ({"ok": True, "value": "done"}, 1, 3, True, None, False, "ok"),
    (_failure("ORDER_NOT_FOUND", False), 1, 3, True, None, False, "final"),
    (_LIMITED, 1, 3, False, None, False, "write"),
    (_LIMITED, 1, 3, False, _KEY, True, "keyed"),
    (_LIMITED, 2, 3, True, None, True, "left"),
    (_LIMITED, 3, 3, True, None, False, "last"),
    (_LIMITED, 1, 1, True, None, False, "one"),
    (_failure("UPSTREAM_ERROR"), 1, 3, True, None, False, "missing"),
    ({**_failure("UPSTREAM_ERROR"), "retryable": True}, 1, 3, True, None, False, "top"),
    (_failure("RATE_LIMITED", "false"), 1, 3, True, None, False, "string"),
    (_failure("RATE_LIMITED", "true"), 1, 3, True, None, False, "text"),
    (_failure("RATE_LIMITED", "True"), 1, 3, True, None, False, "text"),
    (_failure("RATE_LIMITED", 1), 1, 3, True, None, False, "int"),
    (_LIMITED, 1, 3, False, "", False, "empty"),
    (_failure("TIMEOUT", False), 1, 3, False, _KEY, False, "timeout"),
    (_failure("IN_PROGRESS", True), 2, 4, False, _KEY, True, "busy"),
]


_FLAGS: list[Any] = [True, True, False, "false", "true", "True", 1, 0, None, "yes", [True]]


def _gate_call(rng: random.Random, size: int) -> Call:
    """An envelope (a success, or a failure whose error may say retryable, as True or as
    something else), attempt and max_attempts from 1, idempotent or not, a key, "" or None."""
    if rng.random() < 0.2:
        result: dict[str, Any] = {"ok": True, "value": plain(rng, size)}
    else:
        error: dict[str, Any] = {"code": rng.choice(["RATE_LIMITED", "TIMEOUT", "UPSTREAM_ERROR"])}
        if rng.random() < 0.5:
            error["message"] = text(rng, size)
        flag = rng.choice(_FLAGS)
        if flag is not None:
            error["retryable"] = flag
        result = {"ok": False, "error": error}
    if rng.random() < 0.1:
        result["retryable"] = True  # beside "ok", not the error's own
    max_attempts = rng.randint(1, 3 + size)
    attempt = rng.choice([1, max_attempts - 1, max_attempts, max_attempts + 1, rng.randint(1, 6)])
    key = rng.choice([None, "", "run-7:refund:3f2a9c", text(rng, size, least=1)])
    return Call((result, max(attempt, 1), max_attempts, rng.random() < 0.5, key))


_GENERATED = calls(_gate_call, seed=72, count=250)


@exercise(
    "7.2",
    title="A retry gate",
    hints=[
        "Four conditions, all needed: the attempt failed, attempts are left, the error is "
        "retryable, and a repeat is safe.",
        "Attempts left: attempt < max_attempts. Retryable: result['error'].get('retryable') "
        "is True (a missing flag or a string is not True).",
        "Safe: idempotent or bool(key). A write with no key may already have happened.",
    ],
    reference=lambda: may_retry,
)
def _check_may_retry(student: Callable[..., Any]) -> None:
    for result, attempt, max_attempts, idempotent, key, expected, why in _GATE_CASES:
        what = (
            f"may_retry({json.dumps(result)}, {attempt}, {max_attempts}, "
            f"idempotent={idempotent}, key={key!r})"
        )
        args = (copy.deepcopy(result), attempt, max_attempts, idempotent, key)
        got = call_student(student, *args, what=what, returns="True or False", hint=_WHY[why])
        expect_equal(got, expected, what=what, hint=_WHY[why])
    agree(
        student,
        may_retry,
        _GENERATED,
        name="may_retry",
        hint="True only when all four hold: the attempt failed, attempt < max_attempts, "
        "result['error'].get('retryable') is True, and idempotent or bool(key).",
    )
