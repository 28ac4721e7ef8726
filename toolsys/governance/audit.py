"""A tamper-evident audit log: one JSON line per tool call, whatever happened, hash-chained.

    from toolsys.governance import AuditLog
    registry = Registry(layers=[AuditLog("audit.jsonl"), policy, Retry(), Timeout(10)])

Put it first: it is a "received" layer, so it sees every call as the model sent it, including
unknown tools and invalid arguments, and every outcome the layers inside produce (denied,
approved, retried, timed out, crashed, replayed). It learns the tool's category and the
validated arguments from the call (filled when it was valid as sent) or, when they are filled
later (a layer rewrote the call), from the execute path (`toolsys.execution.VALIDATED`). A
call cancelled while it runs is recorded as CANCELLED before the cancellation goes on.

Each record: `v, seq, ts, run_id, step, call_id, user, roles, tool, category, validated,
arguments, decision, approved_by, outcome, ok, message, duration_ms, attempt, retries, replayed,
prev, hash`. `decision` is what a policy layer put in `result.meta["decision"]` ("allow",
"deny", "needs_approval", "approved", "denied_by_human"), "none" without one. `outcome` is "ok"
or the error code. The chain (`seq`, `prev`, `hash`) is described in `toolsys.governance.chain`.

What is kept out (see `toolsys.governance._scrub`): the value under an argument key that names
a secret (`redact_keys`: password, token, card, pin, otp, auth, key, session*...: a long word
anywhere in the key, a short one as a whole word of it, so `api_key` but never `monkey`), and
that same value wherever else it appears in the record; every
secret `toolsys._redact` knows (the environment's, known token shapes, `add_secret`...).
Results are not recorded, only the error code and (redacted) message of a failure. Arguments
whose canonical JSON (as in the record: sorted keys, no spaces, ASCII) is longer than
`max_argument_chars` are kept as that text's length and SHA-256.

A keyed chain: `AuditLog(path, key=..., key_id="2026-12")` makes each record's `hash` an
HMAC-SHA256 under a key kept outside the log (a secret store, the environment), and names the key
in the record's `signer`; `verify(path, keys={"2026-12": key})` (`toolsys audit verify FILE
--key-file KEYS`) checks it, and nobody without the key can rebuild the chain after an edit.
`rotate_key(new_key, key_id=...)` signs the following records with a new key, the chain going on.

Threads, parallel async calls, several AuditLog objects and several processes may write one
file: each record is one whole line and the chain never forks (see `toolsys.governance._journal`).

Failing closed. A call that cannot be recorded must not happen unseen:
- if the log cannot be opened or continued (no such folder, no permission, a cut last line),
  the call is refused *before it runs* with AUDIT_UNAVAILABLE, as data; opening is tried again
  at the next call, so fixing the folder is enough;
- if writing a record fails after the call ran, its result is withheld: the model gets
  AUDIT_UNAVAILABLE saying the call finished and must not be repeated, the `toolsys` logger
  gets an ERROR, and every later call is refused until `reopen()` (a disk that failed once is
  not trusted to record the next write).

Chapter 08 builds the hash chain by hand first: notebooks/08_governance.ipynb.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii as _string
from typing import IO, Any

from toolsys._redact import redact_secrets
from toolsys._sendable import sendable, text_of, valid_text
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.execution import VALIDATED, Call, Next
from toolsys.governance._journal import Journal
from toolsys.governance._scrub import DEFAULT_REDACT_KEYS, Redactor
from toolsys.governance.chain import Body, Signer, VerifyResult, encoded, read, verify
from toolsys.result import ToolResult
from toolsys.stages import decode

__all__ = ["DECISIONS", "DEFAULT_REDACT_KEYS", "AuditLog", "VerifyResult", "read", "verify"]

DECISIONS = frozenset({"allow", "deny", "needs_approval", "approved", "denied_by_human"})
_log = logging.getLogger("toolsys")


class AuditLog:
    """`AuditLog(path_or_stream, *, redact_keys=DEFAULT_REDACT_KEYS, fsync=False, key=None)`.

    A path is opened in append mode at the first call and its chain continued; a stream (an
    open file, `io.StringIO`, `sys.stdout`) starts a new chain. `fsync=True` forces each record
    to disk before the result is returned (slower; survives a power cut). `clock` gives `ts` and
    `timer` the durations: fixed ones give a byte-identical log for the same calls (a lesson).
    """

    stage = "received"
    name = "audit"

    def __init__(
        self,
        target: str | os.PathLike[str] | IO[Any],
        *,
        redact_keys: Iterable[str] = DEFAULT_REDACT_KEYS,
        fsync: bool = False,
        max_argument_chars: int = 8000,
        clock: Any = time.time,
        timer: Any = time.perf_counter,
        key: bytes | str | None = None,
        key_id: str = "key-1",
    ) -> None:
        self._redactor = Redactor(redact_keys)
        signer = None if key is None else Signer.of(key, key_id)
        self._keys = {} if signer is None else {signer.key_id: signer.key}
        if type(max_argument_chars) is not int or max_argument_chars < 100:
            raise ValueError(
                f"AuditLog(max_argument_chars={max_argument_chars!r}): give a whole number >= 100."
            )
        self.max_argument_chars = max_argument_chars
        self.clock, self.timer = clock, timer
        self._journal = Journal(target, fsync=fsync, signer=signer)

    def __repr__(self) -> str:
        return f"AuditLog({self._journal.path or self._journal.stream!r})"

    @property
    def path(self) -> str | None:
        """The file written, None for a stream."""
        return self._journal.path

    def verify(self) -> VerifyResult:
        """`verify(self.path)`: check this log's file (with every key this object has used)."""
        if self.path is None:
            raise ValueError("This AuditLog writes to a stream; verify the file it was saved to.")
        return verify(self.path, keys=self._keys or None)

    def rotate_key(self, key: bytes | str, *, key_id: str) -> None:
        """Sign the records from the next call on with a new key; the chain continues.

        Keep the old key for verifying: `verify(path, keys={old_id: old, key_id: key})`.
        """
        signer = Signer.of(key, key_id)
        if signer.key_id in self._keys and self._keys[signer.key_id] != signer.key:
            raise ValueError(
                f"rotate_key(key_id={key_id!r}): that id already names another key in this log; "
                "give the new key a new id, e.g. the month it starts."
            )
        self._keys[signer.key_id] = signer.key
        self._journal.sign_with(signer)

    def records(self) -> list[dict[str, Any]]:
        """`read(self.path)`: every record of this log's file."""
        if self.path is None:
            raise ValueError("This AuditLog writes to a stream; read the file it was saved to.")
        return read(self.path)

    def reopen(self) -> None:
        """Forget a failed write and open the file again at the next call (after a fix)."""
        self._journal.close()
        self._journal.failed = None

    def close(self) -> None:
        self._journal.close()

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        why = self._journal.ready()
        if why is not None:
            return _refused(why)
        seen = _Seen()
        token = VALIDATED.set(seen)
        seen.sent = call.values if call.arguments is not None else None  # before anything runs
        start = self.timer()
        try:
            result = await call_next(call)
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._write(call, seen, None, self.timer() - start)
            raise
        finally:
            VALIDATED.reset(token)
        why = self._write(call, seen, result, self.timer() - start)
        if why is None:
            return result
        return _withheld(result, why)

    def _write(
        self, call: Call, seen: list[Call], result: ToolResult | None, seconds: float
    ) -> str | None:
        """Append the record of this call; None, or why it could not be written."""
        try:
            try:
                final = seen[-1] if seen else call if call.arguments is not None else None
                dumped = seen.values if isinstance(seen, _Seen) else []
                values = dumped[-1] if dumped else getattr(seen, "sent", None) if not seen else None
                body = self.record(call, final, result, seconds, values)
            except Exception as exc:  # a value no record can hold: the call is still recorded
                body = Body.of(self._fallback(call, result, seconds, exc))
            self._journal.append(body)
        except (KeyboardInterrupt, asyncio.CancelledError):
            raise
        except BaseException as exc:
            why = f"writing a record failed: {getattr(exc, 'strerror', None) or exc}"
            _log.error("audit log %r: %s; refusing calls until reopen()", self.path, why)
            self._journal.failed = why
            return why
        return None

    def record(
        self,
        call: Call,
        final: Call | None,
        result: ToolResult | None,
        seconds: float,
        values: dict[str, Any] | None = None,
    ) -> Body:
        """The record of one call, encoded (without seq, prev and hash, which the chain adds).

        `final` is the call as validated (None when it never was), `values` its arguments as
        they were validated (a tool that changes what it received changes no record); `result`
        None means the call was cancelled while it ran. Written straight in canonical form
        (keys sorted, compact, ASCII: `toolsys.governance.chain`), each field once: the hot
        path.
        """
        tool = final.tool if final is not None else None
        if values is None and final is not None:
            values = final.values
        arguments, clean = self._redactor.prepare(
            values if final is not None else _decoded(call.raw_arguments)
        )
        meta = result.meta if result is not None else {}
        decision = meta.get("decision")
        attempt = meta.get("attempt", final.attempt if final is not None else 1)
        attempt = attempt if type(attempt) is int and attempt >= 1 else 1
        if result is None:
            outcome, message = str(ErrorCode.CANCELLED), "The run was cancelled during the call."
        elif result.ok:
            outcome, message = "ok", None
        else:
            error = result.error
            outcome = str(error.code) if error is not None else str(ErrorCode.EXECUTION_ERROR)
            message = error.message if error is not None else None
        context = call.context
        roles = ",".join([_string(clean(role)) for role in _roles(context.get("roles"))])
        category = "null" if tool is None else _string(str(tool.category))
        decision = decision if isinstance(decision, str) and decision in DECISIONS else "none"
        ok = result is not None and result.ok
        return Body(
            f'"approved_by":{_told(meta.get("approved_by"), clean)},'
            f'"arguments":{self._arguments(arguments)},"attempt":{attempt},'
            f'"call_id":{_told(call.call_id, clean)},"category":{category},'
            f'"decision":"{decision}","duration_ms":{_number(round(seconds * 1000, 3))},'
            f'"message":{_told(message, clean)},"ok":{_JSON[ok]},'
            f'"outcome":{_told(outcome, clean)}',
            f'"replayed":{_JSON[meta.get("replayed") is True]},"retries":{attempt - 1},'
            f'"roles":[{roles}],"run_id":{_told(call.run_id, clean)}',
            f'"step":{_told(call.step, clean)},'
            f'"tool":{_told(tool.name if tool is not None else call.name, clean)},'
            f'"ts":{_string(_timestamp(self.clock()))},"user":{_told(context.get("user"), clean)},'
            f'"v":1,"validated":{_JSON[final is not None]}',
        )

    def _fallback(
        self, call: Call, result: ToolResult | None, seconds: float, exc: Exception
    ) -> dict[str, Any]:
        """A record without arguments or identity, for a call whose full record failed."""
        _log.error("audit log: recording %r fully failed", call.name, exc_info=exc)
        ok = result is not None and result.ok
        outcome = "ok" if ok else str(ErrorCode.CANCELLED)
        if result is not None and not ok:
            outcome = str(result.error.code if result.error else ErrorCode.EXECUTION_ERROR)
        return sendable(
            {
                "v": 1,
                "ts": _timestamp(time.time()),
                "run_id": call.run_id,
                "call_id": call.call_id,
                "tool": call.name,
                "outcome": outcome,
                "ok": ok,
                "duration_ms": round(seconds * 1000, 3),
                "record_error": f"{type(exc).__name__}: the full record could not be built",
            },
            redact_secrets,
        )

    def _arguments(self, arguments: Any) -> str:
        """The arguments' canonical JSON; when too long, their size and hash instead."""
        text = encoded(arguments)
        if len(text) <= self.max_argument_chars:
            return text
        digest = hashlib.sha256(text.encode("ascii")).hexdigest()
        return encoded({"omitted": "too long", "chars": len(text), "sha256": digest})


class _Seen(list[Call]):
    """The calls the path validated for one record (`VALIDATED`), each one's arguments dumped
    the moment it was validated (`values`), and those of the call as it arrived (`sent`)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[dict[str, Any]] = []
        self.sent: dict[str, Any] | None = None

    def append(self, call: Call) -> None:
        self.values.append(call.values)
        super().append(call)


def _decoded(raw: Any) -> Any:
    """The arguments as sent, decoded from JSON text where they are text."""
    if isinstance(raw, str | bytes | bytearray):
        value = decode("arguments", raw)
        if isinstance(value, ToolResult):  # not JSON: keep the text (redacted later)
            text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")
            return {"unparsed": text}
        return value
    if isinstance(raw, Mapping):
        return dict(raw)
    return {} if raw is None else raw


_JSON = {True: "true", False: "false"}
_BIG = 1 << 64  # an int this large or more goes through `sendable` (which may shorten it)


def _told(value: Any, clean: Callable[[str], str]) -> str:
    """A value that came from outside (the model, the caller, a layer) as clean canonical JSON."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is str:
        return _string(clean(valid_text(value)))
    if kind is int and -_BIG < value < _BIG:
        return int.__repr__(value)
    return encoded(sendable(value, clean))


def _number(value: Any) -> str:
    if type(value) is float and value - value == 0:  # finite: NaN is refused by the encoder
        return float.__repr__(value)
    return encoded(value)


def _roles(roles: Any) -> list[str]:
    if roles is None:
        return []
    if isinstance(roles, str):
        return [valid_text(roles)]
    try:
        return sorted(text_of(role) for role in roles)
    except TypeError:
        return [text_of(roles)]


def _timestamp(seconds: float) -> str:
    """`datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")`, with the
    date and time of the current second remembered (many calls share a second)."""
    global _second
    if type(seconds) is not float or not 0 <= seconds < 1e11:
        return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")
    fraction, whole = math.modf(seconds)
    micro = round(fraction * 1e6)  # as fromtimestamp rounds: half to even, carried over
    if micro >= 1_000_000:
        micro, whole = micro - 1_000_000, whole + 1
    second, text = _second
    if second != whole:
        second = int(whole)
        text = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:-6]
        _second = (second, text)
    return f"{text}.{micro // 1000:03d}+00:00"


_second = (-1, "")


def _refused(why: str) -> ToolResult:
    error = ErrorInfo(
        ErrorCode.AUDIT_UNAVAILABLE,
        f"This call was not run: it could not be recorded in the audit log ({why}).",
        "Tell the user that actions are paused until the audit log works again; do not retry "
        "this call now.",
    )
    return ToolResult.failure(error, audit_error=why)


def _withheld(result: ToolResult, why: str) -> ToolResult:
    outcome = "ok" if result.ok or result.error is None else result.error.code
    error = ErrorInfo(
        ErrorCode.AUDIT_UNAVAILABLE,
        f"The call finished ({outcome}) but could not be recorded in the audit log, so its "
        "result is withheld. Whatever it did stands.",
        "Do not repeat this call. Tell the user that actions are paused until the audit log "
        "works again.",
        details={"finished": True},
    )
    meta = {**result.meta, "audit_error": why}
    return ToolResult(False, None, error, meta, result.exception)
