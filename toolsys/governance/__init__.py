"""Governance: whether a call may run, who approved it, code that runs around it, and a
tamper-evident record that it did.

    from toolsys.governance import AuditLog, Hooks, NeedsApproval, Policy

    policy = Policy()              # READ allow · WRITE and EXECUTE need a person's approval
    policy = Policy(rules={"refund": NeedsApproval("money moves")},
                    grants={"support": {Category.WRITE}})
    registry = Registry(layers=[AuditLog("audit.jsonl"), Hooks(before=[...]), policy, ...])
    registry.export("openai", context={"user": "ana", "roles": {"viewer"}})   # what ana may use

One decision (`decide`, `toolsys.governance.policy`) is made when tools are listed and again
when a call arrives. A call that needs approval comes back APPROVAL_REQUIRED (not run); the
agent loop pauses on it (`t.status == "awaiting_approval"`, `t.pending`) and
`resume_agent(..., approve=[...], deny={...})` continues (`toolsys.governance.approval`).
`AuditLog` writes one hash-chained JSON line per tool call (`toolsys.governance.audit`).
"""

from toolsys.governance.approval import (
    HumanDecision,
    PendingCall,
    arguments_hash,
    set_pause_key,
)
from toolsys.governance.audit import AuditLog
from toolsys.governance.decisions import Allow, Decision, Deny, NeedsApproval
from toolsys.governance.hooks import Hook, Hooks
from toolsys.governance.policy import Policy, decide

__all__ = [
    "Allow",
    "AuditLog",
    "Decision",
    "Deny",
    "Hook",
    "Hooks",
    "HumanDecision",
    "NeedsApproval",
    "PendingCall",
    "Policy",
    "arguments_hash",
    "decide",
    "set_pause_key",
]
