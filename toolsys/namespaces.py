"""Namespaces: many tools under prefixes, with names every provider accepts.

Why: past a few dozen tools, names collide (two plugins both bring `search`) and a model needs a
hint of where a tool comes from. A namespace is a prefix on the wire name: `billing__refund`,
built by the one rule every prefix follows (`toolsys.names.qualified`: why `__`, and the
64-character limit). The registry's own collision rule (`toolsys.names.normalize`) still applies
across namespaces: `billing__refund` and a root tool `billing_refund` read alike to a model, so
the second one is refused.

- `registry.include(other, prefix="billing")` copies every tool of `other` in under the prefix,
  all or nothing; a collision is refused naming both tools. It is a snapshot: later changes to
  `other` are not seen, and the including registry's layers (not `other`'s) run its calls.
- `registry.namespace("billing")` is a view, and an executor of its own: it registers with the
  prefix, and lists, exports and executes by the name relative to it (`refund`, and
  `tax__refund` for a nested namespace). Its calls go through the registry's own path and
  layers; a name that would not fit under the prefix reaches no tool, never one outside it.

Lesson: `notebooks/09_composition.ipynb` builds the prefix merge by hand and compares its names
with `include`'s.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from toolsys.errors import ToolDefinitionError
from toolsys.execution import View
from toolsys.names import SEPARATOR, check_prefix, normalize, qualified, qualified_or_none, split
from toolsys.spec import ToolSpec
from toolsys.tool import Tool, tool_from_function, tool_from_spec

if TYPE_CHECKING:
    from toolsys.execution import ExecutePath
    from toolsys.registry import Registry


def renamed(tool: Tool, name: str) -> Tool:
    """`tool` under a new name (its diagnostics too); everything else is shared."""
    old = f"{tool.name}: "
    diagnostics = tuple(
        f"{name}: {d.removeprefix(old)}" if d.startswith(old) else d for d in tool.diagnostics
    )
    return dataclasses.replace(tool, name=name, diagnostics=diagnostics)


def include(
    registry: Registry, other: Iterable[Tool], prefix: str, *, replace: bool = False
) -> list[Tool]:
    """Register every tool of `other` in `registry` under `prefix`; all of them or none.

    `other` is a registry (or any iterable of tools: a namespace view, a list)."""
    try:
        tools = builtins.list(other)
    except TypeError:
        tools = [other]  # type: ignore[list-item]
    if not all(isinstance(tool, Tool) for tool in tools):
        raise ToolDefinitionError(
            f"include({other!r}): pass a Registry (or a list of Tools) to include."
        )
    incoming = [renamed(tool, qualified(prefix, tool.name)) for tool in tools]
    if not replace:
        existing = {normalize(name): name for name in registry.names()}
        for tool, original in zip(incoming, tools, strict=True):
            clash = existing.get(normalize(tool.name))
            if clash is not None:
                raise ToolDefinitionError(
                    f"Cannot include {original.name!r} as {tool.name!r}: the registry already "
                    f"has {clash!r}"
                    + ("" if clash == tool.name else f" (both read as {normalize(clash)!r})")
                    + ". Nothing was included. Choose another prefix, unregister "
                    f"{clash!r}, or pass replace=True to override it on purpose."
                )
    return [registry.add(tool, replace=replace) for tool in incoming]


class _Prefixed:
    """The scope of a namespace: the registry's tools under one prefix, by relative name."""

    gate = None

    def __init__(self, registry: Registry, prefix: str) -> None:
        self.registry, self.prefix = registry, prefix
        self.start = prefix + SEPARATOR

    def lookup(self, name: str) -> Tool | None:
        full = qualified_or_none(self.prefix, name)
        return None if full is None else self.registry.lookup(full)

    def entries(self) -> list[tuple[str, Tool]]:
        start, cut = self.start, len(self.start)
        return [(tool.name[cut:], tool) for tool in self.registry if tool.name.startswith(start)]


class Namespace(View):
    """The part of a registry under one prefix, as an executor: register, list, get, export and
    execute by the name relative to the prefix. `registry.namespace("billing").tool(refund)`
    registers `billing__refund`, listed and called here as `refund`; tools in namespaces
    nested under it are exported and run here too (`sub__name`)."""

    def __init__(self, registry: Registry, prefix: str) -> None:
        check_prefix(prefix)
        self.registry, self.prefix = registry, prefix
        self._scope = _Prefixed(registry, prefix)

    def __repr__(self) -> str:
        return f"Namespace({self.prefix!r}: {', '.join(self.names()) or 'no tools'})"

    def full(self, name: str) -> str:
        """The registry name of short name `name`."""
        return qualified(self.prefix, name)

    def add(self, tool: Tool, *, replace: bool = False) -> Tool:
        return self.registry.add(renamed(tool, self.full(tool.name)), replace=replace)

    def register(
        self,
        spec_or_fn: ToolSpec | Callable[..., Any],
        fn: Callable[..., Any] | None = None,
        *,
        replace: bool = False,
        **options: Any,
    ) -> Tool:
        """As `Registry.register`, under the prefix."""
        if isinstance(spec_or_fn, ToolSpec):
            if fn is None:
                raise ToolDefinitionError(
                    f"register({spec_or_fn.name!r}): pass the implementation."
                )
            return self.add(tool_from_spec(spec_or_fn, fn, **options), replace=replace)
        if fn is not None:
            raise ToolDefinitionError("register(fn): pass a ToolSpec first when giving fn.")
        return self.add(tool_from_function(spec_or_fn, **options), replace=replace)

    def tool(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Decorator, as `Registry.tool`, under the prefix; the function is returned unchanged."""

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register(func, **options)
            return func

        return decorate(fn) if fn is not None else decorate

    def names(self) -> builtins.list[str]:
        """Short names of the tools directly in this namespace (not in nested ones)."""
        return [short for space, short in map(split, self.registry.names()) if space == self.prefix]

    def list(self) -> builtins.list[Tool]:
        """The tools in this namespace and in namespaces nested under it, as registered."""
        return [tool for _, tool in self._scope.entries()]

    def get(self, name: str) -> Tool:
        return self.registry.get(self.full(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __len__(self) -> int:
        return len(self.names())

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.list())

    @property
    def path(self) -> ExecutePath:
        """The registry's path (its layers) around this namespace's tools."""
        return self.registry.path(self._scope)


def describe(name: str) -> str | None:
    """The line `explain` shows for a namespaced tool, or None."""
    space, short = split(name)
    if space is None:
        return None
    return f"Namespace: {space!r} (tool {short!r} in it; filter with registry.namespace({space!r}))"


__all__ = [
    "SEPARATOR",
    "Namespace",
    "check_prefix",
    "describe",
    "include",
    "qualified",
    "renamed",
    "split",
]
