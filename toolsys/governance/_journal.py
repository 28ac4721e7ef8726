"""Appending to an audit log: one whole line per write, one chain, however many writers.

Writers in one process share an `AuditLog` (threads, parallel async calls): a thread lock
orders them. Writers with their own `AuditLog` on the same file (two objects, two processes)
are ordered by an exclusive `flock` on the file, held while the writer reads the chain's head
and appends its line; the file is opened with O_APPEND, so every line lands at the end, whole.
A writer that finds the file longer than it left it reads the last record again before writing,
so the chain never forks. (Without `fcntl`, on Windows, only the thread lock applies: give each
process its own file there.)

Resuming onto an existing file continues its chain (the last record's seq and hash). A file
that ends in a cut line is not continued: that is refused until someone looks (`toolsys audit
verify FILE`), because appending after it would bury the damage.
"""

from __future__ import annotations

import io
import os
import threading
from typing import IO, Any

from toolsys.governance.chain import GENESIS, AuditFileError, Body, Signer, last_record

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class Journal:
    """`Journal(path_or_stream, fsync=False, signer=None)`: `append(body)` seals and writes one
    record (with `signer`, its hash is an HMAC under the signer's key)."""

    def __init__(
        self,
        target: str | os.PathLike[str] | IO[Any],
        *,
        fsync: bool = False,
        signer: Signer | None = None,
    ) -> None:
        self.stream: IO[Any] | None = None
        self.path: str | None = None
        if hasattr(target, "write"):
            self.stream = target  # type: ignore[assignment]
        elif isinstance(target, str | os.PathLike):
            self.path = os.fspath(target)
        else:
            raise TypeError(
                f"AuditLog({target!r}): give a file path (str or Path) or an open stream "
                "with a write() method, e.g. AuditLog('audit.jsonl')."
            )
        self.fsync = fsync
        self.signer = signer
        self.failed: str | None = None
        """Why the last write failed; while set, the log refuses calls (see AuditLog)."""
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._pid = _pid
        self._end = -1  # the file's size after our last write; another writer changes it
        self._seq, self._prev = 0, GENESIS

    def ready(self) -> str | None:
        """None when a record can be written now, else why not (one line, no path)."""
        if self.failed is not None:
            return self.failed
        if self.stream is not None or (self._fd is not None and self._pid == _pid):
            return None
        with self._lock:
            try:
                self._open()
            except OSError as exc:
                return f"the audit log file cannot be opened: {exc.strerror or exc}"
            except AuditFileError as exc:
                return f"the audit log cannot be continued: {exc}"
        return None

    def append(self, record: Body | dict[str, Any]) -> tuple[int, str]:
        """Write `record` with the next seq and the previous hash; its (seq, hash).

        Raises OSError (or AuditFileError) when it cannot be written, ValueError when the
        record holds a value JSON cannot (a dict is encoded here, a `Body` already was).
        """
        body = record if isinstance(record, Body) else Body.of(record)
        with self._lock:
            if self.stream is not None:
                line, digest = body.line(self._seq + 1, self._prev, self.signer)
                self._emit(line)
                return self._advance(digest)
            fd = self._fd if self._fd is not None and self._pid == _pid else self._open()
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                size = os.lseek(fd, 0, os.SEEK_END)  # the size, as fstat's (no stat_result)
                if size != self._end:  # another writer appended since our last line
                    self._follow(fd, size)
                line, digest = body.line(self._seq + 1, self._prev, self.signer)
                _write_all(fd, line)
                if self.fsync:
                    os.fsync(fd)
                self._end = size + len(line)
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            return self._advance(digest)

    def sign_with(self, signer: Signer | None) -> None:
        """Seal the records from the next one on with `signer` (a key rotation)."""
        with self._lock:
            self.signer = signer

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd, self._end = None, -1

    def _open(self) -> int:
        """Open the file (again in a forked child: a lock on an inherited descriptor would be
        shared with the parent, so it would not keep the two apart)."""
        assert self.path is not None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _CLOEXEC, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                self._follow(fd, os.fstat(fd).st_size)
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._pid = fd, _pid
        return fd

    def _follow(self, fd: int, size: int) -> None:
        """Take the chain's head from the file's last record."""
        last = last_record(fd, size)
        if last is None:
            self._seq, self._prev = 0, GENESIS
        else:
            self._seq, self._prev = int(last["seq"]), str(last["hash"])
        self._end = size

    def _advance(self, digest: str) -> tuple[int, str]:
        self._seq, self._prev = self._seq + 1, digest
        return self._seq, digest

    def _emit(self, line: bytes) -> None:
        stream = self.stream
        assert stream is not None
        if isinstance(stream, io.TextIOBase):
            stream.write(line.decode("ascii"))
        else:
            stream.write(line)
        flush = getattr(stream, "flush", None)
        if callable(flush):
            flush()


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_pid = os.getpid()
"""This process's id, kept current by a fork hook (one system call fewer per record, twice)."""


def _forked() -> None:
    global _pid
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):  # pragma: no branch - absent on Windows, which has no fork
    os.register_at_fork(after_in_child=_forked)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
