"""Governance: whether a call may run, and a tamper-evident record that it did.

`AuditLog` is an execution layer that writes one hash-chained JSON line per tool call; see
`toolsys.governance.audit`.
"""

from toolsys.governance.audit import AuditLog

__all__ = ["AuditLog"]
