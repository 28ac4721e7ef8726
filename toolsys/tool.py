"""Making a `Tool`: from a function's type hints and docstring, from a Pydantic model, or from a
declarative `ToolSpec`, with every option checked at registration, one clear error each.

The class itself lives in `toolsys._tool`; it is re-exported here, where it has always been
imported from.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from toolsys import _platform
from toolsys._deferred import PendingModel
from toolsys._examples import checked_examples
from toolsys._hints import type_hints
from toolsys._tool import Tool
from toolsys.errors import ToolDefinitionError
from toolsys.injection import Injection, injected_params
from toolsys.isolate import Subprocess
from toolsys.names import NAME_PATTERN, check_name, normalize
from toolsys.schema import (
    ArgumentsModel,
    field_name,
    frozen_schema,
    model_from_function,
    pending_from_params,
)
from toolsys.spec import Category, Param, ToolSpec

__all__ = [
    "NAME_PATTERN",
    "Tool",
    "check_name",
    "normalize",
    "tool_from_function",
    "tool_from_spec",
]


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - callable objects with an async __call__
    )


def _nullable(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or not schema:
        return True
    return any(_nullable(option) for option in schema.get("anyOf", ()))


def _build(
    *,
    name: str,
    description: str,
    fn: Callable[..., Any],
    model: type[BaseModel] | PendingModel,
    category: Category,
    tags: tuple[str, ...],
    diagnostics: list[str],
    source: str,
    pass_model: bool = False,
    aliases: Mapping[str, str] | None = None,
    positional: tuple[tuple[str, Any], ...] = (),
    omitted: frozenset[str] = frozenset(),
    injected: Mapping[str, Injection] | None = None,
    timeout: float | None = None,
    idempotent: bool | None = None,
    isolate: str | Subprocess | None = None,
    roles: Any = None,
    available: Any = None,
    examples: Any = (),
) -> Tool:
    check_name(name)
    if not callable(fn):
        raise ToolDefinitionError(f"Tool {name!r}: the implementation {fn!r} is not callable.")
    parameters = frozen_schema(model)
    required = set(parameters.get("required", ()))
    properties = parameters.get("properties", {})
    null_means_default = frozenset(
        key for key, sub in properties.items() if key not in required and not _nullable(sub)
    )
    for key, sub in properties.items():
        if not sub.get("description") and not any(key in d for d in diagnostics):
            diagnostics.append(f"parameter {key!r} has no description.")
    if not description.strip():
        diagnostics.append("the tool has no description; the model cannot tell when to use it.")
    only_renamed = {k: v for k, v in (aliases or {}).items() if k != v}
    tool = Tool(
        name=name,
        description=description.strip(),
        parameters=parameters,
        fn=fn,
        model=cast(type[BaseModel], model),  # a PendingModel is created when first read
        category=Category(category),
        tags=tuple(tags),
        diagnostics=tuple(f"{name}: {d}" for d in diagnostics),
        source=source,
        is_async=_is_async(fn),
        pass_model=pass_model,
        aliases=dict(aliases or {}) if only_renamed else {},
        null_means_default=null_means_default,
        positional=positional,
        omitted=omitted,
        injected=dict(injected or {}),
        **_execution_options(name, timeout, idempotent, isolate),
        **_access_options(name, roles, available),
    )
    given = examples or parameters.get("examples") or ()
    return replace(tool, examples=checked_examples(tool, given)) if given else tool


def _access_options(name: str, roles: Any, available: Any) -> dict[str, Any]:
    """Check the options the policy reads: `roles` (names) and `available` (a callable)."""
    if isinstance(roles, str):
        roles = {roles}
    if roles is not None and (
        not isinstance(roles, set | frozenset | list | tuple)
        or not all(isinstance(r, str) and r for r in roles)
    ):
        raise ToolDefinitionError(
            f"Tool {name!r}: roles={roles!r} must be a set of role names, e.g. "
            "roles={'support'}, or left out to let every caller use it."
        )
    if available is not None and not callable(available):
        raise ToolDefinitionError(
            f"Tool {name!r}: available={available!r} is not callable; pass a function of the "
            "caller's context, e.g. available=lambda context: context.get('beta', False)."
        )
    return {"roles": None if roles is None else frozenset(roles), "available": available}


def _execution_options(name: str, timeout: Any, idempotent: Any, isolate: Any) -> dict[str, Any]:
    """Check the options the robustness layers read; one clear error for each bad value."""
    if timeout is not None and (
        not isinstance(timeout, int | float)
        or isinstance(timeout, bool)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ToolDefinitionError(
            f"Tool {name!r}: timeout={timeout!r} is not a number of seconds > 0; "
            "pass e.g. timeout=2.0, or leave it out to use the Timeout layer's default."
        )
    if idempotent is not None and not isinstance(idempotent, bool):
        raise ToolDefinitionError(
            f"Tool {name!r}: idempotent={idempotent!r} must be True or False (or left out: "
            "True for READ tools, False for WRITE and EXECUTE)."
        )
    if isinstance(isolate, str) and isolate == "process":
        isolate = Subprocess()
    if isolate is not None and not isinstance(isolate, Subprocess):
        raise ToolDefinitionError(
            f"Tool {name!r}: isolate={isolate!r} is not supported; use isolate='process' or "
            "isolate=Subprocess(memory_mb=..., cpu_seconds=...), or leave it out."
        )
    if isolate is not None and not _platform.PROCESSES:
        raise ToolDefinitionError(
            f"Tool {name!r}: "
            + _platform.unavailable(
                "isolate='process'",
                "Register the tool without isolate, or run this notebook on your machine.",
            )
        )
    if isolate is not None and not hasattr(os, "fork"):
        raise ToolDefinitionError(
            f"Tool {name!r}: isolate='process' needs os.fork (Linux, macOS), which this "
            "platform lacks; register the tool without isolate."
        )
    return {
        "timeout": None if timeout is None else float(timeout),
        "idempotent": idempotent,
        "isolate": isolate,
    }


def tool_from_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    category: Category = Category.READ,
    tags: tuple[str, ...] = (),
    args: type[BaseModel] | None = None,
    timeout: float | None = None,
    idempotent: bool | None = None,
    isolate: str | Subprocess | None = None,
    roles: Any = None,
    available: Callable[[Mapping[str, Any]], Any] | None = None,
    examples: Sequence[Mapping[str, Any]] = (),
) -> Tool:
    """A tool whose schema comes from the function's type hints and docstring, or from `args`.

    `timeout`, `idempotent`, `isolate`, `roles`, `available` and `examples` are described on
    `Tool`.
    """
    name = getattr(fn, "__name__", "") if name is None else name
    options: dict[str, Any] = {"timeout": timeout, "idempotent": idempotent, "isolate": isolate}
    options.update(roles=roles, available=available, examples=examples)
    if args is not None:
        return _from_model(fn, name, description, category, tags, args, **options)
    built: ArgumentsModel = model_from_function(fn, name, lazy=True)
    return _build(
        name=name,
        description=description if description is not None else built.description,
        fn=fn,
        model=built.model,
        category=category,
        tags=tags,
        diagnostics=list(built.diagnostics),
        source="function",
        aliases=built.aliases,
        positional=tuple((f, built.default(f)) for f in built.positional),
        injected=built.injected,
        **options,
    )


def _from_model(
    fn: Callable[..., Any],
    name: str,
    description: str | None,
    category: Category,
    tags: tuple[str, ...],
    model: type[BaseModel],
    **options: Any,
) -> Tool:
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise ToolDefinitionError(
            f"Tool {name!r}: args={model!r} is not a Pydantic model class; "
            "pass a BaseModel subclass."
        )
    if description is None:
        description = inspect.getdoc(fn) or inspect.getdoc(model) or ""
        if description == inspect.getdoc(BaseModel):
            description = ""
    return _build(
        name=name,
        description=description,
        fn=fn,
        model=_closed(model),
        category=category,
        tags=tags,
        diagnostics=[],
        source="model",
        pass_model=True,
        injected=injected_params(_hints(fn)),
        **options,
    )


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return type_hints(fn)
    except Exception:  # an unresolvable hint: nothing is injected, as before
        return {}


def _closed(model: type[BaseModel]) -> type[BaseModel]:
    """The model with its instances frozen and unknown top-level arguments forbidden (unless it
    chose `extra` itself).

    Pydantic ignores unknown fields by default, so a misspelt argument (`durationMinutes`) would
    vanish silently and the default be used. Function and spec tools forbid them; so do these.
    Frozen, as every argument model is: what a layer saw validated cannot be changed on the way
    to the tool. The subclass keeps the name, so the function still receives an instance of
    `model`: a copy of that class, its own to change (`toolsys._tool.own_copy`).
    """
    config = ConfigDict(frozen=True)
    if "extra" not in model.model_config:
        config["extra"] = "forbid"
    namespace = {
        "model_config": config,
        "__module__": model.__module__,
        "__doc__": model.__doc__,
        "__qualname__": model.__qualname__,
        "__toolsys_own__": model,
    }
    return type(model.__name__, (model,), namespace)


def tool_from_spec(
    spec: ToolSpec,
    fn: Callable[..., Any],
    *,
    timeout: float | None = None,
    idempotent: bool | None = None,
    isolate: str | Subprocess | None = None,
    roles: Any = None,
    available: Callable[[Mapping[str, Any]], Any] | None = None,
    examples: Sequence[Mapping[str, Any]] = (),
) -> Tool:
    """A tool from a declarative spec; the implementation must accept the spec's parameters.

    A parameter the model leaves out gets the spec's declared default, or, with none declared,
    the implementation's own default, read from its signature: the argument model holds it, so
    the approver and the audit log see the value the tool receives, and the schema stays the
    spec's (it promises no default the spec did not declare). (An implementation default that is
    not a JSON value is the one exception: such an argument is left out of the call.)
    """
    options: dict[str, Any] = {"timeout": timeout, "idempotent": idempotent, "isolate": isolate}
    options.update(roles=roles, available=available, examples=examples)
    if isinstance(spec.parameters, type):
        return _from_model(
            fn, spec.name, spec.description, spec.category, spec.tags, spec.parameters, **options
        )
    check_name(spec.name)
    positional, own = _check_signature_matches(spec.name, fn, spec.parameters)
    held = frozenset(name for name, value in own.items() if _is_json(value))
    params = [
        dataclasses.replace(p, default=own[p.name]) if p.name in held else p
        for p in spec.parameters
    ]
    return _build(
        name=spec.name,
        description=spec.description,
        fn=fn,
        model=pending_from_params(spec.name, params, held),
        category=spec.category,
        tags=spec.tags,
        diagnostics=[],
        source="spec",
        aliases={field_name(p.name): p.name for p in spec.parameters},
        positional=tuple((field, own.get(name, default)) for field, name, default in positional),
        omitted=frozenset(
            field_name(p.name) for p in params if p.name in own and p.default is None
        ),
        **options,
    )


def _is_json(value: Any) -> bool:
    """A default the argument model can hold and the schema can show: plain JSON data."""
    if value is None or type(value) in (str, int, float, bool):
        return value is not None and (type(value) is not float or math.isfinite(value))
    if type(value) in (list, dict):
        try:
            return json.loads(json.dumps(value, allow_nan=False)) == value
        except (TypeError, ValueError):
            return False
    return False


def _check_signature_matches(
    name: str, fn: Callable[..., Any], params: Sequence[Param]
) -> tuple[tuple[tuple[str, str, Any], ...], dict[str, Any]]:
    """Catch drift between a spec and its implementation when it is registered, not when called.

    Returns the fields to pass by position (`def impl(query, /)`: field, parameter, declared
    default), and the implementation's own defaults of the optional parameters the spec gives
    no default.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return (), {}
    names = [p.name for p in params]
    accepted = ", ".join(signature.parameters)
    where = f"{getattr(fn, '__qualname__', fn)!r}({accepted})"
    by_position = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_ONLY]
    while by_position and by_position[-1].name not in names:
        by_position.pop()
    keywords = {n: None for n in names if n not in {p.name for p in by_position}}
    try:
        for p in by_position:
            if p.name not in names and p.default is p.empty:
                raise TypeError(f"missing a required argument: {p.name!r}")
        signature.bind(*[None] * len(by_position), **keywords)
    except TypeError as exc:
        raise ToolDefinitionError(
            f"Tool {name!r}: the spec's parameters ({', '.join(names) or 'none'}) do not match "
            f"{where}: {exc}. Rename one side so they agree."
        ) from exc
    defaults: dict[str, Any] = {}
    for param in params:
        own = signature.parameters.get(param.name)
        if not param.required and param.default is None and own and own.default is own.empty:
            raise ToolDefinitionError(
                f"Tool {name!r}: parameter {param.name!r} may be left out (required=False) but "
                f"has no default, neither in the spec nor in {where}. Declare one with "
                f"Param(..., default=...) or give the function a default."
            )
        if not param.required and param.default is None and own and own.default is not None:
            defaults[param.name] = own.default
    declared = {p.name: p.default for p in params}
    positional = tuple((field_name(p.name), p.name, declared.get(p.name)) for p in by_position)
    return positional, defaults
