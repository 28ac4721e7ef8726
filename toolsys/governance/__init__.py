"""Governance: whether a call may run, who approved it, and code that runs around it.

    from toolsys.governance import Policy, Allow, Deny, NeedsApproval, Hooks

    policy = Policy()              # READ allow · WRITE and EXECUTE need a person's approval
    policy = Policy(rules={"refund": NeedsApproval("money moves")},
                    grants={"support": {Category.WRITE}})
    registry = Registry(layers=[Hooks(before=[...]), policy, ...robustness layers])
    registry.export("openai", context={"user": "ana", "roles": {"viewer"}})   # what ana may use

One decision (`decide`, `toolsys.governance.policy`) is made when tools are listed and again
when a call arrives. A call that needs approval comes back APPROVAL_REQUIRED (not run); the
agent loop pauses on it (`t.status == "awaiting_approval"`, `t.pending`) and
`resume_agent(..., approve=[...], deny={...})` continues (`toolsys.governance.approval`).
"""

from toolsys.governance.approval import HumanDecision, PendingCall, arguments_hash
from toolsys.governance.decisions import Allow, Decision, Deny, NeedsApproval
from toolsys.governance.hooks import Hook, Hooks
from toolsys.governance.policy import Policy, decide

__all__ = [
    "Allow",
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
]
