"""OpenAPI schemas to Pydantic types, so a generated tool has one source of truth like any other.

The argument model built here goes through the same `json_schema` and validator as a hand-written
tool. Local `$ref`s are resolved (a reference back into itself becomes "any object" at that point,
so recursive schemas stay finite); enums become `Literal`, arrays `list[...]`, objects models that
refuse unknown fields unless the spec allows `additionalProperties`. A budget on the work done and
a depth limit keep a hostile document (a YAML alias bomb, a self-containing structure) from
hanging or crashing the conversion: it fails with one clear ToolDefinitionError instead.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, create_model

from toolsys.errors import ToolDefinitionError
from toolsys.schema import field_name

MAX_DEPTH = 32
"""Schemas nested deeper than this are refused."""
MAX_NODES = 5_000
"""How many schema nodes one argument may expand to (YAML aliases and $refs multiply them)."""
MAX_WORK = 20_000
"""How many schema nodes one document may make us convert, all its operations together."""

_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]+")


def python_name(wire: str, taken: set[str]) -> str:
    """A valid, unused field name for a property or parameter called `wire` on the wire."""
    name = _IDENTIFIER.sub("_", wire).strip("_") or "field"
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"f_{name}"
    name = field_name(name)
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _drop_default(schema: dict[str, Any]) -> None:
    # Pydantic needs a default for an optional field; the model must not be told it is null.
    schema.pop("default", None)


class Converter:
    """Resolves references in one document and turns its schemas into Python types."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.work = 0
        self._models: dict[str, Any] = {}

    def lookup(self, ref: object, where: str) -> Any:
        """The node a local JSON pointer (`#/components/schemas/Pet`) names."""
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise ToolDefinitionError(
                f"{where}: $ref {str(ref)[:200]!r} points outside this document; only local "
                "references ('#/components/...') are supported. Inline the referenced part."
            )
        node: Any = self.document
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                raise ToolDefinitionError(
                    f"{where}: $ref {ref[:200]!r} names nothing in the document; fix the reference."
                )
            node = node[part]
        return node

    def deref(self, node: Any, where: str) -> Any:
        """`node` with `$ref` chains followed (for parameter and request-body objects)."""
        seen: list[str] = []
        while isinstance(node, Mapping) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen or len(seen) >= MAX_DEPTH:
                raise ToolDefinitionError(
                    f"{where}: $ref {str(ref)[:200]!r} refers back to itself through "
                    f"{' -> '.join(map(str, seen))[:300]}; point it at a real definition."
                )
            seen.append(ref)
            node = self.lookup(ref, where)
        return node

    def to_type(self, schema: Any, where: str, stack: tuple[str, ...] = ()) -> Any:
        """The Python type for a JSON Schema node (as OpenAPI 3.0 and 3.1 write it)."""
        self.work += 1
        if self.work > MAX_WORK or len(stack) > MAX_DEPTH:
            raise ToolDefinitionError(
                f"{where}: the schema is too large or nested too deeply to turn into a tool "
                f"(more than {MAX_DEPTH} levels or {MAX_WORK} nodes); select fewer operations "
                "or simplify the schema."
            )
        if not isinstance(schema, Mapping):
            return Any
        if "$ref" in schema:
            ref = schema["$ref"]
            if ref in stack:  # recursion: any object from here on keeps the type finite
                return dict[str, Any]
            if isinstance(ref, str) and ref in self._models:
                return self._models[ref]
            built = self.to_type(self.lookup(ref, where), where, (*stack, str(ref)))
            if isinstance(ref, str):
                self._models[ref] = built
            return built
        kind = schema.get("type")
        nullable = schema.get("nullable") is True
        if isinstance(kind, list):
            nullable = nullable or "null" in kind
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else None
        base = self._base(schema, kind, where, (*stack, f"@{len(stack)}"))
        return base | None if nullable and base is not Any else base

    def _base(
        self, schema: Mapping[str, Any], kind: Any, where: str, stack: tuple[str, ...]
    ) -> Any:
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            values = tuple(v for v in enum if v is not None)
            if values and all(isinstance(v, str | int | float | bool) for v in values):
                return Literal[values]
        for combiner in ("oneOf", "anyOf"):
            options = schema.get(combiner)
            if isinstance(options, list) and options:
                types = tuple(dict.fromkeys(self.to_type(o, where, stack) for o in options[:20]))
                if Any in types:
                    return Any
                union = types[0]
                for option in types[1:]:
                    union = union | option
                return union
        if isinstance(schema.get("allOf"), list):
            return self.to_type(self._merged(schema, where), where, stack)
        if isinstance(kind, str) and kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            return list[self.to_type(schema.get("items"), where, stack)]  # type: ignore[misc]
        if kind == "object" or isinstance(schema.get("properties"), Mapping):
            return self.model(schema, where, stack)
        return Any

    def _merged(self, schema: Mapping[str, Any], where: str) -> dict[str, Any]:
        """`allOf` as one object schema: the parts' properties and required lists together."""
        merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        for part in [*schema["allOf"][:20], {k: v for k, v in schema.items() if k != "allOf"}]:
            part = self.deref(part, where)
            if isinstance(part, Mapping):
                if isinstance(part.get("properties"), Mapping):
                    merged["properties"].update(part["properties"])
                if isinstance(part.get("required"), list):
                    merged["required"] += part["required"]
                if "description" in part and "description" not in merged:
                    merged["description"] = part["description"]
        return merged

    def model(self, schema: Mapping[str, Any], where: str, stack: tuple[str, ...]) -> Any:
        """An object schema as a Pydantic model (a free-form dict when it lists no properties)."""
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            return dict[str, Any]
        fields = self.fields(properties, schema.get("required"), where, stack)
        allows = schema.get("additionalProperties") not in (None, False)
        config = ConfigDict(extra="allow" if allows else "forbid", frozen=True)
        name = next((s.rsplit("/", 1)[-1] for s in reversed(stack) if "/" in s), "Object")
        return create_model(python_name(name, set()), __config__=config, **fields)

    def fields(
        self, properties: Mapping[Any, Any], required: Any, where: str, stack: tuple[str, ...]
    ) -> dict[str, Any]:
        """Model fields for named schemas; the wire names are kept as aliases."""
        needed = set(required) if isinstance(required, list) else set()
        taken: set[str] = set()
        fields: dict[str, Any] = {}
        for wire, sub in properties.items():
            wire = str(wire)
            fields[python_name(wire, taken)] = self.field(sub, wire, wire in needed, where, stack)
        return fields

    def field(
        self,
        schema: Any,
        wire: str,
        required: bool,
        where: str,
        stack: tuple[str, ...] = (),
        description: Any = None,
    ) -> tuple[Any, Any]:
        """One field: its type, and a FieldInfo with the wire name, description and default
        (`description` overrides the schema's, as a parameter's own description does)."""
        _check_size(self, schema, f"{where}, {wire!r}")
        annotation = self.to_type(schema, f"{where}, {wire!r}", stack)
        schema = self.deref(schema, where) if isinstance(schema, Mapping) else {}
        if not isinstance(description, str) and isinstance(schema, Mapping):
            description = schema.get("description")
        if isinstance(description, str):
            description = " ".join(description.split())[:1000] or None
        else:
            description = None
        if required:
            return annotation, Field(..., alias=wire, description=description)
        default = schema.get("default") if isinstance(schema, Mapping) else None
        if isinstance(default, str | int | float | bool) and _fits(annotation, default):
            return annotation, Field(default, alias=wire, description=description)
        extra = _drop_default
        return annotation, Field(None, alias=wire, description=description, json_schema_extra=extra)


def _check_size(converter: Converter, schema: Any, where: str) -> None:
    """Count the nodes a schema expands to, cheaply, before any model is built for it."""
    pending: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    count = 0
    while pending:
        node, refs = pending.pop()
        count += 1
        if count > MAX_NODES or len(refs) > MAX_DEPTH:
            raise ToolDefinitionError(
                f"{where}: the schema is too large or nested too deeply to turn into a tool "
                f"(over {MAX_NODES} nodes once references are expanded); select fewer "
                "operations or simplify the schema."
            )
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                if ref not in refs:
                    pending.append((converter.lookup(ref, where), (*refs, ref)))
                continue
            pending.extend((value, refs) for value in node.values())
        elif isinstance(node, list):
            pending.extend((value, refs) for value in node)


def _fits(annotation: Any, value: Any) -> bool:
    """Whether a spec's default is a valid value of the field (specs get this wrong)."""
    try:
        TypeAdapter(annotation).validate_python(value, strict=True)
    except Exception:
        return False
    return True


def model_name(operation: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", operation)) or "Op"
