"""Tools as classes: `BaseTool` for one tool with its dependencies, `Toolkit` for a group.

A function is the shortest way to write a tool, but a tool inside a company system needs things
a function would take from globals: a database connection, an e-mail client, settings. A class
takes them in `__init__`, so a test builds the tool with a fake outbox and production with the
real one, and nothing is global:

    class SendEmail(BaseTool):
        '''Send an e-mail to a customer.'''
        category = Category.WRITE

        def __init__(self, outbox: Outbox) -> None:
            self.outbox = outbox

        def run(self, to: str, subject: str, body: str) -> str: ...

    registry.add(SendEmail(outbox))

`roles` and `available` say who may see and use it, as for a function tool (`toolsys.access`).
A `Toolkit`'s `prefix` qualifies every name the one way a prefix does (`toolsys.names`):
`Toolkit(..., prefix="mail")` registers `mail__send_email`.

`run` is read like a function tool (type hints + docstring), or takes one Pydantic model when the
class sets `args = Model`; it may be `async def`, and may declare injected parameters
(`ctx: Context`, `Annotated[T, Depends(...)]`, see `toolsys.injection`). The `Tool` it becomes is
built by the same schema generator, runs through the same envelope and layers as any other.

Why `BaseTool`: it is the name langchain and crewAI use for the same thing, so a reader coming
from them recognises it; the "Base" says "subclass me" (it is not a base of `Tool`, the built,
registered form every style ends up as).

Chapter 02 shows the class style next to the function style: notebooks/02_registry.ipynb.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel

from toolsys.errors import ToolDefinitionError
from toolsys.names import check_prefix, qualified
from toolsys.spec import Category
from toolsys.tool import Tool, check_name, normalize, tool_from_function


class BaseTool:
    """A tool written as a class. Set the class attributes, define `run`, pass dependencies to
    `__init__`, and register an instance: `registry.add(SendEmail(outbox))`.

    `name` defaults to the class name in snake_case, `description` to the class docstring (then
    to `run`'s); `args` is an optional Pydantic model that `run` receives whole.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    category: ClassVar[Category | str] = Category.READ
    args: ClassVar[type[BaseModel] | None] = None
    tags: ClassVar[tuple[str, ...]] = ()
    timeout: ClassVar[float | None] = None
    idempotent: ClassVar[bool | None] = None
    roles: ClassVar[Any] = None
    """Who may see and use it (role names); None: everyone."""
    available: ClassVar[Callable[[Mapping[str, Any]], Any] | None] = None
    """`available(context) -> bool`, e.g. a feature flag; a plain function, not a method."""

    def tool_name(self) -> str:
        """The name the model sees (before any toolkit prefix)."""
        return type(self).name or normalize(type(self).__name__)

    def as_tool(self, prefix: str = "") -> Tool:
        """This instance built into a registrable `Tool`, named `prefix__name` with a prefix."""
        cls = type(self)
        run = getattr(self, "run", None)
        if not callable(run):
            raise ToolDefinitionError(
                f"{cls.__qualname__} has no run method: define `def run(self, ...)` with typed "
                "parameters (or `def run(self, args: Model)` with `args = Model`)."
            )
        try:
            category = Category(cls.category)
        except ValueError:
            raise ToolDefinitionError(
                f"{cls.__qualname__}.category = {cls.category!r} is not a category; use one of "
                f"{', '.join(c.value for c in Category)} (toolsys.Category)."
            ) from None
        description = cls.description or inspect.cleandoc(cls.__doc__ or "") or None
        return tool_from_function(
            run,
            name=_prefixed(prefix, self.tool_name()),
            description=description,
            category=category,
            tags=tuple(cls.tags),
            args=cls.args,
            timeout=cls.timeout,
            idempotent=cls.idempotent,
            roles=cls.roles,
            available=_inherited(cls, "available"),
        )


class RegistryLike(Protocol):
    """What a toolkit needs from a registry; `toolsys.openapi.tools_from_spec` takes one too."""

    def add(self, tool: Tool, *, replace: bool = False) -> Tool: ...
    def unregister(self, name: str) -> Tool: ...
    def get(self, name: str) -> Tool: ...
    def __contains__(self, name: object) -> bool: ...


ToolLike = BaseTool | Tool | Callable[..., Any]
"""What a toolkit may hold: `BaseTool` instances, built `Tool`s, or plain function tools."""


class Toolkit:
    """Related tools that share dependencies, registered and unregistered as one group.

    Either list the tools, `Toolkit(SendEmail(outbox), ListInbox(outbox), prefix="mail")`
    (registered as `mail__send_email`, `mail__list_inbox`), or
    subclass it, take the shared dependencies in `__init__` and return the tools from `tools()`.
    `register(registry)` adds all of them or none (a name clash rolls back the ones added);
    `unregister(registry)` removes exactly the ones it added.
    """

    prefix: str = ""

    def __init__(self, *tools: ToolLike, prefix: str | None = None) -> None:
        self._given = tools
        if prefix is not None:
            self.prefix = prefix

    def tools(self) -> Iterable[ToolLike]:
        """The toolkit's tools; override it in a subclass that builds them from its own state."""
        return getattr(self, "_given", ())

    def build(self, prefix: str | None = None) -> list[Tool]:
        """Every tool built, named `prefix__name` (the toolkit's own prefix by default; none
        when it is "")."""
        prefix = self.prefix if prefix is None else prefix
        if prefix:
            check_prefix(prefix)
        built = [_built(item, prefix) for item in self.tools()]
        names = [tool.name for tool in built]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ToolDefinitionError(
                f"{type(self).__qualname__} has two tools named {twice[0]!r}; "
                "give each tool its own name."
            )
        return built

    def register(self, registry: RegistryLike, *, prefix: str | None = None) -> list[Tool]:
        """Add every tool to `registry`, or none: on a clash the ones already added are removed."""
        built = self.build(prefix)
        added: list[Tool] = []
        try:
            for tool in built:
                added.append(registry.add(tool))
        except BaseException:
            for tool in added:
                registry.unregister(tool.name)
            raise
        self._registered().setdefault(id(registry), []).extend(tool.name for tool in added)
        return added

    def unregister(self, registry: RegistryLike) -> list[str]:
        """Remove the tools this toolkit added to `registry` (and still there); their names."""
        removed = []
        for name in self._registered().pop(id(registry), []):
            if name in registry:
                registry.unregister(name)
                removed.append(name)
        return removed

    def _registered(self) -> dict[int, list[str]]:
        registered: dict[int, list[str]] = self.__dict__.setdefault("_toolsys_registered", {})
        return registered


def as_tool(item: object) -> Tool:
    """A `Tool` from what `registry.add` was given, or a clear error saying what to pass."""
    if isinstance(item, Tool):
        return item
    if isinstance(item, BaseTool):
        return item.as_tool()
    if isinstance(item, type) and issubclass(item, BaseTool):
        raise ToolDefinitionError(
            f"add({item.__qualname__}): that is the class; register an instance with its "
            f"dependencies, e.g. registry.add({item.__qualname__}(...))."
        )
    if isinstance(item, Toolkit):
        raise ToolDefinitionError(
            f"add({type(item).__qualname__}(...)): a toolkit registers itself, so it can be "
            "removed as a group: toolkit.register(registry)."
        )
    raise ToolDefinitionError(
        f"add() takes a Tool or a BaseTool instance, not {type(item).__name__}; register a "
        "function with registry.register(fn) or @registry.tool."
    )


def _built(item: object, prefix: str) -> Tool:
    if isinstance(item, BaseTool):
        return item.as_tool(prefix)
    if isinstance(item, Tool):
        name = _prefixed(prefix, item.name)
        return item if name == item.name else dataclasses.replace(item, name=name)
    if callable(item) and not isinstance(item, type):
        name = getattr(item, "__name__", None) or type(item).__name__
        return tool_from_function(item, name=_prefixed(prefix, name))
    raise ToolDefinitionError(
        f"A toolkit holds BaseTool instances, Tools or functions, not {item!r}."
    )


def _prefixed(prefix: str, name: str) -> str:
    if not prefix:
        check_name(name)
        return name
    return qualified(prefix, name)


def _inherited(cls: type, attribute: str) -> Any:
    """A class attribute as set on the class or a base, never bound as a method."""
    for klass in cls.__mro__:
        if attribute in klass.__dict__:
            value = klass.__dict__[attribute]
            return value.__func__ if isinstance(value, staticmethod | classmethod) else value
    return None


__all__ = ["BaseTool", "RegistryLike", "ToolLike", "Toolkit", "as_tool"]
