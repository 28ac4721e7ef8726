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
import sys
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from types import FrameType, GenericAlias
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError
from pydantic.fields import FieldInfo

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
# No unknown arguments, and no NaN or infinity for a float: JSON has neither.
_FORBID_EXTRA = ConfigDict(extra="forbid", allow_inf_nan=False)


@dataclass(frozen=True)
class ArgumentsModel:
    """A tool's argument model plus how to call the implementation with it.

    `aliases` maps the model's field names to the implementation's parameter names (they differ
    only when a parameter name would shadow a Pydantic attribute, like `json` or `copy`);
    `positional` names, in order, the fields that must be passed by position (`def f(x, /)`);
    `injected` the parameters filled by the registry, never by the model (`toolsys.injection`).
    """

    model: type[BaseModel]
    description: str
    aliases: dict[str, str]
    diagnostics: tuple[str, ...] = ()
    positional: tuple[str, ...] = ()
    injected: Mapping[str, Injection] = dataclass_field(default_factory=dict)


def _python_type(param: Param) -> Any:
    if param.enum is not None:
        annotation: Any = Literal[tuple(param.enum)]
    elif param.type == "array":
        annotation = GenericAlias(list, _JSON_TO_PYTHON[param.items]) if param.items else list[Any]
    else:
        annotation = _JSON_TO_PYTHON[param.type]
    return annotation | None if param.nullable else annotation


def _drop_null_default(schema: dict[str, Any]) -> None:
    # `default=None` on a Param means "none declared": "default": null would promise the model
    # that leaving the argument out means null, when it means "the implementation's own default".
    if schema.get("default", 0) is None:
        del schema["default"]


def model_from_params(name: str, params: Sequence[Param]) -> type[BaseModel]:
    """Build the argument model of a declarative spec.

    An optional parameter with no declared default still gets `None` in the model (Pydantic needs
    a value); `Tool.call` leaves such an argument out when the model did, so the implementation's
    own default applies.
    """
    fields: dict[str, Any] = {}
    seen: set[str] = set()
    for param in params:
        if param.name in seen:
            raise ToolDefinitionError(
                f"Tool {name!r} declares parameter {param.name!r} twice; "
                "give each one a unique name."
            )
        seen.add(param.name)
        extra = _drop_null_default if param.default is None else None
        info = Field(
            default=... if param.required else param.default,
            description=param.description or None,
            ge=param.minimum,
            le=param.maximum,
            alias=param.name if field_name(param.name) != param.name else None,
            json_schema_extra=extra,
        )
        fields[field_name(param.name)] = (_python_type(param), info)
    return _create(name, fields)


def field_name(name: str) -> str:
    """The model field for a parameter: renamed when it would shadow a Pydantic attribute."""
    if name.startswith("_"):  # Pydantic would treat it as a private attribute
        return f"arg{name}"
    return f"{name}_" if name in _RESERVED else name


def _create(name: str, fields: dict[str, Any]) -> type[BaseModel]:
    model_name = "".join(part.capitalize() for part in name.replace("-", "_").split("_")) or "Tool"
    try:
        return create_model(f"{model_name}Arguments", __config__=_FORBID_EXTRA, **fields)
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise ToolDefinitionError(_unsupported(name, fields, exc)) from exc


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


def _split_annotated(annotation: Any) -> tuple[Any, str | None]:
    """The description given in `Annotated[..., Field(description=...)]`, if any."""
    if typing.get_origin(annotation) is Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, FieldInfo) and meta.description:
                return annotation, meta.description
    return annotation, None


# The modules a registration passes through before it reaches `model_from_function`.
_REGISTERING = frozenset({__name__, "toolsys.tool", "toolsys.registry"})


def _enclosing_namespace(fn: Callable[..., Any]) -> dict[str, Any]:
    """Names visible where `fn` was defined but not in its module: its closure, and the locals of
    the function that is registering it (as pydantic's `validate_call` reads its caller's frame).

    With `from __future__ import annotations`, `def tool(args: Local)` inside a function stores the
    string "Local", and the class it names lives only in that function's locals.
    """
    namespace: dict[str, Any] = {}
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in _REGISTERING:
        frame = frame.f_back
    if frame is not None and frame.f_locals is not frame.f_globals:
        namespace.update(frame.f_locals)
    code = getattr(fn, "__code__", None)
    for var, cell in zip(getattr(code, "co_freevars", ()), fn.__closure__ or (), strict=False):
        try:
            namespace[var] = cell.cell_contents
        except ValueError:  # a closure variable not assigned yet
            continue
    return namespace


def _type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except NameError:
        return typing.get_type_hints(fn, localns=_enclosing_namespace(fn), include_extras=True)


def _qualname(fn: Any) -> str:
    return str(getattr(fn, "__qualname__", None) or type(fn).__qualname__)


def model_from_function(fn: Callable[..., Any], name: str) -> ArgumentsModel:
    """Build the argument model of a function (or a callable object) from its signature and
    docstring; for a callable object, its `__call__` method's hints and docstring count."""
    plain = inspect.isroutine(fn) or isinstance(fn, type) or not callable(fn)
    source: Any = fn if plain else type(fn).__call__.__get__(fn)
    try:
        signature = inspect.signature(fn)
        hints = _type_hints(source)
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
    model = _create(name, fields)
    return ArgumentsModel(
        model, doc.description, aliases, tuple(diagnostics), tuple(positional), injected
    )


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema, cleaned for a language model: no titles, references inlined."""
    raw = model.model_json_schema(by_alias=True)
    defs = raw.pop("$defs", {})
    schema = _clean(_inline(raw, defs, ()))
    if _has_ref(schema):  # recursive models keep their definitions
        schema["$defs"] = {key: _clean(value) for key, value in defs.items()}
    schema.setdefault("properties", {})
    schema["type"] = "object"
    return schema


def _inline(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        key = ref.removeprefix("#/$defs/")
        if key in stack:  # recursion: leave the reference in place
            return dict(node)
        target = _inline(defs[key], defs, (*stack, key))
        siblings = {k: _inline(v, defs, stack) for k, v in node.items() if k != "$ref"}
        return {**target, **siblings}
    return {key: _inline(value, defs, stack) for key, value in node.items()}


_SCHEMA_MAPS = ("properties", "$defs", "patternProperties")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _clean(node: dict[str, Any]) -> dict[str, Any]:
    """Drop titles (noise for a model); turn `anyOf[{type: T}, {type: null}]` into a type list."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        elif key in _SCHEMA_VALUES and isinstance(value, dict):
            out[key] = _clean(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_clean(sub) for sub in value]
        else:
            out[key] = value
    return _ordered(_merge_nullable(out))


_FIRST = ("type", "description", "enum", "default")
_LAST = ("properties", "required", "additionalProperties", "$defs")
_KEY_ORDER = {key: i for i, key in enumerate(_FIRST)} | {
    key: 100 + i for i, key in enumerate(_LAST)
}


def _ordered(node: dict[str, Any]) -> dict[str, Any]:
    """Keys in reading order: type and description first, the object's fields last."""
    return dict(sorted(node.items(), key=lambda item: _KEY_ORDER.get(item[0], 50)))


def _merge_nullable(node: dict[str, Any]) -> dict[str, Any]:
    options = node.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
        return node
    other = options[0] if options[1] == {"type": "null"} else options[1]
    if set(other) != {"type"} or not isinstance(other["type"], str):
        return node
    merged = {key: value for key, value in node.items() if key != "anyOf"}
    return {"type": [other["type"], "null"], **merged}


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(value) for value in node.values())
    if isinstance(node, list):
        return any(_has_ref(value) for value in node)
    return False
