"""The shop's tools, one file each: adding a tool is adding a file here.

Each module marks its functions with `@shop_tool(...)`; `tools()` imports every module of this
folder (`toolsys.discover`) and returns them all, for `toolsys.shop.agent.build` to register on
a fresh registry bound to one database. Nothing is registered at import, so two shops (a test's
and a lesson's) never share tools or state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_FOUND: list[tuple[Callable[..., Any], dict[str, Any]]] = []


def shop_tool(**options: Any) -> Callable[[F], F]:
    """Mark a function as a shop tool; `options` are `Registry.tool`'s (category, args...)."""

    def mark(fn: F) -> F:
        _FOUND.append((fn, options))
        return fn

    return mark


def tools() -> list[tuple[Callable[..., Any], dict[str, Any]]]:
    """Every shop tool with its registration options, in file-name order."""
    from toolsys import discover

    discover(__name__)
    return sorted(_FOUND, key=lambda found: (found[0].__module__, found[0].__name__))
