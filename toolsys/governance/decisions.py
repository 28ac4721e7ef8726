"""The three answers a policy can give about one call: `Allow`, `Deny`, `NeedsApproval`.

Why values and not booleans: a refusal has to say why (the model reads the reason as data, the
audit log records it), and "ask a human first" is a third answer that is neither yes nor no.
A rule may return any of them, and `Policy(rules={"refund": NeedsApproval("money moves")})`
uses one as a fixed answer for a tool.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Allow:
    """The call may run now."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class Deny:
    """The call may not run; `reason` is shown to the model (PERMISSION_DENIED)."""

    reason: str = "The policy does not allow this call."


@dataclass(frozen=True, slots=True)
class NeedsApproval:
    """The call may run once a person approves these exact arguments."""

    reason: str = "This call changes something, so a person must approve it first."


Decision = Allow | Deny | NeedsApproval
DECISIONS = (Allow, Deny, NeedsApproval)
