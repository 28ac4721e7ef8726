"""What one caller may use: the registry's tools filtered by the policy, for `export(context=)`.

Why at listing time too: a model cannot call well what it cannot see, and should not be
tempted by what it may not call. The filter is the policy's own `visible` (roles, `available`,
unknown categories, fixed Deny rules), the same decision the `Policy` layer makes again when a
call arrives. The policy is the registry's `Policy` layer, or the default `Policy()` when it
has none. Exports are cached per set of visible tools, so callers with the same rights share one.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import Any

from toolsys.export import export_tools
from toolsys.governance.policy import Policy
from toolsys.tool import Tool

_CACHE_SIZE = 64
_caches: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], list[dict[str, Any]]]] = (
    weakref.WeakKeyDictionary()
)


def policy_of(layers: Iterable[Any]) -> Policy:
    """The first `Policy` among the layers (a named one too), else the default policy."""
    for layer in layers:
        layer = getattr(layer, "layer", layer)
        if isinstance(layer, Policy):
            return layer
    return Policy()


def visible_tools(
    tools: Iterable[Tool], layers: Iterable[Any], context: Mapping[str, Any] | None
) -> list[Tool]:
    """The tools this caller may see, in registration order."""
    policy = policy_of(layers)
    return [tool for tool in tools if policy.visible(tool, context)]


def export_for(
    owner: Any,
    tools: Iterable[Tool],
    layers: Iterable[Any],
    target: str,
    strict: bool,
    context: Mapping[str, Any] | None,
) -> list[dict[str, Any]]:
    """`export_tools` of the visible tools, cached on `owner` by (target, strict, tools)."""
    shown = visible_tools(tools, layers, context)
    key = (target, strict, *shown)
    cache = _caches.setdefault(owner, {})
    cached = cache.get(key)
    if cached is None:
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cached = cache[key] = export_tools(shown, target, strict=strict)
    return cached
