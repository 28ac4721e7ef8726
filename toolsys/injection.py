"""What the application gives a tool and the model never sees: the caller's context and
dependencies.

A tool that filters data by who is asking (a customer may only read their own orders) must not
take the customer id as an argument: the model fills arguments, and one sentence in a prompt can
make it fill in someone else's. So a parameter typed `ctx: Context` is filled from the caller's
context (`registry.execute(..., context={"user": ...})`, the loop's `context=`), and a parameter
typed `Annotated[Connection, Depends("db")]` from `registry.provide(db=conn)`. Neither becomes a
field of the argument model: it is in no exported schema, and a model that sends an argument of
that name is refused like any unknown argument (the model forbids extras).

The same idea as FastAPI's `Depends` and pydantic-ai's `RunContext`, kept to two markers: the
annotation says what is injected, the registry supplies it at call time, and a missing value is
an error envelope (MISSING_DEPENDENCY, INVALID_CONTEXT), never a crash.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Any

from toolsys.errors import ErrorCode, ToolDefinitionError, ToolError

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_KNOWN = ("user", "roles", "tenant")


@dataclass(frozen=True)
class Context:
    """A read-only view of the caller's context: who is asking, their roles, their tenant.

    Built from the mapping given to `execute(..., context=...)`; `user` and `tenant` are a string
    or an integer (anything else reads as None: no identity, so a row filter shows nothing),
    `roles` a frozenset of strings, `extra` the other keys (read-only).
    """

    user: str | int | None = None
    roles: frozenset[str] = frozenset()
    tenant: str | int | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)

    @classmethod
    def of(cls, context: Mapping[str, Any]) -> Context:
        """The view of a caller's context mapping; never raises for odd values inside it."""
        if isinstance(context, _Unusable):
            raise ToolError(
                ErrorCode.INVALID_CONTEXT,
                f"This tool needs the caller's context, and the application passed "
                f"{context.problem}, not a mapping like {{'user': 'ada', 'roles': ['support']}}.",
                suggestion="Tell the user this tool cannot run now; the application must pass "
                "context=... when it executes tools.",
            )
        return cls(
            user=_identity(context.get("user")),
            roles=_roles(context.get("roles")),
            tenant=_identity(context.get("tenant")),
            extra=MappingProxyType({k: v for k, v in context.items() if k not in _KNOWN}),
        )

    def has_role(self, role: str) -> bool:
        return role in self.roles


@dataclass(frozen=True)
class Depends:
    """Marks a parameter filled from `registry.provide(...)`: `Depends("db")`, or `Depends()`
    to use the parameter's own name."""

    name: str | None = None


Injection = type[Context] | Depends
"""What fills an injected parameter: `Context` (the caller's context) or a `Depends`."""


def injection(annotation: Any, param: str) -> Injection | None:
    """What an annotation asks to be injected: `Context` (also `Context | None` and
    `Optional[Context]`: the registry always fills it), `Annotated[T, Depends()]`, or None."""
    if _is_context(annotation):
        return Context
    if typing.get_origin(annotation) is Annotated:
        base, *metadata = typing.get_args(annotation)
        for meta in metadata:
            if isinstance(meta, Depends):
                return Depends(meta.name or param)
            if meta is Depends:
                return Depends(param)
        if _is_context(base):
            return Context
    return None


def _is_context(annotation: Any) -> bool:
    """`Context`, or a union of `Context` with None; a union of `Context` with anything else is
    refused: the model could then fill in who the caller is."""
    if annotation is Context:
        return True
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return False
    members = [m for m in typing.get_args(annotation) if m is not type(None)]
    if Context not in members:
        return False
    if len(members) > 1:
        raise ToolDefinitionError(
            f"A parameter typed {annotation!r} mixes the injected Context with values a model "
            "could send; type it `ctx: Context` (the registry fills it) and take anything the "
            "model sends in another parameter."
        )
    return True


def injected_params(hints: Mapping[str, Any]) -> dict[str, Injection]:
    """The injected parameters among a function's type hints, by name."""
    found = {name: injection(hint, name) for name, hint in hints.items() if name != "return"}
    return {name: how for name, how in found.items() if how is not None}


class _Unusable(Mapping[str, Any]):
    """An empty context standing for one that could not be read; says what it was."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> typing.Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def caller_context(value: object) -> Mapping[str, Any]:
    """The caller's context as a read-only mapping; never raises.

    A value that is not a mapping (or cannot be copied) becomes an empty mapping that remembers
    the problem: layers see no roles, and a tool asking for `Context` gets INVALID_CONTEXT.
    """
    if value is None:
        return _EMPTY
    if not isinstance(value, Mapping):
        return _Unusable(f"a {type(value).__name__}")
    try:
        copied = dict(value)
    except Exception:
        return _Unusable("a mapping that cannot be read")
    if not all(isinstance(key, str) for key in copied):
        return _Unusable("a mapping whose keys are not all strings")
    return MappingProxyType(copied) if copied else _EMPTY


def injected_values(
    tool: str,
    wanted: Mapping[str, Injection],
    context: Mapping[str, Any] | None,
    dependencies: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The values for a tool's injected parameters; ToolError when one cannot be supplied."""
    context = _EMPTY if context is None else context
    dependencies = _EMPTY if dependencies is None else dependencies
    values: dict[str, Any] = {}
    for param, how in wanted.items():
        key = how.name or param if isinstance(how, Depends) else param
        if how is Context:
            values[param] = Context.of(context)
        elif key in dependencies:
            values[param] = dependencies[key]
        else:
            raise ToolError(
                ErrorCode.MISSING_DEPENDENCY,
                f"Tool {tool!r} needs {key!r}, which the application has not provided.",
                suggestion="Tell the user this tool is not available right now; the application "
                f"must call registry.provide({key}=...) first.",
            )
    return values


def _identity(value: Any) -> str | int | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _roles(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list | tuple | set | frozenset):
        return frozenset(role for role in value if isinstance(role, str))
    return frozenset()
