"""The JSON Schema of a simple signature, written directly instead of through pydantic.

Registering a typical tool used to cost about a millisecond, most of it pydantic building the
argument model's validator and then walking the model again to write its JSON Schema. For the
signatures most tools have (str, int, float, bool, None, `X | None`, `list[X]`, `dict[str, X]`,
`Literal` of strings, ints or bools, `Any`, plain JSON defaults, descriptions, and the numeric and
length bounds of `Field(ge=..., max_length=...)`), `write_schema` writes the schema itself, in
microseconds, and the model is created with `defer_build=True`: its validator is built the first
time a call needs it (`toolsys.schema.first_use_validator`).

It writes exactly what `toolsys._schema_json.json_schema` writes for the same fields, key order
included (pydantic sorts keys alphabetically, then `clean_schema` puts them in reading order);
tests/test_schema_writer.py holds it to that with generated signatures. Anything else (a model,
an Enum, a date, a union of two types, a default that is not plain JSON, a regex pattern, a key
pydantic would not sort) returns None, and the tool takes pydantic's path as before, which is
also where an unsupported type is refused at registration.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Annotated, Any, Literal, Union

import annotated_types
from pydantic.fields import FieldInfo

from toolsys._schema_json import clean_schema


def drop_null_default(schema: dict[str, Any]) -> None:
    """`json_schema_extra` of a spec parameter with no declared default.

    `default=None` on a Param means "none declared": "default": null would promise the model that
    leaving the argument out means null, when it means "the implementation's own default".
    """
    if schema.get("default", 0) is None:
        del schema["default"]


def drop_default(schema: dict[str, Any]) -> None:
    """`json_schema_extra` of a spec parameter whose default is the implementation's own.

    The argument model holds it (the approver and the audit log see what the tool receives), but
    the schema stays the spec's: the spec declared no default, so none is promised to the model.
    """
    schema.pop("default", None)


_SCALARS: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    None: "null",
}
_LITERAL_TYPES = {str: "string", int: "integer", bool: "boolean"}
# The `Field` settings written here; any other (examples, default_factory, ...) falls back.
_FIELD_SETTINGS = frozenset(
    {"default", "description", "alias", "validation_alias", "serialization_alias"}
    | {"json_schema_extra"}
)
_BOUNDS: dict[type, tuple[str, str]] = {
    annotated_types.Ge: ("ge", "minimum"),
    annotated_types.Le: ("le", "maximum"),
    annotated_types.Gt: ("gt", "exclusiveMinimum"),
    annotated_types.Lt: ("lt", "exclusiveMaximum"),
}
_LENGTHS: dict[type, tuple[str, str, str]] = {
    annotated_types.MinLen: ("min_length", "minLength", "minItems"),
    annotated_types.MaxLen: ("max_length", "maxLength", "maxItems"),
}
# Pydantic leaves the keys of a property with one of these names in the order it wrote them.
_UNSORTED_NAMES = frozenset({"properties", "default"})


def write_schema(fields: dict[str, Any]) -> dict[str, Any] | None:
    """The cleaned JSON Schema of a model with these `create_model` fields, or None if the
    signature is not simple enough to write here."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, definition in fields.items():
        written = _property(name, definition)
        if written is None:
            return None
        key, schema, is_required = written
        if key in properties:
            return None
        properties[key] = schema
        if is_required:
            required.append(key)
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _property(name: str, definition: Any) -> tuple[str, dict[str, Any], bool] | None:
    if type(definition) is not tuple or len(definition) != 2:
        return None
    annotation, info = definition
    if type(info) is not FieldInfo or not _FIELD_SETTINGS.issuperset(info._attributes_set):
        return None
    key = name if info.alias is None else info.alias
    if key in _UNSORTED_NAMES or info.validation_alias not in (None, info.alias):
        return None
    if info.serialization_alias not in (None, info.alias):
        return None
    extra = info.json_schema_extra
    if extra is not None and extra is not drop_null_default and extra is not drop_default:
        return None
    description = info.description
    constraints = list(info.metadata)
    if typing.get_origin(annotation) is Annotated:
        annotation, *extras = typing.get_args(annotation)
        for meta in extras:
            if type(meta) is not FieldInfo or not {"description"}.issuperset(meta._attributes_set):
                return None
            if "description" not in info._attributes_set:
                description = meta.description
            constraints.extend(meta.metadata)
    schema = _schema(annotation)
    if schema is None or (constraints and not _constrain(schema, annotation, constraints)):
        return None
    if description is not None:
        schema["description"] = description
    is_required = info.is_required()
    if not is_required:
        default = info.default
        if not _plain(default):
            return None
        if extra is None or (default is not None and extra is drop_null_default):
            schema["default"] = default
    return key, clean_schema(_sorted(schema)), is_required


def _plain(value: Any) -> bool:
    """A default that is its own JSON encoding."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    return kind is str or kind is int or kind is bool or value is None


def _schema(annotation: Any) -> dict[str, Any] | None:
    """The raw schema of a type (before `clean_schema`), or None if it is not a simple one."""
    if annotation is Any:
        return {}
    try:
        scalar = _SCALARS.get(annotation)
    except TypeError:  # unhashable: not a type we write
        return None
    if scalar is not None:
        return {"type": scalar}
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is list or origin is list:
        items = _schema(args[0]) if len(args) == 1 else {} if not args else None
        return None if items is None else {"type": "array", "items": items}
    if annotation is dict or origin is dict:
        if not args:
            return {"type": "object", "additionalProperties": True}
        values = _schema(args[1]) if args[0] is str else None
        if values is None:
            return None
        return {"type": "object", "additionalProperties": values or True}
    if origin is Literal:
        return _literal(args)
    if (origin is Union or origin is types.UnionType) and len(args) == 2 and type(None) in args:
        other = _schema(args[0] if args[1] is type(None) else args[1])
        if other is None or other == {"type": "null"}:
            return None
        return {"anyOf": [other, {"type": "null"}]}
    return None


def _literal(values: tuple[Any, ...]) -> dict[str, Any] | None:
    kinds = {type(value) for value in values}
    if not kinds <= _LITERAL_TYPES.keys():
        return None
    schema: dict[str, Any] = {"const": values[0]} if len(values) == 1 else {"enum": list(values)}
    if len(kinds) == 1:
        schema["type"] = _LITERAL_TYPES[kinds.pop()]
    return schema


def _constrain(schema: dict[str, Any], annotation: Any, constraints: list[Any]) -> bool:
    """Add `ge`/`le`/`gt`/`lt` (int, float) and `min_length`/`max_length` (str, list) as
    pydantic writes them; False for any other constraint or combination."""
    is_list = annotation is list or typing.get_origin(annotation) is list
    for constraint in constraints:
        kind = type(constraint)
        if kind in _BOUNDS and (annotation is int or annotation is float):
            attribute, key = _BOUNDS[kind]
            value = getattr(constraint, attribute)
            allowed = (int,) if annotation is int else (int, float)
            if type(value) not in allowed or not math.isfinite(value):
                return False
        elif kind in _LENGTHS and (annotation is str or is_list):
            attribute, text_key, list_key = _LENGTHS[kind]
            value = getattr(constraint, attribute)
            key = list_key if is_list else text_key
            if type(value) is not int or value < 0:
                return False
        else:
            return False
        if key in schema:
            return False
        schema[key] = value
    return True


def _sorted(node: Any) -> Any:
    """Keys in alphabetical order at every depth, as pydantic's generator leaves them."""
    if isinstance(node, dict):
        return {key: _sorted(node[key]) for key in sorted(node)}
    if isinstance(node, list):
        return [_sorted(item) for item in node]
    return node
