"""Exercise 12.5, find the tampered audit line: the check and its reference, `first_bad_line`.

The cases tamper with the chain in several ways: a check that looks only at each line's own hash,
and not at its prev link and its seq, misses some of them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks.ch12._shared import _shop
from toolsys.governance import AuditLog
from toolsys.governance.audit import verify
from toolsys.shop.agent import build
from toolsys.shop.scenarios import CHLOE


def first_bad_line(lines: list[str]) -> int | None:
    """Reference for 12.5: what `verify` says, for lines given as strings."""
    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        path = Path(folder) / "audit.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return verify(path).line


def _reseal(record: dict[str, Any]) -> str:
    body = {key: value for key, value in record.items() if key != "hash"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    body["hash"] = hashlib.sha256(canonical.encode("ascii")).hexdigest()
    return json.dumps(body, separators=(",", ":"))


@functools.cache
def _log() -> tuple[str, ...]:
    """A real audit log of seven calls (a fixed clock: the same file every time)."""
    ticks = iter(range(1_796_115_600, 1_796_116_600))
    with _shop(reships=False) as shop, tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        registry = build(shop, audit=AuditLog(path, clock=lambda: float(next(ticks))))
        for order in ("ORD-1003", "ORD-1004", "ORD-1019", "ORD-1011"):
            registry.execute("get_order", {"order_id": order}, context=CHLOE)
        for amount in (10, 60, 5):
            arguments = {"order_id": "ORD-1003", "amount": amount, "reason": "goodwill"}
            registry.execute(
                "refund_order", arguments | {"idempotency_key": f"k{amount}"}, context=CHLOE
            )
        return tuple(path.read_text(encoding="utf-8").splitlines())


def _tamperings() -> list[tuple[str, list[str]]]:
    lines = list(_log())
    records = [json.loads(line) for line in lines]
    edited = lines.copy()
    edited[5] = edited[5].replace('"outcome":"APPROVAL_REQUIRED"', '"outcome":"ok"')
    resealed = lines.copy()
    resealed[5] = _reseal(records[5] | {"outcome": "ok", "decision": "allow"})
    forged = records[2] | {"tool": "refund_order", "category": "write", "outcome": "ok"}
    first = records[0] | {"user": "C004"}
    return [
        ("the log as written", lines),
        ("line 6 edited", edited),
        ("line 6 edited and its hash recomputed", resealed),
        ("line 3 deleted", lines[:2] + lines[3:]),
        ("lines 4 and 5 swapped", [*lines[:3], lines[4], lines[3], *lines[5:]]),
        ("a forged line inserted after line 2", [*lines[:2], _reseal(forged), *lines[2:]]),
        ("a forged first line inserted", [_reseal(first), *lines]),
        ("the first line edited", [lines[0].replace('"C003"', '"C004"'), *lines[1:]]),
    ]


@exercise(
    "12.5",
    title="Find the tampered audit line",
    hints=[
        "For each record (1-based line number n): its hash must be the SHA-256 of the record "
        "without 'hash', as json.dumps(body, sort_keys=True, separators=(',', ':'), "
        "ensure_ascii=True) encoded as ASCII.",
        "Its 'prev' must be the previous record's 'hash' (GENESIS, 64 zeros, for the first), "
        "and its 'seq' must be one more than the previous record's (1 for the first).",
        "Return the first n where any of the three fails, None when none does.",
        "One exception: when line n's prev is the hash of line n-2 (GENESIS if n is 2), line "
        "n-1 was inserted (its own hash recomputed by the forger): return n-1.",
    ],
    reference=lambda: first_bad_line,
    timeout=30,
)
def _check_first_bad_line(student: Callable[[list[str]], int | None]) -> None:
    for case, lines in _tamperings():
        expected = first_bad_line(lines)
        got = call_student(
            student, list(lines), what=f"first_bad_line(...) for {case}", returns="an int or None"
        )
        expect_equal(
            got,
            expected,
            what=f"first_bad_line(...) for {case}",
            hint="Check each line's own hash, its prev link and its seq (= its line number, "
            "from 1); a line whose prev skips one back blames the line before it (inserted).",
        )
