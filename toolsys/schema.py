"""One source of truth: every tool's arguments become one Pydantic model.

The JSON Schema the model sees and the validator that checks its arguments are both derived from
that model, so they cannot disagree. Three ways in:

- `model_from_params`: a declarative list of `Param` (the spec style),
- `model_from_function`: type hints + docstring (Optional and "has a default" kept apart),
- a Pydantic model you wrote yourself.

`json_schema` then turns the model into the clean schema we export.

Chapter 03 builds this by hand first: notebooks/03_schemas.ipynb.
"""

from __future__ import annotations

import inspect
import math
import typing
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from types import GenericAlias
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError
from pydantic.fields import FieldInfo
from pydantic_core import SchemaError

from toolsys._deferred import WRITTEN, PendingModel
from toolsys._hints import type_hints
from toolsys._readonly import freeze
from toolsys._schema_json import SCHEMAS
from toolsys._schema_json import frozen_schema as frozen_schema
from toolsys._schema_json import json_schema as json_schema
from toolsys._schema_writer import drop_default, drop_null_default, write_schema
from toolsys.docstrings import parse_docstring
from toolsys.errors import ToolDefinitionError
from toolsys.injection import Injection, injection
from toolsys.spec import Param

_JSON_TO_PYTHON: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict[str, Any],
}
_RESERVED = frozenset(dir(BaseModel))
# No unknown arguments, and no NaN or infinity for a float: JSON has neither. Frozen: validated
# arguments cannot be changed on their way to the tool (toolsys/execution.py).
_FORBID_EXTRA = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)
# A model whose schema `write_schema` wrote: its validator is built when a call first needs it.
_DEFERRED = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True, defer_build=True)


@dataclass(frozen=True)
class ArgumentsModel:
    """A tool's argument model plus how to call the implementation with it.

    `aliases` maps the model's field names to the implementation's parameter names (they differ
    only when a parameter name would shadow a Pydantic attribute, like `json` or `copy`);
    `positional` names, in order, the fields that must be passed by position (`def f(x, /)`);
    `injected` the parameters filled by the registry, never by the model (`toolsys.injection`).
    `model` is a `PendingModel` only when asked for (`model_from_function(lazy=True)`).
    """

    model: type[BaseModel] | PendingModel
    description: str
    aliases: dict[str, str]
    diagnostics: tuple[str, ...] = ()
    positional: tuple[str, ...] = ()
    injected: Mapping[str, Injection] = dataclass_field(default_factory=dict)

    def default(self, field: str) -> Any:
        """A field's declared default (`PydanticUndefined` when it has none)."""
        if isinstance(self.model, PendingModel):
            return self.model.default(field)
        return self.model.model_fields[field].default


def _within_bounds(param: Param) -> list[Any]:
    """The enum values `minimum` and `maximum` allow: a Literal takes no bounds (pydantic would
    write its `ge`/`le` into the JSON Schema as keys no model or validator knows), so an enum
    with bounds becomes the enum of the values inside them."""
    low = -math.inf if param.minimum is None else param.minimum
    high = math.inf if param.maximum is None else param.maximum
    return [
        v
        for v in param.enum or ()
        if not isinstance(v, int | float) or isinstance(v, bool) or low <= v <= high
    ]


def _python_type(param: Param) -> Any:
    if param.enum is not None:
        annotation: Any = Literal[tuple(_within_bounds(param))]
    elif param.type == "array":
        annotation = GenericAlias(list, _JSON_TO_PYTHON[param.items]) if param.items else list[Any]
    else:
        annotation = _JSON_TO_PYTHON[param.type]
    return annotation | None if param.nullable else annotation


def model_from_params(name: str, params: Sequence[Param]) -> type[BaseModel]:
    """Build the argument model of a declarative spec.

    An optional parameter with no declared default still gets `None` in the model (Pydantic needs
    a value); `Tool.call` leaves such an argument out when the model did, so the implementation's
    own default applies.
    """
    return _create(name, _params_fields(name, params))


def pending_from_params(
    name: str, params: Sequence[Param], unlisted: frozenset[str] = frozenset()
) -> type[BaseModel] | PendingModel:
    """`model_from_params`, leaving a simple spec's model pending (see `toolsys._deferred`).

    `unlisted`: parameters whose default the model holds but the schema does not show (the
    implementation's own, where the spec declared none)."""
    return _pending(name, _params_fields(name, params, unlisted))


def _params_fields(
    name: str, params: Sequence[Param], unlisted: frozenset[str] = frozenset()
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    seen: set[str] = set()
    for param in params:
        if param.name in seen:
            raise ToolDefinitionError(
                f"Tool {name!r} declares parameter {param.name!r} twice; "
                "give each one a unique name."
            )
        seen.add(param.name)
        enum_bounded = param.enum is not None and (param.minimum, param.maximum) != (None, None)
        if enum_bounded and not _within_bounds(param):
            bounds = [
                f"{word} {value}"
                for word, value in (("minimum", param.minimum), ("maximum", param.maximum))
                if value is not None
            ]
            raise ToolDefinitionError(
                f"Tool {name!r}: no value of parameter {param.name!r}'s enum "
                f"{list(param.enum or ())!r} is within its {' and '.join(bounds)}; widen the "
                "bounds or list values inside them."
            )
        extra = drop_null_default if param.default is None else None
        if param.name in unlisted:
            extra = drop_default
        info = Field(
            default=... if param.required else param.default,
            description=param.description or None,
            ge=None if param.enum is not None else param.minimum,
            le=None if param.enum is not None else param.maximum,
            alias=param.name if field_name(param.name) != param.name else None,
            json_schema_extra=extra,
        )
        fields[field_name(param.name)] = (_python_type(param), info)
    return fields


def field_name(name: str) -> str:
    """The model field for a parameter: renamed when it would shadow a Pydantic attribute."""
    if name.startswith("_"):  # Pydantic would treat it as a private attribute
        return f"arg{name}"
    return f"{name}_" if name in _RESERVED else name


def _create(name: str, fields: dict[str, Any]) -> type[BaseModel]:
    """The argument model for these fields, created now (or the same one, from the cache)."""
    found = _pending(name, fields)
    return found.create() if isinstance(found, PendingModel) else found


def _pending(name: str, fields: dict[str, Any]) -> type[BaseModel] | PendingModel:
    """`_create`, except that a simple signature's model is only written out (its schema), and
    created when first read (see `toolsys._deferred`)."""
    key = _signature_key(name, fields)
    if key is not None and key in _MODELS:
        _MODELS.move_to_end(key)
        return _MODELS[key]
    written = write_schema(fields)
    if written is None:
        return _keep(key, _new_model(name, fields, None))
    schema = freeze(written)

    def create() -> type[BaseModel]:
        found = None if key is None else _MODELS.get(key)
        if found is None or isinstance(found, PendingModel):
            found = _keep(key, _new_model(name, fields, schema))
        return found

    return _keep(key, PendingModel(schema, fields, create))


def _keep(key: tuple[Any, ...] | None, found: Any) -> Any:
    if key is not None:
        _MODELS[key] = found
        if len(_MODELS) > _MODELS_KEPT:
            _MODELS.popitem(last=False)
    return found


def _new_model(name: str, fields: dict[str, Any], schema: dict[str, Any] | None) -> type[BaseModel]:
    """Create the model; with its `schema` written already, its validator is built on first use."""
    model_name = "".join(part.capitalize() for part in name.replace("-", "_").split("_")) or "Tool"
    config = _FORBID_EXTRA if schema is None else _DEFERRED
    try:
        model = create_model(f"{model_name}Arguments", __config__=config, **fields)
    except SchemaError as exc:  # a type it supports, with a constraint it cannot check
        raise ToolDefinitionError(_unbuildable(name, exc)) from exc
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise ToolDefinitionError(_unsupported(name, fields, exc)) from exc
    if schema is not None:
        SCHEMAS[model] = schema
        WRITTEN.add(model)
    return model


# Models by tool name and fields: a notebook that re-runs a cell registers the same tools again,
# and building a model (its validator and serializer) is the largest cost of registering. A simple
# signature's entry is its `PendingModel` until the model is created.
_MODELS: OrderedDict[tuple[Any, ...], type[BaseModel] | PendingModel] = OrderedDict()
_MODELS_KEPT = 512
_PLAIN_DEFAULTS = (str, int, float, bool, type(None), type(...))


def _signature_key(name: str, fields: dict[str, Any]) -> tuple[Any, ...] | None:
    """What makes two models the same, or None when some part cannot be compared safely.

    Annotations must be equal and also print the same (`int | str` equals `str | int`, and
    `Literal[1, 2]` equals `Literal[2, 1]`, but their schemas list them in another order);
    defaults must be plain JSON values of the same type (`1` equals `True`); the `Field`s may
    only set attributes whose values compare by value.
    """
    key: list[Any] = [name]
    for field, definition in fields.items():
        if type(definition) is not tuple or len(definition) != 2:
            return None
        annotation, info = definition
        if not isinstance(info, FieldInfo):
            return None
        attributes = info._attributes_set
        if type(attributes.get("default")) not in _PLAIN_DEFAULTS:
            return None
        if not _SIMPLE_FIELD.issuperset(attributes):
            return None
        settings = tuple(sorted((k, type(v), v) for k, v in attributes.items()))
        constraints = tuple(info.metadata)
        try:
            hash((annotation, settings, constraints))
        except TypeError:
            return None
        shown = repr((annotation, constraints))
        key.append((field, annotation, settings, constraints, shown))
    return tuple(key)


_SIMPLE_FIELD = frozenset(
    {"default", "description", "json_schema_extra"}
    | {"alias", "validation_alias", "serialization_alias"}
)


def _unsupported(name: str, fields: dict[str, Any], exc: Exception) -> str:
    for field, (annotation, _) in fields.items():
        try:
            TypeAdapter(annotation).json_schema()
        except Exception:
            return (
                f"Tool {name!r}: parameter {field!r} has type {annotation!r}, which has no JSON "
                "Schema. Use JSON-friendly types (str, int, float, bool, list, dict, Literal, "
                "Enum, "
                "a Pydantic model or a dataclass)."
            )
    return f"Tool {name!r}: cannot build its argument model: {exc}"


def _unbuildable(name: str, exc: SchemaError) -> str:
    """Pydantic's nested "Error building ..." lines, shortened to the field and the reason."""
    lines = [line.strip().removeprefix("SchemaError: ") for line in str(exc).splitlines()]
    field = next((line for line in lines if line.startswith("Field ")), "Field ?")
    field = field.removeprefix("Field ").rstrip(":")
    return (
        f"Tool {name!r}: parameter {field} has a constraint that cannot be checked: {lines[-1]}. "
        "Make each Field(...) bound fit the parameter's type (e.g. ge=1 for an int, "
        "max_length=10 for a str)."
    )


def _split_annotated(annotation: Any) -> tuple[Any, str | None]:
    """The description given in `Annotated[..., Field(description=...)]`, if any."""
    if typing.get_origin(annotation) is Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, FieldInfo) and meta.description:
                return annotation, meta.description
    return annotation, None


def _qualname(fn: Any) -> str:
    return str(getattr(fn, "__qualname__", None) or type(fn).__qualname__)


def model_from_function(fn: Callable[..., Any], name: str, *, lazy: bool = False) -> ArgumentsModel:
    """Build the argument model of a function (or a callable object) from its signature and
    docstring; for a callable object, its `__call__` method's hints and docstring count.

    `lazy=True` leaves a simple signature's model as a `PendingModel` (see `toolsys._deferred`).
    """
    plain = inspect.isroutine(fn) or isinstance(fn, type) or not callable(fn)
    source: Any = fn if plain else type(fn).__call__.__get__(fn)
    try:
        signature = inspect.signature(fn)
        hints = type_hints(source)
    except (NameError, TypeError, ValueError) as exc:
        raise ToolDefinitionError(
            f"Tool {name!r}: cannot read the type hints of {_qualname(fn)}: {exc}. "
            "Make every annotation importable at registration time."
        ) from exc
    doc = parse_docstring(inspect.getdoc(source) or inspect.getdoc(fn))
    diagnostics: list[str] = []
    fields: dict[str, Any] = {}
    aliases: dict[str, str] = {}
    positional: list[str] = []
    injected: dict[str, Injection] = {}
    for param in signature.parameters.values():
        how = injection(hints.get(param.name), param.name)
        if how is not None:  # filled by the registry, by keyword: not an argument of the model
            if param.kind is param.POSITIONAL_ONLY:
                raise ToolDefinitionError(
                    f"Tool {name!r}: parameter {param.name!r} is injected, so it is passed by "
                    "keyword; move it after the '/' in the signature."
                )
            injected[param.name] = how
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"Tool {name!r}: parameter {param.name!r} is {param.kind.description}; a model can "
                "only send named arguments. Give the function explicit keyword parameters."
            )
        if param.name not in hints:
            diagnostics.append(
                f"parameter {param.name!r} has no type hint, so the model is told nothing about "
                "its type and any value passes; add one."
            )
        annotation, field_description = _split_annotated(hints.get(param.name, Any))
        description = field_description or doc.params.get(param.name)
        if not description:
            diagnostics.append(
                f"parameter {param.name!r} is not documented; add it under Args: in the docstring "
                "or as Annotated[..., Field(description=...)]."
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        field = field_name(param.name)
        aliases[field] = param.name
        if param.kind is param.POSITIONAL_ONLY:  # named in the schema, passed by position
            positional.append(field)
        alias = param.name if field != param.name else None
        fields[field] = (annotation, Field(default, description=description, alias=alias))
    for documented in doc.params:
        if documented not in signature.parameters:
            diagnostics.append(
                f"the docstring documents {documented!r}, which is not a parameter of "
                f"{_qualname(fn)}; rename or remove it."
            )
    model = _pending(name, fields) if lazy else _create(name, fields)
    return ArgumentsModel(
        model, doc.description, aliases, tuple(diagnostics), tuple(positional), injected
    )
