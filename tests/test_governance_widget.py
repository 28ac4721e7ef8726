"""ApprovalPanel: the pending calls of a paused run, buttons that resume it (unit level)."""

from __future__ import annotations

import json

import pytest

from tests.test_governance_approval import SUPPORT, _model, _registry
from toolsys.loop import run_agent
from toolsys.models import calls, text
from toolsys.widgets import ApprovalPanel


def _paused(answer: str = "Refunded."):
    registry, ran = _registry()
    model, client = _model(
        calls(("lookup", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 20})),
        text(answer),
    )
    t = run_agent(client, registry, "refund A1", context=SUPPORT)
    panel = ApprovalPanel(t, client=client, registry=registry, context=SUPPORT, approved_by="li")
    return panel, model, ran


def _buttons(panel: ApprovalPanel):
    [card] = panel.cards.children
    info, row = card.children
    approve, deny, reason = row.children
    return info, approve, deny, reason


def test_the_panel_shows_each_pending_call_with_tool_category_arguments_and_reason():
    panel, _, _ = _paused()
    info, approve, deny, _ = _buttons(panel)
    assert "refund" in info.value and "write" in info.value and "&quot;amount&quot;" in info.value
    assert "approve" in info.value
    assert (approve.description, deny.description) == ("Approve", "Deny")
    assert 'call_0002: refund(order_id="A1", amount=20.0) (write)' in repr(panel)


def test_clicking_approve_resumes_the_run_to_the_end():
    panel, _, ran = _paused()
    _, approve, _, _ = _buttons(panel)
    approve.click()
    assert panel.transcript.status == "completed" and panel.cards.children == ()
    assert [name for name, _ in ran] == ["lookup", "refund"]
    assert "Run completed: Refunded." in panel.status.value
    assert "refund approved by li" in str(panel.transcript)


def test_clicking_deny_sends_the_reason_to_the_model():
    panel, model, ran = _paused("Sorry.")
    _, _, deny, reason = _buttons(panel)
    reason.value = "Over 10 needs a manager."
    deny.click()
    assert [name for name, _ in ran] == ["lookup"]
    sent = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    denial = json.loads(sent[-1]["content"])
    assert denial["error"]["code"] == "APPROVAL_DENIED"
    assert "Over 10 needs a manager." in denial["error"]["message"]


def test_the_panel_refuses_what_is_not_a_transcript():
    with pytest.raises(TypeError, match="takes the Transcript"):
        ApprovalPanel("run", client=None, registry=None)
