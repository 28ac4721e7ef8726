"""Exercise 8.4, audit verification: the check and its reference, `first_bad_line`.

The verification of `toolsys.governance.audit`; the cases are a verification of the last line only,
or of the hashes without the links between them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls, mapping, text


def first_bad_line(lines: list[str]) -> int | None:
    """Reference for 8.4, the lesson's verification: each line's hash over its canonical form,
    its `prev` and its `seq`. (`toolsys.governance.audit.verify` checks the same and, beyond the
    exercise, that each line is byte for byte that canonical form.)"""
    prev = "0" * 64
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
            body = {key: value for key, value in record.items() if key != "hash"}
            text = json.dumps(
                body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
            )
        except (ValueError, AttributeError):
            return number
        if hashlib.sha256(text.encode("ascii")).hexdigest() != record.get("hash"):
            return number
        seq = record.get("seq")
        if record.get("prev") != prev or type(seq) is not int or seq != number:
            return number
        prev = record["hash"]
    return None


def _sealed(
    records: list[dict[str, Any]],
    seqs: dict[int, Any] | None = None,
    prevs: dict[int, str] | None = None,
) -> list[str]:
    """The lines of a log holding `records`, written by `toolsys.governance.chain.seal`.

    `seqs` and `prevs` (line number -> value) write a wrong `seq` or `prev` into a line and seal
    it, and every line after it, with hashes that match: exactly one thing is wrong.
    """
    from toolsys.governance.chain import GENESIS, seal

    lines, prev = [], GENESIS
    for seq, record in enumerate(records, start=1):
        body = {**record, "seq": (seqs or {}).get(seq, seq), "prev": (prevs or {}).get(seq, prev)}
        line, prev = seal(body)
        lines.append(line.decode("ascii").rstrip("\n"))
    return lines


def _resealed(line: str, without: str = "", **fields: Any) -> str:
    """The line with `fields` changed (the field `without` left out) and its own hash
    recomputed."""
    from toolsys.governance.chain import seal

    record = {key: value for key, value in json.loads(line).items() if key not in ("hash", without)}
    return seal({**record, **fields})[0].decode("ascii").rstrip("\n")


def _record(n: int, tool: str, outcome: str = "ok", **arguments: Any) -> dict[str, Any]:
    return {"ts": f"2027-01-15T08:00:0{n}.000+00:00", "user": "sam", "tool": tool,
            "arguments": arguments, "outcome": outcome}  # fmt: skip


def _reorder(line: str) -> str:
    """The same record with its keys written in reverse order (the hash is over canonical JSON)."""
    record = json.loads(line)
    return json.dumps(dict(reversed(list(record.items()))))


def _edit(line: str, old: str, new: str) -> str:
    assert old in line, (old, line)
    return line.replace(old, new)


_RECORDS = [
    _record(1, "list_orders", customer="C-1"),
    _record(2, "refund", "APPROVAL_REQUIRED", order_id="A-2", amount=2000),
    _record(3, "refund", "APPROVAL_DENIED", order_id="A-2", amount=2000),
    _record(4, "refund", order_id="A-1", amount=20),
    _record(5, "customer", customer="C-2"),
]
_LOG = _sealed(_RECORDS)
_NAMES = _sealed(
    [
        _record(1, "customer", customer="C-3", name="Zoë Lefèvre"),
        _record(2, "refund", order_id="A-3", amount=15, reason="colis abîmé"),
        _record(3, "email", customer="C-3", subject="Ihre Erstattung 💶"),
    ]
)
_HINT_EVERY = (
    "Check every line in order and return at the first bad one, not only the last line: an "
    "edit in the middle must be found."
)
_HINT_LINK = (
    "Each line must follow the one before it: its prev equals the hash of the line before "
    "('0' * 64 for line 1) and its seq equals its line number. A deleted line breaks the link."
)
_HINT_CANONICAL_BODY = (
    "Hash the canonical form, not the line as written: the record without 'hash', "
    "json.dumps(body, sort_keys=True, separators=(',', ':'), ensure_ascii=True)."
)
# lines, what, hint
_HINT_SEQ = (
    'Record n holds "seq": n, counted from 1 with the lines: check seq == the line number, not '
    "only that each seq is one more than the one before (a log numbered from 0 is not intact)."
)
_FROM_0 = _sealed(_RECORDS, seqs={n: n - 1 for n in range(1, 6)})
_HINT_FROM_0 = (
    'Line n holds "seq": n, counted from 1 like the line numbers: line 1 holds seq 1, not 0. '
    "Compare seq with enumerate(lines, start=1)'s number."
)
_HINT_HASH = "Recompute each line's hash from its content and compare it with its 'hash'."
_HINT_BLANK = (
    "A blank line is not whole JSON either (a write cut short can leave one): do not skip it, "
    "return its number."
)
_CHAIN_CASES: list[tuple[list[str], str, str]] = [
    (list(_LOG), "an intact log of 5 lines", _HINT_CANONICAL_BODY),
    ([], "an empty log", "An empty log has no bad line: return None."),
    (
        [_reorder(line) for line in _LOG],
        "an intact log whose lines list their keys in reverse order",
        _HINT_CANONICAL_BODY,
    ),
    (
        [*_LOG[:4], _edit(_LOG[4], '"C-2"', '"C-1"')],
        "the last line's arguments edited",
        _HINT_HASH,
    ),
    (
        [*_LOG[:2], _edit(_LOG[2], '"APPROVAL_DENIED"', '"ok"'), *_LOG[3:]],
        "line 3's outcome edited from APPROVAL_DENIED to ok",
        _HINT_EVERY,
    ),
    ([*_LOG[:2], "", *_LOG[2:]], "a blank line 3 between whole records", _HINT_BLANK),
    ([*_LOG, ""], "an intact log followed by a blank line 6", _HINT_BLANK),
    ([*_LOG[:1], "   ", *_LOG[1:]], "line 2 holding only spaces", _HINT_BLANK),
    ([_LOG[0], *_LOG[2:]], "line 2 deleted", _HINT_LINK),
    (_LOG[1:], "line 1 deleted", _HINT_LINK),
    ([_LOG[0], _LOG[2], _LOG[1], *_LOG[3:]], "lines 2 and 3 swapped", _HINT_LINK),
    (
        [*_LOG[:3], _LOG[3][: len(_LOG[3]) // 2], _LOG[4]],
        "line 4 cut in the middle (not whole JSON)",
        "A line that is not whole JSON is bad too: catch the error json.loads raises and "
        "return that line's number.",
    ),
    (
        [*_LOG[:2], _edit(_LOG[2], '"APPROVAL_DENIED"', '"ok"'), _LOG[3][:40], _LOG[4]],
        "line 3 edited and line 4 cut",
        _HINT_EVERY,
    ),
    (
        [*_LOG[:4], _edit(_LOG[4], '"hash":"', '"hash":"0')],
        "the last line's hash changed",
        "Compare the hash the line carries with the one you compute, for every line.",
    ),
    (
        [*_LOG[:2], _resealed(_LOG[2], outcome="ok"), *_LOG[3:]],
        "line 3 edited and its own hash recomputed (only line 4's prev is wrong now)",
        "A forger can recompute an edited line's hash, not the next line's prev: check that "
        "each prev equals the hash of the line before.",
    ),
    (
        _sealed(_RECORDS, seqs={3: 7}),
        "line 3's seq renumbered to 7, every hash and prev right (only the seq is wrong)",
        "Check the seq too: line n must hold seq n, even when every hash and prev is right.",
    ),
    (
        _FROM_0,
        "a log numbered from seq 0, every hash and prev right (line 1 holds seq 0)",
        _HINT_SEQ,
    ),
    (
        _sealed(_RECORDS, seqs={n: n + 6 for n in range(1, 6)}),
        "a log numbered from seq 7, every hash and prev right",
        _HINT_SEQ,
    ),
    (
        _sealed(_RECORDS, seqs={3: "3"}),
        "line 3's seq written as the string '3' (only the seq's type is wrong)",
        'Record n holds "seq": n, a number: the string "3" is not 3 (do not convert it).',
    ),
    (
        _sealed(_RECORDS, seqs={1: True}),
        "line 1's seq written as true, its hash recomputed (true == 1 in Python, not in JSON)",
        'Record n holds "seq": n, the integer: true is not 1 and 3.0 is not 3. Python says '
        "True == 1, so check the type too (type(seq) is int and seq == n).",
    ),
    (
        _sealed(_RECORDS, seqs={3: 3.0}),
        "line 3's seq written as 3.0, its hash recomputed",
        'Record n holds "seq": n, the integer: 3.0 is not 3 (3.0 == 3 in Python). Check the '
        "type too (type(seq) is int and seq == n).",
    ),
    (
        [_LOG[0], _LOG[1] + _LOG[2], *_LOG[3:]],
        "lines 2 and 3 glued on line 2 (its end of line lost)",
        "A line with anything after its record is not whole JSON: json.loads(line) refuses "
        "the extra text; a decoder that stops after the first object (raw_decode) does not.",
    ),
    (
        _sealed(_RECORDS, prevs={4: "f" * 64}),
        "line 4's prev replaced, every hash right (only the prev is wrong)",
        "Check the prev too: it must equal the hash of the line before, even when every line "
        "matches its own hash and holds the right seq.",
    ),
    (
        list(_NAMES),
        "an intact log of 3 lines with non-ASCII text (Zoë, abîmé, 💶)",
        "The canonical form is ASCII: ensure_ascii=True writes é as \\u00e9. Hash exactly "
        "json.dumps(body, sort_keys=True, separators=(',', ':'), ensure_ascii=True).",
    ),
    (
        [_NAMES[0], _edit(_NAMES[1], '"amount":15', '"amount":150'), _NAMES[2]],
        "line 2 of the non-ASCII log edited",
        _HINT_HASH,
    ),
    (
        [*_LOG[:2], _resealed(_LOG[2], without="prev"), *_LOG[3:]],
        "line 3 with its prev left out (and its own hash recomputed)",
        "A record without its prev (or seq, or hash) is bad: catch the KeyError reading it "
        "raises and return its number.",
    ),
    (
        [*_LOG[:1], "[1, 2]", *_LOG[2:]],
        "line 2 replaced by a JSON list (whole JSON, but not a record)",
        "A line that is JSON but not an object with seq, prev and hash is bad too: catch the "
        "error reading it raises and return its number.",
    ),
]


def _tampered(rng: random.Random, log: list[str], records: list[dict[str, Any]]) -> list[str]:
    """`log` with one change a forger, a crash or an editor makes (some leave it intact)."""
    n = len(log)
    k = rng.randrange(n) if n else 0
    pick = rng.randrange(14) if n else 0
    if pick == 0:
        return [*log[:k], rng.choice(["", "   ", "{}", "[1, 2]", "null", '"x"']), *log[k:]]
    if pick == 1:  # a value edited, the hash left as it was
        record = json.loads(log[k])
        record["tool"] = str(record.get("tool")) + rng.choice(["x", "é"])
        return [*log[:k], json.dumps(record), *log[k + 1 :]]
    if pick == 2:  # a value edited and the line's own hash recomputed
        return [*log[:k], _resealed(log[k], outcome=text(rng, 4)), *log[k + 1 :]]
    if pick == 3:  # a seq renumbered, every hash and prev right
        wrong = rng.choice([k + 2, k, 0, -1, str(k + 1), float(k + 1), k == 0 or k + 1])
        return _sealed(records, seqs={k + 1: wrong})
    if pick == 4:  # a prev replaced, every hash right
        return _sealed(records, prevs={k + 1: rng.choice(["f" * 64, "0" * 64, log[k][-66:-2]])})
    if pick == 5:
        return [*log[:k], *log[k + 1 :]]  # a line deleted
    if pick == 6 and n > 1:
        j = rng.randrange(n)
        swapped = list(log)
        swapped[j], swapped[k] = swapped[k], swapped[j]
        return swapped
    if pick == 7:  # cut, or something after the record
        return [*log[:k], rng.choice([log[k][: len(log[k]) // 2], log[k] + " x", log[k] + "{}"]),
                *log[k + 1 :]]  # fmt: skip
    if pick == 8:  # keys in another order, spaces between them: still intact
        return [*log[:k], _reorder(log[k]), *log[k + 1 :]]
    if pick == 9:  # a field left out, the line's own hash recomputed
        return [*log[:k], _resealed(log[k], without=rng.choice(["prev", "seq"])), *log[k + 1 :]]
    if pick == 10:  # the hash spelled otherwise
        return [*log[:k], log[k].replace('"hash": "', '"hash": "0'), *log[k + 1 :]]
    if pick == 11:
        return [*log, log[-1]]  # the last line repeated
    return list(log)


def _chain_call(rng: random.Random, size: int) -> Call:
    """A log `AuditLog` writes (0 to about 8 records, non-ASCII and nested arguments), then one
    or two changes: an edit, a renumbering, a line deleted, moved, cut or blank, ..."""
    records = [
        {"user": rng.choice(["sam", "zoë"]), "tool": rng.choice(["refund", "list_orders"]),
         "arguments": mapping(rng, size // 2), "outcome": rng.choice(["ok", "APPROVAL_DENIED"])}
        for _ in range(rng.randint(0, min(8, 1 + size)))
    ]  # fmt: skip
    lines = _sealed(records)
    for _ in range(rng.choice([0, 1, 1, 2])):
        # a line the first change left unreadable: the second change is skipped
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            lines = _tampered(rng, lines, records)
    return Call((lines,))


_GENERATED = calls(_chain_call, seed=84, count=200)


def _intact_from_0(student: Callable[..., Any]) -> bool:
    """Whether `student` finds a log numbered from seq 0 intact (a diagnosis: never fails)."""
    try:
        return student(list(_FROM_0)) is None
    except Exception:
        return False


@exercise(
    "8.4",
    title="Audit verification",
    hints=[
        "Walk the lines with their numbers (enumerate(lines, start=1)), keeping the hash of the "
        "line before (start with '0' * 64).",
        _HINT_CANONICAL_BODY,
        _HINT_LINK,
    ],
    reference=lambda: first_bad_line,
)
def _check_chain(student: Callable[..., Any]) -> None:
    for lines, shown, hint in _CHAIN_CASES:
        what = f"first_bad_line(lines) for {shown}"
        got = call_student(student, list(lines), what=what, returns="a line number or None")
        expected = first_bad_line(lines)
        if expected is not None and got == len(lines) != expected:
            hint = _HINT_EVERY  # the last line reported, an earlier one is bad
        elif expected is None and got == 1 and lines and _intact_from_0(student):
            hint = _HINT_FROM_0
        expect_equal(got, expected, what=what, hint=hint)
    agree(
        student,
        first_bad_line,
        _GENERATED,
        name="first_bad_line",
        hint="Return the first line that is not whole JSON, does not match its own hash, or "
        "does not follow the line before (prev is that line's hash, seq is the line number, an "
        "int); None when every line is right.",
    )
