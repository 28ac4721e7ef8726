"""The hash chain of an audit log: how a record is hashed, written, read back and verified.

A record is a JSON object on one line. Its `hash` is the SHA-256 of its *canonical* form: the
record without `hash`, as JSON with sorted keys, no spaces, ASCII only (every non-ASCII
character escaped) and no NaN, encoded as UTF-8. Each record carries the previous record's hash
in `prev` (the first one carries `GENESIS`) and its position in `seq` (1, 2, ...). So:

    an edited field        that line's hash no longer matches its content
    a deleted line         the next line's `prev` and `seq` skip one
    two lines swapped      a `seq` comes before its time
    a cut last line        the line is not whole JSON (or has no end of line)
    an inserted line       (even with its own hash recomputed) the line after it follows the
                           line before it, not the inserted one

What a bare chain cannot show: lines removed from the *end*, or a whole chain recomputed. Keep
the head hash (`verify(...).head`) somewhere the writer cannot change, and pass it back later:
`verify(path, head=...)` (`toolsys audit verify FILE --head HASH`) fails if that record is gone.

The file is ASCII (non-ASCII is escaped), so a line is exactly the bytes up to b"\\n".

Writing is the hot path (one record per tool call), so an `AuditLog` record is encoded once,
before its place in the chain is known, as the text around the two gaps where `prev` and `seq`
go (they sort between the other fields): `Body(head, middle, tail)`; `Body.line(seq, prev)`
fills them in. That text must be the canonical form exactly (`canonical` is the definition):
`verify` re-encodes every record, and the tests compare the two on generated records.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as _string
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
"""The `prev` of a log's first record."""
REQUIRED = ("seq", "prev", "hash")
_HEX = re.compile(r"[0-9a-fA-F]{8,64}")
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False, check_circular=False
)


class AuditFileError(ValueError):
    """The file is not an audit log at all (missing, empty, binary, not JSON lines)."""


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes that are hashed: the record without `hash`, sorted, compact, ASCII."""
    body = {key: value for key, value in record.items() if key != "hash"}
    return _ENCODER.encode(body).encode("ascii")


def encoded(value: Any) -> str:
    """`value` (any part of a record) as the canonical form writes it."""
    return _ENCODER.encode(value)


def seal(record: Mapping[str, Any]) -> tuple[bytes, str]:
    """The line to append for `record` (which has no `hash` yet) and its hash.

    The line is the canonical body with `"hash"` added last: one serialisation per record.
    """
    return _sealed(canonical(record))


class Body:
    """A record without `seq` and `prev`, encoded once; `line(seq, prev)` seals it.

    `Body.of(record)` takes any record (encoded by `line`, with `canonical`). `Body(head,
    middle, tail)` takes one already written in canonical form, in three pieces: the fields
    that sort before "prev", those between "prev" and "seq", and those after "seq", each as
    `"key":value` pairs joined by commas, in key order (the writer's promise; `verify` checks it).
    """

    __slots__ = ("_parts", "_record")

    def __init__(self, head: str, middle: str, tail: str) -> None:
        self._parts: tuple[str, str, str] | None = (head, middle, tail)
        self._record: dict[str, Any] | None = None

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Body:
        body = cls("", "", "")
        body._parts, body._record = None, dict(record)
        return body

    def line(self, seq: int, prev: str) -> tuple[bytes, str]:
        """The line to append with this `seq` and `prev`, and its hash.

        Raises ValueError for a record (`Body.of`) holding a value JSON cannot (NaN...).
        """
        if self._parts is None:
            assert self._record is not None
            return seal({**self._record, "seq": seq, "prev": prev})
        head, middle, tail = self._parts
        text = f'{{{head},"prev":{_string(prev)},{middle},"seq":{int(seq)},{tail}}}'
        return _sealed(text.encode("ascii"))


def _sealed(body: bytes) -> tuple[bytes, str]:
    digest = hashlib.sha256(body).hexdigest()
    if body == b"{}":
        return b'{"hash":"' + digest.encode() + b'"}\n', digest
    return body[:-1] + b',"hash":"' + digest.encode() + b'"}\n', digest


def digest_of(record: Mapping[str, Any]) -> str:
    """The hash a record should carry ("" for a record no writer could have made: NaN...)."""
    try:
        return hashlib.sha256(canonical(record)).hexdigest()
    except ValueError:
        return ""


def last_record(fd: int, size: int) -> dict[str, Any] | None:
    """The last record of an open file of `size` bytes (None when empty).

    Raises AuditFileError when the file does not end in a whole record (a cut write).
    """
    if size == 0:
        return None
    chunk, start = b"", size
    while True:
        step = min(start, 65536)
        start -= step
        chunk = os.pread(fd, step, start) + chunk
        newline = chunk.rfind(b"\n", 0, len(chunk) - 1)
        if newline != -1 or start == 0:
            break
    line = chunk[newline + 1 :]
    if not line.endswith(b"\n"):
        raise AuditFileError("it ends in a cut line (a write was interrupted, or it was edited)")
    record = _parse(line)
    if record is None or type(record["seq"]) is not int:
        raise AuditFileError("its last line is not an audit record")
    return record


@dataclass(frozen=True)
class VerifyResult:
    """`ok`, how many records were checked, and where and why the chain breaks.

    `line` is the first bad line (1-based), None when ok. `head` is the hash of the last good
    record: keep it elsewhere to detect lines removed from the end later.
    """

    ok: bool
    count: int
    line: int | None = None
    problem: str = ""
    head: str = GENESIS

    def __str__(self) -> str:
        if self.ok:
            return f"OK: {self.count} records, hash chain intact (head {self.head[:16]})"
        return f"line {self.line} {self.problem}"


def read_lines(path: str | os.PathLike[str]) -> list[bytes]:
    """The file's lines (each with its b"\\n", the last maybe without), or AuditFileError."""
    shown = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise AuditFileError(f"{shown}: no such file; give the path of an audit log") from None
    except IsADirectoryError:
        raise AuditFileError(f"{shown} is a folder; give the path of an audit log") from None
    except OSError as exc:
        raise AuditFileError(f"{shown}: cannot read it ({exc.strerror or exc})") from None
    if not data.strip():
        raise AuditFileError(f"{shown} is empty: it holds no audit records")
    if b"\x00" in data or not _is_utf8(data):
        raise AuditFileError(
            f"{shown} is a binary file, not an audit log (JSON lines written by AuditLog)"
        )
    lines = data.splitlines(keepends=True)
    first = _parse(lines[0])
    if first is None:
        raise AuditFileError(
            f"{shown} is not an audit log: line 1 is not a JSON record with seq, prev and hash"
        )
    return lines


def read(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every record of an audit log, in file order (not verified: see `verify`).

    Raises AuditFileError (one line, naming the file) for a file that is not an audit log or
    has a line that is not a record.
    """
    records = []
    for number, line in enumerate(read_lines(path), start=1):
        record = _parse(line)
        if record is None:
            if not line.strip():
                continue
            raise AuditFileError(
                f"{os.fspath(path)}: line {number} is not an audit record (cut or edited; "
                "run `toolsys audit verify` on it)"
            )
        records.append(record)
    return records


def verify(path: str | os.PathLike[str], head: str | None = None) -> VerifyResult:
    """Check every line's hash, its link to the line before, and its place in the sequence.

    Returns the first problem found, naming the line; raises AuditFileError when the file is
    not an audit log at all. `head`: a hash (or its first 8+ hex digits) kept from an earlier
    `verify`; the log must still hold that record, which catches lines cut from the end.
    """
    if head is not None and not _HEX.fullmatch(head):
        raise AuditFileError(
            f"head={head!r} is not a record hash: give 8 to 64 hex digits, as `verify` printed"
        )
    lines = read_lines(path)
    records = [_parse(line) for line in lines]
    hashes: list[str] = []
    for index, (line, record) in enumerate(zip(lines, records, strict=True)):
        number = index + 1
        if not line.endswith(b"\n"):
            return _broken(number, "is cut short (no end of line): the file was truncated", hashes)
        if record is None:
            return _broken(number, "is not a whole audit record: it was cut or edited", hashes)
        if digest_of(record) != record["hash"]:
            return _broken(number, "was altered: its content does not match its hash", hashes)
        expected_prev = hashes[-1] if hashes else GENESIS
        if record["prev"] != expected_prev or record["seq"] != number:
            return _misplaced(number, record, records, hashes)
        hashes.append(record["hash"])
    last = hashes[-1] if hashes else GENESIS
    if head is not None and not any(h.startswith(head.lower()) for h in hashes):
        problem = (
            f"is missing: no record has the hash {head[:16]} kept earlier (lines were cut from "
            "the end, or the whole chain was rebuilt)"
        )
        return VerifyResult(False, len(hashes), len(hashes) + 1, problem, last)
    return VerifyResult(True, len(hashes), head=last)


def _misplaced(
    number: int, record: dict[str, Any], records: list[dict[str, Any] | None], hashes: list[str]
) -> VerifyResult:
    """Why a well-formed record does not follow the one before it."""
    two_back = hashes[-2] if len(hashes) >= 2 else GENESIS
    if hashes and record["prev"] == two_back:
        return _broken(
            number - 1,
            f"was inserted: line {number} follows line {number - 2} directly",
            hashes[:-1],
        )
    later = [r for r in records[number:] if r is not None]
    if any(r.get("seq") == number for r in later) or (
        isinstance(record["seq"], int) and record["seq"] < number
    ):
        return _broken(
            number,
            f"is out of order: it holds record {record['seq']!r} where record {number} belongs",
            hashes,
        )
    if isinstance(record["seq"], int) and record["seq"] > number:
        gap = record["seq"] - number
        return _broken(
            number,
            f"comes after a gap: {gap} record{'s' if gap > 1 else ''} before it "
            f"{'are' if gap > 1 else 'is'} missing (seq {record['seq']} where {number} belongs)",
            hashes,
        )
    return _broken(number, "does not follow the line before it (its prev hash differs)", hashes)


def _broken(number: int, problem: str, hashes: list[str]) -> VerifyResult:
    good = hashes[: number - 1]
    return VerifyResult(False, len(good), number, problem, good[-1] if good else GENESIS)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or any(key not in record for key in REQUIRED):
        return None
    if not isinstance(record["hash"], str):
        return None
    return record


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
