"""The argument model of an imported tool: the server's JSON Schema, checked in our registry.

An imported tool keeps the server's schema unchanged (it is what the model is shown), so its
arguments cannot be a model generated from type hints. Instead a small Pydantic model carries
them as they are and checks them with `jsonschema` against that schema (and refuses NaN and
infinity, which JSON cannot carry and `jsonschema` takes for numbers); every problem becomes a
Pydantic error (`missing`, `extra_forbidden`, or "Input should be ..."), so the registry's own
INVALID_ARGUMENTS message (toolsys/failures.py) names the path, the bad value and the fix before
anything is sent to the server.

One repair first: a value that arrived as stringified JSON where the schema wants an object or an
array (`"filter": "{\"a\": 1}"`, a mistake models and some hosts make) is decoded.

An untrusted server's schema is checked in bounded time (toolsys/mcp/_patterns.py): its regular
expressions run on RE2, its size is capped, and one validation stops after
`VALIDATION_SECONDS`, refused as invalid arguments.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from toolsys.mcp import _patterns

if TYPE_CHECKING:
    from jsonschema import ValidationError as Violation  # type: ignore[import-untyped]

_MAX_PROBLEMS = 10
_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_WORDS = {
    "type": lambda v: " or ".join(_TYPES.get(t, str(t)) for t in _listed(v)),
    "enum": lambda v: "one of " + ", ".join(json.dumps(x) for x in v),
    "const": lambda v: f"exactly {json.dumps(v)}",
    "minimum": lambda v: f">= {v}",
    "maximum": lambda v: f"<= {v}",
    "exclusiveMinimum": lambda v: f"> {v}",
    "exclusiveMaximum": lambda v: f"< {v}",
    "minLength": lambda v: f"at least {v} characters long",
    "maxLength": lambda v: f"at most {v} characters long",
    "minItems": lambda v: f"a list of at least {v} items",
    "maxItems": lambda v: f"a list of at most {v} items",
    "pattern": lambda v: f"a string matching {v!r}",
}


def arguments_model(
    name: str, schema: Mapping[str, Any], *, trusted: bool = False
) -> type[BaseModel]:
    """A model that accepts exactly what `schema` accepts, and says why not in our words.

    Untrusted (the default): patterns on RE2 and the time bounded (toolsys/mcp/_patterns.py).
    """
    # heavy to import: only when a server is imported
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]

    plain = json.loads(json.dumps(schema))
    kind = validator_for(plain)
    checker = kind(plain) if trusted else _patterns.bounded(kind)(plain)

    def problems_of(data: Any) -> list[InitErrorDetails]:
        errors = sorted(checker.iter_errors(data), key=lambda e: [str(p) for p in e.path])
        return [line for error in errors for line in _lines(error)]

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow", title=name, frozen=True)

        @model_validator(mode="before")
        @classmethod
        def _check(cls, data: Any) -> Any:
            if isinstance(data, Mapping):
                data = decode_stringified(dict(data), plain)
            try:
                problems = _patterns.run_bounded(lambda: problems_of(data), trusted)
            except _patterns.Overtime:
                problems = [_overtime(data)]
            problems = [*_not_finite(data, ()), *problems]
            if problems:
                raise ValidationError.from_exception_data(name, problems[:_MAX_PROBLEMS])
            return data

    Arguments.__name__ = Arguments.__qualname__ = f"{name}_arguments"
    return Arguments


def schema_problem(
    schema: Mapping[str, Any], output: Mapping[str, Any] | None = None, *, trusted: bool = False
) -> str | None:
    """Why `schema` cannot be shown to a model as a tool's arguments, or None when it can.

    (That it is an object schema, MCP itself checks: the SDK refuses any other listing.) For an
    untrusted server, also the bounds of toolsys/mcp/_patterns.py, on `output` too.
    """
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]
    from jsonschema.validators import validator_for

    plain = json.loads(json.dumps(schema))
    if not trusted:
        bounded = _patterns.problem(plain, output)
        if bounded is not None:
            return bounded
    try:
        validator_for(plain).check_schema(plain)
    except SchemaError as exc:
        return f"its input schema is not valid JSON Schema ({exc.message})"
    return None


def decode_stringified(data: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level values sent as JSON text where the schema wants an object or array, decoded."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return data
    for key, value in data.items():
        wanted = _kinds(properties.get(key))
        if not isinstance(value, str) or "string" in wanted or not wanted & {"object", "array"}:
            continue
        try:
            decoded = json.loads(value)
        except ValueError:
            continue
        if ("object" in wanted and isinstance(decoded, dict)) or (
            "array" in wanted and isinstance(decoded, list)
        ):
            data[key] = decoded
    return data


def _overtime(data: Any) -> InitErrorDetails:
    seconds = f"{_patterns.VALIDATION_SECONDS:g}"
    custom = PydanticCustomError(
        "mcp_schema",
        "Input should be checkable in {seconds} s against the server's schema; these arguments "
        "took longer: send shorter values",
        {"seconds": seconds},
    )
    return {"type": custom, "loc": (), "input": data}


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _kinds(schema: Any) -> set[str]:
    if not isinstance(schema, Mapping):
        return set()
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    for option in schema.get("anyOf", ()):
        kinds |= _kinds(option)
    return kinds


def _not_finite(value: Any, loc: tuple[Any, ...], depth: int = 0) -> list[InitErrorDetails]:
    """NaN and infinity, which JSON cannot carry (and `jsonschema` calls numbers): never sent."""
    if isinstance(value, float) and not math.isfinite(value):
        words = {"expected": "a finite number (JSON has no NaN or Infinity)"}
        return [
            {
                "type": PydanticCustomError("mcp_schema", "Input should be {expected}", words),
                "loc": loc,
                "input": value,
            }
        ]
    items: Any = value.items() if isinstance(value, Mapping) else ()
    if isinstance(value, list):
        items = enumerate(value)
    if depth > 64:
        return []
    return [line for key, item in items for line in _not_finite(item, (*loc, key), depth + 1)]


def _lines(error: Violation) -> list[InitErrorDetails]:
    """One jsonschema error as Pydantic line errors the registry's message builder reads."""
    path = tuple(error.path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, Mapping):
        missing = [key for key in error.validator_value if key not in instance]
        return [{"type": "missing", "loc": (*path, key), "input": instance} for key in missing]
    if error.validator == "additionalProperties" and isinstance(instance, Mapping):
        known = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        extra = [key for key in instance if key not in known]
        if extra:
            return [
                {"type": "extra_forbidden", "loc": (*path, key), "input": instance[key]}
                for key in extra
            ]
    describe = _WORDS.get(str(error.validator))
    words = describe(error.validator_value) if describe else f"valid: {error.message}"
    custom = PydanticCustomError("mcp_schema", "Input should be {expected}", {"expected": words})
    return [{"type": custom, "loc": path, "input": instance}]
