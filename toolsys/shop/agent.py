"""The shop's agent: every tool on one registry, with every layer of the book switched on.

Read top to bottom, this is the capstone's answer to "what does a production tool layer look
like": the audit log outermost (it sees every call, whatever happens inside), a result budget
that keeps any one result to what a context window can take, hooks that keep card numbers and
e-mail addresses out of what the model reads, the policy that decides who may run what (and when
a person must approve), then the robustness layers around each tool.
Lesson: notebooks/12_capstone.ipynb builds this agent one layer at a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from toolsys import Category, Registry
from toolsys.governance import Allow, AuditLog, Decision, Hooks, NeedsApproval, Policy
from toolsys.layers import ResultBudget, Retry, Timeout
from toolsys.result import ToolResult
from toolsys.shop.db import Shop
from toolsys.shop.tools import tools
from toolsys.tool import Tool

REFUND_LIMIT = 50.0
"""A customer may refund up to this much on their own order without asking anyone."""
GRANTS = {"customer": {Category.WRITE}, "agent": {Category.WRITE}, "manager": {Category.WRITE}}
"""Who may change data without approval (refunds have their own rule; EXECUTE is never granted)."""
RESULT_CHARS = 20_000
"""The shop agent's result budget: no one tool message is longer (`ResultBudget`)."""
_CARD = re.compile(r"\b(?:\d[ -]?){12,15}\d\b")
_CARD_CHARS = 13  # `_CARD` needs 13 digits at least: a shorter text holds no card number
_DOMAIN = re.compile(r"@[\w-]+(?:\.[\w-]+)+")


def refund_rule(limit: float = REFUND_LIMIT) -> Callable[..., Decision]:
    """Managers refund freely; a customer up to `limit` on their own order; anyone else asks."""

    def rule(tool: Tool, arguments: Mapping[str, Any] | None, context: Mapping[str, Any]):
        roles = set(context.get("roles") or ())
        if "manager" in roles:
            return Allow()
        amount = (arguments or {}).get("amount", 0)
        if "customer" in roles and isinstance(amount, int | float) and amount <= limit:
            return Allow()
        return NeedsApproval(f"a refund of {amount} needs a manager's approval")

    return rule


def _hide_emails(text: str) -> str:
    """Each `local@domain.tld` as "[email hidden]", in time linear in the text.

    Not one regex `[\\w.+-]+@...`: tried at every position, its first part runs to the end of a
    long word before failing, which is quadratic (0.8 s for 10,000 letters). Here the domain is
    found from each "@" and the local part read backwards from it, never past the last match.
    """
    if "@" not in text:
        return text
    parts, done = [], 0
    for match in _DOMAIN.finditer(text):
        start = match.start()
        while start > done and (text[start - 1].isalnum() or text[start - 1] in "_.+-"):
            start -= 1
        if start < match.start():
            parts += [text[done:start], "[email hidden]"]
            done = match.end()
    return "".join(parts) + text[done:]


def _hide_personal(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) >= _CARD_CHARS:
            value = _CARD.sub("[card hidden]", value)
        return _hide_emails(value)
    if isinstance(value, list):
        return [_hide_personal(item) for item in value]
    if isinstance(value, dict):
        return {key: _hide_personal(item) for key, item in value.items()}
    return value


def hide_personal(call: Any, result: ToolResult) -> ToolResult:
    """After-hook: card numbers and e-mail addresses never reach the model."""
    if not result.ok:
        return result
    return ToolResult(
        True, _hide_personal(result.value), None, result.meta, result.exception, result.notice
    )


def deadline(seconds: float) -> Timeout:
    """The shop's Timeout: every shop tool works through `Shop.connect`, which stops at the
    call's deadline, so all of them run inline (cooperative), with no hop to a worker thread."""
    return Timeout(seconds=seconds, cooperative={fn.__name__ for fn, _ in tools()})


def build(
    shop: Shop,
    *,
    audit: str | Path | AuditLog | None = None,
    layers: list[Any] | None = None,
    refund_limit: float = REFUND_LIMIT,
    timeout: float = 2.0,
) -> Registry:
    """A registry of every shop tool bound to `shop`, with audit, hooks, policy and robustness.

    `layers` are added innermost, just around the tools (the scenario runner's fault injection
    and invariant checks go there). `audit` is a path or an `AuditLog` of your own (e.g. one
    with a fixed `clock=`).
    """
    policy = Policy(rules={"refund_order": refund_rule(refund_limit)}, grants=GRANTS)
    log = audit if isinstance(audit, AuditLog) or audit is None else AuditLog(audit)
    stack: list[Any] = [log] if log is not None else []
    stack += [ResultBudget(max_chars=RESULT_CHARS), Hooks(after=[hide_personal])]
    stack += [policy, Retry(seed=0), deadline(timeout)]
    registry = Registry(layers=stack + list(layers or []))
    registry.provide(shop=shop)
    for fn, options in tools():
        registry.register(fn, **options)
    return registry
