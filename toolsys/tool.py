"""`Tool`: a registered tool, ready to validate arguments and call its implementation.

Everything about a tool that can be computed once is computed here, at registration: the argument
model, its validator, the cleaned JSON Schema (read-only), the diagnostics. Calls then only look
things up. How the validator is held to what the schema promises is in `toolsys/_agreement.py`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel, ConfigDict
from pydantic_core import SchemaValidator, ValidationError

from toolsys._agreement import (
    accepts_anything,
    check_json,
    could_be_nonstandard,
    json_text,
    parse_json,
    repair,
)
from toolsys._deferred import PendingModel, first_use_validator
from toolsys.errors import ToolDefinitionError
from toolsys.injection import Injection, injected_params, injected_values
from toolsys.isolate import Subprocess
from toolsys.schema import (
    ArgumentsModel,
    _type_hints,
    field_name,
    frozen_schema,
    model_from_function,
    pending_from_params,
)
from toolsys.spec import Category, Param, ToolSpec

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_name(name: str) -> None:
    """Reject names OpenAI and Anthropic would refuse, with the rule spelled out."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ToolDefinitionError(
            f"Tool name {name!r} cannot be exported: providers accept 1-64 characters from "
            "A-Z, a-z, 0-9, '_' and '-'. Rename it, e.g. "
            f"{re.sub(r'[^A-Za-z0-9_-]+', '_', str(name))[:64].strip('_') or 'my_tool'!r}."
        )


_CAMEL_WORDS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[-_]+")


def normalize(name: str) -> str:
    """The form two names must not share, because a model confuses them: case, `-` or `_`, and
    camelCase word boundaries are ignored (`getWeather`, `Get-Weather` -> `get_weather`,
    `HTTPRequest` -> `http_request`)."""
    return _SEPARATORS.sub("_", _CAMEL_WORDS.sub("_", name)).lower()


@dataclass(frozen=True, eq=False)
class Tool:
    """A tool as the registry holds it. `parameters` is the JSON Schema the model sees (read-only).

    `positional` names the fields passed by position (`def f(x, /)`), each with the value to
    pass when the model left it out but sent a later one; `declared_defaults` names the fields
    whose declared default is passed when the model leaves them out (`Param(default=...)`).

    Read by the robustness layers (`toolsys.layers`): `timeout` (seconds; the `Timeout` layer's
    default when None), `idempotent` (a repeat cannot double a side effect; None means True for
    READ tools, False for WRITE and EXECUTE) and `isolate` (a `Subprocess`: run each call in a
    child process whose whole process group is killed at the deadline).

    `injected` names the implementation's parameters the registry fills at call time from the
    caller's context or its provided dependencies (`toolsys.injection`); the model never sees them.

    Read by the policy (`toolsys.governance`): `roles` (who may see and call it; None means
    everyone) and `available` (`available(context) -> bool`, e.g. a feature flag).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    model: type[BaseModel]
    category: Category = Category.READ
    tags: tuple[str, ...] = ()
    diagnostics: tuple[str, ...] = ()
    source: str = "function"
    is_async: bool = False
    pass_model: bool = False
    aliases: Mapping[str, str] = field(default_factory=dict, repr=False)
    null_means_default: frozenset[str] = field(default=frozenset(), repr=False)
    positional: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    declared_defaults: frozenset[str] = field(default=frozenset(), repr=False)
    timeout: float | None = None
    idempotent: bool = None  # type: ignore[assignment]  # None: decided by the category
    isolate: Subprocess | None = None
    injected: Mapping[str, Injection] = field(default_factory=dict, repr=False)
    roles: frozenset[str] | None = None
    available: Callable[[Mapping[str, Any]], Any] | None = field(default=None, repr=False)
    validator: SchemaValidator = field(init=False, repr=False)
    accepts_anything: bool = field(init=False, repr=False)
    by_keyword: bool = field(init=False, repr=False)
    """`call` passes the model's fields as keywords, as they are (the execute fast path's test)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "validator", first_use_validator(self, self.model))
        if isinstance(self.model, PendingModel):  # created when first read: see __getattr__
            object.__setattr__(self, "_pending", self.model)
            object.__delattr__(self, "model")
        object.__setattr__(self, "accepts_anything", accepts_anything(self.parameters))
        plain = self.isolate is None and not (self.pass_model or self.positional or self.aliases)
        object.__setattr__(self, "by_keyword", plain)
        if self.idempotent is None:
            object.__setattr__(self, "idempotent", self.category == Category.READ)

    def __getattr__(self, name: str) -> Any:
        pending = self.__dict__.get("_pending")
        if name != "model" or pending is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        model = pending.create()
        object.__setattr__(self, "model", model)
        return model

    def validate(self, arguments: Mapping[str, Any], *, coerce: bool = False) -> BaseModel:
        """Validate decoded JSON arguments; raises pydantic's ValidationError.

        Strict by default, so the validator accepts what the schema accepts, and only JSON: a
        value JSON cannot carry (bytes, a set, an object, NaN) is refused, never stringified.
        Where JSON Schema and strict Pydantic read JSON differently, JSON Schema wins: `2.0` is
        an integer, and `null` for an omittable, non-nullable argument (at any depth) means "use
        the default" (strict-mode providers must send every key, and send null for the ones
        they would have left out).
        """
        if type(arguments) is not dict:
            arguments = dict(arguments)
        if self.accepts_anything:
            check_json(arguments)
        if self.null_means_default and None in arguments.values():
            arguments = {
                key: value
                for key, value in arguments.items()
                if value is not None or key not in self.null_means_default
            }
        try:
            return self._validate(arguments, coerce)
        except ValidationError as exc:
            repaired = repair(arguments, exc, self.parameters)
            if repaired is None:
                raise
        return self._validate(repaired, coerce)

    def _validate(self, arguments: dict[str, Any], coerce: bool) -> BaseModel:
        if coerce:
            return self.validator.validate_python(arguments)
        try:
            return self.validator.validate_python(arguments, strict=True)
        except ValidationError:
            # JSON's strict mode also accepts ISO dates, enum values and the like as strings.
            return self.validator.validate_json(json_text(arguments), strict=True)

    def validate_json(self, text: str | bytes, *, coerce: bool = False) -> BaseModel:
        """Validate raw JSON text; raises ValidationError (json_invalid included).

        The same promise as `validate`: what JSON Schema accepts, and nothing JSON cannot say
        (pydantic would read the non-standard `NaN` and `Infinity`).
        """
        try:
            model = self.validator.validate_json(text, strict=not coerce)
        except ValidationError:
            data = parse_json(text)
            if not isinstance(data, dict):
                raise
            check_json(data)
            return self.validate(data, coerce=coerce)
        if could_be_nonstandard(text):
            check_json(parse_json(text))
        return model

    def call(
        self,
        arguments: BaseModel,
        context: Mapping[str, Any] | None = None,
        dependencies: Mapping[str, Any] | None = None,
    ) -> Any:
        """Call the implementation with the arguments the model sent; for an async or isolated
        tool this returns the coroutine.

        An argument the model left out is left out of the call too, so the implementation's own
        default applies, unless the spec declared a default for it (that one is passed).
        Injected parameters come from `context` and `dependencies` (a ToolError when missing).
        """
        fn = self.fn
        if self.injected:  # bound per call: building a new Tool would re-check the schema
            values = injected_values(self.name, self.injected, context, dependencies)
            fn = functools.partial(fn, **values)
        if self.isolate is not None:
            plain = dataclasses.replace(self, fn=fn, isolate=None, injected={})
            return self.isolate.run(plain.call, arguments)
        if self.pass_model:
            return fn(arguments)
        values = arguments.__dict__
        given = arguments.__pydantic_fields_set__
        if len(given) != len(values):
            values = {k: v for k, v in values.items() if k in given or k in self.declared_defaults}
        if self.positional:
            return self._call_positional(fn, values)
        if not self.aliases:
            return fn(**values)
        return fn(**{self.aliases[key]: value for key, value in values.items()})

    def _call_positional(self, fn: Callable[..., Any], values: dict[str, Any]) -> Any:
        names = [name for name, _ in self.positional]
        last = max((i for i, name in enumerate(names) if name in values), default=-1)
        head = [values.get(name, default) for name, default in self.positional[: last + 1]]
        rest = {self.aliases.get(k, k): v for k, v in values.items() if k not in names}
        return fn(*head, **rest)


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
    declared_defaults: frozenset[str] = frozenset(),
    injected: Mapping[str, Injection] | None = None,
    timeout: float | None = None,
    idempotent: bool | None = None,
    isolate: str | Subprocess | None = None,
    roles: Any = None,
    available: Any = None,
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
    return Tool(
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
        declared_defaults=declared_defaults,
        injected=dict(injected or {}),
        **_execution_options(name, timeout, idempotent, isolate),
        **_access_options(name, roles, available),
    )


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
) -> Tool:
    """A tool whose schema comes from the function's type hints and docstring, or from `args`.

    `timeout`, `idempotent`, `isolate`, `roles` and `available` are described on `Tool`.
    """
    name = getattr(fn, "__name__", "") if name is None else name
    options: dict[str, Any] = {"timeout": timeout, "idempotent": idempotent, "isolate": isolate}
    options.update(roles=roles, available=available)
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
        return _type_hints(fn)
    except Exception:  # an unresolvable hint: nothing is injected, as before
        return {}


def _closed(model: type[BaseModel]) -> type[BaseModel]:
    """The model with unknown top-level arguments forbidden, unless it chose `extra` itself.

    Pydantic ignores unknown fields by default, so a misspelt argument (`durationMinutes`) would
    vanish silently and the default be used. Function and spec tools forbid them; so do these.
    The subclass keeps the name, so the function still receives an instance of `model`.
    """
    if "extra" in model.model_config:
        return model
    namespace = {
        "model_config": ConfigDict(extra="forbid"),
        "__module__": model.__module__,
        "__doc__": model.__doc__,
        "__qualname__": model.__qualname__,
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
) -> Tool:
    """A tool from a declarative spec; the implementation must accept the spec's parameters.

    A parameter the model leaves out gets the spec's declared default, or, with none declared,
    is left out of the call so the implementation's own default applies.
    """
    options: dict[str, Any] = {"timeout": timeout, "idempotent": idempotent, "isolate": isolate}
    options.update(roles=roles, available=available)
    if isinstance(spec.parameters, type):
        return _from_model(
            fn, spec.name, spec.description, spec.category, spec.tags, spec.parameters, **options
        )
    check_name(spec.name)
    positional = _check_signature_matches(spec.name, fn, spec.parameters)
    return _build(
        name=spec.name,
        description=spec.description,
        fn=fn,
        model=pending_from_params(spec.name, spec.parameters),
        category=spec.category,
        tags=spec.tags,
        diagnostics=[],
        source="spec",
        aliases={field_name(p.name): p.name for p in spec.parameters},
        positional=positional,
        declared_defaults=frozenset(
            field_name(p.name) for p in spec.parameters if not p.required and p.default is not None
        ),
        **options,
    )


def _check_signature_matches(
    name: str, fn: Callable[..., Any], params: Sequence[Param]
) -> tuple[tuple[str, Any], ...]:
    """Catch drift between a spec and its implementation when it is registered, not when called.

    Returns the fields to pass by position (`def impl(query, /)`), with the implementation's
    default for each.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return ()
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
    for param in params:
        own = signature.parameters.get(param.name)
        if not param.required and param.default is None and own and own.default is own.empty:
            raise ToolDefinitionError(
                f"Tool {name!r}: parameter {param.name!r} may be left out (required=False) but "
                f"has no default, neither in the spec nor in {where}. Declare one with "
                f"Param(..., default=...) or give the function a default."
            )
    return tuple((field_name(p.name), p.default) for p in by_position)
