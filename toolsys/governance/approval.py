"""Approvals: what a person decided about a pending call, bound to that exact call.

Why a key of (tool_call_id, hash of the tool name and canonical arguments): an approval given
for "refund 20" must not let "refund 2000" through, nor approve a different call that happens
to sit at the same position in a list (the failure langchain#37093 describes). The arguments
are the *validated* ones, written as canonical JSON (sorted keys, no spaces), so the person
approves what would really run, and any change, to the tool or to one argument, is a new call
that needs a new approval.

The person's decisions reach the `Policy` layer through a context variable set around the
re-executed calls (`human_decisions(...)`), never through the model's messages or arguments:
nothing a model writes can approve a call.

A paused run is signed (`sign_paused`): its saved state (the turn's calls, the answers so far,
the pending calls with their arguments and hashes) carries an HMAC-SHA256 under a key the
application holds (`set_pause_key`, or the environment's `TOOLSYS_PAUSE_KEY`; without either,
a random key of this process, so a run resumes only in the process that paused it). The key is
never written into the saved JSON. `paused_problem` tells a resume what was changed: a pending
call whose arguments no longer match the hash taken at the pause, or a state whose signature
fails (edited, with the hashes recomputed or not, or signed with another key). What it cannot
protect against: a leaked key (whoever holds it can sign anything), and an approver who
approves what they are shown (the signature proves the state is the one paused, not that the
call is wise).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import hmac
import inspect
import json
import os
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any

from toolsys._sendable import sendable
from toolsys.result import ToolResult

Approver = Callable[["PendingCall"], Any]
"""`approver(pending) -> True (approve) | False or str (deny, with that reason)`; may be async."""


def arguments_hash(tool: str, arguments: Mapping[str, Any]) -> str:
    """SHA-256 of the tool name and the canonical JSON of its validated arguments."""
    text = json.dumps(
        {"tool": tool, "arguments": arguments},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=repr,
    )
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class HumanDecision:
    """A person's answer for one call id; an approval holds only for the arguments' `hash`."""

    approved: bool
    hash: str = ""
    by: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class PendingCall:
    """A call waiting for a person: what they need to see to decide, and what binds the answer."""

    id: str
    tool: str
    category: str
    arguments: dict[str, Any]
    reason: str
    hash: str
    step: int = 0
    raw_arguments: str = field(default="", repr=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> PendingCall:
        """A pending call saved with `to_dict`; ValueError naming what is missing or wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a pending call is an object, not {type(data).__name__}")
        kinds = {"id": str, "tool": str, "category": str, "arguments": dict, "reason": str}
        for key, kind in {**kinds, "hash": str}.items():
            if not isinstance(data.get(key), kind):
                raise ValueError(f"pending call field {key!r} is missing or not {kind.__name__}")
        step, raw = data.get("step", 0), data.get("raw_arguments", "")
        if type(step) is not int or not isinstance(raw, str):
            raise ValueError("pending call fields 'step'/'raw_arguments' have the wrong type")
        return cls(**{k: data[k] for k in (*kinds, "hash")}, step=step, raw_arguments=raw)


_DECISIONS: contextvars.ContextVar[Mapping[str, HumanDecision]] = contextvars.ContextVar(
    "toolsys_human_decisions", default=MappingProxyType({})
)


@contextlib.contextmanager
def human_decisions(decisions: Mapping[str, HumanDecision]) -> Iterator[None]:
    """Make `decisions` (by call id) visible to the Policy layer for calls made inside."""
    token = _DECISIONS.set(dict(decisions))
    try:
        yield
    finally:
        _DECISIONS.reset(token)


def human_decision(call_id: str | None, key: str) -> HumanDecision | None:
    """The person's decision for this call id: a denial always, an approval only for `key`."""
    if call_id is None:
        return None
    decision = _DECISIONS.get().get(call_id)
    if decision is None or (decision.approved and decision.hash != key):
        return None
    return decision


@dataclass(frozen=True, slots=True)
class Decided:
    """A call a policy let run: its tool, its call id, "allow" or "approved", and by whom."""

    tool: str
    call_id: str | None
    decision: str = "allow"
    by: str | None = None


_DECIDED: contextvars.ContextVar[Decided | None] = contextvars.ContextVar(
    "toolsys_decided", default=None
)


class deciding:  # lower case: used like the function it replaced, `with deciding(...)`
    """Mark this call as decided by a policy ("allow", or "approved" by a person), so a later
    rewrite of its arguments is refused, and the steps of a composite it runs are covered.

    A class rather than a generator-based context manager: it runs on every allowed call.
    """

    __slots__ = ("_mark", "_token")

    def __init__(
        self, tool: str, call_id: str | None, decision: str = "allow", by: str | None = None
    ) -> None:
        self._mark = Decided(tool, call_id, decision, by)

    def __enter__(self) -> None:
        self._token = _DECIDED.set(self._mark)

    def __exit__(self, *exc: object) -> None:
        _DECIDED.reset(self._token)


def decided_on() -> tuple[str, str | None] | None:
    """The (tool, call id) a policy decided on around the code running now, or None."""
    mark = _DECIDED.get()
    return None if mark is None else (mark.tool, mark.call_id)


def covering(call_id: str | None) -> Decided | None:
    """The decided call that `call_id` is a step of (a composite's inner call: `c1/2` of `c1`),
    or None. Only a step is covered: its id is derived from the decided call's."""
    mark = _DECIDED.get()
    if mark is None or call_id is None:
        return None
    base = mark.call_id or mark.tool
    return mark if call_id.startswith(base + "/") else None


def pending_of(result: ToolResult, call_id: str, step: int, raw: str) -> PendingCall | None:
    """The pending call an APPROVAL_REQUIRED result describes, or None for any other result."""
    if result.ok or result.meta.get("decision") != "needs_approval":
        return None
    info = result.meta.get("approval")
    if not isinstance(info, dict):
        return None
    return PendingCall(
        id=call_id,
        tool=str(info.get("tool")),
        category=str(info.get("category")),
        arguments=dict(info.get("arguments") or {}),
        reason=str(info.get("reason") or ""),
        hash=str(info.get("hash")),
        step=step,
        raw_arguments=raw,
    )


async def ask(approver: Approver, pending: PendingCall) -> HumanDecision:
    """The approver's answer as a decision; one that raises or answers nonsense is a denial."""
    name = getattr(approver, "__name__", type(approver).__name__)
    try:
        answer = approver(pending)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as exc:
        return HumanDecision(False, reason=f"the approver failed ({type(exc).__name__})")
    if answer is True:  # bound to the arguments the approver was shown
        return HumanDecision(True, arguments_hash(pending.tool, pending.arguments), by=name)
    if isinstance(answer, str):
        return HumanDecision(False, reason=answer)
    if answer is False:
        return HumanDecision(False, reason="the approver declined it")
    return HumanDecision(False, reason=f"the approver answered {answer!r}, not True or a reason")


PAUSE_KEY_ENV = "TOOLSYS_PAUSE_KEY"
"""The environment variable that holds the key paused runs are signed with (16+ characters)."""
_MIN_KEY = 16
_pause_key: list[bytes] = []  # set_pause_key's key
_process_key = secrets.token_bytes(32)  # when neither is set: a run resumes in this process only


def set_pause_key(key: bytes | str | None) -> None:
    """Sign paused runs with `key` from now on (None: back to the environment's or this
    process's own). Give every process that pauses or resumes runs the same key, from a secret
    store: a run saved in one process resumes in another only if both hold it."""
    _pause_key.clear()
    if key is None:
        return
    data = key.encode("utf-8") if isinstance(key, str) else key
    if not isinstance(data, bytes) or len(data) < _MIN_KEY:
        raise ValueError(
            f"set_pause_key: give at least {_MIN_KEY} bytes (bytes or text), e.g. "
            "secrets.token_hex(32) kept in a secret store; a short key can be guessed."
        )
    _pause_key.append(data)


def _key() -> bytes:
    if _pause_key:
        return _pause_key[0]
    text = os.environ.get(PAUSE_KEY_ENV, "")
    return text.encode("utf-8") if len(text) >= _MIN_KEY else _process_key


def _signed_text(state: Mapping[str, Any]) -> bytes:
    body = {key: value for key, value in state.items() if key != "signature"}
    text = json.dumps(sendable(body), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.encode("ascii")


def sign_paused(state: Mapping[str, Any]) -> dict[str, Any]:
    """`state` with its `signature`: the HMAC of its canonical JSON under the pause key."""
    signature = hmac.new(_key(), _signed_text(state), hashlib.sha256).hexdigest()
    return {**state, "signature": signature}


def paused_problem(state: Mapping[str, Any], pending: list[PendingCall]) -> str | None:
    """What was changed in a paused run since it paused, or None when it is as it was."""
    for call in pending:
        if arguments_hash(call.tool, call.arguments) != call.hash:
            return (
                f"the arguments of the pending call {call.id!r} ({call.tool}) no longer match "
                "the hash taken when the run paused: they were edited"
            )
    signature = state.get("signature")
    if not isinstance(signature, str):
        return "its paused state carries no signature (it was not saved by this version)"
    expected = hmac.new(_key(), _signed_text(state), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature, expected):
        return (
            "its paused state does not match its signature: it was edited after the pause, or "
            "signed with another key (set the same key in every process that pauses or resumes "
            f"runs: toolsys.governance.set_pause_key(...) or {PAUSE_KEY_ENV})"
        )
    return None
