"""A call that needs a person's approval, served over MCP 2026-07-28: ask through the client.

In the agent loop, a call the `Policy` answers APPROVAL_REQUIRED pauses the run until a person
decides (toolsys/_pause.py). Served over MCP, the person sits behind the *client*, and revision
2026-07-28 gives the server a way to ask them within the request itself, the multi round-trip
pattern (MRTR, SEP-2322; docs/specification/2026-07-28/basic/patterns/mrtr.mdx):

1. `tools/call` -> the Policy wants approval -> the server answers an `InputRequiredResult`
   (`resultType: "input_required"`) whose `inputRequests` hold one form elicitation ("approve
   refund(order_id='A1', amount=20)? ...": `approve` yes/no and an optional `reason`) and whose
   `requestState` names the call and the hash of its validated arguments;
2. the client asks its user and retries the same `tools/call` with `inputResponses` and the
   `requestState` echoed;
3. the server runs the call again with that decision visible to the Policy (the same
   `human_decisions` a resumed run uses): approved -> it runs, bound to the arguments shown (the
   Policy checks the hash, so a retry with other arguments asks again); declined, cancelled or
   "no" -> APPROVAL_DENIED, with the reason, and nothing runs. The audit log sees each round.

The `requestState` is sealed by the SDK (mcp 2.3 `RequestStateBoundary`: an authenticated,
expiring token bound to the request and its arguments), as the spec requires of state that
influences business logic: a forged state, or a retry with other arguments, is refused before
toolsys sees it ("Invalid or expired requestState"). Behind that, the Policy binds an approval
to the hash of the arguments shown, as it does for a resumed run.

Asked only where it can be answered: the request must speak 2026-07-28 and the client must have
declared the `elicitation` capability (a server MUST NOT send input requests a client did not
declare support for). Otherwise the answer is what it always was: an `isError` result carrying
the APPROVAL_REQUIRED envelope, which the host's model reads.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)

from toolsys.governance.approval import HumanDecision, human_decisions, pending_of
from toolsys.result import ToolResult

MRTR_VERSION = "2026-07-28"
INPUT_KEY = "toolsys/approval"
"""The key of the approval question in `inputRequests` (and of its answer in `inputResponses`)."""

Execute = Callable[..., Awaitable[ToolResult]]


async def approved_call(
    execute: Execute, name: str, arguments: Mapping[str, Any], context: Any
) -> ToolResult | InputRequiredResult:
    """Run one `tools/call` through `execute(call_id=...)`, asking the client for approval.

    `context`: the MCP request's `Context` (None outside a request: then no question is asked).
    """
    state = _state(context)
    if state is not None:  # a retry: the person's answer decides this call
        call_id = state["call_id"]
        with human_decisions({call_id: _decision(state, _answer(context))}):
            result = await execute(call_id=call_id)
    else:
        call_id = f"mcp-{getattr(context, 'request_id', None) or 'call'}"
        result = await execute(call_id=call_id)
    pending = pending_of(result, call_id, 0, json.dumps(dict(arguments), default=str))
    if pending is None or not _can_ask(context):
        return result
    # asked (again, when a retry's arguments are not the ones approved: the Policy binds an
    # approval to the arguments' hash)
    shown = ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in pending.arguments.items()
    )
    question = ElicitRequest(
        params=ElicitRequestFormParams(
            message=f"Approve {pending.tool}({shown})? {pending.reason}".strip(),
            requested_schema={
                "type": "object",
                "properties": {
                    "approve": {"type": "boolean", "description": "Run this call as shown."},
                    "reason": {
                        "type": "string",
                        "description": "Why not (the model reads it when you decline).",
                    },
                },
                "required": ["approve"],
            },
        )
    )
    return InputRequiredResult(
        input_requests={INPUT_KEY: question},
        request_state=json.dumps({"call_id": call_id, "tool": pending.tool, "hash": pending.hash}),
    )


def _can_ask(context: Any) -> bool:
    """The request speaks MRTR and the client said it can answer a form elicitation."""
    if context is None or getattr(context, "protocol_version", None) != MRTR_VERSION:
        return False
    capabilities = getattr(context, "client_capabilities", None)
    return getattr(capabilities, "elicitation", None) is not None


def _state(context: Any) -> dict[str, str] | None:
    """The call a retry decides on, from the echoed `requestState` (None on a first round)."""
    raw = getattr(context, "request_state", None) if context is not None else None
    if not isinstance(raw, str):
        return None
    try:
        state = json.loads(raw)
    except json.JSONDecodeError:
        return None
    keys = ("call_id", "tool", "hash")
    if not (isinstance(state, dict) and all(isinstance(state.get(k), str) for k in keys)):
        return None
    return {k: state[k] for k in keys}


def _answer(context: Any) -> Any:
    responses = getattr(context, "input_responses", None) or {}
    return responses.get(INPUT_KEY) if isinstance(responses, Mapping) else None


def _decision(state: Mapping[str, str], answer: Any) -> HumanDecision:
    """The person's answer as the Policy reads it: only an explicit yes approves."""
    if not isinstance(answer, ElicitResult):
        return HumanDecision(False, reason="the client sent no answer to the approval question")
    content = answer.content or {}
    if answer.action != "accept":
        return HumanDecision(False, reason=f"the person chose {answer.action!r} in the client")
    if content.get("approve") is not True:
        reason = content.get("reason")
        return HumanDecision(False, reason=str(reason) if reason else "declined in the client")
    return HumanDecision(True, state["hash"], by="mcp client")
