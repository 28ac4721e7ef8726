"""The policy remembers role sets it has checked (the same roles come call after call): what it
remembers never lets a malformed `roles` through, and a decision reads the arguments only when
a rule needs them."""

from __future__ import annotations

from typing import Any

import pytest

from toolsys import Registry
from toolsys.access import caller_roles
from toolsys.governance import Allow, NeedsApproval, Policy
from toolsys.spec import Category


def registry(policy: Policy) -> tuple[Registry, list[str]]:
    ran: list[str] = []
    built = Registry(layers=[policy])

    @built.tool(category=Category.WRITE, roles={"ops"})
    def restart(service: str) -> str:
        """Restart a service.

        Args:
            service: Which one.
        """
        ran.append(service)
        return "restarted"

    return built, ran


@pytest.mark.parametrize(
    "roles",
    [["ops", 5], ("ops", None), ["ops", ["nested"]], [{"ops": 1}], {"ops", b"ops"}, 7, "".join],
)
def test_malformed_roles_are_refused_even_after_the_same_names_were_allowed(roles: Any) -> None:
    built, ran = registry(Policy(grants={"ops": {Category.WRITE}}))
    for good in ({"ops"}, frozenset({"ops"}), ["ops"], [], ()):
        built.execute("restart", {"service": "db"}, context={"roles": good})
    ran.clear()
    result = built.execute("restart", {"service": "db"}, context={"roles": roles})
    assert result.error is not None and result.error.code == "PERMISSION_DENIED"
    assert "cannot be read" in result.error.message and ran == []


def test_remembered_role_sets_answer_as_the_roles_given() -> None:
    for roles in ({"a", "b"}, ["b", "a", "a"], ("a",), frozenset({"b"}), []):
        assert caller_roles({"roles": roles}) == frozenset(roles)
        assert caller_roles({"roles": roles}) == frozenset(roles)  # remembered the second time
    assert caller_roles({"roles": "solo"}) == frozenset({"solo"})
    assert caller_roles({}) == frozenset()


def test_a_grant_follows_the_roles_of_each_call_not_the_last_one_remembered() -> None:
    built, ran = registry(Policy(grants={"ops": {Category.WRITE}}))
    assert built.execute("restart", {"service": "a"}, context={"roles": ["ops"]}).ok
    refused = built.execute("restart", {"service": "b"}, context={"roles": ["dev"]})
    assert refused.error is not None and refused.error.code == "PERMISSION_DENIED"
    assert ran == ["a"]


def test_a_rule_reads_the_validated_arguments_and_a_default_does_not_need_them() -> None:
    seen: list[Any] = []

    def rule(tool: Any, arguments: Any, context: Any) -> Allow | NeedsApproval:
        seen.append(arguments)
        return Allow() if arguments["service"] == "cache" else NeedsApproval("ask")

    built, ran = registry(Policy(rules={"restart": rule}))
    assert built.execute("restart", {"service": "cache"}, context={"roles": ["ops"]}).ok
    asked = built.execute("restart", {"service": "db"}, context={"roles": ["ops"]})
    assert asked.error is not None and asked.error.code == "APPROVAL_REQUIRED"
    assert seen == [{"service": "cache"}, {"service": "db"}] and ran == ["cache"]
