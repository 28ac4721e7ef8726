"""The hash chain of an audit log: how a record is hashed, written, read back and verified.

A record is a JSON object on one line. Its `hash` is the SHA-256 of its *canonical* form: the
record without `hash`, as JSON with sorted keys, no spaces, ASCII only (every non-ASCII
character escaped) and no NaN, encoded as UTF-8. The line is exactly that form with `"hash"`
added last. Each record carries the previous record's hash in `prev` (the first one carries
`GENESIS`) and its position in `seq` (1, 2, ...). So:

    an edited field        that line's hash no longer matches its content
    a deleted line         the next line's `prev` and `seq` skip one
    two lines swapped      a `seq` comes before its time
    a cut last line        the line is not whole JSON (or has no end of line)
    an inserted line       (even with its own hash recomputed) the line after it follows the
                           line before it, not the inserted one
    a key written twice    refused: most readers (grep, Python's json) see one of the values,
                           and `"decision":"approved"` in front of the real one would read as
                           an approval; so is any line that is not byte for byte the canonical
                           form (`verify` hashes the exact bytes, not what a parser made of them)

What a bare chain cannot show: lines removed from the *end*, or a whole chain recomputed. Keep
the head hash (`verify(...).head`, all 64 hex digits) somewhere the writer cannot change, and
pass it back later: `verify(path, head=...)` (`toolsys audit verify FILE --head HASH`) fails if
that record is gone. Or key the chain: with `AuditLog(path, key=..., key_id=...)` each `hash` is
an HMAC-SHA256 under a key kept outside the log, and the record names the key in `signer`;
`verify(path, keys={key_id: key})` then checks every record with its key, so nobody without the
key can recompute the chain. Rotating the key (`AuditLog.rotate_key`, or a new AuditLog with
another key on the same file) continues the chain; verify with every key the log has used.

The file is ASCII (non-ASCII is escaped), so a line is exactly the bytes up to b"\\n". Reading
streams it line by line (a line longer than `MAX_LINE_BYTES` is refused), and only a regular file
is read: a FIFO would block and `/dev/zero` never ends.

Writing is the hot path (one record per tool call), so an `AuditLog` record is encoded once,
before its place in the chain is known, as the text around the gaps where `prev`, `seq` and
`signer` go (they sort between the other fields): `Body(head, middle, tail)`;
`Body.line(seq, prev, signer)` fills them in. That text must be the canonical form exactly
(`canonical` is the definition): `verify` compares every line with it, and the tests compare
the two on generated records.

Public within toolsys: `toolsys.governance.audit` writes through it, `toolsys audit`
(toolsys/cli/audit.py) reads and verifies with it, and check 8.4 builds its logs with `seal`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from json.encoder import encode_basestring_ascii as _ascii
from json.encoder import encode_basestring_ascii as _string
from typing import Any

GENESIS = "0" * 64
"""The `prev` of a log's first record."""
REQUIRED = ("seq", "prev", "hash")
MAX_LINE_BYTES = 16 * 1024 * 1024
"""A line longer than this is not an audit record (reading stops there)."""
MIN_KEY_BYTES = 16
_HEAD = re.compile(r"[0-9a-fA-F]{64}")
_HASH_FIELD = b'"hash":"'
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False, check_circular=False
)
_C_ENCODER = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _ENCODER.default, _ascii, None, ":", ",", True, False, False)
)
"""`_ENCODER`'s own C encoder, built once: `JSONEncoder.encode` builds one (and a float
formatter) on every call, a third of encoding a record's arguments. It keeps no state between
calls (no circular-reference markers), so threads may share it."""


class AuditFileError(ValueError):
    """The file is not an audit log at all (missing, empty, binary, not JSON lines)."""


@dataclass(frozen=True, repr=False)
class Signer:
    """The key of a keyed chain and its id (written in each record's `signer`; the key never)."""

    key: bytes
    key_id: str

    @classmethod
    def of(cls, key: bytes | str, key_id: str) -> Signer:
        data = key.encode("utf-8") if isinstance(key, str) else key
        if not isinstance(data, bytes) or len(data) < MIN_KEY_BYTES:
            raise ValueError(
                f"An audit key must be at least {MIN_KEY_BYTES} bytes (bytes or text), e.g. "
                "secrets.token_hex(32) kept in a secret store: a short key can be guessed."
            )
        if not isinstance(key_id, str) or not 0 < len(key_id) <= 64 or not key_id.isprintable():
            raise ValueError(
                f"key_id={key_id!r}: name the key with 1-64 printable characters, e.g. "
                "'2026-12' (it is written in every record; the key itself never is)."
            )
        return cls(data, key_id)

    def __repr__(self) -> str:
        return f"Signer(key_id={self.key_id!r})"

    def digest(self, body: bytes) -> str:
        return hmac.new(self.key, body, hashlib.sha256).hexdigest()


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes that are hashed: the record without `hash`, sorted, compact, ASCII."""
    body = {key: value for key, value in record.items() if key != "hash"}
    return encoded(body).encode("ascii")


def encoded(value: Any) -> str:
    """`value` (any part of a record) as the canonical form writes it."""
    if _C_ENCODER is None:  # pragma: no cover - a Python without the json accelerator
        return _ENCODER.encode(value)
    return "".join(_C_ENCODER(value, 0))


def seal(record: Mapping[str, Any], signer: Signer | None = None) -> tuple[bytes, str]:
    """The line to append for `record` (which has no `hash` yet) and its hash.

    The line is the canonical body with `"hash"` added last: one serialisation per record.
    With a `signer`, the record names it (`signer`) and the hash is its HMAC.
    """
    if signer is not None:
        record = {**record, "signer": signer.key_id}
    return _sealed(canonical(record), signer)


class Body:
    """A record without `seq`, `prev` (and `signer`), encoded once; `line(...)` seals it.

    `Body.of(record)` takes any record (encoded by `line`, with `canonical`). `Body(head,
    middle, tail)` takes one already written in canonical form, in three pieces: the fields
    that sort before "prev", those between "prev" and "seq", and those after "signer", each as
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

    def line(self, seq: int, prev: str, signer: Signer | None = None) -> tuple[bytes, str]:
        """The line to append with this `seq` and `prev` (signed by `signer`), and its hash.

        Raises ValueError for a record (`Body.of`) holding a value JSON cannot (NaN...).
        """
        if self._parts is None:
            assert self._record is not None
            return seal({**self._record, "seq": seq, "prev": prev}, signer)
        head, middle, tail = self._parts
        signed = "" if signer is None else f'"signer":{_string(signer.key_id)},'
        text = f'{{{head},"prev":{_string(prev)},{middle},"seq":{int(seq)},{signed}{tail}}}'
        return _sealed(text.encode("ascii"), signer)


def _sealed(body: bytes, signer: Signer | None) -> tuple[bytes, str]:
    digest = hashlib.sha256(body).hexdigest() if signer is None else signer.digest(body)
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
            return f"OK: {self.count} records, hash chain intact (head {self.head})"
        return f"line {self.line} {self.problem}"


def lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """The file's lines, numbered from 1 (each with its b"\\n", the last maybe without), read
    one at a time; AuditFileError for a file that is not an audit log (checked as it is read)."""
    shown = os.fspath(path)
    with _opened(path) as stream:
        number, started = 0, False
        while line := stream.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise AuditFileError(
                    f"{shown}: line {number} is longer than {MAX_LINE_BYTES >> 20} MiB, so it is "
                    "not an audit record (run `toolsys audit verify` on the file)"
                )
            if b"\x00" in line or not _is_utf8(line):
                raise AuditFileError(
                    f"{shown} is a binary file, not an audit log (JSON lines written by AuditLog)"
                )
            if not started:
                if not line.strip():
                    continue  # blank lines before the first record: an empty file, or not a log
                if number > 1 or _parse(line) is None:
                    raise AuditFileError(
                        f"{shown} is not an audit log: line 1 is not a JSON record with seq, "
                        "prev and hash"
                    )
                started = True
            yield number, line
    if not started:
        raise AuditFileError(f"{shown} is empty: it holds no audit records")


def records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Every record of an audit log, in file order, read one at a time (not verified).

    Raises AuditFileError (one line, naming the file) for a file that is not an audit log or
    has a line that is not a record (a key written twice included).
    """
    for number, line in lines(path):
        record = _parse(line)
        if record is None:
            if not line.strip():
                continue
            raise AuditFileError(
                f"{os.fspath(path)}: line {number} is not an audit record (cut, edited or with "
                "a key written twice; run `toolsys audit verify` on it)"
            )
        yield record


def read(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every record of an audit log, in file order (not verified: see `verify`).

    Raises AuditFileError (one line, naming the file) for a file that is not an audit log or
    has a line that is not a record.
    """
    return list(records(path))


def verify(
    path: str | os.PathLike[str],
    head: str | None = None,
    *,
    keys: Mapping[str, bytes | str] | None = None,
) -> VerifyResult:
    """Check every line's bytes and hash, its link to the line before, and its place.

    Returns the first problem found, naming the line; raises AuditFileError when the file is
    not an audit log at all. `head`: the full hash (64 hex digits) kept from an earlier
    `verify`; the log must still hold that record, which catches lines cut from the end.
    `keys`: {key_id: key} for a keyed log; every record must then be signed by one of them.
    """
    if head is not None and not (isinstance(head, str) and _HEAD.fullmatch(head)):
        raise AuditFileError(
            f"head={str(head)[:80]!r} is not a record hash: give all 64 hex digits that "
            "`verify` printed (a shorter prefix could be found by trial)"
        )
    signers = {kid: Signer.of(key, kid) for kid, key in (keys or {}).items()}
    wanted = head.lower() if head is not None else None
    found = wanted is None
    count, last, before = 0, GENESIS, GENESIS
    stream = lines(path)
    for number, line in stream:
        record, problem = _checked(line, signers, keys is not None)
        if problem is not None:
            return VerifyResult(False, count, number, problem, last)
        assert record is not None
        if record["prev"] != last or record["seq"] != number:
            return _misplaced(number, record, stream, count, last, before)
        count, before, last = count + 1, last, record["hash"]
        found = found or last == wanted
    if not found:
        problem = (
            f"is missing: no record has the hash {head} kept earlier (lines were cut from "
            "the end, or the whole chain was rebuilt)"
        )
        return VerifyResult(False, count, count + 1, problem, last)
    return VerifyResult(True, count, head=last)


def _checked(
    line: bytes, signers: Mapping[str, Signer], keyed: bool
) -> tuple[dict[str, Any] | None, str | None]:
    """The record on one line, or why the line is bad: cut, not a record, not the exact bytes
    AuditLog writes, or not what its hash (or HMAC) says."""
    if not line.endswith(b"\n"):
        return None, "is cut short (no end of line): the file was truncated"
    record = _parse(line)
    if record is None:
        repeated = _repeated_key(line)
        if repeated is not None:
            return None, (
                f"has the key {repeated!r} twice: readers see one value, its hash another "
                "(the line was edited)"
            )
        return None, "is not a whole audit record: it was cut or edited"
    at = line.rfind(_HASH_FIELD)
    body = line[: at - 1] + b"}" if line[at - 1 : at] == b"," else b"{}"
    written = line[at + len(_HASH_FIELD) : -3]
    try:
        expected = canonical(record)
    except ValueError:
        expected = b""
    if body != expected or line[-3:] != b'"}\n' or record["hash"] != written.decode():
        if digest_of(record) != record["hash"]:
            return None, "was altered: its content does not match its hash"
        return None, (
            "is not written as AuditLog writes it (keys reordered, respaced or spelled "
            "differently): it was edited, and only the exact bytes are verified"
        )
    kid = record.get("signer")
    if kid is None:
        if keyed:
            return None, (
                "is not signed with a key: in a keyed log, a plain SHA-256 record was written "
                "by someone without the key"
            )
        digest = hashlib.sha256(body).hexdigest()
    elif not keyed:
        return None, (
            f"is signed with the key {kid!r}: verify with that key "
            "(verify(path, keys={...}), or `toolsys audit verify FILE --key-file KEYS`)"
        )
    elif not isinstance(kid, str) or kid not in signers:
        return None, f"is signed with the key {str(kid)[:64]!r}, which is not among the keys given"
    else:
        digest = signers[kid].digest(body)
    if not hmac.compare_digest(digest, record["hash"]):
        return None, "was altered: its content does not match its hash"
    return record, None


def _misplaced(
    number: int,
    record: dict[str, Any],
    rest: Iterator[tuple[int, bytes]],
    count: int,
    last: str,
    before: str,
) -> VerifyResult:
    """Why a well-formed record does not follow the one before it (`rest`: the lines after)."""
    if count and record["prev"] == before:
        problem = f"was inserted: line {number} follows line {number - 2} directly"
        return VerifyResult(False, count - 1, number - 1, problem, before)
    seq = record["seq"]
    later = any((_parse(line) or {}).get("seq") == number for _, line in rest)
    if later or (isinstance(seq, int) and seq < number):
        problem = f"is out of order: it holds record {seq!r} where record {number} belongs"
        return VerifyResult(False, count, number, problem, last)
    if isinstance(seq, int) and seq > number:
        gap = seq - number
        problem = (
            f"comes after a gap: {gap} record{'s' if gap > 1 else ''} before it "
            f"{'are' if gap > 1 else 'is'} missing (seq {seq} where {number} belongs)"
        )
        return VerifyResult(False, count, number, problem, last)
    problem = "does not follow the line before it (its prev hash differs)"
    return VerifyResult(False, count, number, problem, last)


def _opened(path: str | os.PathLike[str]) -> Any:
    """The file opened for reading, if it is a regular file (not a FIFO, device or folder)."""
    shown = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise AuditFileError(f"{shown}: no such file; give the path of an audit log") from None
    except IsADirectoryError:
        raise AuditFileError(f"{shown} is a folder; give the path of an audit log") from None
    except OSError as exc:
        raise AuditFileError(f"{shown}: cannot read it ({exc.strerror or exc})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a pipe, a device?)"
        raise AuditFileError(f"{shown} is {what}; give the path of an audit log")
    return os.fdopen(fd, "rb", buffering=65536)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line, object_pairs_hook=_unique)
    except (ValueError, _Repeated):
        return None
    if not isinstance(record, dict) or any(key not in record for key in REQUIRED):
        return None
    if not isinstance(record["hash"], str):
        return None
    return record


class _Repeated(Exception):
    """A JSON object with a key written twice."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        raise _Repeated(next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i])))
    return record


def _repeated_key(line: bytes) -> str | None:
    try:
        json.loads(line, object_pairs_hook=_unique)
    except _Repeated as exc:
        return str(exc.args[0])
    except ValueError:
        return None
    return None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
