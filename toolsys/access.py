"""Who may use a tool: its `roles` and `available` checked against the caller's context.

Why here, below the registry: these checks belong to the tool (`@registry.tool(roles=...,
available=...)`), and both the listing (`registry.export(target, context=...)`) and the
`toolsys.governance.Policy` layer at execution time must give the same answer. Each check
fails closed: an unknown category, a malformed `roles` in the context, or an `available` that
raises or answers anything but True denies, with a reason in words.

`Visibility(layers)` is the one decision listings and calls share (`toolsys.execution`): every
layer with a `visible(tool, context)` method (such as `Policy`) must say yes, so a policy's
rules hide tools too; without one, these tool-level checks decide alone. A call to a hidden
tool is refused before its arguments are even validated, so the answer never describes it.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Iterable, Mapping
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


def _own_checks(tool: Tool, context: Mapping[str, Any]) -> str | None:
    """The tool's own checks, with the common case (no roles, no `available`) answered at once."""
    if tool.open and tool.category in _KNOWN:
        return None
    return screen(tool, context)[0]


class Visibility:
    """The one decision of who may see and use a tool, for listings and calls alike.

    `shows(tool, context)`: may it be listed to this caller (and named in an UNKNOWN_TOOL
    answer, found by a search)? `refusal(tool, context)`: why a call to it is refused before its
    arguments are even validated, or None. Every layer with a `visible(tool, context)` method (a
    named layer's too) is asked, and all must say True; one that says anything else, or raises,
    hides the tool. For calls, a layer that also has `refusal(tool, context)` answers with it
    instead (`Policy`: what it refuses whatever the arguments; its rules then decide on them).
    Without such a layer, the tool's own checks decide both (`refusal` above). `open` is True
    when a tool with no roles and no `available` needs no question at all.
    """

    def __init__(self, layers: Iterable[Any]) -> None:
        self._judges = []
        for layer in layers:
            own = getattr(layer, "layer", layer)
            visible = getattr(own, "visible", None)
            if callable(visible):
                why = getattr(own, "refusal", None)
                self._judges.append((visible, why if callable(why) else None))
        self.open = not self._judges

    def shows(self, tool: Tool, context: Mapping[str, Any]) -> bool:
        if self.open:
            return _own_checks(tool, context) is None
        for visible, _ in self._judges:
            try:
                if visible(tool, context) is not True:
                    return False
            except Exception:
                return False
        return True

    def refusal(self, tool: Tool, context: Mapping[str, Any]) -> str | None:
        if self.open:
            return _own_checks(tool, context)
        for visible, why in self._judges:
            try:
                if why is not None:
                    reason = why(tool, context)
                    if reason is None:
                        continue
                elif visible(tool, context) is True:
                    continue
                else:
                    reason = None
            except Exception:
                reason = None
            name = getattr(tool, "name", "?")
            return reason if isinstance(reason, str) and reason else _hidden(name)
        return None


def _hidden(name: str) -> str:
    return f"The tool {name!r} is not available to this caller."


def export_for(
    owner: Any, entries: list[tuple[str, Tool]], target: str, strict: bool
) -> list[dict[str, Any]]:
    """`export_tools` of these (name, tool) entries, cached on `owner` by (target, strict,
    entries): callers with the same rights share one cached list. An entry whose name is not
    its tool's (a namespace lists short names) is exported under its name."""
    key = (target, strict, *(tool if tool.name == name else (name, tool) for name, tool in entries))
    cache = _caches.setdefault(owner, {})
    cached = cache.get(key)
    if cached is None:
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        shown = [tool if tool.name == name else _renamed(tool, name) for name, tool in entries]
        cached = cache[key] = export_tools(shown, target, strict=strict)
    return cached


def _renamed(tool: Tool, name: str) -> Tool:
    """`tool` as listed under another name (made once per tool and name)."""
    found = _listed_as.get(tool, {}).get(name)
    if found is None:
        found = dataclasses.replace(tool, name=name)
        _listed_as.setdefault(tool, {})[name] = found
    return found


_listed_as: weakref.WeakKeyDictionary[Tool, dict[str, Tool]] = weakref.WeakKeyDictionary()
