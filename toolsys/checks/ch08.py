"""Checks for chapter 08, governance: a policy function, an approval keyed by call id and argument
hash, a role filter for `export` and the verification of a hash-chained audit log. Each reference
is the package's own piece (`toolsys.governance`, `toolsys.access`) on the same inputs.

The cases are the answers that fail open: an unknown category allowed, a rule read after the
category default, an approval matched by position or by id alone, a hash over unsorted JSON, an
empty role set read as "everyone", a check of `available` by truthiness, a verification of the
last line only or of the hashes without the links between them.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal

# -- 8.1 -------------------------------------------------------------------------------------


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
        shown = f"policy({tool!r}, {category!r}, {sorted(roles)}, {rules}, {grants})"
        got = call_student(
            student,
            tool,
            category,
            set(roles),
            dict(rules),
            {k: set(v) for k, v in grants.items()},
            what=shown,
            returns="'allow', 'deny' or 'needs_approval'",
        )
        expected = policy(tool, category, roles, rules, grants)
        expect_equal(got, expected, what=shown, hint=hint)


# -- 8.2 -------------------------------------------------------------------------------------


def approved_calls(calls: list[dict[str, Any]], approvals: Mapping[str, str]) -> list[str]:
    """Reference for 8.2: `human_decision` of `toolsys.governance.approval`, per call."""
    from toolsys.governance.approval import (
        HumanDecision,
        arguments_hash,
        human_decision,
        human_decisions,
    )

    decisions = {i: HumanDecision(True, key) for i, key in approvals.items()}
    with human_decisions(decisions):
        return [
            c["id"]
            for c in calls
            if human_decision(c["id"], arguments_hash(c["tool"], c["arguments"])) is not None
        ]


def _key(tool: str, arguments: Mapping[str, Any]) -> str:
    from toolsys.governance import arguments_hash

    return arguments_hash(tool, arguments)


def _call(call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "tool": tool, "arguments": arguments}


_SMALL = _call("call_1", "refund", order_id="A-1", amount=20.0)
_BIG = _call("call_2", "refund", order_id="A-2", amount=2000.0)
_HINT_POSITION = (
    "Find each call's approval by its id (approvals.get(call['id'])), never by position: the "
    "person's list may be in another order than the model's calls."
)
_HINT_HASH = (
    "An approval holds for the arguments the person saw: compare the approval's key with the key "
    "of this call's own tool and arguments, not only the id."
)
_HINT_CANONICAL = (
    "The key is over canonical JSON: json.dumps({'tool': ..., 'arguments': ...}, sort_keys=True, "
    "separators=(',', ':'), ensure_ascii=False), so the same arguments in another key order give "
    "the same key."
)
# calls, approvals, what the case shows, hint
_GATE_CASES: list[tuple[list[dict[str, Any]], dict[str, str], str, str]] = [
    (
        [_SMALL, _BIG],
        {
            "call_1": _key("refund", _SMALL["arguments"]),
            "call_2": _key("refund", _BIG["arguments"]),
        },
        "both calls approved",
        _HINT_CANONICAL,
    ),
    ([_SMALL, _BIG], {}, "nothing approved", "A call nobody approved does not run."),
    (
        [_SMALL, _BIG],
        {"call_1": _key("refund", _SMALL["arguments"])},
        "only call_1 approved",
        _HINT_POSITION,
    ),
    (
        [_SMALL, _BIG],
        {"call_2": _key("refund", _BIG["arguments"])},
        "only call_2 approved",
        _HINT_POSITION,
    ),
    (
        [_BIG, _SMALL],
        {"call_1": _key("refund", _SMALL["arguments"])},
        "only call_1 approved, the calls in another order",
        _HINT_POSITION,
    ),
    (
        [_BIG, _SMALL],
        {"call_1": _key("refund", _SMALL["arguments"]), "call_3": _key("refund", {})},
        "call_1 approved, and an approval for a call that is not in this turn",
        _HINT_POSITION,
    ),
    (
        [_call("call_1", "refund", order_id="A-1", amount=2000.0)],
        {"call_1": _key("refund", _SMALL["arguments"])},
        "call_1 approved for 20.0, its arguments now say 2000.0",
        _HINT_HASH,
    ),
    (
        [_call("call_1", "delete_account", order_id="A-1", amount=20.0)],
        {"call_1": _key("refund", _SMALL["arguments"])},
        "call_1 approved as a refund, the call now names delete_account",
        "The key covers the tool's name too: an approval for 'refund' must not run another tool "
        "with the same arguments.",
    ),
    (
        [_call("call_1", "refund", amount=20.0, order_id="A-1")],
        {"call_1": _key("refund", {"order_id": "A-1", "amount": 20.0})},
        "call_1 approved, its arguments the same in another key order",
        _HINT_CANONICAL,
    ),
    (
        [_call("call_1", "refund", order_id="A-1", amount=20.0, note="gift")],
        {"call_1": _key("refund", {"note": "gift", "order_id": "A-1", "amount": 20.0})},
        "call_1 with three arguments, approved in yet another key order",
        _HINT_CANONICAL,
    ),
    (
        [_SMALL],
        {"call_1": _key("refund", _SMALL["arguments"]).upper()},
        "call_1 with an approval key in capital letters (not the key the gate computes)",
        "Compare the keys exactly: the approval's key must equal the hex digest of this call.",
    ),
]


@exercise(
    "8.2",
    title="An approval keyed by call id and argument hash",
    hints=[
        "For each call, in the calls' order: look its approval up by id, compute the key of its "
        "own tool and arguments, and keep the id when the two keys are equal.",
        _HINT_CANONICAL,
        "hashlib.sha256(text.encode()).hexdigest() gives the hex key.",
    ],
    reference=lambda: approved_calls,
)
def _check_gate(student: Callable[..., Any]) -> None:
    for calls, approvals, shown, hint in _GATE_CASES:
        what = f"approved_calls(...) with {shown}"
        given = [json.loads(json.dumps(c)) for c in calls]
        got = call_student(student, given, dict(approvals), what=what, returns="a list of ids")
        expected = approved_calls(calls, approvals)
        expect_equal(got, expected, what=f"{what}: the ids that may run", hint=hint)


# -- 8.3 -------------------------------------------------------------------------------------


def visible(tools: list[Any], context: Mapping[str, Any]) -> list[Any]:
    """Reference for 8.3: the tools `toolsys.access.refusal` lets this caller see."""
    from toolsys.access import refusal

    return [tool for tool in tools if refusal(tool, context) is None]


def _tools() -> list[Any]:
    from toolsys import Category, Registry

    registry = Registry()

    def add(name: str, **options: Any) -> None:
        registry.register(lambda: name, name=name, description=f"The {name} tool.", **options)

    add("list_orders")
    add("refund", category=Category.WRITE, roles={"support"})
    add("delete_account", category=Category.WRITE, roles={"admin"})
    add("export_all", roles={"support", "auditor"})
    add("nobody", roles=set())
    add("beta_search", available=lambda context: context.get("beta") is True)
    add("maybe", available=lambda context: "yes")
    add("flaky", available=lambda context: context["region"] == "eu")
    return list(registry)


_HINT_ROLES = (
    "A tool with roles is visible when the caller has at least one of them: "
    "tool.roles & caller_roles; roles None is for everyone, an empty set for nobody."
)
_HINT_STRING_ROLE = (
    "One role may come as a string: 'support' is {'support'}, not the letters {'s', 'u', 'p', ...}."
)
_TOOL_HINTS = {  # why a tool is shown or hidden, for the first tool a student gets wrong
    "nobody": "An empty roles set means nobody may see the tool: test `tool.roles is not None`, "
    "not its truthiness.",
    "maybe": "available(context) must return the boolean True: a truthy 'yes' is not a yes "
    "(compare with `is True`).",
    "beta_search": "A tool with available= is visible only when available(context) is True.",
    "flaky": "An available() that raises hides the tool (fail closed): catch the exception and "
    "skip the tool.",
}
# context, what the case shows
_ROLE_CASES: list[tuple[dict[str, Any], str]] = [
    ({"roles": {"viewer"}}, "a viewer"),
    ({"roles": {"support"}}, "a support agent"),
    ({"roles": ["admin", "auditor"]}, "an admin and auditor (roles as a list)"),
    ({"roles": "support"}, "roles given as one string 'support'"),
    ({}, "a context without roles"),
    ({"roles": None}, "roles None"),
    ({"roles": {"support", "admin", "auditor"}, "beta": True, "region": "eu"}, "every role, eu"),
    ({"roles": {"support"}, "beta": "yes", "region": "us"}, "a support agent, beta 'yes'"),
    ({"roles": {"support"}, "region": "eu"}, "a support agent in the eu"),
]


def _role_hint(context: Mapping[str, Any], names: list[str], expected: list[str]) -> str:
    """The hint for the first tool shown or hidden wrongly."""
    if isinstance(context.get("roles"), str):
        return _HINT_STRING_ROLE
    wrong = [name for name in _TOOL_HINTS if (name in names) != (name in expected)]
    return _TOOL_HINTS[wrong[0]] if wrong else _HINT_ROLES


@exercise(
    "8.3",
    title="A role filter for export",
    hints=[
        "Read the caller's roles first: a set or list, one string, or nothing (no key, None).",
        _HINT_ROLES,
        "Then ask tool.available(context) when the tool has one: keep the tool only when it "
        "returns True (`is True`), and skip it when the call raises.",
    ],
    reference=lambda: visible,
)
def _check_visible(student: Callable[..., Any]) -> None:
    for context, shown in _ROLE_CASES:
        tools = _tools()
        what = f"visible(tools, context) for {shown}"
        got = call_student(
            student, list(tools), dict(context), what=what, returns="a list of tools"
        )
        if type(got) is not list or not all(any(g is t for t in tools) for g in got):
            raise CheckFailed(
                f"{what} must return a list of the Tool objects it was given.",
                expected=Described("a list of tools, e.g. [tools[0], tools[3]]"),
                got=got,
                hint="Return the tools themselves (not their names or schemas), in their order.",
            )
        names = [tool.name for tool in got]
        expected = [tool.name for tool in visible(tools, context)]
        hint = _role_hint(context, names, expected)
        expect_equal(names, expected, what=f"{what}: the names of the tools", hint=hint)


# -- 8.4 -------------------------------------------------------------------------------------


def first_bad_line(lines: list[str]) -> int | None:
    """Reference for 8.4: `toolsys.governance.audit.verify` on a file holding these lines."""
    from toolsys.governance.audit import verify

    if not lines:
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="ascii")
        return verify(path).line


def _sealed(records: list[dict[str, Any]]) -> list[str]:
    """The lines of a log holding `records`, written by `toolsys.governance._chain.seal`."""
    from toolsys.governance._chain import GENESIS, seal

    lines, prev = [], GENESIS
    for seq, record in enumerate(records, start=1):
        line, prev = seal({**record, "seq": seq, "prev": prev})
        lines.append(line.decode("ascii").rstrip("\n"))
    return lines


def _record(n: int, tool: str, outcome: str = "ok", **arguments: Any) -> dict[str, Any]:
    return {"ts": f"2027-01-15T08:00:0{n}.000+00:00", "user": "sam", "tool": tool,
            "arguments": arguments, "outcome": outcome}  # fmt: skip


def _reorder(line: str) -> str:
    """The same record with its keys written in reverse order (the hash is over canonical JSON)."""
    record = json.loads(line)
    return json.dumps(dict(reversed(list(record.items()))))


def _edit(line: str, old: str, new: str) -> str:
    assert old in line, (old, line)
    return line.replace(old, new)


_LOG = _sealed(
    [
        _record(1, "list_orders", customer="C-1"),
        _record(2, "refund", "APPROVAL_REQUIRED", order_id="A-2", amount=2000),
        _record(3, "refund", "APPROVAL_DENIED", order_id="A-2", amount=2000),
        _record(4, "refund", order_id="A-1", amount=20),
        _record(5, "customer", customer="C-2"),
    ]
)
_HINT_EVERY = (
    "Check every line in order and return at the first bad one, not only the last line: an "
    "edit in the middle must be found."
)
_HINT_LINK = (
    "Each line must follow the one before it: its prev equals the hash of the line before "
    "('0' * 64 for line 1) and its seq equals its line number. A deleted line breaks the link."
)
_HINT_CANONICAL_BODY = (
    "Hash the canonical form, not the line as written: the record without 'hash', "
    "json.dumps(body, sort_keys=True, separators=(',', ':'), ensure_ascii=True)."
)
# lines, what, hint
_CHAIN_CASES: list[tuple[list[str], str, str]] = [
    (list(_LOG), "an intact log of 5 lines", _HINT_CANONICAL_BODY),
    ([], "an empty log", "An empty log has no bad line: return None."),
    (
        [_reorder(line) for line in _LOG],
        "an intact log whose lines list their keys in reverse order",
        _HINT_CANONICAL_BODY,
    ),
    (
        [*_LOG[:2], _edit(_LOG[2], '"APPROVAL_DENIED"', '"ok"'), *_LOG[3:]],
        "line 3's outcome edited from APPROVAL_DENIED to ok",
        _HINT_EVERY,
    ),
    (
        [*_LOG[:4], _edit(_LOG[4], '"C-2"', '"C-1"')],
        "the last line's arguments edited",
        "Recompute each line's hash from its content and compare it with its 'hash'.",
    ),
    ([_LOG[0], *_LOG[2:]], "line 2 deleted", _HINT_LINK),
    (_LOG[1:], "line 1 deleted", _HINT_LINK),
    ([_LOG[0], _LOG[2], _LOG[1], *_LOG[3:]], "lines 2 and 3 swapped", _HINT_LINK),
    (
        [*_LOG[:3], _LOG[3][: len(_LOG[3]) // 2], _LOG[4]],
        "line 4 cut in the middle (not whole JSON)",
        "A line that is not whole JSON is bad too: catch the error json.loads raises and "
        "return that line's number.",
    ),
    (
        [*_LOG[:2], _edit(_LOG[2], '"APPROVAL_DENIED"', '"ok"'), _LOG[3][:40], _LOG[4]],
        "line 3 edited and line 4 cut",
        _HINT_EVERY,
    ),
    (
        [*_LOG[:4], _edit(_LOG[4], '"hash":"', '"hash":"0')],
        "the last line's hash changed",
        "Compare the hash the line carries with the one you compute, for every line.",
    ),
]


@exercise(
    "8.4",
    title="Audit verification",
    hints=[
        "Walk the lines with their numbers (enumerate(lines, start=1)), keeping the hash of the "
        "line before (start with '0' * 64).",
        _HINT_CANONICAL_BODY,
        _HINT_LINK,
    ],
    reference=lambda: first_bad_line,
)
def _check_chain(student: Callable[..., Any]) -> None:
    for lines, shown, hint in _CHAIN_CASES:
        what = f"first_bad_line(lines) for {shown}"
        got = call_student(student, list(lines), what=what, returns="a line number or None")
        expected = first_bad_line(lines)
        expect_equal(got, expected, what=what, hint=hint)
