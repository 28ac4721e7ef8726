"""Where the `Idempotency` layer remembers calls: in memory, or in SQLite across restarts.

One record per idempotency key, as in Stripe's design
(https://stripe.com/docs/api/idempotent_requests, https://brandur.org/idempotency-keys):

    key          the caller's key, or one derived from (run, tool, arguments)
    fingerprint  sha256 of the canonical call: the same key with other arguments is a misuse
    state        "in_flight" while the call runs, "done" once its result is stored
    result       the envelope as JSON text (done only), replayed byte for byte
    token        which claim owns an in-flight record (a late finish of an old claim is ignored)
    expires_at   after this the key is forgotten (default: 24 h after the call)

`claim` is atomic: of two callers with the same key, exactly one runs the call. SQLiteStore uses
one connection guarded by a lock, so a thread left running at a deadline can record its end.

Chapter 07 builds this by hand first: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Protocol

State = Literal["in_flight", "done"]


@dataclass(frozen=True)
class Record:
    """What a store knows about one key."""

    key: str
    fingerprint: str
    state: State
    result: str | None
    token: str
    created_at: float
    updated_at: float
    expires_at: float


class Store(Protocol):
    """What the Idempotency layer needs from a store; every method is atomic."""

    def claim(
        self, key: str, fingerprint: str, token: str, now: float, expires_at: float
    ) -> Record | None:
        """Take the key for a new call (None), or return the live record already holding it."""
        ...

    def finish(self, key: str, token: str, result: str, now: float, expires_at: float) -> bool:
        """Store the result of the claim `token`; False if that claim no longer holds the key."""
        ...

    def release(self, key: str, token: str) -> bool:
        """Forget the claim `token` (the call did not happen); False if it no longer holds."""
        ...

    def get(self, key: str, now: float) -> Record | None:
        """The live (unexpired) record for `key`."""
        ...

    def delete(self, key: str) -> bool:
        """Forget `key` whatever its state: a human decision, e.g. after checking the effect."""
        ...


class MemoryStore:
    """Records in a dict: for tests, notebooks and single processes. Lost on restart."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._records)

    def claim(
        self, key: str, fingerprint: str, token: str, now: float, expires_at: float
    ) -> Record | None:
        with self._lock:
            found = self._records.get(key)
            if found is not None and found.expires_at > now:
                return found
            self._records[key] = Record(
                key, fingerprint, "in_flight", None, token, now, now, expires_at
            )
            return None

    def finish(self, key: str, token: str, result: str, now: float, expires_at: float) -> bool:
        with self._lock:
            found = self._records.get(key)
            if found is None or found.token != token or found.state != "in_flight":
                return False
            self._records[key] = replace(
                found, state="done", result=result, updated_at=now, expires_at=expires_at
            )
            return True

    def release(self, key: str, token: str) -> bool:
        with self._lock:
            found = self._records.get(key)
            if found is None or found.token != token or found.state != "in_flight":
                return False
            del self._records[key]
            return True

    def get(self, key: str, now: float) -> Record | None:
        found = self._records.get(key)
        return found if found is not None and found.expires_at > now else None

    def delete(self, key: str) -> bool:
        with self._lock:
            return self._records.pop(key, None) is not None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS toolsys_idempotency (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
    result TEXT,
    token TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    expires_at REAL NOT NULL
)
"""
_COLUMNS = "key, fingerprint, state, result, token, created_at, updated_at, expires_at"


class SQLiteStore:
    """Records in a SQLite file: they survive a restart and are shared by processes.

    `SQLiteStore("calls.db")`; `":memory:"` works too. Several processes may use one file on
    a local disk: a claim is one `BEGIN IMMEDIATE` transaction, so exactly one of them wins a
    key. The file is in WAL mode. `durable=True` (the default) makes every record survive a
    power loss (an fsync per write, ~2 ms); `durable=False` only a crash of the process
    (~50 us).
    """

    def __init__(self, path: str | Path, *, timeout: float = 5.0, durable: bool = True) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise ValueError(
                f"SQLiteStore({self.path!r}): cannot open the database ({exc}); check that the "
                "folder exists and is writable, or use ':memory:'."
            ) from exc
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def claim(
        self, key: str, fingerprint: str, token: str, now: float, expires_at: float
    ) -> Record | None:
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "DELETE FROM toolsys_idempotency WHERE key = ? AND expires_at <= ?", (key, now)
                )
                inserted = db.execute(
                    f"INSERT INTO toolsys_idempotency ({_COLUMNS}) "
                    "VALUES (?, ?, 'in_flight', NULL, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING",
                    (key, fingerprint, token, now, now, expires_at),
                ).rowcount
                found = None if inserted else self._select(key)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return found

    def finish(self, key: str, token: str, result: str, now: float, expires_at: float) -> bool:
        with self._lock:
            return bool(
                self._db.execute(
                    "UPDATE toolsys_idempotency SET state = 'done', result = ?, updated_at = ?, "
                    "expires_at = ? WHERE key = ? AND token = ? AND state = 'in_flight'",
                    (result, now, expires_at, key, token),
                ).rowcount
            )

    def release(self, key: str, token: str) -> bool:
        with self._lock:
            return bool(
                self._db.execute(
                    "DELETE FROM toolsys_idempotency "
                    "WHERE key = ? AND token = ? AND state = 'in_flight'",
                    (key, token),
                ).rowcount
            )

    def get(self, key: str, now: float) -> Record | None:
        with self._lock:
            found = self._select(key)
        return found if found is not None and found.expires_at > now else None

    def delete(self, key: str) -> bool:
        with self._lock:
            return bool(
                self._db.execute("DELETE FROM toolsys_idempotency WHERE key = ?", (key,)).rowcount
            )

    def _select(self, key: str) -> Record | None:
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM toolsys_idempotency WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else Record(*row)
