"""Exercise 7.3, an idempotency key a repeating model cannot change: the check and its reference,
`call_key`.

The key `toolsys.layers.Idempotency` derives; the cases are a key built from the tool_call_id that a
repeating model changes, and arguments in another order.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import random
import threading
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_plain
from toolsys.checks._differential import Call, agree_on_sameness, calls, text


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
    "glued": "Keep the parts apart: run 'run-7' with tool 'refund' and run 'run-7r' with tool "
    "'efund' are the same text once glued together. Hash a JSON list [run_id, tool, arguments], "
    "or join the parts with a separator.",
    "names": "The names of the arguments are part of the call: {'order_id': 'A-7'} and "
    "{'customer_id': 'A-7'} are two calls. Hash the whole arguments object (keys and values) as "
    "canonical JSON, not only its values.",
    "list": "The order of a list's items is part of the arguments: sort_keys sorts the keys of "
    "objects, never the items of lists. Do not sort the lists.",
    "long": "Two calls that differ only after character 255 got the same key: never cut the "
    "text to fit the limit. Hash all of it (hashlib.sha256(text.encode()).hexdigest() is 64 "
    "characters however long the arguments are) and cut the digest if you must.",
    "unicode": "Non-ASCII text is text too: json.dumps escapes it (ensure_ascii=True, the "
    "default), or encode the text as UTF-8. Never drop or replace characters.",
}


def _reversed(value: Any) -> Any:
    """The same JSON value with the keys of every object in the opposite order."""
    if type(value) is dict:
        return {key: _reversed(value[key]) for key in reversed(value)}
    if type(value) is list:
        return [_reversed(item) for item in value]
    return value


_BASKET_CALL = ("run-7", "call_1", "refund", _BASKET)
_NOTE = {"order_id": "A-7", "note": "Zoë's parcel, colis abîmé"}
_NOTE_CALL = ("run-7", "call_1", "send_note", _NOTE)
_SWAPPED_ITEMS = {**_BASKET, "items": list(reversed(_BASKET["items"]))}
_LONG = {"note": "x" * 300, "order_id": "A-7"}
_LONG_CALL = ("run-7", "call_1", "send_note", _LONG)
# the call compared with, the call, whether they are the same call, why
_KEY_CASES: list[tuple[tuple[Any, ...], tuple[Any, ...], bool, str]] = [
    (_FIRST, ("run-7", "call_2", "refund", _ORDER), True, "call_id"),
    (_FIRST, ("run-7", "call_1", "refund", _reversed(_ORDER)), True, "order"),
    (_BASKET_CALL, ("run-7", "call_9", "refund", _reversed(_BASKET)), True, "depth"),
    (_FIRST, ("run-7", "call_1", "refund", {**_ORDER, "amount": 30.0}), False, "arguments"),
    (_FIRST, ("run-8", "call_1", "refund", _ORDER), False, "run"),
    (_FIRST, ("run-7", "call_1", "charge", _ORDER), False, "tool"),
    (_FIRST, ("run-7r", "call_1", "efund", _ORDER), False, "glued"),
    (_BASKET_CALL, ("run-7", "call_1", "refund", _SWAPPED_ITEMS), False, "list"),
    (
        ("run-7", "call_1", "find", {"order_id": "A-7"}),
        ("run-7", "call_2", "find", {"customer_id": "A-7"}),
        False,
        "names",
    ),
    (_NOTE_CALL, ("run-7", "call_4", "send_note", _reversed(_NOTE)), True, "unicode"),
    (
        _NOTE_CALL,
        ("run-7", "call_1", "send_note", {**_NOTE, "note": "Zoé's parcel, colis abîmé"}),
        False,
        "unicode",
    ),
    (_LONG_CALL, ("run-7", "call_2", "send_note", {**_LONG, "order_id": "B-9"}), False, "long"),
    (
        ("run-7", "call_1", "send_note", {"note": "y" * 2000 + "1"}),
        ("run-7", "call_2", "send_note", {"note": "y" * 2000 + "2"}),
        False,
        "long",
    ),
    (_LONG_CALL, ("run-7", "call_3", "send_note", _reversed(_LONG)), True, "order"),
]

_SALTED = (
    "call_key called Python's built-in hash() on text: hash() of a str is salted afresh in every "
    "process (PYTHONHASHSEED), so after a kernel restart the same call gets another key and a "
    "repeat runs twice."
)


@contextlib.contextmanager
def _watch_hash() -> Iterator[list[str]]:
    """The types the current thread passes to the built-in hash() meanwhile, other than numbers
    (whose hash is the same in every process)."""
    seen: list[str] = []
    original, me = builtins.hash, threading.get_ident()

    def watched(value: object, /) -> int:
        if threading.get_ident() == me and type(value) not in (int, float, bool, type(None)):
            seen.append(type(value).__name__)
        return original(value)

    builtins.hash = watched
    try:
        yield seen
    finally:
        builtins.hash = original


class _Long(str):
    """A long str shown by its start, its end and its length."""

    def __repr__(self) -> str:
        return f"{str(self[:10])!r}...{str(self[-4:])!r} ({len(self)} characters)"


def _shown(value: Any) -> Any:
    """`value` with every str longer than 40 characters shown short, for a message."""
    if type(value) is str and len(value) > 40:
        return _Long(value)
    if type(value) is dict:
        return {key: _shown(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_shown(item) for item in value)
    return value


def _key_of(student: Callable[..., Any], *args: Any) -> str:
    what = f"call_key{_shown(args)!r}"
    with _watch_hash() as salted:
        got = call_student(student, *args, what=what, returns="a key (a str)")
    if salted:
        raise CheckFailed(
            f"{_SALTED} The key must be the same in every process, after a restart too.",
            expected=Described("a key from hashlib (the same in every process)"),
            got=Described(f"hash() of a {salted[0]}"),
            hint="Use hashlib: hashlib.sha256(text.encode()).hexdigest() gives the same digest "
            "for the same text in every process, on every machine.",
        )
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


def _value(rng: random.Random, size: int, depth: int = 0) -> Any:
    """A JSON argument value: text (non-ASCII, escapes, long), an int, None, a list, an object.
    No 1 beside 1.0 or True: whether those are "the same arguments" the text does not say."""
    pick = rng.randrange(6 if depth < 2 else 3)
    if pick == 0:
        return text(rng, size)
    if pick == 1:
        return rng.choice([7, 25, -3, 10**12, rng.randint(2, 999)])
    if pick == 2:
        return rng.choice([None, text(rng, 3) * rng.choice([1, 100])])
    if pick == 3:
        return [_value(rng, size // 2, depth + 1) for _ in range(rng.randint(0, 3))]
    return {text(rng, 4, least=1): _value(rng, size // 2, depth + 1) for _ in range(3)}


def _variant(rng: random.Random, arguments: dict[str, Any]) -> dict[str, Any]:
    """The same arguments in another key order (at every depth), or one value changed (at the
    end of a long text too)."""
    if rng.random() < 0.5 or not arguments:
        return _reversed(arguments)
    changed = dict(arguments)
    key = rng.choice(list(changed))
    value = changed[key]
    changed[key] = value + "!" if type(value) is str else [value]
    return changed


def _key_call(rng: random.Random, size: int) -> Call:
    """One call from a few runs, tools and arguments (so that the same call comes back often),
    under a fresh call_id each time."""
    pool = random.Random(size // 4)  # the same few arguments for calls of about this size
    arguments = {text(pool, 5, least=1): _value(pool, size) for _ in range(pool.randint(0, 3))}
    if rng.random() < 0.2:
        arguments["note"] = "x" * 300 + rng.choice("ab")  # differs after character 255
    for _ in range(rng.randint(0, 2)):
        arguments = _variant(rng, arguments)
    run = rng.choice(["run-7", "run-8", "run-7r", "r:1", "Zoë"])
    tool = rng.choice(["refund", "efund", "send_note", "ship:it"])
    return Call((run, f"call_{rng.randrange(10**6)}", tool, arguments))


_GENERATED = calls(_key_call, seed=73, count=200)


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
                f"call_key{_shown(args)!r} gave {relation} call_key{_shown(base)!r}, but it is "
                f"{meaning}.",
                expected=first if same else Described("another key"),
                got=again,
                hint=_KEY_WHY[why],
            )
    _key_of(student, "run-7", "call_1", "send_note", {"order_id": "A-7", "note": "x" * 2000})
    agree_on_sameness(
        lambda *args: _key_of(student, *args),
        call_key,
        _GENERATED,
        name="call_key",
        hint="One key per (run_id, tool, arguments), the arguments compared as canonical JSON "
        "(sort_keys=True at every depth, lists in order, all characters); call_id never counts.",
    )
