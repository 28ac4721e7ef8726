"""How the chapter 03 checks compare a student's schema with the one `toolsys` gives.

Equivalent spellings are made equal first (no `required` is `required: []`), and the hint that
applies is picked by the key where the two schemas differ.
"""

from __future__ import annotations

import random
from typing import Any

from toolsys.checks import CheckFailed, Described, expect_plain
from toolsys.checks._differential import text
from toolsys.checks._plain import difference, impurity
from toolsys.spec import Param


def _normal(schema: Any) -> Any:
    """Equivalent spellings made equal: no `required` = `required: []`, `items: {}` = no items,
    `properties: {}` = no properties.

    Only called on plain data (exact dicts and lists), so nothing here asks a student's object.
    """
    if type(schema) is list:
        return [_normal(item) for item in schema]
    if type(schema) is not dict:
        return schema
    out = {key: _normal(value) for key, value in schema.items()}
    if out.get("required") == []:
        del out["required"]
    if out.get("items") == {}:
        del out["items"]
    if out.get("properties") == {}:
        del out["properties"]
    return out


def compare_schema(
    got: Any, expected: Any, what: str, hint: str, by_key: dict[str, str] | None = None
) -> None:
    """Fail unless `got` is the schema toolsys gives; the hint follows where they differ."""
    expect_plain(got, what=what, shape="a dict (a JSON Schema) of plain JSON values", hint=hint)
    if type(got) is not dict:
        raise CheckFailed(
            f"{what} should return a dict.",
            expected=Described("a dict (a JSON Schema)"),
            got=got,
            hint=hint,
        )
    problem = difference(_normal(got), _normal(expected), "the result")
    if problem is not None:
        keyed = [h for key, h in (by_key or {}).items() if repr(key) in problem]
        raise CheckFailed(
            f"{what} differs from toolsys: {problem}.",
            expected=expected,
            got=got,
            hint=keyed[0] if keyed else hint,
        )


# No "object" type, no enum of one value or beside a bound: there toolsys's own schema (the
# reference) is not the text's table (it adds additionalProperties, writes "const", or leaks
# pydantic's "ge"/"le"), so those inputs test nothing the text promises.
_TYPES = ["string", "integer", "number", "boolean", "array"]
_EXAMPLES: dict[str, list[Any]] = {
    "string": ["", "a", "Zoë", "中文", 'say "hi"'],
    "integer": [0, 1, -1, 10**12],
    "number": [0.0, 1.5, -0.25, 1e20],
    "boolean": [False, True],
    "array": [[], ["a"], [1, 2]],
}


def some_param(rng: random.Random, size: int, name: str | None = None) -> Param:
    """A Param the exercise text covers: a JSON type; a description or none (non-ASCII too);
    required or not; an enum of values of its type; a default of its type, falsy ones (0,
    False, "") included; items for an array; else minimum and maximum (0 too) for numbers."""
    kind = rng.choice(_TYPES)
    values = _EXAMPLES[kind]
    options: dict[str, Any] = {"required": rng.random() < 0.5}
    if rng.random() < 0.3 and kind in ("string", "integer", "number"):
        options["enum"] = rng.sample(values, rng.randint(2, len(values)))
    if rng.random() < 0.5:
        options["default"] = rng.choice(options.get("enum") or values)
    if kind == "array" and rng.random() < 0.7:
        options["items"] = rng.choice(["string", "integer", "number", "boolean"])
    if kind in ("integer", "number") and "enum" not in options:
        bounds = [0, 1, -5, 100] if kind == "integer" else [0, 1.5, -5, 2.5, 100]
        low, high = sorted(rng.sample(bounds, 2))  # an int's bounds are ints (toolsys insists)
        for bound, value in (("minimum", low), ("maximum", high)):
            if rng.random() < 0.4:
                options[bound] = value
    description = rng.choice(["", "How many results.", "Ville, e.g. Zürich.", text(rng, size)])
    return Param(name or rng.choice(["query", "limit", "city", "tags", "x"]), kind, description,
                 **options)  # fmt: skip


def same_schema(got: Any, expected: Any, what: str) -> str | None:
    """Where `got` differs from the schema toolsys gives, with equivalent spellings made equal
    (`compare_schema` as a differential comparison), the properties' order included."""
    problem = impurity(got, what)
    if problem is not None:
        return problem
    problem = difference(_normal(got), _normal(expected), what)
    if problem is None and type(got) is dict and type(got.get("properties")) is dict:
        order, wanted = list(got["properties"]), list(expected.get("properties", {}))
        if order != wanted:
            return f"{what}['properties'] lists them as {order}, not in the spec's order {wanted}"
    return problem
