"""Idempotency keys: the same call, made twice, runs once. Stripe's design, applied to tools.

A call's key is the caller's `registry.execute(..., idempotency_key="run-7:call_abc")`, or, for
a tool that is not idempotent, one derived from (run id, tool name, canonical JSON of the
arguments). Never an argument the model writes, and not the tool_call_id alone: a model that
repeats a write after a TIMEOUT sends the same arguments under a new call id.

    first call              the key is claimed (in flight), the tool runs, the result is stored
    same key, same call     done: the stored result, byte for byte, with meta["replayed"] and a
                            notice "this exact call already ran at ...; ask the user before doing
                            it again"; in flight: IN_PROGRESS (retryable), not a second run
    same key, other call    IDEMPOTENCY_KEY_REUSED, not run

What is stored: a success; a failure a repeat would not fix. A retryable failure (nothing
happened, try again) releases the key. A call left running at its deadline keeps its key in
flight until its thread ends, and its real outcome is recorded then (see `Timeout`). A call
that is cancelled while it runs is stored as CANCELLED: its effects are unknown.

A process that dies mid-call leaves its key in flight (IN_PROGRESS) until the key expires; after
a person has checked the effect, `store.delete(key)` frees it. Without a run id (a direct
`registry.execute`) nothing is derived: pass `idempotency_key=`.
A tool can read the key of the call it is running with `idempotency_key()`, to send it on to
the service it calls (Stripe's `Idempotency-Key` header), so a repeat is recognised there too.
Stripe: https://stripe.com/docs/api/idempotent_requests and https://brandur.org/idempotency-keys

Chapter 07 builds this by hand first: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from toolsys import failures
from toolsys.errors import ErrorInfo
from toolsys.execution import Call, Next
from toolsys.layers import _messages
from toolsys.layers.timeout import LISTENER
from toolsys.result import ToolResult, to_json
from toolsys.stores import MemoryStore, Record, Store
from toolsys.tool import Tool

DAY = 24 * 3600.0
MAX_KEY_CHARS = 255

_key: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolsys_key", default=None)


def idempotency_key() -> str | None:
    """The idempotency key of the call this tool is running for (None when it has none)."""
    return _key.get()


def canonical(tool: str, values: dict[str, Any]) -> str:
    """The call as canonical JSON: sorted keys, no spaces, so equal calls give equal text."""
    return json.dumps(
        [tool, values], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )


def fingerprint(call: Call) -> str:
    """sha256 of the canonical call (tool name and validated arguments)."""
    assert call.tool is not None
    return hashlib.sha256(canonical(call.tool.name, call.values).encode()).hexdigest()


def derived_key(call: Call, digest: str | None = None) -> str:
    """The key of a call without one: its run, its tool and its arguments."""
    assert call.tool is not None
    return f"{call.run_id}:{call.tool.name}:{(digest or fingerprint(call))[:32]}"


class Idempotency:
    """`Idempotency(SQLiteStore("calls.db"))`: see the module docstring. `ttl` in seconds."""

    stage = "validated"
    name = "idempotency"

    def __init__(
        self,
        store: Store | None = None,
        *,
        ttl: float = DAY,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if type(ttl) not in (int, float) or not ttl > 0:
            raise ValueError(f"Idempotency(ttl={ttl!r}): give the seconds a key lives, > 0.")
        self.store: Store = store if store is not None else MemoryStore()
        self.ttl, self.clock = float(ttl), clock

    def __repr__(self) -> str:
        return f"Idempotency({self.store!r}, ttl={self.ttl:g})"

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        tool, key = call.tool, call.idempotency_key
        assert tool is not None
        if key is None and (tool.idempotent or call.run_id is None):
            return await call_next(call)
        digest = fingerprint(call)
        if key is None:
            key = derived_key(call, digest)
            call = call.replace(idempotency_key=key)
        elif type(key) is not str or not 0 < len(key) <= MAX_KEY_CHARS:
            raise ValueError(
                f"idempotency_key={key!r} is not a text of 1 to {MAX_KEY_CHARS} characters; "
                "pass e.g. idempotency_key='run-7:call_abc'."
            )
        now, token = self.clock(), uuid.uuid4().hex
        found = self.store.claim(key, digest, token, now, now + self.ttl)
        if found is not None:
            return self._answer(tool, key, digest, found)
        claim = _Claim(self, tool, key, token)
        listening, current = LISTENER.set(claim), _key.set(key)
        try:
            result = await call_next(call)
        except BaseException:
            claim.interrupted()
            raise
        finally:
            LISTENER.reset(listening)
            _key.reset(current)
        claim.settle(result)
        meta = {**result.meta, "idempotency_key": key, "replayed": False}
        return ToolResult(
            result.ok, result.value, result.error, meta, result.exception, result.notice
        )

    def _answer(self, tool: Tool, key: str, digest: str, found: Record) -> ToolResult:
        """The key is taken: a misuse, a call still running, or a result to replay."""
        meta: dict[str, Any] = {"idempotency_key": key, "replayed": False}
        if found.fingerprint != digest:
            return ToolResult(False, None, _messages.key_reused(tool, key, found.created_at), meta)
        if found.state == "in_flight" or found.result is None:
            return ToolResult(False, None, _messages.in_progress(tool, found.created_at), meta)
        envelope = json.loads(found.result)
        meta.update(replayed=True, ran_at=_messages.when(found.updated_at))
        notice = _messages.replay_notice(found.updated_at)
        if envelope["ok"]:
            return ToolResult(True, envelope["value"], None, meta, None, notice)
        return ToolResult(False, None, ErrorInfo(**envelope["error"]), meta, None, notice)


class _Claim:
    """One claimed key, until its call's outcome is stored or released. A Timeout `Listener`."""

    def __init__(self, layer: Idempotency, tool: Tool, key: str, token: str) -> None:
        self.layer, self.tool, self.key, self.token = layer, tool, key, token
        self.running = False  # left running at a deadline, not ended yet

    def left_running(self) -> None:
        self.running = True

    def ended(self, result: ToolResult) -> None:
        """How a call left running at its deadline really ended: record it now."""
        self.running = False
        self.settle(result)

    def settle(self, result: ToolResult) -> None:
        if self.running and not self.tool.idempotent:
            return  # still running: the key stays in flight until it ends
        if result.error is not None and result.error.retryable:
            self.layer.store.release(self.key, self.token)
        else:
            self._store(result)

    def interrupted(self) -> None:
        """The call was cancelled while it ran: whether it took effect is unknown."""
        if self.tool.idempotent:
            self.layer.store.release(self.key, self.token)
        elif not self.running:
            reason = "the caller stopped waiting for it"
            self._store(ToolResult(False, None, failures.cancelled(self.tool.name, reason)))

    def _store(self, result: ToolResult) -> None:
        now = self.layer.clock()
        envelope = to_json({k: v for k, v in result.to_dict().items() if k != "notice"})
        self.layer.store.finish(self.key, self.token, envelope, now, now + self.layer.ttl)
