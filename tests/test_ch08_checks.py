"""Chapter 08 checks reject the governance code that fails open.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`),
or a version written the way the bugs the chapter cites were written (an approval matched by
position, a verification of the last line only). The references are the package's own pieces,
so passing them here also proves that the package passes its own checks.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from tests.solution_code import answer, drop, swap, verdict
from toolsys.checks import Status

# -- 8.1 -------------------------------------------------------------------------------------

_CLOSED = 'if category not in ("read", "write", "execute"):\n        return "deny"'


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap(_CLOSED, _CLOSED.replace('"deny"', '"allow"')), "fail closed"),
        (
            swap(
                "category not in ('read', 'write', 'execute')",
                "category.lower() not in ('read', 'write', 'execute')",
            ),
            "fail closed",
        ),
        (drop("if tool in rules:\n    return rules[tool]"), "A rule for this tool"),
        (swap("category == 'read'", "category in ('read', 'execute')"), "READ is 'allow'"),
        (
            swap(
                "(category in grants.get(role, set()) for role in roles)",
                "(category in grants.get(role, set()) for role in grants)",
            ),
            "the caller's own roles",
        ),
        (swap("grants.get(role, set())", "grants[role]"), "raised KeyError"),
    ],
    ids=[
        "unknown-category-allowed",
        "category-case-ignored",
        "rules-ignored",
        "execute-allowed",
        "grants-of-anyone",
        "missing-grant-crashes",
    ],
)
def test_a_wrong_policy_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("8.1", answer("8.1", change)).text()


def test_a_policy_that_reads_the_default_before_the_rule_is_rejected() -> None:
    def default_first(tool, category, roles, rules, grants):
        if category not in ("read", "write", "execute"):
            return "deny"
        if category == "read":
            return "allow"
        if any(category in grants.get(role, set()) for role in roles):
            return "allow"
        return rules.get(tool, "needs_approval")

    assert "A rule for this tool" in verdict("8.1", default_first).text()


# -- 8.2 -------------------------------------------------------------------------------------

_IDS = "[c['id'] for c in calls if approvals.get(c['id']) == key(c['tool'], c['arguments'])]"
_ARGS_DUMPS = (
    "json.dumps({'tool': tool, 'arguments': arguments}, sort_keys=True, separators=(',', ':'), "
    "ensure_ascii=False)"
)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(
                _IDS,
                "[c['id'] for c, k in zip(calls, approvals.values()) "
                "if k == key(c['tool'], c['arguments'])]",
            ),
            "never by position",
        ),
        (
            swap(_IDS, "[c['id'] for c in calls if c['id'] in approvals]"),
            "the arguments the person saw",
        ),
        (
            swap(
                _ARGS_DUMPS,
                _ARGS_DUMPS.replace("sort_keys=True, ", ""),
            ),
            "sort_keys=True",
        ),
        (swap('{"tool": tool, "arguments": arguments}', "arguments"), "canonical JSON"),
        (swap(_ARGS_DUMPS, _ARGS_DUMPS.replace("separators=(',', ':'), ", "")), "canonical JSON"),
    ],
    ids=[
        "matched-by-position",
        "id-only",
        "unsorted-json",
        "tool-not-hashed",
        "spaces-in-json",
    ],
)
def test_a_wrong_gate_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("8.2", answer("8.2", change)).text()


def test_langchains_positional_matching_approves_the_wrong_call_and_is_rejected() -> None:
    def by_position(calls, approvals):  # one answer per call, paired by index (langchain#37093)
        answers = list(approvals)
        return [c["id"] for i, c in enumerate(calls) if i < len(answers)]

    assert "never by position" in verdict("8.2", by_position).text()


# -- 8.3 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(
                "tool.roles is not None and not tool.roles & roles",
                "tool.roles and not tool.roles & roles",
            ),
            "empty roles set means nobody",
        ),
        (
            swap("roles = {roles} if isinstance(roles, str) else set(roles)", "roles = set(roles)"),
            "not the letters",
        ),
        (
            swap("tool.available(context) is not True", "not tool.available(context)"),
            "`is True`",
        ),
        (
            swap('roles = context.get("roles") or set()', 'roles = context["roles"]'),
            "raised KeyError",
        ),
        (
            swap(
                "try:\n    if tool.available(context) is not True:\n        continue\n"
                "except Exception:\n    continue",
                "try:\n    if tool.available(context) is not True:\n        continue\n"
                "finally:\n    pass",
            ),
            "raised KeyError",
        ),
    ],
    ids=[
        "empty-roles-for-everyone",
        "string-as-letters",
        "truthy-available",
        "roles-required",
        "available-errors-escape",
    ],
)
def test_a_wrong_role_filter_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("8.3", answer("8.3", change)).text()


def test_a_role_filter_that_returns_names_is_rejected() -> None:
    solution = answer("8.3")

    def names(tools, context):
        return [tool.name for tool in solution(tools, context)]

    assert "Tool objects" in verdict("8.3", names).text()


def test_a_role_filter_that_ignores_available_is_rejected() -> None:
    def roles_only(tools, context):
        roles = context.get("roles") or set()
        roles = {roles} if isinstance(roles, str) else set(roles)
        return [t for t in tools if t.roles is None or t.roles & roles]

    assert "available" in verdict("8.3", roles_only).text()


# -- 8.4 -------------------------------------------------------------------------------------

_PREV_OR_SEQ = "record['prev'] != prev or record['seq'] != number"
_LINK = f"if {_PREV_OR_SEQ}:\n    return number"
_BODY_DUMPS = "json.dumps(body, sort_keys=True, separators=(',', ':'), ensure_ascii=True)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (drop(_LINK), "A deleted line breaks the link"),
        (swap(_BODY_DUMPS, _BODY_DUMPS.replace("sort_keys=True, ", "")), "canonical form"),
        (swap("(ValueError, KeyError, TypeError, AttributeError)", "(KeyError,)"), "raised"),
    ],
    ids=["hashes-without-links", "unsorted-json", "cut-line-crashes"],
)
def test_a_wrong_verification_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("8.4", answer("8.4", change)).text()


def _canonical_hash(record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_verification_of_the_last_line_only_is_rejected() -> None:
    def last_only(lines):
        if not lines:
            return None
        record = json.loads(lines[-1])
        return None if record["hash"] == _canonical_hash(record) else len(lines)

    assert "not only the last line" in verdict("8.4", last_only).text()


def test_a_verification_that_hashes_the_line_as_written_is_rejected() -> None:
    def as_written(lines):
        prev = "0" * 64
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
            except ValueError:
                return number
            text = line.replace(f',"hash":"{record["hash"]}"', "")
            if hashlib.sha256(text.encode()).hexdigest() != record["hash"]:
                return number
            if record["prev"] != prev or record["seq"] != number:
                return number
            prev = record["hash"]
        return None

    assert "canonical form" in verdict("8.4", as_written).text()


# -- defects found by the held-out trial and the mutants (issue 27) ---------------------------


def _approve_by_hash_alone(calls, approvals):
    def key(tool, arguments):
        text = json.dumps(
            {"tool": tool, "arguments": arguments},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        return hashlib.sha256(text.encode()).hexdigest()

    keys = set(approvals.values())
    return [
        c["id"] for c in calls if c["id"] in approvals and key(c["tool"], c["arguments"]) in keys
    ]


def test_an_approval_matched_by_its_hash_alone_is_rejected() -> None:
    assert "is not this call's approval" in verdict("8.2", _approve_by_hash_alone).text()


def test_an_approval_hashed_with_escaped_non_ascii_text_is_rejected() -> None:
    escaped = answer(
        "8.2", swap(_ARGS_DUMPS, _ARGS_DUMPS.replace("ensure_ascii=False", "ensure_ascii=True"))
    )
    assert "Non-ASCII text must hash as arguments_hash does" in verdict("8.2", escaped).text()


def test_an_approval_that_sorts_only_the_top_level_is_rejected() -> None:
    def top_level(calls, approvals):
        shown = []
        for c in calls:
            ordered = dict(sorted(c["arguments"].items()))
            text = json.dumps(
                {"arguments": ordered, "tool": c["tool"]}, separators=(",", ":"), ensure_ascii=False
            )
            if approvals.get(c["id"]) == hashlib.sha256(text.encode()).hexdigest():
                shown.append(c["id"])
        return shown

    assert "at every depth" in verdict("8.2", top_level).text()


def test_approved_ids_in_the_approvals_order_are_rejected() -> None:
    solution = answer("8.2")

    def approvals_order(calls, approvals):
        allowed = set(solution(calls, approvals))
        return [call_id for call_id in approvals if call_id in allowed]

    assert "in the order of the calls" in verdict("8.2", approvals_order).text()


def test_a_role_filter_that_reads_available_1_as_true_is_rejected() -> None:
    equal_true = answer(
        "8.3", swap("tool.available(context) is not True", "tool.available(context) != True")
    )
    assert "1 == True" in verdict("8.3", equal_true).text()


def test_a_verification_that_needs_both_prev_and_seq_wrong_is_rejected() -> None:
    both = answer(
        "8.4",
        swap(
            'record["prev"] != prev or record["seq"] != number',
            'record["prev"] != prev and record["seq"] != number',
        ),
    )
    assert "only line 4's prev is wrong" in verdict("8.4", both).text()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap(_PREV_OR_SEQ, "record['seq'] != number"), "only line 4's prev is wrong"),
        (swap(_PREV_OR_SEQ, "record['prev'] != prev"), "only the seq is wrong"),
        (
            [
                swap('record["seq"] != number', 'int(record["seq"]) != number'),
                drop("if type(record['seq']) is not int: return number"),
            ],
            "the string '3'",
        ),
        (
            swap(_BODY_DUMPS, _BODY_DUMPS.replace("ensure_ascii=True", "ensure_ascii=False")),
            "non-ASCII text",
        ),
    ],
    ids=["seq-only", "prev-only", "seq-converted", "unescaped-canonical-form"],
)
def test_a_verification_that_skips_one_of_hash_prev_seq_is_rejected(
    change: Any, words: str
) -> None:
    changes = change if isinstance(change, list) else [change]
    assert words in verdict("8.4", answer("8.4", *changes)).text()


# -- correct answers written differently pass ------------------------------------------------


def test_a_policy_written_another_way_passes() -> None:
    def policy(tool, category, roles, rules, grants):
        known = {"read", "write", "execute"}
        decision = "deny" if category not in known else rules.get(tool)
        if decision is not None:
            return decision
        granted = set().union(*(grants.get(role, ()) for role in roles))
        return "allow" if category == "read" or category in granted else "needs_approval"

    verdict("8.1", policy, Status.PASSED)


def test_an_approval_gate_written_another_way_passes() -> None:
    from toolsys.governance import arguments_hash

    def approved_calls(calls, approvals):
        return [
            call["id"]
            for call in calls
            if call["id"] in approvals
            and approvals[call["id"]] == arguments_hash(call["tool"], call["arguments"])
        ]

    verdict("8.2", approved_calls, Status.PASSED)


def test_a_role_filter_written_another_way_passes() -> None:
    def visible(tools, context):
        given = context.get("roles")
        mine = set() if given is None else {given} if isinstance(given, str) else set(given)

        def shown(tool):
            if tool.roles is not None and mine.isdisjoint(tool.roles):
                return False
            if tool.available is None:
                return True
            try:
                return tool.available(context) is True
            except Exception:
                return False

        return list(filter(shown, tools))

    verdict("8.3", visible, Status.PASSED)


def test_a_verification_written_another_way_passes() -> None:
    def first_bad_line(lines):
        expected_prev = "0" * 64
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
                claimed = record.pop("hash")
                canonical = json.dumps(record, sort_keys=True, separators=(",", ":"))
                good = (
                    hashlib.sha256(canonical.encode("ascii")).hexdigest() == claimed
                    and record["prev"] == expected_prev
                    and type(record["seq"]) is int
                    and record["seq"] == number
                )
            except Exception:
                good = False
            if not good:
                return number
            expected_prev = claimed
        return None

    verdict("8.4", first_bad_line, Status.PASSED)


def test_a_role_filter_that_stops_at_the_first_failing_available_is_rejected() -> None:
    stops = answer(
        "8.3",
        swap(
            "try:\n    if tool.available(context) is not True:\n        continue\n"
            "except Exception:\n    continue",
            "try:\n    if tool.available(context) is not True:\n        continue\n"
            "except Exception:\n    break",
        ),
    )
    assert "order_status" in verdict("8.3", stops).text()


def test_a_verification_that_crashes_on_a_missing_prev_is_rejected() -> None:
    crashes = answer(
        "8.4",
        swap(
            "(ValueError, KeyError, TypeError, AttributeError)",
            "(ValueError, TypeError, AttributeError)",
        ),
    )
    assert "raised KeyError" in verdict("8.4", crashes).text()


# -- defects found by the student-adversary (issue 27, adv2) ---------------------------------

_ANY_ROLE = "any(category in grants.get(role, set()) for role in roles)"


@pytest.mark.parametrize(
    "only",
    [
        "category in grants.get(next(iter(roles), None), set())",
        "category in grants.get(sorted(roles)[-1] if roles else None, set())",
        "category in grants.get(list(roles)[-1] if roles else None, set())",
    ],
    ids=["first", "last-sorted", "last-iterated"],
)
def test_a_policy_that_reads_one_role_only_is_rejected(only: str) -> None:
    text = verdict("8.1", answer("8.1", swap(_ANY_ROLE, only))).text()
    assert "of the caller's roles" in text and "grants.get(role, set())" in text


def test_a_policy_that_asks_approval_of_a_read_by_a_role_without_grant_is_rejected() -> None:
    def read_needs_grant(tool, category, roles, rules, grants):
        if category not in ("read", "write", "execute"):
            return "deny"
        if tool in rules:
            return rules[tool]
        if any(category in grants.get(role, set()) for role in roles):
            return "allow"
        return "allow" if category == "read" and not roles else "needs_approval"

    assert "READ is 'allow' for every caller" in verdict("8.1", read_needs_grant).text()


def test_a_gate_that_returns_the_first_approved_call_only_is_rejected() -> None:
    first_only = answer(
        "8.2",
        swap(
            _IDS,
            "next(([c['id']] for c in calls "
            "if approvals.get(c['id']) == key(c['tool'], c['arguments'])), [])",
        ),
    )
    text = verdict("8.2", first_only).text()
    assert "collect every approved id" in text and "canonical JSON" not in text


def _filter(tools: list, context: dict, roles: set) -> list:
    """The role filter of 8.3, given the caller's roles read already."""
    shown = []
    for tool in tools:
        if tool.roles is not None and not tool.roles & roles:
            continue
        try:
            if tool.available is not None and tool.available(context) is not True:
                continue
        except Exception:
            continue
        shown.append(tool)
    return shown


def test_a_role_filter_that_writes_the_roles_into_the_context_is_rejected() -> None:
    def writes_back(tools, context):
        roles = context.get("roles")
        context["roles"] = {roles} if isinstance(roles, str) else set(roles or ())
        return _filter(tools, context, context["roles"])

    assert "changed the caller's context" in verdict("8.3", writes_back).text()


def test_a_role_filter_that_adds_to_the_callers_role_set_is_rejected() -> None:
    def adds(tools, context):
        roles = context.setdefault("roles", set()) or set()
        if isinstance(roles, set):
            roles.add("everyone")
        return _filter(tools, context, {roles} if isinstance(roles, str) else set(roles))

    assert "changed the caller's context" in verdict("8.3", adds).text()


def _verification(*, skip_blank: bool = False, relative: bool = False, start: int = 1) -> Any:
    def first_bad_line(lines):
        prev, last = "0" * 64, None
        for number, line in enumerate(lines, start=start):
            if skip_blank and not line.strip():
                continue
            try:
                record = json.loads(line)
                if record["hash"] != _canonical_hash(record) or record["prev"] != prev:
                    return number + 1 - start
                if relative:
                    if last is not None and record["seq"] != last + 1:
                        return number
                    last = record["seq"]
                elif type(record["seq"]) is not int or record["seq"] != number:
                    return number + 1 - start
            except (ValueError, KeyError, TypeError, AttributeError):
                return number + 1 - start
            prev = record["hash"]
        return None

    return first_bad_line


def test_a_verification_written_this_way_passes() -> None:
    verdict("8.4", _verification(), Status.PASSED)


def test_a_verification_that_skips_blank_lines_is_rejected() -> None:
    assert "A blank line is not whole JSON" in verdict("8.4", _verification(skip_blank=True)).text()


def test_a_verification_that_checks_only_relative_seqs_is_rejected() -> None:
    text = verdict("8.4", _verification(relative=True)).text()
    assert "a log numbered from seq 0" in text and "not only that each seq is one more" in text


def test_a_verification_that_numbers_from_0_is_told_so() -> None:
    text = verdict("8.4", _verification(start=0)).text()
    assert "line 1 holds seq 1, not 0" in text and "Hash the canonical form" not in text


def test_a_verification_without_hashes_is_told_to_compare_them() -> None:
    def no_hash(lines):
        prev = "0" * 64
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
                if record["prev"] != prev or record["seq"] != number:
                    return number
            except (ValueError, KeyError, TypeError, AttributeError):
                return number
            prev = record["hash"]
        return None

    text = verdict("8.4", no_hash).text()
    assert "Recompute each line's hash" in text and "not only the last line" not in text


def test_a_gate_that_also_accepts_a_hash_of_the_arguments_alone_is_rejected() -> None:
    def two_keys(calls, approvals):
        def digest(value):
            text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            return hashlib.sha256(text.encode()).hexdigest()

        return [
            c["id"]
            for c in calls
            if approvals.get(c["id"])
            in (digest({"tool": c["tool"], "arguments": c["arguments"]}), digest(c["arguments"]))
        ]

    assert "never a hash of the arguments alone" in verdict("8.2", two_keys).text()


# -- held-out round adv3 (wrong answers nobody had written): each must fail for its real mistake


def test_a_gate_that_turns_int_arguments_into_floats_is_rejected() -> None:
    from toolsys.governance import arguments_hash

    def floats(calls, approvals):
        def norm(value):
            if isinstance(value, dict):
                return {k: norm(v) for k, v in value.items()}
            if isinstance(value, int) and not isinstance(value, bool):
                return float(value)
            return value

        return [
            c["id"]
            for c in calls
            if approvals.get(c["id"]) == arguments_hash(c["tool"], norm(c["arguments"]))
        ]

    assert "without turning ints into floats" in verdict("8.2", floats).text()


def test_a_verification_that_takes_true_for_seq_1_is_rejected() -> None:
    loose = answer("8.4", drop("if type(record['seq']) is not int: return number"))
    assert "true is not 1" in verdict("8.4", loose).text()


def test_a_verification_that_decodes_only_the_first_object_of_a_line_is_rejected() -> None:
    first_object = answer(
        "8.4",
        swap("json.loads(line)", "json.JSONDecoder().raw_decode(line)[0]"),
    )
    assert "anything after its record is not whole JSON" in verdict("8.4", first_object).text()
