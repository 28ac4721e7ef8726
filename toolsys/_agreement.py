"""Where JSON Schema and strict Pydantic read the same JSON differently, make them agree.

A tool's schema and its validator come from one Pydantic model (toolsys/schema.py), yet the two
judges still differ in a few places. The model reads the schema, so the schema's reading wins:

- JSON Schema's "integer" is any number without a fractional part, so `2.0` is an integer (and
  models send it), where strict Pydantic refuses it. A refused integral float is read as the
  integer; `2.5` is still refused.
- OpenAI's strict mode makes every property required and nullable (toolsys/export.py), so a strict
  model sends `null` for an argument it would have left out, nested objects included. A refused
  `null` for a property its object does not require, and that is not nullable, means "left out".
- Only JSON is an argument: bytes, sets, arbitrary objects, NaN and infinity are refused with a
  ValidationError, never stringified into something that validates. (A Python caller may still
  pass an instance of the declared type, a `date` for a `date`: strict Pydantic accepts it.)

The repairs run only after a validation failed, so a valid call pays nothing. A test holds the
validator to the `jsonschema` library's verdict on every golden schema
(tests/test_schema_validator_agreement.py). Chapter 03 shows it: notebooks/03_schemas.ipynb.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic_core import PydanticCustomError, ValidationError

_MAX_DEPTH = 200
_ANY_JSON = "a string, number, true/false, null, array or object"


def _not_json(value: Any, loc: tuple[Any, ...], depth: int) -> tuple[Any, ...] | None:
    """(loc, value, error) for the first value JSON cannot carry, or None."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        error = PydanticCustomError(
            "not_json", "Input should be a finite number (JSON has no NaN or Infinity)"
        )
        return loc, value, error
    if depth > _MAX_DEPTH:
        error = PydanticCustomError(
            "not_json", "Input should be nested at most {limit} levels deep", {"limit": _MAX_DEPTH}
        )
        return loc, "...", error
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                error = PydanticCustomError(
                    "not_json",
                    "Input should be an object whose keys are strings, not {key}",
                    {"key": repr(key)},
                )
                return loc, value, error
            found = _not_json(item, (*loc, key), depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _not_json(item, (*loc, index), depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(value, str | int):  # str and int subclasses: StrEnum and IntEnum members
        return None
    error = PydanticCustomError(
        "not_json",
        "Input should be JSON ({any}), not a Python {kind}",
        {"any": _ANY_JSON, "kind": kind.__name__},
    )
    return loc, value, error


def check_json(value: Any) -> None:
    """Raise pydantic's ValidationError, with the path, if `value` holds anything but JSON."""
    if type(value) is dict:  # the common case, inlined: a flat object of strings and numbers
        for item in value.values():
            kind = type(item)
            if kind is str or kind is int or kind is bool or item is None:
                continue
            if kind is float and item - item == 0:  # finite: NaN - NaN and inf - inf are NaN
                continue
            break
        else:
            return
    found = _not_json(value, (), 0)
    if found is not None:
        loc, bad, error = found
        raise ValidationError.from_exception_data(
            "arguments", [{"type": error, "loc": loc, "input": bad}]
        )


def json_text(value: Any) -> str:
    """JSON text for `value`; a ValidationError, with the path, for what JSON cannot carry."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        check_json(value)
        raise


_CONSTRAINTS = frozenset(
    {"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "properties", "items"}
)


def accepts_anything(schema: Any) -> bool:
    """Whether some position in the schema takes any value (`Any`, a free `dict`, extra keys).

    Only there can strict validation of a Python dict let through what JSON cannot carry (an
    object, bytes, a set); elsewhere it takes JSON or an instance of the declared type.
    """
    if not isinstance(schema, Mapping):
        return False
    if schema.get("additionalProperties") is True or not _CONSTRAINTS & schema.keys():
        return True
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds and not {"properties", "additionalProperties"} & schema.keys():
        return True  # a plain dict
    if "array" in kinds and not {"items", "prefixItems"} & schema.keys():
        return True  # a plain list
    subschemas: list[Any] = []
    for key in ("properties", "$defs", "patternProperties"):
        subschemas.extend(schema.get(key, {}).values())
    for key in ("items", "additionalProperties", "not"):
        subschemas.append(schema.get(key))
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        subschemas.extend(schema.get(key, ()))
    return any(accepts_anything(sub) for sub in subschemas if isinstance(sub, Mapping))


def parse_json(text: str | bytes) -> Any:
    """The decoded value, or None when the text is not JSON at all."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def has_null(text: str | bytes) -> bool:
    """A cheap test for a JSON `null`, which may mean "the default" (`Tool.null_check`)."""
    if isinstance(text, str):
        return "null" in text
    return b"null" in text


def could_be_nonstandard(text: str | bytes) -> bool:
    """A cheap test for the NaN/Infinity literals pydantic's parser accepts and JSON does not."""
    if isinstance(text, str):
        return "NaN" in text or "Infinity" in text
    return b"NaN" in text or b"Infinity" in text


def repair(
    arguments: Mapping[str, Any], exc: ValidationError, schema: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The arguments read as JSON Schema reads them, or None if that changes nothing.

    `exc` says where the validator refused what; `schema` (the tool's parameters) says which
    properties their objects require.
    """
    errors = [
        error
        for error in exc.errors(include_url=False)
        if _integral(error["input"]) or (error["input"] is None and error["type"] != "missing")
    ]
    if not errors:
        return None
    data = json.loads(json_text(arguments))  # plain containers, safe to change
    changed = False
    for error in errors:
        steps = _steps(data, error["loc"])
        if not steps:
            continue
        parent, key = _at(data, steps[:-1]), steps[-1]
        current = parent[key]
        if error["input"] is None:
            if current is None and isinstance(parent, dict) and _omittable(schema, steps):
                del parent[key]
                changed = True
        elif type(current) is float and current == error["input"]:
            parent[key] = int(current)
            changed = True
    return data if changed else None


def _integral(value: Any) -> bool:
    return type(value) is float and value.is_integer()


def _steps(data: Any, loc: tuple[Any, ...]) -> list[Any]:
    """The keys and indexes of `loc` that lead into `data`; the rest are tags pydantic adds
    (the member of a union tried, a validator's name)."""
    steps: list[Any] = []
    for part in loc:
        into_object = isinstance(data, dict) and isinstance(part, str) and part in data
        into_array = isinstance(data, list) and type(part) is int and 0 <= part < len(data)
        if into_object or into_array:
            data = data[part]
            steps.append(part)
    return steps


def _at(data: Any, steps: list[Any]) -> Any:
    for step in steps:
        data = data[step]
    return data


def _omittable(schema: Mapping[str, Any], steps: list[Any]) -> bool:
    """Whether the schema lets the last step's property be left out, and not be null."""
    defs = schema.get("$defs", {})
    node: Any = schema
    for step in steps[:-1]:
        node = _child(node, step, defs)
        if node is None:
            return False
    key = steps[-1]
    for option in _options(node, defs):
        properties = option.get("properties", {})
        if key in properties:
            required = key in option.get("required", ())
            return not required and not _allows_null(properties[key], defs)
    return False


def _options(node: Any, defs: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    node = _resolve(node, defs)
    if not isinstance(node, Mapping):
        return []
    options = (_resolve(option, defs) for option in node.get("anyOf", ()))
    return [node, *(option for option in options if isinstance(option, Mapping))]


def _resolve(node: Any, defs: Mapping[str, Any]) -> Any:
    for _ in range(_MAX_DEPTH):
        if not (isinstance(node, Mapping) and isinstance(node.get("$ref"), str)):
            return node
        node = defs.get(node["$ref"].rsplit("/", 1)[-1])
    return None


def _child(node: Any, step: Any, defs: Mapping[str, Any]) -> Any:
    for option in _options(node, defs):
        if isinstance(step, int):
            prefix = option.get("prefixItems")
            if isinstance(prefix, list) and step < len(prefix):
                return prefix[step]
            if isinstance(option.get("items"), Mapping):
                return option["items"]
        else:
            if step in option.get("properties", {}):
                return option["properties"][step]
            if isinstance(option.get("additionalProperties"), Mapping):
                return option["additionalProperties"]
    return None


def _allows_null(node: Any, defs: Mapping[str, Any]) -> bool:
    for option in _options(node, defs):
        kind = option.get("type")
        if kind == "null" or (isinstance(kind, list) and "null" in kind) or not option:
            return True
    return False


# -- number and boolean literals -----------------------------------------------------------------
# Python's `True == 1` lets pydantic accept `true` for `Literal[1, 2, 3]` (and 1 for
# `Literal[True]`, `true` for an IntEnum sent as JSON), where JSON Schema's `enum` and `const`
# tell a boolean from a number. The schema's reading wins: a tool whose schema has such a literal
# gets this check before its validator runs (`Tool.literals`); no other tool pays for it.

_NUMBERS = (int, float)


def literal_check(schema: Any) -> Any:
    """For a schema with a number or a boolean in some `enum` or `const`: a check that raises
    pydantic's ValidationError, with the path, where a boolean was sent for a number or a number
    for a boolean. None for any other schema."""
    if not _has_number_literals(schema, 0):
        return None
    defs = schema.get("$defs", {}) if isinstance(schema, Mapping) else {}

    def check(value: Any) -> None:
        found = _mistyped(schema, value, defs, (), 0)
        if found is not None:
            loc, bad, expected = found
            raise ValidationError.from_exception_data(
                "arguments",
                [
                    {
                        "type": "literal_error",
                        "loc": loc,
                        "input": bad,
                        "ctx": {"expected": expected},
                    }
                ],
            )

    return check


def _has_number_literals(node: Any, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, Mapping):
        values = list(node.get("enum", ()) if isinstance(node.get("enum"), list) else ())
        if "const" in node:
            values.append(node["const"])
        if any(type(v) is bool or type(v) in _NUMBERS for v in values):
            return True
        return any(_has_number_literals(v, depth + 1) for v in node.values())
    if isinstance(node, list):
        return any(_has_number_literals(v, depth + 1) for v in node)
    return False


def _mistyped(
    node: Any,
    value: Any,
    defs: Mapping[str, Any],
    loc: tuple[Any, ...],
    depth: int,
    option: bool = False,
) -> tuple[tuple[Any, ...], Any, str] | None:
    """(where, the value, what was expected) for the first boolean sent for a number (or number
    for a boolean) that the schema certainly refuses; None when there is none. For an `option`
    of a union, a scalar of another JSON type is refused too: that option did not take it."""
    node = _resolve(node, defs)
    if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
        return None
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list) and options:
            fitting = [o for o in options if _may_hold(_resolve(o, defs), value)]
            found = [_mistyped(o, value, defs, loc, depth + 1, True) for o in fitting]
            if found and all(found):
                return found[0]
    for option in node.get("allOf", ()) if isinstance(node.get("allOf"), list) else ():
        found_one = _mistyped(option, value, defs, loc, depth + 1)
        if found_one is not None:
            return found_one
    if type(value) is bool or type(value) in _NUMBERS:
        expected = _refused(node, value, option)
        return None if expected is None else (loc, value, expected)
    if isinstance(value, dict):
        properties = node.get("properties")
        extra = node.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key) if isinstance(properties, Mapping) else None
            if sub is None and isinstance(extra, Mapping):
                sub = extra
            if sub is not None:
                found_item = _mistyped(sub, item, defs, (*loc, key), depth + 1)
                if found_item is not None:
                    return found_item
    elif isinstance(value, list):
        given = node.get("prefixItems")
        prefix: list[Any] = given if isinstance(given, list) else []
        items = node.get("items")
        for index, item in enumerate(value):
            sub = prefix[index] if index < len(prefix) else items
            if isinstance(sub, Mapping):
                found_item = _mistyped(sub, item, defs, (*loc, index), depth + 1)
                if found_item is not None:
                    return found_item
    return None


def _may_hold(node: Any, value: Any) -> bool:
    """Whether an option of a union could hold a container of this kind (the others are not
    where a list or an object is looked into)."""
    if not isinstance(value, list | dict) or not isinstance(node, Mapping):
        return True
    kinds = node.get("type")
    if kinds is None:
        return True
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return ("array" if isinstance(value, list) else "object") in kinds


def _refused(node: Mapping[str, Any], value: Any, option: bool) -> str | None:
    """What `node` expects when it refuses this boolean or number for its JSON type; else None."""
    is_bool = type(value) is bool
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds] if isinstance(kinds, str) else None
    if kinds is not None:
        if is_bool:
            fits = "boolean" in kinds
        else:
            whole = type(value) is int or value.is_integer()
            fits = "number" in kinds or ("integer" in kinds and whole)
        if not fits and (option or (is_bool and {"number", "integer"} & set(kinds))):
            return " or ".join(str(k) for k in kinds)
        if not fits and not is_bool and "boolean" in kinds:
            return "true or false"
    allowed = node["enum"] if isinstance(node.get("enum"), list) else None
    if "const" in node:
        allowed = [node["const"]]
    if allowed is None:
        return None
    same = [v for v in allowed if (type(v) is bool) == is_bool and type(v) in (bool, *_NUMBERS)]
    if any(v == value for v in same):
        return None
    if not any(v == value for v in allowed):
        return None  # not the confusion this check is for: the validator says what is wrong
    shown = [json.dumps(v) for v in allowed]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
