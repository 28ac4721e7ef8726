"""Namespaces: many tools under prefixes, with names every provider accepts.

Why: past a few dozen tools, names collide (two plugins both bring `search`) and a model needs a
hint of where a tool comes from. A namespace is a prefix on the wire name: `billing__refund`.

Why `__`, not a dot or one `_`: OpenAI and Anthropic accept only `^[a-zA-Z0-9_-]{1,64}$`, so
`billing.refund` cannot be sent. A single `_` is ambiguous (`billing_refund` could be the root
tool `billing_refund`), while `__` can be split back into namespace and tool, is what MCP clients
already send (`mcp__server__tool`), and reads as one token boundary to a tokenizer. Prefix parts
may therefore not contain `__` or start or end with `_`. The registry's own collision rule
(`toolsys.tool.normalize`) still applies across namespaces: `billing__refund` and a root tool
`billing_refund` read alike to a model, so the second one is refused.

- `registry.include(other, prefix="billing")` copies every tool of `other` in under the prefix,
  all or nothing; a collision is refused naming both tools. It is a snapshot: later changes to
  `other` are not seen, and the including registry's layers (not `other`'s) run its calls.
- `registry.namespace("billing")` is a view: it registers with the prefix and lists, gets,
  exports and executes by the short name, within the namespace only.

Lesson: `notebooks/09_composition.ipynb` builds the prefix merge by hand and compares its names
with `include`'s.
"""

from __future__ import annotations

import builtins
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from toolsys.errors import ToolDefinitionError
from toolsys.export import export_tools
from toolsys.result import ToolResult
from toolsys.spec import ToolSpec
from toolsys.tool import NAME_PATTERN, Tool, normalize, tool_from_function, tool_from_spec

if TYPE_CHECKING:
    from toolsys.execution import Arguments
    from toolsys.registry import Registry

SEPARATOR = "__"
_PART = r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*"
_PREFIX = re.compile(rf"^{_PART}(?:__{_PART})*$")
_QUALIFIED = re.compile(rf"^((?:{_PART}__)+)(.+)$")


def check_prefix(prefix: str) -> None:
    """Refuse a prefix that is not wire-safe or could not be split off again."""
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise ToolDefinitionError(
            f"Namespace prefix {prefix!r} is not usable: use letters, digits, '-' and single '_' "
            f"(no dots, no '__', not starting or ending with '_'), e.g. 'billing'; nest with "
            f"'{SEPARATOR}' ('shop__billing')."
        )


def qualified(prefix: str, name: str) -> str:
    """The wire name of tool `name` in namespace `prefix`: `billing__refund`, at most 64 chars."""
    check_prefix(prefix)
    full = f"{prefix}{SEPARATOR}{name}"
    if not NAME_PATTERN.match(full):
        raise ToolDefinitionError(
            f"Tool {name!r} in namespace {prefix!r} would be named {full!r} ({len(full)} "
            "characters); providers accept 1-64 characters from A-Z, a-z, 0-9, '_' and '-'. "
            "Use a shorter prefix or tool name."
        )
    return full


def split(name: str) -> tuple[str | None, str]:
    """(namespace, short name) of a wire name: `shop__billing__refund` -> ("shop__billing",
    "refund"); a name outside any namespace -> (None, name)."""
    match = _QUALIFIED.match(name)
    if match is None:
        return None, name
    return match.group(1)[: -len(SEPARATOR)], match.group(2)


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


class Namespace:
    """The part of a registry under one prefix: register, list, get, export and execute by
    short name. `registry.namespace("billing").tool(refund)` registers `billing__refund`."""

    def __init__(self, registry: Registry, prefix: str) -> None:
        check_prefix(prefix)
        self.registry, self.prefix = registry, prefix

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
        start = self.prefix + SEPARATOR
        return [tool for tool in self.registry if tool.name.startswith(start)]

    def get(self, name: str) -> Tool:
        return self.registry.get(self.full(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __len__(self) -> int:
        return len(self.names())

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.list())

    def export(
        self, target: str = "openai", *, strict: bool = False
    ) -> builtins.list[dict[str, Any]]:
        """Only this namespace's tools (nested ones included), under their full names."""
        return export_tools(self.list(), target, strict=strict)

    def execute(self, name: str, arguments: Arguments = None, **options: Any) -> ToolResult:
        """Run a tool of this namespace by short name (`Registry.execute`'s options apply)."""
        return self.registry.execute(self._wire(name), arguments, **options)

    async def aexecute(self, name: str, arguments: Arguments = None, **options: Any) -> ToolResult:
        return await self.registry.aexecute(self._wire(name), arguments, **options)

    def _wire(self, name: object) -> Any:
        # Never raises: a name that cannot be qualified is passed on and reported as unknown.
        if isinstance(name, str) and NAME_PATTERN.match(f"{self.prefix}{SEPARATOR}{name}"):
            return f"{self.prefix}{SEPARATOR}{name}"
        return name


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
