"""Exercise 9.2, a namespace merge that refuses collisions: the check and its reference, `include`.

The merge of `toolsys.namespaces.qualified`; the cases are a merge that adds half the tools before
it finds a collision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal, expect_raises, expect_true


def include(target: dict[str, Any], other: dict[str, Any], prefix: str) -> None:
    """Reference for 9.2: the names `Registry.include` gives, all or nothing."""
    from toolsys.namespaces import qualified

    incoming = {qualified(prefix, name): value for name, value in other.items()}
    clashes = [name for name in incoming if name in target]
    if clashes:
        raise ValueError(
            f"Cannot include under {prefix!r}: {clashes[0]!r} is already registered. "
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
    student: Callable[..., Any], target: dict[str, Any], other: dict[str, Any], prefix: str
) -> None:
    what = f"include({_names(target)}, {_names(other)}, {prefix!r})"
    call_student(student, target, other, prefix, what=what, returns="None, or raise ValueError")


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
}


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
    expect_raises(
        ValueError,
        student,
        {},
        {long: _charge},
        "a" * 33,
        what=f"including a tool named {long!r} under the prefix {'a' * 33!r}",
        hint="The full name would be 65 characters: providers accept at most 64.",
    )
    target = {}
    _include(student, target, {"charge": _charge}, "shop-eu_billing")
    _expect_tools(
        target,
        {"shop-eu_billing__charge": _charge},
        "after including charge under 'shop-eu_billing'",
        "'-' and a single '_' inside a prefix are fine.",
    )
