"""Who may use a tool: its `roles` and `available` checked against the caller's context.

Why here, below the registry: these checks belong to the tool (`@registry.tool(roles=...,
available=...)`), and both the listing (`registry.export(target, context=...)`) and the
`toolsys.governance.Policy` layer at execution time must give the same answer. Each check
fails closed: an unknown category, a malformed `roles` in the context, or an `available` that
raises or answers anything but True denies, with a reason in words.

The listing asks the registry's policy when it has one (any layer with a `visible(tool,
context)` method, such as `Policy`), so a policy's fixed `Deny` rules hide tools too; without
one it applies these tool-level checks alone.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolsys.export import export_tools
from toolsys.spec import Category
from toolsys.tool import Tool

_KNOWN = frozenset(Category)
_CACHE_SIZE = 64
_NO_ROLES: frozenset[str] = frozenset()
_checked: dict[frozenset[Any], None] = {}  # role sets already checked to hold only names
_caches: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], list[dict[str, Any]]]] = (
    weakref.WeakKeyDictionary()
)


def caller_roles(context: Mapping[str, Any]) -> frozenset[str]:
    """The caller's roles from `context["roles"]` (a set, list or one name); ValueError if not."""
    roles = context.get("roles")
    if roles is None:
        return _NO_ROLES
    if isinstance(roles, str):
        return frozenset({roles})
    if isinstance(roles, set | frozenset | list | tuple):
        names = _names(roles)
        if names is not None:
            return names
    raise ValueError(f"context['roles'] is {roles!r}; give a set of role names, e.g. {{'support'}}")


def _names(roles: Any) -> frozenset[str] | None:
    """`roles` as a frozenset when every item is a name, else None. Remembered: the same roles
    come call after call, and a frozenset of names stays one."""
    try:
        frozen = frozenset(roles)
    except TypeError:  # an unhashable item: not a name
        return None
    if frozen in _checked:
        return frozen
    if not all(isinstance(role, str) for role in frozen):
        return None
    if len(_checked) >= _CACHE_SIZE:
        _checked.clear()
    _checked[frozen] = None
    return frozen


def refusal(tool: Tool, context: Mapping[str, Any]) -> str | None:
    """Why this caller may not use `tool` (category, roles, available), or None; never raises."""
    return screen(tool, context)[0]


def screen(tool: Tool, context: Mapping[str, Any]) -> tuple[str | None, frozenset[str]]:
    """`refusal(tool, context)` and the caller's roles (empty when they cannot be read)."""
    name = getattr(tool, "name", "?")
    category = getattr(tool, "category", None)
    if category not in _KNOWN:
        return (
            f"Tool {name!r} has the unknown category {category!r}, so no rule covers it; "
            f"only {', '.join(c.value for c in Category)} tools can run.",
            _NO_ROLES,
        )
    try:
        roles = caller_roles(context)
    except ValueError as exc:
        return f"The caller's roles cannot be read ({exc}), so {name!r} is refused.", _NO_ROLES
    allowed = getattr(tool, "roles", None)
    if allowed is not None and not (allowed & roles):
        return (
            f"Tool {name!r} is only for the roles {', '.join(sorted(allowed)) or '(none)'}; "
            f"this caller has {', '.join(sorted(roles)) or 'no role'}.",
            roles,
        )
    available = getattr(tool, "available", None)
    if available is None:
        return None, roles
    try:
        answer = available(context)
    except Exception as exc:
        return (
            f"The call to {name!r} is refused because its available() check failed "
            f"({type(exc).__name__}); a check that cannot decide says no.",
            roles,
        )
    if answer is True:
        return None, roles
    why = "" if answer is False else f" (it answered {answer!r}, not True)"
    return f"Tool {name!r} is not available to this caller now{why}.", roles


def _visible_by_default(tool: Tool, context: Mapping[str, Any]) -> bool:
    return refusal(tool, context) is None


def judge(layers: Iterable[Any]) -> Callable[[Tool, Mapping[str, Any]], bool]:
    """The `visible` of the first layer that has one (a named layer too), else the tool checks."""
    for layer in layers:
        visible = getattr(getattr(layer, "layer", layer), "visible", None)
        if callable(visible):
            return visible
    return _visible_by_default


def export_for(
    owner: Any,
    tools: Iterable[Tool],
    layers: Iterable[Any],
    target: str,
    strict: bool,
    context: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """`export_tools` of what this caller may see, cached on `owner` by (target, strict, tools).

    Callers with the same rights share one cached list.
    """
    visible = judge(layers)
    shown = [tool for tool in tools if _safe(visible, tool, context)]
    key = (target, strict, *shown)
    cache = _caches.setdefault(owner, {})
    cached = cache.get(key)
    if cached is None:
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cached = cache[key] = export_tools(shown, target, strict=strict)
    return cached


def _safe(visible: Callable[[Tool, Mapping[str, Any]], bool], tool: Tool, context: Any) -> bool:
    try:
        return visible(tool, context) is True
    except Exception:
        return False
