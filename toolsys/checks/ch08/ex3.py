"""Exercise 8.3, a role filter for export: the check and its reference, `visible`.

The role filter of `toolsys.access`; the cases are an empty role set read as 'everyone' and a check
of `available` by truthiness.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import difference


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
    add("flaky", available=lambda context: context["region"] == "eu")
    add("beta_search", available=lambda context: context.get("beta") is True)
    add("maybe", available=lambda context: "yes")
    add("one", available=lambda context: 1)
    add("order_status", available=lambda context: True)
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
    "one": "available(context) must return the boolean True: 1 == True in Python, so "
    "`== True` lets 1 through. Compare with `is True`.",
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


_ROLE_SETS: list[set[str] | None] = [None, None, set(), {"support"}, {"admin", "auditor"}, {"é"}]
_AVAILABLE: list[tuple[str, Callable[[Any], Any] | None]] = [
    ("always", None),
    ("beta", lambda context: context.get("beta") is True),
    ("eu", lambda context: context["region"] == "eu"),  # raises without a region
    ("yes", lambda context: "yes"),
    ("one", lambda context: 1),
    ("true", lambda context: True),
    ("none", lambda context: None),
    ("many", lambda context: len(context["roles"]) > 1),  # raises for None or no roles
]


def _pool() -> dict[str, Any]:
    """Every pairing of the roles a tool may hold with the available() it may have, by name."""
    from toolsys import Registry

    registry = Registry()
    for r, roles in enumerate(_ROLE_SETS):
        for name, available in _AVAILABLE:
            registry.register(
                lambda: None, name=f"t{r}_{name}", description="A tool.", roles=roles,
                available=available,
            )  # fmt: skip
    return {tool.name: tool for tool in registry}


class _Named(list[str]):
    """The names of the tools passed, shown as the tools they stand for."""

    def __repr__(self) -> str:
        return f"[the tools {', '.join(self)}]" if self else "[]"


def _visible_call(rng: random.Random, size: int) -> Call:
    """Some of the pool's tools, in some order, and a caller: roles a set, a list, one string,
    None or no key; sometimes beta (True or not) and a region."""
    names = [f"t{r}_{a}" for r in range(len(_ROLE_SETS)) for a, _ in _AVAILABLE]
    tools = rng.sample(names, rng.randint(0, min(len(names), 1 + size)))
    names_held = rng.sample(["support", "admin", "auditor", "viewer", "é"], rng.randint(0, 3))
    context: dict[str, Any] = {}
    form = rng.randrange(6)
    if form == 0:
        context["roles"] = set(names_held)
    elif form == 1:
        context["roles"] = list(names_held)
    elif form == 2:
        context["roles"] = rng.choice(["support", "admin", "viewer", "é"])
    elif form == 3:
        context["roles"] = None
    if rng.random() < 0.5:
        context["beta"] = rng.choice([True, False, "yes", 1])
    if rng.random() < 0.5:
        context["region"] = rng.choice(["eu", "us"])
    return Call((_Named(tools), context))


_GENERATED = calls(_visible_call, seed=83, count=200)


def _names_seen(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` on the named tools of the pool; what it returns, as the tools' names."""
    pool = _pool()

    def run(names: list[str], context: dict[str, Any]) -> Any:
        got = func([pool[name] for name in names], context)
        if type(got) is not list or not all(any(g is t for t in pool.values()) for g in got):
            return got
        return [tool.name for tool in got]

    return run


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
        given = copy.deepcopy(context)
        got = call_student(student, list(tools), given, what=what, returns="a list of tools")
        if given != context or type(given.get("roles")) is not type(context.get("roles")):
            raise CheckFailed(
                f"{what} changed the caller's context.",
                expected=context,
                got=given,
                hint="Read the roles into a variable of your own (roles = {r} if isinstance(r, "
                "str) else set(r or ())) and leave context as it was: it is the caller's, and "
                "the same context goes on to export and to the calls.",
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
    agree(
        _names_seen(student),
        _names_seen(visible),
        _GENERATED,
        name="visible",
        compare=lambda got, expected, what: difference(got, expected, "the names of the tools"),
        hint="Keep a tool when its roles are None or share a role with the caller's (one string "
        "is one role; None or no key is no role), and its available is None or "
        "available(context) is True (raising hides it).",
    )
