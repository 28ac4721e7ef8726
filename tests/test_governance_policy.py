"""The decision layer: defaults by category, rules, grants, roles, `available`; fails closed."""

from __future__ import annotations

import pytest

from toolsys import Registry
from toolsys.errors import ToolDefinitionError
from toolsys.governance import Allow, Deny, NeedsApproval, Policy, decide
from toolsys.spec import Category


def _registry(policy: Policy | None = None) -> tuple[Registry, list[str]]:
    ran: list[str] = []
    registry = Registry(layers=[policy or Policy()])

    @registry.tool
    def lookup(q: str) -> str:
        """Look something up."""
        ran.append("lookup")
        return q

    @registry.tool(category=Category.WRITE, roles={"support"})
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order."""
        ran.append("refund")
        return {"refunded": amount}

    @registry.tool(category=Category.EXECUTE)
    def run_code(code: str) -> str:
        """Run code."""
        ran.append("run_code")
        return "ran"

    @registry.tool(available=lambda context: context.get("beta") is True)
    def beta_search(q: str) -> str:
        """A feature behind a flag."""
        ran.append("beta_search")
        return q

    return registry, ran


SUPPORT = {"user": "ana", "roles": {"support"}}


def test_defaults_read_allows_write_and_execute_need_approval():
    registry, _ = _registry()
    assert isinstance(decide(registry.get("lookup"), {"q": "x"}), Allow)
    assert isinstance(decide(registry.get("run_code"), {"code": "1"}), NeedsApproval)
    assert isinstance(decide(registry.get("refund"), {}, SUPPORT), NeedsApproval)


def test_a_write_call_without_approval_comes_back_approval_required_and_never_runs():
    registry, ran = _registry()
    result = registry.execute("refund", {"order_id": "A1", "amount": 5}, context=SUPPORT)
    assert result.error.code == "APPROVAL_REQUIRED"
    assert result.meta["decision"] == "needs_approval"
    assert result.meta["approval"]["arguments"] == {"order_id": "A1", "amount": 5.0}
    assert ran == []


def test_allowed_calls_say_so_in_meta():
    registry, ran = _registry()
    result = registry.execute("lookup", {"q": "x"})
    assert result.ok and result.meta["decision"] == "allow" and ran == ["lookup"]


def test_a_role_grant_lets_that_role_run_the_category_without_approval():
    registry, ran = _registry(Policy(grants={"support": {Category.WRITE}}))
    result = registry.execute("refund", {"order_id": "A1", "amount": 5}, context=SUPPORT)
    assert result.ok and result.meta["decision"] == "allow" and ran == ["refund"]


def test_a_per_tool_rule_wins_over_a_grant():
    policy = Policy(rules={"refund": NeedsApproval("money moves")}, grants={"support": {"write"}})
    registry, ran = _registry(policy)
    result = registry.execute("refund", {"order_id": "A1", "amount": 5}, context=SUPPORT)
    assert result.error.code == "APPROVAL_REQUIRED" and "money moves" in result.error.message
    assert ran == []


def test_a_rule_function_sees_the_validated_arguments():
    def small_only(tool, arguments, context):
        return Allow() if arguments["amount"] <= 10 else Deny("Over 10 needs a manager.")

    registry, ran = _registry(Policy(rules={"refund": small_only}))
    assert registry.execute("refund", '{"order_id": "A", "amount": 3}', context=SUPPORT).ok
    big = registry.execute("refund", {"order_id": "A", "amount": 300}, context=SUPPORT)
    assert big.error.code == "PERMISSION_DENIED" and "manager" in big.error.message
    assert big.meta["decision"] == "deny" and ran == ["refund"]


def test_the_listing_shows_only_what_the_caller_may_use():
    registry, _ = _registry()
    names = lambda ctx: [t["function"]["name"] for t in registry.export(context=ctx)]  # noqa: E731
    assert names({"roles": {"viewer"}}) == ["lookup", "run_code"]
    assert names(SUPPORT) == ["lookup", "refund", "run_code"]
    assert names({"beta": True}) == ["lookup", "run_code", "beta_search"]
    assert len(registry.export()) == 4  # the context-free export is unchanged


def test_the_context_free_export_stays_cached_and_per_context_exports_are_shared():
    registry, _ = _registry()
    assert registry.export() is registry.export()
    assert registry.export(context={"roles": ["x"]}) is registry.export(context={"roles": ["y"]})


def test_a_hidden_tool_called_directly_is_permission_denied_and_does_not_run():
    registry, ran = _registry()
    for context in (None, {"roles": {"viewer"}}, {"roles": "support-ish"}):
        result = registry.execute("refund", {"order_id": "A", "amount": 1}, context=context)
        assert result.error.code == "PERMISSION_DENIED", context
        assert "only for the roles support" in result.error.message
    flagged = registry.execute("beta_search", {"q": "x"}, context={"beta": "yes"})
    assert flagged.error.code == "PERMISSION_DENIED"
    assert ran == []


def test_an_unknown_category_fails_closed():
    registry, ran = _registry()
    tool = registry.get("lookup")
    object.__setattr__(tool, "category", "admin")
    decision = decide(tool, {"q": "x"})
    assert isinstance(decision, Deny) and "unknown category 'admin'" in decision.reason
    assert registry.execute("lookup", {"q": "x"}).error.code == "PERMISSION_DENIED"
    assert "lookup" not in [t["function"]["name"] for t in registry.export(context={})]
    assert ran == []


@pytest.mark.parametrize(
    "rule",
    [
        lambda tool, arguments, context: 1 / 0,
        lambda tool, arguments, context: True,
        lambda tool, arguments, context: "allow",
    ],
)
def test_a_rule_that_raises_or_answers_nonsense_is_a_denial(rule):
    registry, ran = _registry(Policy(rules={"lookup": rule}))
    result = registry.execute("lookup", {"q": "x"})
    assert result.error.code == "PERMISSION_DENIED" and ran == []
    assert "Traceback" not in result.to_message()


def test_an_available_check_that_raises_is_a_denial_and_hides_the_tool():
    registry = Registry(layers=[Policy()])

    @registry.tool(available=lambda context: context["missing"])
    def flaky(q: str) -> str:
        """Flaky."""
        return q

    result = registry.execute("flaky", {"q": "x"})
    assert result.error.code == "PERMISSION_DENIED" and "KeyError" in result.error.message
    assert registry.export(context={}) == []


def test_malformed_roles_in_the_context_fail_closed():
    registry, ran = _registry(Policy(grants={"support": {Category.WRITE}}))
    result = registry.execute("refund", {"order_id": "A", "amount": 1}, context={"roles": 7})
    assert result.error.code == "PERMISSION_DENIED" and ran == []


def test_bad_options_are_refused_with_one_clear_line():
    with pytest.raises(ValueError, match="is not a category"):
        Policy(grants={"support": {"wrte"}})
    with pytest.raises(ValueError, match="a rule is Allow"):
        Policy(rules={"refund": "yes"})
    registry = Registry()
    with pytest.raises(ToolDefinitionError, match="roles=7"):
        registry.register(lambda: 1, name="x", roles=7)
    with pytest.raises(ToolDefinitionError, match="available=True is not callable"):
        registry.register(lambda: 1, name="y", available=True)


def test_policy_applies_to_spec_tools_too():
    from toolsys.spec import Param, ToolSpec

    registry = Registry(layers=[Policy()])
    spec = ToolSpec(
        "delete_file",
        "Delete a file.",
        [Param("path", "string", "The path.")],
        category=Category.WRITE,
    )
    registry.register(spec, lambda path: path, roles={"admin"})
    assert registry.execute("delete_file", {"path": "a"}).error.code == "PERMISSION_DENIED"
    admin = registry.execute("delete_file", {"path": "a"}, context={"roles": ["admin"]})
    assert admin.error.code == "APPROVAL_REQUIRED"


def test_a_thousand_scripted_write_calls_execute_zero_times_without_an_approval():
    from toolsys.loop import run_agent
    from toolsys.models import ScriptedModel, calls, text

    registry, ran = _registry(Policy(grants={"support": {Category.EXECUTE}}))
    batch = [("refund", {"order_id": f"A{i}", "amount": i}) for i in range(200)]
    script = [calls(*batch[:100]), calls(*batch[100:]), text("done")]
    for n in range(5):  # 5 runs x 200 calls, every one declined by the approver
        client = ScriptedModel(script).client()
        t = run_agent(client, registry, "refund all", context=SUPPORT, approver=lambda p: False)
        assert t.status == "completed", n
    t = run_agent(ScriptedModel(script).client(), registry, "again", context=SUPPORT)
    assert t.status == "awaiting_approval" and len(t.pending) == 100
    assert ran == []


def test_policy_applies_to_tools_built_from_a_pydantic_model():
    from pydantic import BaseModel

    class Wipe(BaseModel):
        disk: str

    registry = Registry(layers=[Policy()])
    registry.register(lambda args: args.disk, name="wipe", args=Wipe, category=Category.EXECUTE)
    result = registry.execute("wipe", {"disk": "sda"})
    assert result.error.code == "APPROVAL_REQUIRED"
    assert result.meta["approval"]["category"] == "execute"


def test_without_a_policy_layer_the_listing_still_applies_the_tools_own_checks():
    registry = Registry()

    @registry.tool(roles={"admin"})
    def admin_only() -> str:
        """Admins."""
        return "x"

    @registry.tool(available=lambda context: 1 / 0)
    def broken_flag() -> str:
        """Flagged."""
        return "x"

    @registry.tool
    def everyone() -> str:
        """Everyone."""
        return "x"

    names = [t["function"]["name"] for t in registry.export(context={"roles": ["admin"]})]
    assert names == ["admin_only", "everyone"]
    assert [t["function"]["name"] for t in registry.export(context={})] == ["everyone"]
