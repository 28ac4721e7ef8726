"""The mutations `assert_schema_agrees` tries on a valid sample: each one a change that the
schema refuses, so the validator must refuse it too, with INVALID_ARGUMENTS naming the field.

    missing       a required field left out
    wrong_type    a value of a JSON type the property does not allow
    extra         a property the schema does not declare
    out_of_range  a number, a string length or an array size just past a limit
    enum          a value outside an enum (or const)

Candidates are made here without judging them; the caller keeps those the schema refuses.
Two readings of JSON are toolsys's on purpose and never offered as mutations: `null` for an
omittable argument (it means "left out", toolsys/_agreement.py), and `true` for an integer enum
(Pydantic reads it as 1; pinned in tests/test_schema_validator_agreement.py).

Public within toolsys: `assert_schema_agrees` (toolsys/testing/agreement.py) and check 11.1
(toolsys/checks/ch11/ex1.py) draw their cases from `mutations`.
"""

from __future__ import annotations

from typing import Any

MUTATIONS = ("missing", "wrong_type", "extra", "out_of_range", "enum")
"""The kinds of mutation, as the report names them."""

EXTRA_KEY = "not_a_parameter"
_WRONG_VALUES: tuple[Any, ...] = ("text", 123456789, 0.5, True, None, [1], {"k": 1})


def options(node: Any) -> list[dict[str, Any]]:
    """The node and its anyOf/oneOf/allOf members: where a property's constraints can sit."""
    if not isinstance(node, dict):
        return []
    found = [node]
    for key in ("anyOf", "oneOf", "allOf"):
        for option in node.get(key, ()):
            found.extend(options(option))
    return found


def _beyond(option: dict[str, Any], value: Any) -> list[Any]:
    """Values just outside the option's numeric, length or size limits."""
    out: list[Any] = []
    step = 1 if option.get("type") == "integer" else 0.5
    if isinstance(option.get("minimum"), int | float):
        out.append(option["minimum"] - step)
    if isinstance(option.get("maximum"), int | float):
        out.append(option["maximum"] + step)
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(option.get(key), int | float):
            out.append(option[key])
    if isinstance(option.get("minLength"), int) and option["minLength"] > 0:
        out.append("x" * (option["minLength"] - 1))
    if isinstance(option.get("maxLength"), int):
        out.append("x" * (option["maxLength"] + 1))
    items = value if isinstance(value, list) else []
    if isinstance(option.get("minItems"), int) and option["minItems"] > 0:
        out.append(items[: option["minItems"] - 1])
    if isinstance(option.get("maxItems"), int) and items:
        out.append(items + [items[0]] * (option["maxItems"] + 1 - len(items)))
    return out


def _outside_enum(option: dict[str, Any]) -> list[Any]:
    values = option.get("enum", [option["const"]] if "const" in option else None)
    if not isinstance(values, list) or not values:
        return []
    numbers = [v for v in values if type(v) in (int, float)]
    if numbers and len(numbers) == len(values):
        return [max(numbers) + 1000]
    return ["not_one_of_the_allowed_values"]


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}


def _json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), "object")


def _allowed_types(node: Any) -> set[str] | None:
    """The JSON types a property's schema allows, or None when it does not say."""
    found: set[str] = set()
    for option in options(node):
        kinds = option.get("type")
        found.update([kinds] if isinstance(kinds, str) else kinds or ())
        values = option.get("enum", [option["const"]] if "const" in option else [])
        found.update(_json_type(value) for value in values)
    if "number" in found:
        found.add("integer")
    return found or None


def _int_enum(node: Any) -> bool:
    return any(any(type(v) is int for v in option.get("enum", ())) for option in options(node))


def mutations(sample: dict[str, Any], schema: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(kind, field, mutated arguments) for every mutation worth trying on `sample`.

    Not yet judged: the caller keeps only those the schema itself refuses.
    """
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    out: list[tuple[str, str, Any]] = []
    for key in sorted(required & set(sample)):
        out.append(("missing", key, {k: v for k, v in sample.items() if k != key}))
    for key, value in sample.items():
        sub = properties.get(key, {})
        allowed = _allowed_types(sub) or set(map(_json_type, _WRONG_VALUES))
        for wrong in _WRONG_VALUES:
            if _json_type(wrong) in allowed:
                continue  # not a wrong type: a value the range or enum mutations cover
            if wrong is None and key not in required:
                continue  # null for an omittable argument means "left out" (toolsys/_agreement.py)
            if type(wrong) is bool and _int_enum(sub):
                continue  # Pydantic reads true as 1 in Literal[1, 2]: a known, pinned exception
            out.append(("wrong_type", key, {**sample, key: wrong}))
        for option in options(sub):
            out.extend(("out_of_range", key, {**sample, key: v}) for v in _beyond(option, value))
            out.extend(("enum", key, {**sample, key: v}) for v in _outside_enum(option))
    if EXTRA_KEY not in properties:
        out.append(("extra", EXTRA_KEY, {**sample, EXTRA_KEY: 1}))
    return out
