"""A tool's argument model, written out as the JSON Schema a language model reads.

Pydantic writes the schema (`model_json_schema`), and `json_schema` cleans it for a model: no
titles, references inlined, `anyOf[T, null]` as a type list, keys in reading order. Simple
signatures skip pydantic's writer altogether (`toolsys._schema_writer`), and are held to produce
exactly what `json_schema` produces here.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue

from toolsys._deferred import PendingModel
from toolsys._readonly import freeze


class Generator(GenerateJsonSchema):
    """Pydantic's generator, minus two costs that do not change what it generates.

    Pydantic rebuilds its table of methods (one per core schema type, looked up by name) for
    every schema, and encodes every default through a new `TypeAdapter` (a validator and a
    serializer built for one value): together about half the cost of registering a typical
    tool. The table is found once here, and a default that is already JSON (a string, a bool,
    an int, a finite float, None) is its own encoding. tests/test_schema_generator.py holds
    this to pydantic's own generator.
    """

    _method_names: ClassVar[dict[Any, str]] = {}

    def build_schema_type_to_method(self) -> dict[Any, Callable[[Any], JsonSchemaValue]]:
        if not Generator._method_names:
            table = super().build_schema_type_to_method()
            Generator._method_names = {key: method.__name__ for key, method in table.items()}
        return _Methods(self)

    def encode_default(self, dft: Any) -> Any:
        kind = type(dft)
        if kind is str or kind is bool or kind is int or dft is None:
            return dft
        if kind is float and math.isfinite(dft):
            return dft
        return super().encode_default(dft)


def frozen_schema(model: type[BaseModel] | PendingModel) -> dict[str, Any]:
    """`json_schema(model)`, read-only (see `toolsys._readonly`) and kept per model: a model
    reused for a tool registered again (see `_create`) is not written out twice. A model not
    created yet (`PendingModel`) has its written schema already."""
    if isinstance(model, PendingModel):
        return model.schema
    kept = SCHEMAS.get(model)
    if kept is None:
        kept = SCHEMAS[model] = freeze(json_schema(model))
    return kept


SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = weakref.WeakKeyDictionary()


class _Methods(dict[Any, Callable[[Any], JsonSchemaValue]]):
    """The generator's table, each method looked up the first time a schema needs it."""

    def __init__(self, generator: Generator) -> None:
        super().__init__()
        self.generator = generator

    def __missing__(self, key: Any) -> Callable[[Any], JsonSchemaValue]:
        method = self[key] = getattr(self.generator, Generator._method_names[key])
        return method


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema, cleaned for a language model: no titles, references inlined."""
    raw = model.model_json_schema(by_alias=True, schema_generator=Generator)
    defs = raw.pop("$defs", {})
    schema = clean_schema(_inline(raw, defs, ()))
    if _has_ref(schema):  # recursive models keep their definitions
        schema["$defs"] = {key: clean_schema(value) for key, value in defs.items()}
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


def clean_schema(node: dict[str, Any]) -> dict[str, Any]:
    """Drop titles (noise for a model); turn `anyOf[{type: T}, {type: null}]` into a type list."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: clean_schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_VALUES and isinstance(value, dict):
            out[key] = clean_schema(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [clean_schema(sub) for sub in value]
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
