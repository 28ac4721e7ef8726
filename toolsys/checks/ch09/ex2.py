"""Exercise 9.2, a namespace merge that refuses collisions: the check and its reference, `include`.

The reference is written from the exercise's own rules (a prefix of ASCII letters, digits, '-' and
single '_' inside; `prefix + "__" + name` of at most 64 characters; all or nothing), not taken
from `toolsys.namespaces`, whose prefixes follow the package's own rules: a check's reference
must agree with its exercise text. The cases are a merge that adds half the tools before it finds
a collision, and the prefixes a hand-written test lets through.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_raises,
    expect_true,
)
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import text

_PREFIX = re.compile(r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*")
"""A wire-safe, splittable prefix: ASCII letters, digits, '-', and single '_' inside."""
MAX_NAME = 64
"""The providers' limit on a tool name."""


def include(target: dict[str, Any], other: dict[str, Any], prefix: str) -> None:
    """Reference for 9.2: every tool of `other` as prefix__name, all or nothing."""
    if type(prefix) is not str or _PREFIX.fullmatch(prefix) is None:
        raise ValueError(
            f"Prefix {prefix!r} is not wire-safe: use ASCII letters, digits, '-' and single '_' "
            "inside (not first, not last, never two in a row)."
        )
    incoming = {f"{prefix}__{name}": value for name, value in other.items()}
    for name in incoming:
        if len(name) > MAX_NAME:
            raise ValueError(f"{name!r} has {len(name)} characters, more than {MAX_NAME}.")
        if name in target:
            raise ValueError(
                f"Cannot include under {prefix!r}: {name!r} is already registered. "
                "Nothing was included; choose another prefix."
            )
    target.update(incoming)


def _refund() -> str:
    return "refund"


def _charge() -> str:
    return "charge"


def _search() -> str:
    return "search"


def _include(
    student: Callable[..., Any],
    target: dict[str, Any],
    other: dict[str, Any],
    prefix: str,
    hint: str | None = None,
) -> None:
    what = f"include({_names(target)}, {_names(other)}, {prefix!r})"
    try:
        got = call_student(student, target, other, prefix, what=what, returns="None", hint=hint)
    except CheckFailed as failed:
        if not isinstance(failed.got, ValueError):
            raise
        raise CheckFailed(  # the exercise raises ValueError, but not for this import
            f"{what} raised ValueError: {text(failed.got)}. This import is allowed: it should "
            "add the tools to target and return None.",
            expected=Described("None, the tools added"),
            got=failed.got,
            hint=hint,
        ) from None
    expect_equal(
        got,
        None,
        what=what,
        hint="include changes `target` in place and returns nothing (None), like dict.update.",
    )


def _names(tools: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{name!r}: {value.__name__}" for name, value in tools.items()) + "}"


def _expect_tools(got: dict[str, Any], expected: dict[str, Any], what: str, hint: str) -> None:
    expect_equal(sorted(got), sorted(expected), what=f"the names in the registry {what}", hint=hint)
    for name, value in expected.items():
        expect_true(
            got[name] is value,
            f"{name!r} in the registry {what} is not the tool that was included.",
            hint="Keep each tool as it is; only its name gets the prefix.",
        )


_BAD_PREFIXES = {
    "billing.v2": "OpenAI and Anthropic accept only letters, digits, '_' and '-' in a name.",
    "billing v2": "OpenAI and Anthropic accept only letters, digits, '_' and '-' in a name.",
    "_billing": "A prefix may not start or end with '_' (it would run into the separator).",
    "billing_": "A prefix may not start or end with '_' (it would run into the separator).",
    "": "An empty prefix is no namespace.",
    "bill__ing": "Never two '_' in a row inside a prefix: 'bill__ing__charge' could not be split "
    "back into its prefix and its name.",
    "billing\n": "A trailing newline is not a letter: re.match(r'...$') accepts 'billing\\n' "
    "('$' matches before a final newline); use re.fullmatch.",
    "bïlling": "Only ASCII letters: 'ï' is a letter to str.isalnum(), not to the providers, who "
    "accept a-z, A-Z, 0-9, '_' and '-'.",
    "billing٢": "Only ASCII digits: '٢' (Arabic-Indic two) is a digit to str.isdigit(), not to "
    "the providers.",
}


_PREFIXES = ["billing", "shop-eu_billing", "a", "-", "9", "A_b-c", "a_-_b", "", "_a", "a_",
             "a__b", "a b", "é", "billing\n", "a.b", "ß_x", "a\tb"]  # fmt: skip


def _include_call(rng: random.Random, size: int) -> Call:
    """A prefix (fine, or not: "_a", "a__b", "é", a newline at its end, ...), tools to include
    whose full names are around 64 characters too, and a target that holds some of those
    full names already, or others."""
    prefix = rng.choice(_PREFIXES) if rng.random() < 0.8 else "p" * rng.randint(20, 40)
    names = ["refund", "charge", "search", "x__y", "été"]
    other = {
        rng.choice([*names, "b" * max(1, 62 - len(prefix) + rng.randint(-1, 1))]): f"tool {n}"
        for n in range(rng.randint(0, min(4, 1 + size)))
    }
    target: dict[str, str] = {}
    for name in rng.sample(names, rng.randint(0, 2)):
        full = f"{prefix}__{name}" if rng.random() < 0.5 else name
        target[full] = f"old {name}"
    return Call((target, other, prefix))


_GENERATED = calls(_include_call, seed=92, count=200)


def _after(func: Callable[..., Any]) -> Callable[..., Any]:
    """What `func` returned or raised (a ValueError), and both registries afterwards."""

    def run(target: dict[str, Any], other: dict[str, Any], prefix: str) -> dict[str, Any]:
        try:
            returned, raised = func(target, other, prefix), None
        except ValueError:
            returned, raised = None, "ValueError"
        return {"returned": returned, "raised": raised, "target": target, "other": other}

    return run


@exercise(
    "9.2",
    title="A namespace merge that refuses collisions",
    hints=[
        "Three steps, in this order: check the prefix, compute every new name, check every new "
        "name; only then add anything.",
        "A new name is prefix + '__' + name, at most 64 characters. A prefix is letters, digits, "
        "'-' and single '_' inside: re.fullmatch(r'[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*', prefix).",
        "All or nothing: look for collisions before the first target[name] = ..., so a refused "
        "merge leaves the registry as it was.",
    ],
    reference=lambda: include,
)
def _check_include(student: Callable[..., Any]) -> None:
    target: dict[str, Any] = {"refund": _refund}
    _include(student, target, {"refund": _refund, "charge": _charge}, "billing")
    _expect_tools(
        target,
        {"refund": _refund, "billing__refund": _refund, "billing__charge": _charge},
        "after including refund and charge under 'billing'",
        "Each tool of `other` goes in as prefix + '__' + name (two underscores: OpenAI refuses "
        "dots, and one '_' could not be told apart from a name that has one).",
    )
    before = {"billing__refund": _refund, "search": _search}
    target = dict(before)
    other = {"charge": _charge, "refund": _search}
    what = f"include({_names(target)}, {_names(other)}, 'billing')"
    expect_raises(
        ValueError,
        student,
        target,
        other,
        "billing",
        what=what,
        match="billing__refund",
        hint="'billing__refund' is taken: refuse the merge with ValueError naming it.",
    )
    _expect_tools(
        target,
        before,
        "after the refused merge",
        "All or nothing: find every collision before adding the first tool.",
    )
    expect_equal(sorted(other), ["charge", "refund"], what="`other` after include")
    for prefix, why in _BAD_PREFIXES.items():
        target = {}
        expect_raises(
            ValueError,
            student,
            target,
            {"charge": _charge},
            prefix,
            what=f"include({{}}, {{'charge': _charge}}, {prefix!r})",
            hint=why,
        )
        expect_equal(target, {}, what=f"the registry after the refused prefix {prefix!r}")
    long = "b" * 30
    target = {}
    expect_raises(
        ValueError,
        student,
        target,
        {"charge": _charge, long: _search},
        "a" * 33,
        what=f"including 'charge' and a tool named {long!r} under the prefix {'a' * 33!r}",
        hint="The full name would be 65 characters: providers accept at most 64.",
    )
    expect_equal(
        target,
        {},
        what="the registry after a merge refused for a name of 65 characters",
        hint="All or nothing: check the length of every new name before adding the first one.",
    )
    target = {}
    at_limit = "64 characters is the limit itself, and allowed: refuse only more than 64."
    _include(student, target, {"b" * 29: _charge}, "a" * 33, hint=at_limit)
    _expect_tools(
        target,
        {f"{'a' * 33}__{'b' * 29}": _charge},
        "after including a name of exactly 64 characters",
        at_limit,
    )
    target = {}
    _include(student, target, {"charge": _charge}, "shop-eu_billing")
    _expect_tools(
        target,
        {"shop-eu_billing__charge": _charge},
        "after including charge under 'shop-eu_billing'",
        "'-' and a single '_' inside a prefix are fine.",
    )
    agree(
        _after(student),
        _after(include),
        _GENERATED,
        name="include",
        hint="Refuse a prefix that is not ASCII letters, digits, '-' and single '_' inside (use "
        "re.fullmatch: re.match with $ lets a final newline through), a new name over 64 "
        "characters or one already in target, with ValueError and nothing added; otherwise "
        "add them all and return None.",
    )
