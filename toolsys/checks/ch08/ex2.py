"""Exercise 8.2, an approval keyed by call id and argument hash: the check and its reference,
`approved_calls`.

An approval matches one call: the cases are an approval matched by position or by id alone, and a
hash over unsorted JSON.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, mapping
from toolsys.checks._differential import calls as generated


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


def _sha256_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _call(call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "tool": tool, "arguments": arguments}


_SMALL = _call("call_1", "refund", order_id="A-1", amount=20.0)
_BIG = _call("call_2", "refund", order_id="A-2", amount=2000.0)
_NOTE = _call("call_3", "refund", order_id="A-3", amount=15.5, reason="colis abîmé, Zoë")
_NESTED = _call(
    "call_4", "reship", order_id="A-4", items=[{"sku": "X-1", "qty": 2}, {"sku": "Y-9", "qty": 1}]
)
_TWIN = _call("call_5", "refund", order_id="A-1", amount=20.0)
_HINT_OWN = (
    "An approval belongs to one call id: look it up with approvals.get(call['id']) and compare "
    "it with this call's own key. A key that matches some approval, or an approval of another "
    "call, is not this call's approval."
)
_HINT_UNICODE = (
    "Non-ASCII text must hash as arguments_hash does: json.dumps(..., ensure_ascii=False), "
    "encoded as UTF-8. With ensure_ascii=True 'î' becomes '\\u00ee' and the key differs."
)
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
_HINT_ALL = (
    "Go through every call and collect every approved id in a list: returning at the first "
    "approved call drops the calls after it."
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
    (
        [_SMALL, _TWIN],
        {"call_1": _key("refund", _SMALL["arguments"])},
        "call_1 approved, and call_5 with the very same tool and arguments not approved",
        _HINT_OWN,
    ),
    (
        [_SMALL, _BIG],
        {
            "call_1": _key("refund", _BIG["arguments"]),
            "call_2": _key("refund", _SMALL["arguments"]),
        },
        "each call approved with the other call's key",
        _HINT_OWN,
    ),
    (
        [_BIG, _SMALL],
        {
            "call_1": _key("refund", _SMALL["arguments"]),
            "call_2": _key("refund", _BIG["arguments"]),
        },
        "both calls approved, the model's calls in the other order",
        "Return the ids in the order of the calls, not of the approvals.",
    ),
    (
        [_NOTE],
        {"call_3": _key("refund", _NOTE["arguments"])},
        "call_3 approved, its reason in non-ASCII text",
        _HINT_UNICODE,
    ),
    (
        [_NESTED],
        {
            "call_4": _key(
                "reship",
                {"order_id": "A-4", "items": [{"qty": 2, "sku": "X-1"}, {"qty": 1, "sku": "Y-9"}]},
            )
        },
        "call_4 approved, its arguments the same with the keys inside its items in another order",
        "sort_keys=True sorts the keys at every depth: sorting the top-level arguments by hand "
        "does not.",
    ),
    (
        [_SMALL],
        {"call_1": _sha256_json(_SMALL["arguments"])},
        "call_1 with a key over its arguments alone (not the key of its tool and arguments)",
        "The key covers {'tool': ..., 'arguments': ...}, the tool's name too: accept only that "
        "one key, never a hash of the arguments alone.",
    ),
    (
        [_call("call_1", "refund", order_id="A-1", amount=20)],
        {"call_1": _key("refund", _SMALL["arguments"])},
        "call_1 approved for amount 20.0, the call sends amount 20 (an int)",
        "The key is over the arguments exactly as the call sends them: 20 and 20.0 are other "
        "JSON texts ('20', '20.0'), so other keys. Compute arguments_hash(tool, arguments) as "
        "they are, without turning ints into floats or any other normalising.",
    ),
    ([], {"call_1": _key("refund", _SMALL["arguments"])}, "no call at all", "No call, no id: []."),
]


def _reordered(value: Any) -> Any:
    """The same JSON value with every object's keys in the opposite order."""
    if type(value) is dict:
        return {key: _reordered(value[key]) for key in reversed(value)}
    if type(value) is list:
        return [_reordered(item) for item in value]
    return value


def _gate_call(rng: random.Random, size: int) -> Call:
    """One turn's calls (distinct ids; arguments nested, non-ASCII, sometimes another call's) and
    approvals: for each call none, its own key (of its arguments in another order too), the key
    of another call or tool, a key spelled otherwise, or one for an id the turn does not hold."""
    turn: list[dict[str, Any]] = []
    for number in range(rng.randint(0, min(5, 1 + size // 2))):
        if turn and rng.random() < 0.25:
            arguments = copy.deepcopy(rng.choice(turn)["arguments"])
        else:
            arguments = mapping(rng, size)
        tool = rng.choice(["refund", "ship", "send_note"])
        turn.append({"id": f"call_{number + 1}", "tool": tool, "arguments": arguments})
    approvals: dict[str, str] = {}
    for call in turn:
        pick = rng.randrange(7)
        tool, arguments = call["tool"], call["arguments"]
        if pick == 0:
            continue
        if pick == 1:
            approvals[call["id"]] = _key(tool, _reordered(arguments))
        elif pick == 2:
            other = rng.choice(turn)
            approvals[call["id"]] = _key(other["tool"], other["arguments"])
        elif pick == 3:
            approvals[call["id"]] = _key(tool + "s", arguments)
        elif pick == 4:
            approvals[call["id"]] = _sha256_json({"tool": tool, "arguments": arguments}).upper()
        else:
            approvals[call["id"]] = _key(tool, arguments)
    if rng.random() < 0.2:
        approvals["call_9"] = _key("refund", {})
    return Call((turn, approvals))


_GENERATED = generated(_gate_call, seed=82, count=200)


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
        if type(got) is list and 0 < len(got) < len(expected) and got == expected[: len(got)]:
            hint = _HINT_ALL
        expect_equal(got, expected, what=f"{what}: the ids that may run", hint=hint)
    agree(
        student,
        approved_calls,
        _GENERATED,
        name="approved_calls",
        hint="Keep a call when approvals.get(its id) == arguments_hash(its tool, its arguments), "
        "in the calls' order.",
    )
