"""Checks for chapter 07, robustness: backoff with full jitter, a retry gate, an idempotency key,
an idempotency store and an honest deadline. Each reference is the package's own layer
(`toolsys.layers`) on the same inputs, so a student's piece is held to what the layers do.

The cases are the answers a careless version gets wrong: a jitter that can exceed the cap, a
retry of a write that carries no key, a key built from the tool_call_id that a repeating model
changes, a failed write forgotten and run again, a deadline that waits for the thread anyway.
"""

from __future__ import annotations

import copy
import json
import math
import random
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
)
from toolsys.checks._plain import as_str, difference, text
from toolsys.errors import ToolError


class _Draws(random.Random):
    """A random source whose `random()` returns the given values in turn (`uniform` uses it)."""

    def __init__(self, *values: float) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0) if self.values else 0.5

    def __repr__(self) -> str:
        return "rng"


# -- 7.1 -------------------------------------------------------------------------------------


def retry_delay(
    retry: int, base: float, cap: float, rng: random.Random, retry_after: float | None = None
) -> float:
    """Reference for 7.1: the wait `toolsys.layers.Retry` sleeps before retry number `retry`."""
    from toolsys.layers import Retry

    return Retry(base_delay=base, max_delay=cap).delay(retry, retry_after, rng=rng)


_DELAY_HINT_STEP = (
    "The step doubles from `base`: retry 1 may wait up to base, retry 2 up to 2 * base, "
    "so step = min(cap, base * 2 ** (retry - 1)); then wait rng.uniform(0, step)."
)


def _expect_delay(
    student: Callable[..., Any],
    args: tuple[Any, ...],
    expected: float,
    hint: str,
    retry_after: float | None = None,
) -> None:
    retry, base, cap, rng = args
    shown = f"retry_delay({retry}, {base}, {cap}, rng"
    shown += f", retry_after={retry_after})" if retry_after is not None else ")"
    if isinstance(rng, _Draws) and rng.values:
        shown += f" with rng.random() returning {rng.values[0]}"
    kwargs: dict[str, Any] = {} if retry_after is None else {"retry_after": retry_after}
    got = call_student(student, *args, what=shown, returns="a number of seconds", **kwargs)
    if type(got) not in (int, float) or not math.isfinite(got):
        raise CheckFailed(
            f"{shown} should return a number of seconds.",
            expected=expected,
            got=got,
            hint="Return the wait as a float (or int), e.g. 0.25.",
        )
    if got > cap + 1e-12:
        raise CheckFailed(
            f"{shown} returned {got:g}, more than the cap ({cap:g}).",
            expected=expected,
            got=got,
            hint=hint,
        )
    if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
        raise CheckFailed(f"{shown} returned a wrong wait.", expected=expected, got=got, hint=hint)


@exercise(
    "7.1",
    title="Backoff with full jitter",
    hints=[
        "Two cases: the tool said when (retry_after is not None: wait that, capped), or it did "
        "not (full jitter).",
        _DELAY_HINT_STEP,
        "min(cap, ...) must come *before* the random draw: jitter drawn inside the capped step "
        "can never exceed the cap; jitter added on top of it can. And retry_after=0 is a "
        "number: test `is not None`, not truthiness.",
    ],
    reference=lambda: retry_delay,
)
def _check_retry_delay(student: Callable[..., Any]) -> None:
    _expect_delay(
        student,
        (3, 1.0, 30.0, _Draws(0.0)),
        0.0,
        "Full jitter draws the *whole* wait from 0: rng.uniform(0, step), with the rng you are "
        "given (not the random module). A wait with a floor (step / 2 + ...) or added on top "
        "(step + ...) keeps clients that failed together in step.",
    )
    for retry, expected in ((1, 0.25), (2, 0.5), (3, 1.0), (4, 2.0)):
        _expect_delay(student, (retry, 0.5, 5.0, _Draws(0.5)), expected, _DELAY_HINT_STEP)
    for retry in range(5, 13):
        _expect_delay(
            student,
            (retry, 0.5, 5.0, _Draws(0.999)),
            4.995,
            "Cap the step before drawing: step = min(cap, base * 2 ** (retry - 1)); the wait "
            "must never exceed cap, however many retries came before.",
        )
    for seed in range(20):
        for retry in (1, 2, 4, 7, 12, 40):
            expected = retry_delay(retry, 0.2, 3.0, random.Random(seed))
            _expect_delay(
                student,
                (retry, 0.2, 3.0, random.Random(seed)),
                expected,
                "Draw once from the rng you are given: rng.uniform(0, step) (or "
                "rng.random() * step), so the same rng gives the same waits.",
            )
    for retry_after, expected, why in (
        (1.5, 1.5, "When the tool says when (retry_after), wait exactly that long."),
        (60.0, 5.0, "retry_after is capped too: never wait more than cap, whoever asks."),
        (0.0, 0.0, "retry_after=0 means 'now': test `retry_after is not None`, not truthiness."),
    ):
        _expect_delay(student, (2, 0.5, 5.0, _Draws(0.9)), expected, why, retry_after)


# -- 7.2 -------------------------------------------------------------------------------------


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
    "empty": "An empty string is no key: test bool(key), not `key is not None`.",
    "timeout": "A write that timed out may have happened (retryable False): even a key does not "
    "make a non-retryable error retryable.",
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
    (_failure("RATE_LIMITED", "false"), 1, 3, True, None, False, "string"),
    (_LIMITED, 1, 3, False, "", False, "empty"),
    (_failure("TIMEOUT", False), 1, 3, False, _KEY, False, "timeout"),
    (_failure("IN_PROGRESS", True), 2, 4, False, _KEY, True, "busy"),
]


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


# -- 7.3 -------------------------------------------------------------------------------------


def call_key(run_id: str, call_id: str, tool: str, arguments: dict[str, Any]) -> str:
    """Reference for 7.3: the key `toolsys.layers.Idempotency` derives (the call id unused)."""
    from toolsys.layers.idempotency import derived_key, fingerprint

    call = SimpleNamespace(run_id=run_id, tool=SimpleNamespace(name=tool), values=arguments)
    return derived_key(call, fingerprint(call))  # type: ignore[arg-type]


_ORDER = {"order_id": "A-7", "amount": 25.0, "reason": "damaged"}
_FIRST = ("run-7", "call_1", "refund", _ORDER)
_BASKET = {"order_id": "A-9", "items": [{"sku": "X-1", "qty": 2}, {"sku": "Y-9", "qty": 1}]}


_KEY_WHY = {
    "call_id": "A model that repeats a call sends a new call_id: leave call_id out of the key, or "
    "the repeat gets a new key and runs twice.",
    "order": "The same arguments in another order are the same call: json.dumps(..., "
    "sort_keys=True).",
    "depth": "Sort keys at every depth: json.dumps(arguments, sort_keys=True) does; sorting only "
    "the top-level items does not.",
    "arguments": "Other arguments are another call: every argument belongs in the key.",
    "run": "The same refund in another run (another conversation) is a new request: put the run "
    "id in the key.",
    "tool": "Another tool with the same arguments is another call: put the tool name in the key.",
}


def _reversed(value: Any) -> Any:
    """The same JSON value with the keys of every object in the opposite order."""
    if type(value) is dict:
        return {key: _reversed(value[key]) for key in reversed(value)}
    if type(value) is list:
        return [_reversed(item) for item in value]
    return value


_BASKET_CALL = ("run-7", "call_1", "refund", _BASKET)
# the call compared with, the call, whether they are the same call, why
_KEY_CASES: list[tuple[tuple[Any, ...], tuple[Any, ...], bool, str]] = [
    (_FIRST, ("run-7", "call_2", "refund", _ORDER), True, "call_id"),
    (_FIRST, ("run-7", "call_1", "refund", _reversed(_ORDER)), True, "order"),
    (_BASKET_CALL, ("run-7", "call_9", "refund", _reversed(_BASKET)), True, "depth"),
    (_FIRST, ("run-7", "call_1", "refund", {**_ORDER, "amount": 30.0}), False, "arguments"),
    (_FIRST, ("run-8", "call_1", "refund", _ORDER), False, "run"),
    (_FIRST, ("run-7", "call_1", "charge", _ORDER), False, "tool"),
]


def _key_of(student: Callable[..., Any], *args: Any) -> str:
    what = f"call_key{args!r}"
    got = call_student(student, *args, what=what, returns="a key (a str)")
    expect_plain(got, what=what, shape="a str of 1 to 255 characters")
    if type(got) is not str or not 0 < len(got) <= 255:
        raise CheckFailed(
            f"{what} should return a str of 1 to 255 characters (Stripe's limit for a key).",
            expected=Described("a str of 1 to 255 characters"),
            got=got if type(got) is not str else Described(f"a str of {len(got)} characters"),
            hint="Hash the canonical JSON of the call (hashlib.sha256(...).hexdigest()), so the "
            "key stays short however long the arguments are."
            if type(got) is str and got
            else "Return the key as a str, e.g. f'{run_id}:{tool}:{digest}'.",
        )
    return got


@exercise(
    "7.3",
    title="An idempotency key a repeating model cannot change",
    hints=[
        "Which parts of a call stay the same when the model repeats it, and which part changes?",
        "Leave call_id out: a repeated call has a new one. Put in the run id, the tool name and "
        "the arguments as canonical JSON: json.dumps([tool, arguments], sort_keys=True).",
        "sort_keys sorts the keys of every object at every depth. Hash the text "
        "(hashlib.sha256(text.encode()).hexdigest()) so the key stays short.",
    ],
    reference=lambda: call_key,
)
def _check_call_key(student: Callable[..., Any]) -> None:
    for base, args, same, why in _KEY_CASES:
        first, again = (_key_of(student, *copy.deepcopy(call)) for call in (base, args))
        if (again == first) is not same:
            relation = "another key than" if same else "the same key as"
            meaning = "the same call repeated" if same else "another call"
            raise CheckFailed(
                f"call_key{args!r} gave {relation} call_key{base!r}, but it is {meaning}.",
                expected=first if same else Described("another key"),
                got=again,
                hint=_KEY_WHY[why],
            )
    _key_of(student, "run-7", "call_1", "send_note", {"order_id": "A-7", "note": "x" * 2000})


# -- 7.4 -------------------------------------------------------------------------------------


def run_once(
    store: dict[str, Any], key: str, arguments: dict[str, Any], run: Callable[[], Any]
) -> dict[str, Any]:
    """Reference for 7.4: `toolsys.layers.Idempotency` (its own MemoryStore kept in `store`)."""
    from toolsys import Category, Registry
    from toolsys.layers import Idempotency
    from toolsys.stores import MemoryStore

    layer = store.setdefault("toolsys", Idempotency(MemoryStore()))
    registry = Registry(layers=[layer])

    def work(arguments: dict[str, Any]) -> Any:
        """Do the work.

        Args:
            arguments: The call's arguments.
        """
        return run()

    registry.register(work, category=Category.WRITE)
    result = registry.execute("work", {"arguments": arguments}, idempotency_key=key)
    replayed = result.meta.get("replayed") is True
    if result.error is None:
        return {"ok": True, "value": result.value, "replayed": replayed}
    error = {"code": str(result.error.code), "message": result.error.message}
    return {"ok": False, "error": error, "replayed": replayed}


class _Work:
    """A `run` for the check: counts its calls, raises the scripted errors, then returns R-n."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return f"R-{self.calls}"


_SHAPE = (
    '{"ok": True, "value": ..., "replayed": ...} or '
    '{"ok": False, "error": {"code": ..., "message": ...}, "replayed": ...}'
)
_ORDER_74 = {"order_id": "A-7", "amount": 25.0}
_REORDERED, _OTHER = dict(reversed(_ORDER_74.items())), {**_ORDER_74, "amount": 99.0}
_AS_DATA = (
    "A ToolError becomes {'ok': False, 'error': {'code': exc.code, 'message': exc.message}, "
    "'replayed': False}; any other exception is EXECUTION_ERROR, with its type in the message."
)
_STORE_WHY = {
    "new": "A new key: call run() and return {'ok': True, 'value': ..., 'replayed': False}.",
    "repeat": "The same key and arguments again: return the stored envelope with replayed True, "
    "and do not call run() a second time.",
    "order": "The same arguments in another order are the same call: fingerprint "
    "json.dumps(arguments, sort_keys=True).",
    "reused": "The same key with other arguments is a misuse: one key names one call. Keep a "
    "fingerprint of the arguments with the envelope, compare it, and name the key.",
    "key": "A new key is a new call, even with the same arguments (the user asked twice, on "
    "purpose): look the key up, not the arguments.",
    "fresh": "A fresh store knows no key: keep everything in the `store` you are given, not in "
    "a global.",
    "data": _AS_DATA,
    "released": "A retryable ToolError says nothing happened: do not store it, so that a repeat "
    "runs again (otherwise the key is blocked by a failure that went away).",
    "lost": "A TimeoutError may mean the refund was booked and only the reply was lost: store "
    "the failure like a success and replay it; never call run() again for that key.",
    "outcome": "A ToolError that is not retryable is an outcome too: store it and replay it. "
    "Only a retryable ToolError (nothing happened) is forgotten.",
}
# A step: key, arguments, (ok, value or code, replayed), run() calls by then, a word the error
# message must contain (or None), and which hint applies.
_Step = tuple[str, dict[str, Any], tuple[bool, str, bool], int, str | None, str]
# A scenario: the errors its `run` raises first (made fresh for each check), then its steps, all
# on one fresh store.
_SCENARIOS: list[tuple[Callable[[], list[BaseException]], list[_Step]]] = [
    (
        list,
        [
            ("k-1", _ORDER_74, (True, "R-1", False), 1, None, "new"),
            ("k-1", _ORDER_74, (True, "R-1", True), 1, None, "repeat"),
            ("k-1", _REORDERED, (True, "R-1", True), 1, None, "order"),
            ("k-1", _OTHER, (False, "IDEMPOTENCY_KEY_REUSED", False), 1, "k-1", "reused"),
            ("k-2", _ORDER_74, (True, "R-2", False), 2, None, "key"),
        ],
    ),
    (list, [("k-1", _ORDER_74, (True, "R-1", False), 1, None, "fresh")]),
    (
        lambda: [ToolError("RATE_LIMITED", "Too many refunds; try again.", retryable=True)],
        [
            ("k-3", _ORDER_74, (False, "RATE_LIMITED", False), 1, None, "data"),
            ("k-3", _ORDER_74, (True, "R-2", False), 2, None, "released"),
        ],
    ),
    (
        lambda: [TimeoutError("no reply within 2 s")],
        [
            ("k-4", _ORDER_74, (False, "EXECUTION_ERROR", False), 1, "TimeoutError", "data"),
            ("k-4", _ORDER_74, (False, "EXECUTION_ERROR", True), 1, None, "lost"),
        ],
    ),
    (
        lambda: [ToolError("CARD_DECLINED", "The card was declined.")],
        [
            ("k-5", _ORDER_74, (False, "CARD_DECLINED", False), 1, None, "data"),
            ("k-5", _ORDER_74, (False, "CARD_DECLINED", True), 1, None, "outcome"),
        ],
    ),
]


def _well_formed(got: Any) -> bool:
    """An envelope with a boolean ok and replayed, and a value or an error with code and message."""
    if type(got) is not dict or type(got.get("ok")) is not bool:
        return False
    if type(got.get("replayed")) is not bool:
        return False
    if got["ok"]:
        return "value" in got
    error = got.get("error")
    return (
        type(error) is dict
        and as_str(error.get("code")) is not None
        and type(error.get("message")) is str
    )


def _summary(ok: bool, said: Any, replayed: bool) -> str:
    """An envelope in words: "ok 'R-1' (replayed)", "error CARD_DECLINED (not replayed)"."""
    return f"{f'ok {said!r}' if ok else f'error {said}'} ({'' if replayed else 'not '}replayed)"


def _expect_step(
    student: Callable[..., Any], store: dict[str, Any], work: _Work, step: _Step
) -> None:
    key, arguments, expected, calls, mentions, why = step
    hint = _STORE_WHY[why]
    what = f"run_once(store, {key!r}, {json.dumps(arguments)}, run)"
    got = call_student(
        student,
        store,
        key,
        copy.deepcopy(arguments),
        work,
        what=what,
        returns="an envelope",
        hint="Catch what run() raises and return it as an envelope.",
    )
    expect_plain(got, what=what, shape=_SHAPE, hint=hint)
    if not _well_formed(got):
        raise CheckFailed(f"{what} should return {_SHAPE}.", expected=Described(_SHAPE), got=got)
    said = got["value"] if got["ok"] else as_str(got["error"]["code"])
    if difference((got["ok"], said, got["replayed"]), expected, "the envelope") is not None:
        raise CheckFailed(
            f"{what} returned {_summary(got['ok'], said, got['replayed'])}; it should return "
            f"{_summary(*expected)}.",
            expected=Described(_summary(*expected)),
            got=got,
            hint=hint,
        )
    if work.calls != calls:
        raise CheckFailed(
            f"After {what}, run() has been called {work.calls} time(s) in all; it should be "
            f"{calls}.",
            expected=calls,
            got=work.calls,
            hint=hint,
        )
    if mentions is not None and mentions not in text(got["error"]["message"]):
        raise CheckFailed(
            f"The {said} message of {what} does not mention {mentions!r}.",
            expected=Described(f"a message containing {mentions!r}"),
            got=got["error"]["message"],
            hint=hint,
        )


@exercise(
    "7.4",
    title="An idempotency store that remembers failures too",
    hints=[
        "Store, per key, a fingerprint of the arguments and the envelope. A known key with the "
        "same fingerprint: return the envelope with replayed True, without calling run().",
        "Fingerprint: hashlib.sha256(json.dumps(arguments, sort_keys=True).encode()); a known "
        "key with another fingerprint is IDEMPOTENCY_KEY_REUSED (name the key).",
        "When run() raises: a ToolError with retryable=True is returned and NOT stored (nothing "
        "happened); anything else is stored like a success, because it may have happened.",
    ],
    reference=lambda: run_once,
)
def _check_run_once(student: Callable[..., Any]) -> None:
    for errors, steps in _SCENARIOS:
        store: dict[str, Any] = {}
        work = _Work(*errors())
        for step in steps:
            _expect_step(student, store, work, step)


# -- 7.5 -------------------------------------------------------------------------------------


def with_deadline(fn: Callable[[], Any], seconds: float, idempotent: bool) -> dict[str, Any]:
    """Reference for 7.5: `toolsys.layers.Timeout` around a tool that calls `fn`."""
    from toolsys import Category, Registry
    from toolsys.layers import Timeout

    registry = Registry(layers=[Timeout(seconds=seconds)])

    def call() -> Any:
        """Call the function."""
        return fn()

    registry.register(call, category=Category.WRITE, idempotent=idempotent)
    result = registry.execute("call")
    if result.error is None:
        return {"ok": True, "value": result.value}
    envelope: dict[str, Any] = {"ok": False, "error": result.error.to_dict()}
    if result.meta.get("abandoned_thread"):
        envelope["abandoned_thread"] = True
    return envelope


_TIMEOUT_SHAPE = (
    '{"ok": False, "abandoned_thread": True, "error": {"code": "TIMEOUT", "message": ..., '
    '"retryable": ..., "details": {"side_effects": "unknown"}}}'
)


def _deadline(
    student: Callable[..., Any], fn: Callable[[], Any], label: str, seconds: float, idem: bool
) -> tuple[Any, str]:
    what = f"with_deadline({label}, {seconds}, idempotent={idem})"
    got = call_student(
        student,
        fn,
        seconds,
        idem,
        what=what,
        returns="an envelope",
        hint="Catch the function's exception inside the thread and report it as data.",
    )
    expect_plain(got, what=what, shape="an envelope dict of plain JSON values")
    return got, what


def _in_time(pause: float, value: Any) -> Callable[[], Any]:
    def fn() -> Any:
        time.sleep(pause)
        return value

    return fn


def _raises() -> Any:
    raise ValueError("order A-7 is locked")


def _expect_timeout(student: Callable[..., Any], idempotent: bool) -> None:
    release, finished = threading.Event(), threading.Event()

    def hangs() -> str:
        release.wait(3)
        finished.set()
        return "too late"

    try:
        got, what = _deadline(student, hangs, "a function that hangs", 0.2, idempotent)
        if finished.is_set():
            raise CheckFailed(
                f"{what} waited for the function to end instead of returning at the deadline.",
                expected=Described("TIMEOUT after about 0.2 s, the function still running"),
                got=got,
                hint="worker.join(seconds), then worker.is_alive(); not join() without a limit, "
                "and not `with ThreadPoolExecutor()` (leaving the block waits for the thread).",
            )
    finally:
        release.set()
    error = got.get("error") if type(got) is dict else None
    details = error.get("details") if type(error) is dict else None
    if (
        type(got) is not dict
        or got.get("ok") is not False
        or got.get("abandoned_thread") is not True
        or type(error) is not dict
        or as_str(error.get("code")) != "TIMEOUT"
        or type(error.get("message")) is not str
        or type(details) is not dict
        or as_str(details.get("side_effects")) != "unknown"
    ):
        raise CheckFailed(
            f"{what} should say TIMEOUT, that the thread was abandoned and that the side "
            "effects are unknown.",
            expected=Described(_TIMEOUT_SHAPE),
            got=got,
            hint="The thread is still running and may still do its work: never claim it "
            "stopped or that nothing happened.",
        )
    expect_equal(
        error.get("retryable"),
        idempotent,
        what=f"the 'retryable' of {what}",
        hint="A repeat after a timeout is safe only for an idempotent tool: a write may "
        "already have happened. retryable = idempotent.",
    )


@exercise(
    "7.5",
    title="A deadline wrapper that is honest",
    hints=[
        "Start a threading.Thread(target=..., daemon=True) that stores fn()'s value or exception "
        "in a dict; then worker.join(seconds).",
        "After join, worker.is_alive() says whether the deadline passed. Do not test 'no value "
        "yet': a function may return None.",
        "At the deadline return at once with code TIMEOUT, abandoned_thread True, retryable = "
        "idempotent and details {'side_effects': 'unknown'}: the thread cannot be stopped.",
    ],
    reference=lambda: with_deadline,
)
def _check_with_deadline(student: Callable[..., Any]) -> None:
    got, what = _deadline(student, _in_time(0.05, 42), "a function returning 42", 5.0, True)
    expect_equal(
        got,
        {"ok": True, "value": 42},
        what=what,
        hint="Wait for the thread up to the deadline (join(seconds)); when it has ended, return "
        "{'ok': True, 'value': <its value>}.",
    )
    got, what = _deadline(student, _in_time(0.0, None), "a function returning None", 5.0, True)
    expect_equal(
        got,
        {"ok": True, "value": None},
        what=what,
        hint="None is a value: decide with worker.is_alive(), not with 'no value yet'.",
    )
    got, what = _deadline(student, _raises, "a function raising ValueError", 5.0, True)
    error = got.get("error") if type(got) is dict else None
    message = error.get("message") if type(error) is dict else None
    if (
        type(got) is not dict
        or got.get("ok") is not False
        or as_str(error.get("code") if type(error) is dict else None) != "EXECUTION_ERROR"
        or type(message) is not str
        or "ValueError" not in message
    ):
        raise CheckFailed(
            f"{what} should report EXECUTION_ERROR naming ValueError.",
            expected=Described(
                '{"ok": False, "error": {"code": "EXECUTION_ERROR", "message": "ValueError: ..."}}'
            ),
            got=got,
            hint="Catch the exception inside the thread and keep it; after join, report it "
            "with its type: f'{type(exc).__name__}: {exc}'. An exception is not a timeout.",
        )
    caller, seen = threading.current_thread(), []

    def where() -> str:
        seen.append(threading.current_thread())
        return "here"

    _deadline(student, where, "a function that notes its thread", 5.0, True)
    if not seen or seen[0] is caller or not seen[0].daemon:
        raise CheckFailed(
            "with_deadline must run the function on a daemon worker thread.",
            expected=Described("a daemon thread other than the caller's"),
            got=Described(
                "the function was not called"
                if not seen
                else "the caller's own thread"
                if seen[0] is caller
                else "a thread that is not a daemon"
            ),
            hint="threading.Thread(target=..., daemon=True): a thread left behind at a deadline "
            "must not keep Python from exiting, and only another thread can be waited for with "
            "a limit.",
        )
    _expect_timeout(student, idempotent=False)
    _expect_timeout(student, idempotent=True)
