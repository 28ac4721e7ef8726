"""Exercise 8.1, a policy function: the check and its reference, `policy`.

The reference is the package's own policy; the cases are the answers that fail open: an unknown
category allowed, a rule read after the category default.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls


def policy(tool: str, category: str, roles: set, rules: dict, grants: dict) -> str:
    """Reference for 8.1: `toolsys.governance.Policy` on the same tool, rules and grants."""
    from toolsys.governance import Allow, Deny, NeedsApproval, Policy

    fixed: dict[str, Allow | Deny | NeedsApproval] = {
        "allow": Allow(),
        "deny": Deny(),
        "needs_approval": NeedsApproval(),
    }
    chosen = Policy(rules={name: fixed[word] for name, word in rules.items()}, grants=grants)
    target = SimpleNamespace(name=tool, category=category, roles=None, available=None)
    decision = chosen.decide(target, {}, {"roles": set(roles)})  # type: ignore[arg-type]
    return {Allow: "allow", Deny: "deny", NeedsApproval: "needs_approval"}[type(decision)]


_GRANTS = {"support": {"write"}, "ops": {"execute"}}
_HINT_DEFAULT = (
    "READ is 'allow'; WRITE and EXECUTE are 'needs_approval' unless one of the caller's own "
    "roles is granted that category."
)
_HINT_GRANT = (
    "A caller's role may be granted a category: look each of the caller's roles up in grants "
    "(grants.get(role, set())), and allow when one of them holds this category."
)
_HINT_READ = (
    "READ is 'allow' for every caller, whatever their roles: grants only lift WRITE and EXECUTE "
    "out of approval, a role without a grant takes nothing away."
)
_HINT_EVERY_ROLE = (
    "Look up every one of the caller's roles, not only the first: allow when any of them is "
    "granted this category (any(category in grants.get(role, set()) for role in roles))."
)
_HINT_RULE = (
    "A rule for this tool is the answer, before the category and the grants are read: check "
    "`tool in rules` first (after the unknown-category test)."
)
_HINT_CLOSED = (
    "A category the policy does not know is 'deny' (fail closed), whatever the rules and roles "
    "say: test it first."
)
# tool, category, roles, rules, grants, hint
_POLICY_CASES: list[tuple[str, str, set[str], dict[str, str], dict[str, set[str]], str]] = [
    ("list_orders", "read", set(), {}, _GRANTS, _HINT_DEFAULT),
    ("refund", "write", set(), {}, _GRANTS, _HINT_DEFAULT),
    ("run_code", "execute", {"viewer"}, {}, _GRANTS, _HINT_DEFAULT),
    ("list_orders", "read", {"viewer"}, {}, _GRANTS, _HINT_READ),
    ("list_orders", "read", {"support"}, {}, _GRANTS, _HINT_READ),
    ("list_orders", "read", {"viewer", "guest"}, {}, {"viewer": {"write"}}, _HINT_READ),
    ("refund", "write", {"viewer", "support"}, {}, _GRANTS, _HINT_GRANT),
    ("run_code", "execute", {"support"}, {}, _GRANTS, _HINT_GRANT),
    ("run_code", "execute", {"ops"}, {}, _GRANTS, _HINT_GRANT),
    ("refund", "write", {"ops"}, {}, _GRANTS, _HINT_GRANT),
    ("refund", "write", {"guest"}, {}, _GRANTS, _HINT_GRANT),
    ("drop_table", "read", set(), {"drop_table": "deny"}, {}, _HINT_RULE),
    ("refund", "write", {"support"}, {"refund": "needs_approval"}, _GRANTS, _HINT_RULE),
    ("delete_account", "write", {"support"}, {"delete_account": "deny"}, _GRANTS, _HINT_RULE),
    ("ping", "execute", set(), {"ping": "allow"}, _GRANTS, _HINT_RULE),
    ("refund", "write", {"support"}, {"list_orders": "deny"}, _GRANTS, _HINT_GRANT),
    ("purge", "admin", {"support"}, {}, _GRANTS, _HINT_CLOSED),
    ("purge", "READ", set(), {}, {}, _HINT_CLOSED),
    ("purge", "admin", set(), {"purge": "allow"}, {}, _HINT_CLOSED),
    ("purge", "", {"ops"}, {}, _GRANTS, _HINT_CLOSED),
]


_CATEGORIES = ["read", "write", "execute", "read", "write", "execute", "admin", "READ", "", "Write"]
_ROLES = ["support", "ops", "viewer", "admin", "écrivain"]
_TOOL_NAMES = ["refund", "delete_account", "list_orders", "purge", "read"]


def _policy_call(rng: random.Random, size: int) -> Call:
    """A tool and a category (one of the three, or another text), a set of roles, rules for
    some tools, grants of some of the three categories to some roles."""
    roles = set(rng.sample(_ROLES, rng.randint(0, min(3, 1 + size // 3))))
    rules = {
        name: rng.choice(["allow", "deny", "needs_approval"])
        for name in rng.sample(_TOOL_NAMES, rng.randint(0, min(2, size // 2)))
    }
    grants = {
        role: set(rng.sample(["read", "write", "execute"], rng.randint(0, 2)))
        for role in rng.sample(_ROLES, rng.randint(0, min(3, size // 2)))
    }
    return Call((rng.choice(_TOOL_NAMES), rng.choice(_CATEGORIES), roles, rules, grants))


_GENERATED = calls(_policy_call, seed=81, count=250)


@exercise(
    "8.1",
    title="A policy function",
    hints=[
        "Three steps in order, the first answer wins: unknown category, rule for the tool, "
        "category default with grants.",
        "Unknown means not one of 'read', 'write', 'execute' (exact strings): answer 'deny'.",
        _HINT_GRANT,
    ],
    reference=lambda: policy,
)
def _check_policy(student: Callable[..., Any]) -> None:
    for tool, category, roles, rules, grants, hint in _POLICY_CASES:
        _expect_decision(student, tool, category, set(roles), rules, grants, hint)
    for place in ("first", "last"):  # a set's order is its own: find sets that give both
        roles = _roles_without("support", place)
        _expect_decision(
            student, "refund", "write", roles, {}, _GRANTS, _HINT_EVERY_ROLE, f"support not {place}"
        )
    agree(
        student,
        policy,
        _GENERATED,
        name="policy",
        hint="In order, the first answer wins: a category other than 'read', 'write', 'execute' "
        "is 'deny'; a rule for the tool is the answer; 'read' is 'allow'; 'write' and "
        "'execute' are 'needs_approval' unless one of the roles is granted that category.",
    )


_FILLERS = ["viewer", "guest", "billing", "audit", "intern", "sales", "legal", "hr", "finance",
            "marketing", "qa", "dev", "owner", "partner", "reseller", "trainer"]  # fmt: skip


def _roles_without(granted: str, place: str) -> set[str]:
    """Roles holding `granted` among others without a grant, `granted` not iterated `place`
    ('first' or 'last'): a set's order depends on its names' hashes, so try sets until one fits."""
    for size in range(1, len(_FILLERS) + 1):
        for start in range(len(_FILLERS) - size + 1):
            roles = {granted, *_FILLERS[start : start + size]}
            if list(roles)[0 if place == "first" else -1] != granted:
                return roles
    # the hashes put `granted` in the table's first (last) slot whatever else is in it
    order = [granted, "viewer"] if place == "last" else ["viewer", granted]
    return _InOrder(order)


class _InOrder(set[str]):
    """A set of names iterated in the order given (for when hash order will not do)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names)
        self._names = list(names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)


def _expect_decision(
    student: Callable[..., Any],
    tool: str,
    category: str,
    roles: set[str],
    rules: dict[str, str],
    grants: dict[str, set[str]],
    hint: str,
    order: str = "",
) -> None:
    shown = f"policy({tool!r}, {category!r}, {sorted(roles)}, {rules}, {grants})"
    got = call_student(
        student,
        tool,
        category,
        roles,
        dict(rules),
        {k: set(v) for k, v in grants.items()},
        what=shown,
        returns="'allow', 'deny' or 'needs_approval'",
    )
    expected = policy(tool, category, roles, rules, grants)
    in_order = f" (the roles set iterated {order})" if order else ""
    expect_equal(got, expected, what=shown + in_order, hint=hint)
