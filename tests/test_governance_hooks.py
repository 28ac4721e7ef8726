"""Hooks: before-hooks deny or rewrite (re-validated), after-hooks redact; failures contained."""

from __future__ import annotations

import asyncio

from toolsys import Registry, ToolResult
from toolsys.governance import Deny, Hook, Hooks, Policy
from toolsys.spec import Category


def _registry(*layers) -> tuple[Registry, list]:
    ran: list = []
    registry = Registry(layers=list(layers))

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order."""
        ran.append(amount)
        return {"refunded": amount, "email": "ana@example.com"}

    @registry.tool
    def lookup(q: str) -> str:
        """Look up."""
        ran.append(q)
        return q

    return registry, ran


def test_a_before_hook_may_deny_and_the_tool_does_not_run():
    hooks = Hooks(before=[lambda call: Deny("Not on Sundays.")])
    registry, ran = _registry(hooks)
    result = registry.execute("lookup", {"q": "x"})
    assert result.error.code == "PERMISSION_DENIED" and "Not on Sundays." in result.error.message
    assert ran == []


def test_rewritten_arguments_are_validated_again():
    registry, ran = _registry(Hooks(before=[lambda call: {"q": 42}]))
    result = registry.execute("lookup", {"q": "x"})
    assert result.error.code == "INVALID_ARGUMENTS" and ran == []
    registry, ran = _registry(Hooks(before=[lambda call: {"q": call.values["q"].upper()}]))
    assert registry.execute("lookup", {"q": "x"}).value == "X" and ran == ["X"]


def test_an_after_hook_may_redact_the_result():
    def hide_email(call, result):
        if result.ok:
            return ToolResult.success({**result.value, "email": "[hidden]"})
        return None

    registry, _ = _registry(Hooks(after=[hide_email]))
    result = registry.execute("refund", {"order_id": "A", "amount": 1})
    assert result.value["email"] == "[hidden]" and "ana@example.com" not in result.to_message()


def test_hooks_filter_by_tool_name_and_category():
    seen = []
    hooks = Hooks(
        before=[
            Hook(lambda call: seen.append(("name", call.name)), tools=frozenset({"lookup"})),
            Hook(
                lambda call: seen.append(("cat", call.name)),
                categories=frozenset({Category.WRITE}),
            ),
        ]
    )
    registry, _ = _registry(hooks)
    registry.execute("lookup", {"q": "x"})
    registry.execute("refund", {"order_id": "A", "amount": 1})
    assert seen == [("name", "lookup"), ("cat", "refund")]
    registry, _ = _registry(Hooks(before=[lambda call: Deny("no")], categories=["write"]))
    assert registry.execute("lookup", {"q": "x"}).ok


def test_async_hooks_are_awaited():
    async def slow_deny(call):
        await asyncio.sleep(0)
        return Deny("later")

    registry, ran = _registry(Hooks(before=[slow_deny]))
    assert registry.execute("lookup", {"q": "x"}).error.code == "PERMISSION_DENIED"
    assert ran == []


def test_a_raising_hook_is_contained_and_says_whether_the_call_ran():
    registry, ran = _registry(Hooks(before=[lambda call: 1 / 0]))
    before = registry.execute("lookup", {"q": "x"})
    assert before.error.code == "LAYER_ERROR" and ran == []
    assert "Traceback" not in before.to_message() and before.meta["hook"] == "<lambda>"

    def broken(call, result):
        raise RuntimeError("boom")

    registry, ran = _registry(Hooks(after=[broken]))
    after = registry.execute("lookup", {"q": "x"})
    assert after.error.code == "LAYER_ERROR" and ran == ["x"]
    assert "ran; its result is withheld" in after.error.message


def test_a_hook_returning_nonsense_is_contained():
    registry, ran = _registry(Hooks(before=[lambda call: 7]))
    assert registry.execute("lookup", {"q": "x"}).error.code == "LAYER_ERROR" and ran == []


def test_a_rewrite_after_the_policy_decided_is_refused():
    sneaky = Hooks(before=[lambda call: {**call.values, "amount": 9999}])
    registry, ran = _registry(Policy(grants={"ops": {"write"}}), sneaky)
    result = registry.execute("refund", {"order_id": "A", "amount": 1}, context={"roles": ["ops"]})
    assert result.error.code == "PERMISSION_DENIED" and ran == []
    assert "Hooks before Policy" in result.error.suggestion


def test_a_rewrite_before_the_policy_is_decided_by_the_policy():
    hooks = Hooks(before=[lambda call: {**call.values, "amount": 9999}], tools=["refund"])
    registry, ran = _registry(hooks, Policy())
    result = registry.execute("refund", {"order_id": "A", "amount": 1})
    assert result.error.code == "APPROVAL_REQUIRED"
    assert result.meta["approval"]["arguments"]["amount"] == 9999.0 and ran == []


def test_a_rewrite_in_a_registry_called_from_inside_a_governed_tool_is_not_refused():
    inner, ran = _registry(Hooks(before=[lambda call: {"q": "rewritten"}]), Policy())
    outer = Registry(layers=[Policy()])

    @outer.tool
    def composite(q: str) -> str:
        """Calls another registry."""
        return inner.execute("lookup", {"q": q}).value

    assert outer.execute("composite", {"q": "x"}).value == "rewritten" and ran == ["rewritten"]
