"""The results the policy answers with, worded for the model, marked for the audit log.

Every result the `Policy` layer returns carries `meta["decision"]`: "allow", "deny",
"needs_approval", "approved" or "denied_by_human" (and `meta["approved_by"]` when approved),
so an outer layer such as the audit log records what was decided without deciding again.
"""

from __future__ import annotations

from typing import Any

from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.execution import Call
from toolsys.failures import not_permitted
from toolsys.result import ToolResult
from toolsys.tool import Tool


def decided(result: ToolResult, decision: str, **extra: Any) -> ToolResult:
    """`result` (a copy) with the decision that let it run in its meta."""
    meta = {**result.meta, "decision": decision, **extra}
    return ToolResult(result.ok, result.value, result.error, meta, result.exception, result.notice)


def denied(name: str, reason: str, *, by_human: bool = False) -> ToolResult:
    """PERMISSION_DENIED (the policy said no) or APPROVAL_DENIED (a person said no); not run."""
    if by_human:
        error = ErrorInfo(
            ErrorCode.APPROVAL_DENIED,
            f"A person declined this call to {name!r}; it did not run. Their reason: "
            f"{reason or 'none given'}",
            "Do not repeat this call. Tell the user it was declined and why, or ask them "
            "what to do instead.",
        )
        return ToolResult.failure(error, decision="denied_by_human")
    return ToolResult.failure(not_permitted(name, reason), decision="deny")


def required(tool: Tool, call: Call, reason: str, key: str) -> ToolResult:
    """APPROVAL_REQUIRED: not run; the meta holds what a person must see to decide."""
    error = ErrorInfo(
        ErrorCode.APPROVAL_REQUIRED,
        f"The call to {tool.name!r} needs a person's approval before it runs, and has not "
        f"run: {reason}",
        "Wait for the approval; run it from the agent loop (run_agent pauses for it) or "
        "resume with resume_agent(..., approve=[call id]).",
        details={"tool": tool.name, "category": str(tool.category)},
    )
    approval = {
        "tool": tool.name,
        "category": str(tool.category),
        "arguments": call.values,
        "reason": reason,
        "hash": key,
    }
    return ToolResult.failure(error, decision="needs_approval", approval=approval)
