"""The registry: name -> tool. Register, look up, export, execute.

The agent loop needs exactly two things from it: `export(...)` to tell the model what exists and
`execute(...)` / `aexecute(...)` to run what the model asked for. `execute` never raises: every
failure (unknown tool, malformed JSON, invalid arguments, an exception inside the tool) comes back
as a `ToolResult` with an error envelope.

It is the base executor (`toolsys.execution.Executor`): its layers and tools make one
`ExecutePath`, and its views (a namespace, a deferred session) are executors whose paths are the
same layers around their own scope (`path(scope)`), so every route a call can take meets every
layer, and what each one lists is what it runs.

Chapters 01 and 02 build this by hand first: notebooks/01_dispatch.ipynb (a dispatch table),
notebooks/02_registry.ipynb (a small registry).
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from pydantic import BaseModel

from toolsys import failures
from toolsys.components import BaseTool, as_tool
from toolsys.errors import ToolDefinitionError
from toolsys.execution import (
    Arguments,
    ExecutePath,
    Layer,
    NamedLayer,
    Scope,
    in_order,
    layer_name,
    layer_stage,
)
from toolsys.export import LintIssue, export_tools, lint
from toolsys.names import SEPARATOR, check_prefix
from toolsys.namespaces import Namespace, include
from toolsys.result import ToolResult
from toolsys.spec import Category, ToolSpec
from toolsys.tool import Subprocess, Tool, normalize, tool_from_function, tool_from_spec


class _Everything:
    """The registry's own scope: every tool, by its registered name."""

    gate = None

    def __init__(self, tools: dict[str, Tool]) -> None:
        self.lookup = tools.get
        self._tools = tools

    def entries(self) -> list[tuple[str, Tool]]:
        return list(self._tools.items())


class Registry:
    """Tools by name, with schemas built once and exports cached until the tool set changes.

    `coerce=False` (the default) validates strictly, so what the validator accepts is what the
    exported schema promises; `coerce=True` also accepts e.g. "3" for an integer.

    `registry.execute(name, arguments, *, context=None, run_id=None, step=None, call_id=None,
    idempotency_key=None)` -> ToolResult runs a tool by name (see `execute` below). It is a
    slot holding the execute path's own bound method (`ExecutePath.execute`, set again when the
    layers change), so a call pays for no frame of the registry's (about a twentieth of a small
    tool's call). A subclass that defines `execute` overrides it as usual (`super().execute`
    works), `mock.patch.object(Registry, "execute")` replaces it for every registry, and
    `registry.execute = fn` replaces it for one (kept when the layers change; give it back with
    `registry.execute = registry.path().execute`).
    """

    if not TYPE_CHECKING:
        __slots__ = ("__dict__", "__weakref__", "execute")

    def __init__(self, *, layers: builtins.list[Layer] | None = None, coerce: bool = False) -> None:
        self._tools: dict[str, Tool] = {}
        self._normalized: dict[str, str] = {}
        self._exports: dict[tuple[str, bool], builtins.list[dict[str, Any]]] = {}
        self._layers: builtins.list[Layer] = []
        self._coerce = bool(coerce)
        self._dependencies: dict[str, Any] = {}
        self._scope = _Everything(self._tools)
        self._paths: weakref.WeakKeyDictionary[Any, ExecutePath] = weakref.WeakKeyDictionary()
        self._rebuild()
        for layer in layers or []:
            self.use(layer)

    @property
    def coerce(self) -> bool:
        """Validate leniently ("3" for an integer) instead of strictly."""
        return self._coerce

    @coerce.setter
    def coerce(self, value: bool) -> None:
        self._coerce = bool(value)
        self._rebuild()

    # -- registration -------------------------------------------------------------------------

    def add(self, tool: Tool | BaseTool, *, replace: bool = False) -> Tool:
        """Register a built `Tool` or a `BaseTool` instance. Every other way ends here."""
        tool = as_tool(tool)
        key = normalize(tool.name)
        existing = self._normalized.get(key)
        if existing is not None and not replace:
            same = existing == tool.name
            raise ToolDefinitionError(
                f"A tool named {existing!r} is already registered"
                + (
                    ""
                    if same
                    else f", and {tool.name!r} differs from it only by case, '-'/'_' or "
                    f"camelCase (both read as {key!r}; a model confuses them)"
                )
                + ". Choose another name, unregister the old tool first, or pass replace=True "
                "to override it on purpose."
            )
        if existing is not None:
            del self._tools[existing]
        self._tools[tool.name] = tool
        self._normalized[key] = tool.name
        self._exports.clear()
        return tool

    def register(
        self,
        spec_or_fn: ToolSpec | Callable[..., Any],
        fn: Callable[..., Any] | None = None,
        *,
        replace: bool = False,
        **options: Any,
    ) -> Tool:
        """Register `ToolSpec` + implementation, or a function (options as for `tool`).

        With a spec, only the execution options apply: `timeout`, `idempotent`, `isolate`.
        """
        if isinstance(spec_or_fn, ToolSpec):
            if fn is None:
                raise ToolDefinitionError(
                    f"register({spec_or_fn.name!r}): a ToolSpec needs its implementation, "
                    "e.g. registry.register(spec, search_impl)."
                )
            return self.add(tool_from_spec(spec_or_fn, fn, **options), replace=replace)
        if fn is not None:
            raise ToolDefinitionError("register(fn): pass a ToolSpec first when giving fn.")
        return self.add(tool_from_function(spec_or_fn, **options), replace=replace)

    @overload
    def tool(self, fn: Callable[..., Any], /) -> Callable[..., Any]: ...
    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        category: Category = Category.READ,
        tags: tuple[str, ...] = (),
        args: type[BaseModel] | None = None,
        replace: bool = False,
        timeout: float | None = None,
        idempotent: bool | None = None,
        isolate: str | Subprocess | None = None,
        roles: Any = None,
        available: Callable[[Mapping[str, Any]], Any] | None = None,
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...

    def tool(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Decorator: `@registry.tool` or `@registry.tool(name=..., category=..., args=Model)`.

        The function is returned unchanged, so it stays callable and testable on its own.
        `timeout`, `idempotent` and `isolate` are read by the robustness layers
        (`toolsys.layers`); see `Tool`.
        """

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register(func, **options)
            return func

        return decorate(fn) if fn is not None else decorate

    def include(
        self, other: Iterable[Tool], *, prefix: str, replace: bool = False
    ) -> builtins.list[Tool]:
        """Copy every tool of `other` in under `prefix` (`billing__refund`), all or none."""
        return include(self, other, prefix, replace=replace)

    def namespace(self, prefix: str) -> Namespace:
        """A view (an executor) that registers, lists, exports and runs tools under `prefix`,
        by their names relative to it."""
        return Namespace(self, prefix)

    def lazy(self, name: str, *, replace: bool = False, **manifest: Any) -> Tool:
        """Register a tool by manifest, imported on first call: see `toolsys.lazy.lazy_tool`."""
        from toolsys.lazy import lazy_tool

        return self.add(lazy_tool(name, **manifest), replace=replace)

    def provide(self, **dependencies: Any) -> None:
        """Give tools their dependencies: `Annotated[T, Depends("db")]` gets `provide(db=...)`."""
        self._dependencies.update(dependencies)

    def unregister(self, name: str) -> Tool:
        tool = self.get(name)
        del self._tools[tool.name]
        del self._normalized[normalize(tool.name)]
        self._exports.clear()
        return tool

    # -- lookup ---------------------------------------------------------------------------------

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            error = failures.unknown_tool(name, self.names())
            raise KeyError(f"{error.message} {error.suggestion}") from None

    def lookup(self, name: str) -> Tool | None:
        """The tool registered as `name`, or None."""
        return self._tools.get(name)

    def names(self) -> builtins.list[str]:
        return list(self._tools)

    def list(
        self,
        category: Category | str | None = None,
        prefix: str | None = None,
        *,
        context: Mapping[str, Any] | None = None,
    ) -> builtins.list[Tool]:
        """The registered tools, optionally only one category, only those under a prefix (the
        namespace `prefix`: `billing__...`, nested ones included), only those a caller may use
        (`context`, as `export` decides)."""
        if prefix is not None:
            check_prefix(prefix)
        start = None if prefix is None else prefix + SEPARATOR
        tools = [tool for _, tool in self._path.listed(context)]
        return [
            tool
            for tool in tools
            if (category is None or tool.category == category)
            and (start is None or tool.name.startswith(start))
        ]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        """`Registry(3 tools: a, b, c)`, names left out past 100 characters ("… and 2 more")."""
        count = f"{len(self)} tool" + ("" if len(self) == 1 else "s")
        names = list(self._tools)
        shown = ", ".join(names) or "none"
        for kept in range(len(names) - 1, 0, -1):
            if len(f"Registry({count}: {shown})") <= 100:
                break
            shown = f"{', '.join(names[:kept])} … and {len(names) - kept} more"
        return f"Registry({count}: {shown})"

    @property
    def diagnostics(self) -> builtins.list[str]:
        """Everything registration noticed and could not fix: read these."""
        return [d for tool in self._tools.values() for d in tool.diagnostics]

    # -- export -------------------------------------------------------------------------------

    def export(
        self,
        target: str = "openai",
        *,
        strict: bool = False,
        deferred: bool = False,
        core: Any = None,
        context: Mapping[str, Any] | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """All tools in a provider's format. Cached: free until the tool set changes.

        With `context` (the caller: user, roles...), only the tools this caller may use
        (`toolsys.access`: the tools' roles and availability, and the policy layer's rules).

        The list and everything in it are read-only, because they are shared between calls and
        with the tools themselves: `copy.deepcopy(registry.export())` gives a copy to change.
        `deferred=True`: only the `core` tools and `search_tools`, what a `deferred()` session
        shows first.
        """
        if deferred:
            return self.deferred(core).export(target, strict=strict, context=context)
        if context is not None:
            return self._path.export(target, strict, context)
        key = (target, strict)
        cached = self._exports.get(key)
        if cached is None:
            cached = export_tools(self._tools.values(), target, strict=strict)
            self._exports[key] = cached
        return cached

    def search(self, query: Any, k: int = 5) -> builtins.list[Any]:
        """The `k` tools that best match `query`, as (name, score) hits: see toolsys.search."""
        from toolsys.search.index import search

        return search(self, query, k)

    def deferred(self, core: Any = None, *, k: int = 5) -> Any:
        """A session for one run that loads tools as the model searches: see toolsys.search."""
        from toolsys.search.deferred import Deferred

        return Deferred(self, core, k=k)

    def lint(self, target: str = "openai", *, strict: bool = False) -> builtins.list[LintIssue]:
        """What `target` would reject, found before any request is sent."""
        return lint(self._tools.values(), target, strict=strict)

    def explain(self, name: str) -> str:
        """Exactly what the model sees for one tool, in each format, with any diagnostics."""
        from toolsys.explain import explain

        return explain(self.get(name))

    # -- execution ------------------------------------------------------------------------------

    @property
    def layers(self) -> builtins.list[str]:
        """The names of the execution layers in the order a call meets them: every "received"
        layer, then every "validated" one (see `toolsys.execution`)."""
        return [layer_name(layer) for layer in in_order(self._layers)]

    def path(self, scope: Scope | None = None) -> ExecutePath:
        """The execute path of this registry's layers around `scope` (a view's tools: a
        namespace, a deferred session), or around all its tools; rebuilt when the layers change."""
        if scope is None:
            return self._path
        path = self._paths.get(scope)
        if path is None:
            path = ExecutePath(
                self._layers, scope, coerce=self._coerce, dependencies=self._dependencies
            )
            self._paths[scope] = path
        return path

    def use(
        self,
        layer: Layer,
        *,
        name: str | None = None,
        before: str | None = None,
        after: str | None = None,
    ) -> None:
        """Add an execution layer: last (innermost) by default, or `before`/`after` a named one.

        `name` overrides the layer's own name (its `name` attribute or function name); names are
        unique, so a layer can be found again and removed with `remove_layer`. A call meets every
        "received" layer before any "validated" one, so `before`/`after` name a layer of the
        same stage.
        """
        if name is not None:
            layer = NamedLayer(layer, name)
        stage = layer_stage(layer)  # refuse an unknown stage now, not at the first call
        if layer_name(layer) in self.layers:
            raise ValueError(
                f"A layer named {layer_name(layer)!r} is already in use; pass name=... to add "
                "another one, or remove_layer() the old one first."
            )
        if before is not None and after is not None:
            raise ValueError("use(): pass before= or after=, not both.")
        index = len(self._layers)
        other = before if before is not None else after
        if other is not None:
            index = self._layer_index(other) + (before is None)
            there = layer_stage(self._layers[index - (before is None)])
            if there != stage:
                raise ValueError(
                    f"use({layer_name(layer)!r}, {'before' if before else 'after'}="
                    f"{other!r}): {other!r} is a {there!r} layer and this one is {stage!r}; "
                    "every 'received' layer meets a call before every 'validated' one, so "
                    "place it among the layers of its own stage."
                )
        self._layers.insert(index, layer)
        self._rebuild()

    def remove_layer(self, name: str) -> Layer:
        """Take the layer called `name` out of the execute path and return it."""
        layer = self._layers.pop(self._layer_index(name))
        self._rebuild()
        return layer.layer if isinstance(layer, NamedLayer) else layer

    def _layer_index(self, name: str) -> int:
        names = [layer_name(layer) for layer in self._layers]
        if name not in names:
            raise ValueError(f"No layer named {name!r}; the layers are: {self.layers or 'none'}.")
        return names.index(name)

    def _rebuild(self) -> None:
        self._path = path = ExecutePath(
            self._layers, self._scope, coerce=self._coerce, dependencies=self._dependencies
        )
        try:
            current = _EXECUTE.__get__(self)
        except AttributeError:  # a new registry
            current = None
        if current is None or getattr(current, "__func__", None) is ExecutePath.execute:
            _EXECUTE.__set__(self, path.execute)  # else `registry.execute = fn`: kept
        self._paths.clear()

    if TYPE_CHECKING:  # what `execute` is to a type checker (and to a reader)

        def execute(
            self,
            name: str,
            arguments: Arguments = None,
            *,
            context: Mapping[str, Any] | None = None,
            run_id: str | None = None,
            step: int | None = None,
            call_id: str | None = None,
            idempotency_key: str | None = None,
        ) -> ToolResult:
            """Run a tool by name. Never raises; usable inside a running event loop (Jupyter)."""

    async def aexecute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """Run a tool by name from async code. Never raises.

        An async tool is awaited, so several calls overlap; a sync tool runs inline, in order,
        which keeps side effects deterministic and thread-bound resources (a sqlite connection)
        safe. A layer that sets `offload` on the call moves a sync tool to a worker thread.
        `idempotency_key` reaches the layers on the call (see `toolsys.layers.Idempotency`).
        """
        path = self._path
        return await path.aexecute(name, arguments, context, run_id, step, call_id, idempotency_key)


_EXECUTE: Any = Registry.__dict__["execute"]
"""The `execute` slot's descriptor: `_rebuild` sets it to the new path's bound method."""
