"""Approval as a resumable interruption: how a turn pauses for a person, and how it resumes.

When the `Policy` layer answers a call APPROVAL_REQUIRED, the loop does not send that to the
model. It asks the run's `approver` if there is one; otherwise the run stops with status
"awaiting_approval", the pending calls in `transcript.pending` (id, tool, category, validated
arguments, reason) and the turn's other answers kept in `transcript.paused`, so no tool
message is sent until every call of the turn has its one answer. The paused transcript is plain
JSON: `Transcript.from_json(t.to_json())` in another process resumes as well.

Resuming re-executes only the calls a person decided on, through the registry as before (the
audit log sees every decision): an approval is bound to (call id, hash of tool and validated
arguments), so it cannot be replayed onto changed arguments or another call; a denial runs
nothing and the model reads the reason (APPROVAL_DENIED); an edited call is validated and
decided again against the tool it now names. Calls nobody decided on stay pending.

The paused state is signed when the run pauses (`toolsys.governance.approval.sign_paused`, an
HMAC under a key the application holds, never saved in the JSON), and a resume first checks it
and each pending call's argument hash: a saved run edited on disk (12.5 made 9999.5, with or
without the hashes recomputed) is refused with a ValueError saying what changed, before anything
runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolsys._reply import Call
from toolsys._turn import Run, not_run, run_calls
from toolsys.governance.approval import (
    HumanDecision,
    PendingCall,
    arguments_hash,
    ask,
    paused_problem,
    pending_of,
    sign_paused,
)
from toolsys.result import ToolResult
from toolsys.transcript import ApprovalDecision, ToolResultEvent

AWAITING = "awaiting_approval"


async def settle(
    run: Run,
    step: int,
    calls: Sequence[Call],
    results: dict[str, ToolResult],
    answered: dict[str, str] | None = None,
    waiting: Mapping[str, PendingCall] | None = None,
    shown: Sequence[Call] = (),
) -> bool:
    """Answer the turn's calls (one tool message each, in order) or pause; True when paused.

    `results` are this round's; `answered` the tool messages of earlier rounds; `waiting` the
    calls still pending from earlier rounds (not run again); `shown` all the turn's calls,
    duplicates included, for the events' order.
    """
    by_id = {c.id: c for c in calls}
    pending = dict(waiting or {})
    pending.update(_record(run, step, by_id, results, shown))
    if pending and run.approver is not None:
        decisions: dict[str, HumanDecision] = {}
        for call_id, waiting_call in pending.items():
            decisions[call_id] = await ask(run.approver, waiting_call)
            _announce(run, step, waiting_call, decisions[call_id])
        again, _ = await run_calls(run, step, [by_id[i] for i in pending], decisions)
        results = {**results, **again}
        pending = _record(run, step, by_id, again)
    answered = dict(answered or {})
    answered.update(
        {i: r.to_message() for i, r in results.items() if i not in pending and i in by_id}
    )
    if pending:
        run.transcript.paused = sign_paused(
            {
                "run_id": run.run_id,
                "step": step,
                "calls": [c.to_dict() for c in calls],
                "answered": answered,
                "pending": [p.to_dict() for p in pending.values()],
            }
        )
        return True
    run.transcript.paused = None
    for call in calls:
        content = answered[call.id]
        run.transcript.messages.append(
            {"role": "tool", "tool_call_id": call.id, "content": content}
        )
    return False


def _record(
    run: Run,
    step: int,
    by_id: Mapping[str, Call],
    results: Mapping[str, ToolResult],
    shown: Sequence[Call] = (),
) -> dict[str, PendingCall]:
    """Emit each result (a duplicate's as not run); return the calls that wait for a person."""
    pending = {}
    for call in shown or [by_id[i] for i in results]:
        if call.duplicate:
            run.emit(ToolResultEvent(step, call.event_id, call.name, not_run(call)))
            continue
        if call.id not in results:
            continue
        result = results[call.id]
        run.emit(ToolResultEvent(step, call.id, call.name, result))
        waiting = pending_of(result, call.id, step, call.arguments)
        if waiting is not None:
            pending[call.id] = waiting
    return pending


def _announce(run: Run, step: int, call: PendingCall, decision: HumanDecision) -> None:
    run.emit(
        ApprovalDecision(step, call.id, call.tool, decision.approved, decision.by, decision.reason)
    )


async def resume_turn(
    run: Run,
    approve: Iterable[str],
    deny: Mapping[str, str],
    edit: Mapping[str, Mapping[str, Any]],
    approver_name: str | None,
) -> tuple[int, str | None]:
    """Apply a person's decisions to the paused turn: (its step, why the run stops now or None).

    The run stops when it is still awaiting approval, or when the run's deadline passed or it
    was cancelled while the decided calls ran."""
    transcript = run.transcript
    paused = transcript.paused or {}
    step = paused.get("step")
    pending = {p.id: p for p in transcript.pending}
    if transcript.status != AWAITING or not pending or type(step) is not int:
        raise ValueError(
            f"This run is {transcript.status!r}, not awaiting approval: there is nothing to "
            "resume. Resume a transcript whose status is 'awaiting_approval'."
        )
    changed = paused_problem(paused, list(pending.values()))
    if changed is not None:
        raise ValueError(
            f"This paused run cannot be resumed: {changed}. Nothing was run; resume the run "
            "as it was saved, or start it again."
        )
    approve = _ids("approve", approve, pending)
    deny = dict(deny)
    _ids("deny", deny, pending)
    _ids("edit", edit, pending)
    both = sorted(set(approve) & set(deny))
    if both:
        raise ValueError(f"Calls {both} are both approved and denied; decide each call once.")
    decisions = {i: HumanDecision(True, _shown(pending[i]), by=approver_name) for i in approve}
    for call_id, reason in deny.items():
        decisions[call_id] = HumanDecision(False, reason=str(reason), by=approver_name)
    for call_id, decision in decisions.items():
        _announce(run, step, pending[call_id], decision)
    calls = [_call(c) for c in paused.get("calls", [])]
    twice = sorted({c.id for c in calls if [d.id for d in calls].count(c.id) > 1})
    if twice:  # a live run never saves that: one approval must never run a call twice
        raise ValueError(
            f"The paused run lists the call id(s) {twice} more than once; a run pauses with "
            "each call once. The saved run was changed: it is not resumed."
        )
    for call_id, change in edit.items():
        if call_id not in deny:
            calls = [_edited(run, c, change) if c.id == call_id else c for c in calls]
    chosen = set(decisions) | set(edit)
    results, stopped = await run_calls(run, step, [c for c in calls if c.id in chosen], decisions)
    waiting = {i: p for i, p in pending.items() if i not in chosen}
    still = await settle(run, step, calls, results, dict(paused.get("answered", {})), waiting)
    return step, AWAITING if still else stopped


def _shown(pending: PendingCall) -> str:
    """The hash of what the person was shown (not the saved hash, which a file could forge)."""
    return arguments_hash(pending.tool, pending.arguments)


def _ids(what: str, ids: Any, pending: Mapping[str, PendingCall]) -> list[str]:
    """The call ids given for `what`, each one pending; ValueError naming the stray ones."""
    if isinstance(ids, str) or not isinstance(ids, Iterable):
        raise ValueError(
            f"{what}={ids!r}: give the ids of pending calls, e.g. {what}=['call_abc'] "
            "(decisions are matched by call id, never by position)."
        )
    given = list(ids)
    stray = [i for i in given if not isinstance(i, str) or i not in pending]
    if stray:
        raise ValueError(
            f"{what}: {stray!r} {'is' if len(stray) == 1 else 'are'} not pending; the pending "
            f"calls are {sorted(pending)}. Decisions are matched by call id, never by position."
        )
    return given


def _call(data: Any) -> Call:
    function = data.get("function", {}) if isinstance(data, dict) else {}
    call_id = data.get("id") if isinstance(data, dict) else None
    name, arguments = function.get("name"), function.get("arguments")
    if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, str)):
        raise ValueError(f"The paused run's call {data!r} is not an id, a name and arguments.")
    return Call(call_id, name, arguments, call_id)


def _edited(run: Run, call: Call, change: Mapping[str, Any]) -> Call:
    """The call as a person changed it; the assistant message is changed to match."""
    if not isinstance(change, Mapping) or not set(change) <= {"name", "arguments"}:
        raise ValueError(
            f"edit[{call.id!r}]={change!r}: give {{'arguments': {{...}}}} and/or {{'name': ...}}."
        )
    name = change.get("name", call.name)
    arguments = change.get("arguments")
    text = call.arguments if arguments is None else json.dumps(arguments)
    edited = Call(call.id, str(name), text, call.id)
    for message in reversed(run.transcript.messages):
        for tool_call in message.get("tool_calls") or []:
            if tool_call.get("id") == call.id:
                tool_call["function"] = {"name": edited.name, "arguments": text}
                return edited
    return edited
