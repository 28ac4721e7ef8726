"""Exercise 7.4, an idempotency store that remembers failures too: the check and its reference,
`run_once`.

`toolsys.layers.Idempotency` on the same calls; the cases are a failed write forgotten and run
again, a key reused for other arguments, and a store kept in a global.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_plain
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import as_str, difference, text
from toolsys.errors import ToolError


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
_BASKET_74: dict[str, Any] = {"order_id": "A-9", "items": [{"sku": "X-1", "qty": 1}]}
_MORE_74: dict[str, Any] = {"order_id": "A-9", "items": [{"sku": "X-1", "qty": 5}]}
"""The scenario with these passes the caller's one dict each time, changed in place to _MORE_74
before its last step."""
_EDITED = "changed by the caller"
"""What the check writes into every envelope it got back, as a caller may."""
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
    "kept": "A key reused with other arguments changes nothing: the key still names its first "
    "call, whose repeat gets the first envelope back (replayed True). Do not store the "
    "IDEMPOTENCY_KEY_REUSED answer or the other arguments.",
    "key": "A new key is a new call, even with the same arguments (the user asked twice, on "
    "purpose): look the key up, not the arguments.",
    "fresh": "A fresh store knows no key: keep everything in the `store` you are given, not in "
    "a global.",
    "data": _AS_DATA,
    "released": "A retryable ToolError says nothing happened: do not store it, so that a repeat "
    "runs again (otherwise the key is blocked by a failure that went away).",
    "lost": "A TimeoutError may mean the refund was booked and only the reply was lost: store "
    "the failure like a success and replay it; never call run() again for that key.",
    "mutated": "The caller changed the dict it had passed (a nested value) and called again with "
    "the same key: those are other arguments now. Keep a fingerprint of the arguments' value "
    "(hashlib.sha256(json.dumps(arguments, sort_keys=True).encode())) or a deep copy, never "
    "the caller's dict itself.",
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
            ("k-1", _ORDER_74, (True, "R-1", True), 1, None, "kept"),
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
        list,
        [
            ("k-6", _BASKET_74, (True, "R-1", False), 1, None, "new"),
            ("k-6", _BASKET_74, (True, "R-1", True), 1, None, "repeat"),
            ("k-6", _MORE_74, (False, "IDEMPOTENCY_KEY_REUSED", False), 1, "k-6", "mutated"),
        ],
    ),
    (
        lambda: [ToolError("CARD_DECLINED", "The card was declined.")],
        [
            ("k-5", _ORDER_74, (False, "CARD_DECLINED", False), 1, None, "data"),
            ("k-5", _ORDER_74, (False, "CARD_DECLINED", True), 1, None, "outcome"),
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
    student: Callable[..., Any],
    store: dict[str, Any],
    work: _Work,
    step: _Step,
    passed: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One step; `passed` is the caller's own dict to pass (else a copy of the step's)."""
    key, arguments, expected, calls, mentions, why = step
    hint = _STORE_WHY[why]
    what = f"run_once(store, {key!r}, {json.dumps(arguments)}, run)"
    got = call_student(
        student,
        store,
        key,
        copy.deepcopy(arguments) if passed is None else passed,
        work,
        what=what,
        returns="an envelope",
        hint="Catch what run() raises and return it as an envelope.",
    )
    expect_plain(got, what=what, shape=_SHAPE, hint=hint)
    if not _well_formed(got):
        raise CheckFailed(f"{what} should return {_SHAPE}.", expected=Described(_SHAPE), got=got)
    said = got["value"] if got["ok"] else as_str(got["error"]["code"])
    if _EDITED in (said, got.get("replayed")):
        raise CheckFailed(
            f"{what} returned {said!r}: the check had written that into an envelope you returned "
            "before, and your store gave it back. A caller's edit of its result must not change "
            "what later repeats get.",
            expected=Described(_summary(*expected)),
            got=got,
            hint="Return a new envelope each time, a deep copy ({**copy.deepcopy(stored), "
            "'replayed': True}): never the stored envelope or its error dict, and do not set "
            "'replayed' in the stored one.",
        )
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
    return got


_OUTCOMES = ["value", "value", "retryable", "final", "crash"]
_ARGUMENTS_74: list[dict[str, Any]] = [
    _ORDER_74, _REORDERED, _OTHER, {}, {"note": "Zoë", "items": [1, {"a": None}]},
    {"items": [1, {"a": None}], "note": "Zoë"}, {"note": "Zoe", "items": [1, {"a": None}]},
]  # fmt: skip


def _steps_call(rng: random.Random, size: int) -> Call:
    """1 to 6 calls on one store: a few keys (the same one often), arguments the same, the same
    in another key order, or other, and what each run() does: return, raise a retryable
    ToolError, a final one, or another exception."""
    keys = ["k1", "k2", "clé"][: 1 + size // 4]
    steps = [
        (rng.choice(keys), rng.choice(_ARGUMENTS_74[: 2 + size // 2]), rng.choice(_OUTCOMES))
        for _ in range(rng.randint(1, min(6, 2 + size // 2)))
    ]
    return Call((steps,))


_GENERATED = calls(_steps_call, seed=74, count=150)


def _sequence(func: Callable[..., Any]) -> Callable[..., Any]:
    """The envelopes `func` returns for the steps on one fresh store (messages left out: their
    words are free), and how many times run() was called; the caller edits each envelope it
    gets back, at depth, as it may."""

    def run(steps: list[tuple[str, dict[str, Any], str]]) -> dict[str, Any]:
        store: dict[str, Any] = {}
        runs, envelopes = [0], []
        for key, arguments, outcome in steps:

            def work(outcome: str = outcome) -> str:
                runs[0] += 1
                if outcome == "retryable":
                    raise ToolError("RATE_LIMITED", "Slow down.", retryable=True)
                if outcome == "final":
                    raise ToolError("CARD_DECLINED", "The card was declined.")
                if outcome == "crash":
                    raise RuntimeError("the connection dropped")
                return f"R-{runs[0]}"

            got = func(store, key, copy.deepcopy(arguments), work)
            kept = copy.deepcopy(got)
            if type(kept) is dict and type(kept.get("error")) is dict:
                kept["error"].pop("message", None)
            envelopes.append(kept)
            if type(got) is dict and type(got.get("error")) is dict:
                got["error"]["code"] = _EDITED
            elif type(got) is dict:
                got["value"] = _EDITED
        return {"envelopes": envelopes, "run() calls": runs[0]}

    return run


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
        mine = copy.deepcopy(_BASKET_74) if steps[0][1] is _BASKET_74 else None
        returned: list[tuple[dict[str, Any], dict[str, Any], str]] = []
        for step in steps:
            if mine is not None and step[1] is _MORE_74:
                mine["items"][0]["qty"] = 5  # the caller changes its own dict, in place
            got = _expect_step(student, store, work, step, mine)
            for earlier, kept, shown in returned:
                if earlier != kept:
                    raise CheckFailed(
                        f"The envelope {shown} had returned changed afterwards, during the "
                        f"call {step[0]!r} that followed.",
                        expected=kept,
                        got=earlier,
                        hint="Return a new dict each time ({**stored, 'replayed': True}); never "
                        "hand out the stored envelope and then set its 'replayed' in place.",
                    )
            shown = f"run_once(store, {step[0]!r}, ...) (step {len(returned) + 1})"
            if got["ok"]:
                got["value"] = _EDITED  # the caller edits its result, as it may
            else:  # in place, at depth: a copy of the envelope's top level is not enough
                got["error"]["code"] = got["error"]["message"] = _EDITED
            returned.append((got, copy.deepcopy(got), shown))
    agree(
        _sequence(student),
        _sequence(run_once),
        _GENERATED,
        name="The steps (key, arguments, what run() does) {args} on one store",
        wrong="gave {problem}",
        hint="A new key runs; the same key and arguments (any key order) replays the first "
        "envelope without running; other arguments are IDEMPOTENCY_KEY_REUSED; a retryable "
        "ToolError is forgotten, any other failure remembered; hand out deep copies.",
    )
