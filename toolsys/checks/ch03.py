"""Checks for chapter 03, one source of truth for schemas: each one compares with `toolsys`.

The expected schemas are computed by the package itself (`toolsys.schema`, `toolsys.export`), so
a student's generator is held to exactly what the workbook's registry sends to a model.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise, expect_plain, expect_raises
from toolsys.checks._plain import difference, text
from toolsys.spec import Param, ToolSpec


def _normal(schema: Any) -> Any:
    """Equivalent spellings made equal: no `required` = `required: []`, `items: {}` = no items.

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
    return out


def _compare(
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


# -- 3.1 -------------------------------------------------------------------------------------


def _show_param(param: Param) -> str:
    """`Param('limit', 'integer', 'Max.', required=False, default=5)`: only what was given."""
    given = [
        f"{f.name}={getattr(param, f.name)!r}"
        for f in fields(param)[3:]
        if getattr(param, f.name) != f.default
    ]
    positional = [repr(param.name), repr(param.type), repr(param.description)]
    return f"Param({', '.join([*positional, *given])})"


def param_to_schema(param: Param) -> dict[str, Any]:
    """Reference for 3.1: what toolsys puts under `properties[param.name]`."""
    from toolsys.schema import json_schema, model_from_params

    return json_schema(model_from_params("tool", [param]))["properties"][param.name]


_PARAM_CASES: list[tuple[Param, str]] = [
    (Param("query", "string", "Search keywords."), "A plain string: type and description."),
    (Param("count", "integer", "How many results."), "The JSON type is param.type as it is."),
    (Param("ratio", "number", ""), 'An empty description is left out, not sent as "".'),
    (
        Param("exact", "boolean", "Whole phrase only.", required=False, default=False),
        "A default of False is still a default: test `is not None`, not truthiness.",
    ),
    (
        Param("offset", "integer", "Skip this many.", required=False, default=0),
        "A default of 0 is still a default: test `is not None`, not truthiness.",
    ),
    (
        Param("note", "string", "Free text.", required=False),
        "An optional parameter without a default gets no `default` key (not null).",
    ),
    (
        Param("city", "string", "City name.", default="Paris"),
        "A required parameter has no default the model could rely on: leave `default` out.",
    ),
    (
        Param("unit", "string", "Unit.", enum=["celsius", "fahrenheit"]),
        "Allowed values go in `enum`, as a list.",
    ),
    (
        Param("level", "integer", "Log level.", enum=(1, 2, 3), required=False, default=2),
        "`enum` must be a JSON list even when the Param was given a tuple.",
    ),
    (Param("tags", "array", "Tags.", items="string"), "An array says its element type in `items`."),
    (
        Param("ids", "array", "Order ids.", items="integer", required=False, default=[1]),
        "Arrays with defaults: `items` and `default` together.",
    ),
    (
        Param("limit", "integer", "Max results.", required=False, default=5, minimum=1, maximum=50),
        "Bounds become `minimum` and `maximum`.",
    ),
    (
        Param("celsius", "number", "Temperature.", minimum=0),
        "A minimum of 0 is a bound too: test `is not None`, not truthiness.",
    ),
]


@exercise(
    "3.1",
    title="One Param to its property schema",
    hints=[
        "Start from {'type': param.type} and add keys one feature at a time.",
        "Add 'description' only when it is not empty, 'enum' as list(param.enum) when given, "
        "'items' as {'type': param.items} when given.",
        "'default' only when the parameter is not required and its default is not None; "
        "'minimum'/'maximum' when they are not None. Beware of 0 and False: they are values.",
    ],
    reference=lambda: param_to_schema,
)
def _check_param_to_schema(student: Callable[[Param], dict[str, Any]]) -> None:
    for param, hint in _PARAM_CASES:
        what = f"param_to_schema({_show_param(param)})"
        _compare(student(param), param_to_schema(param), what, hint)


# -- 3.2 -------------------------------------------------------------------------------------


def spec_to_schema(spec: ToolSpec) -> dict[str, Any]:
    """Reference for 3.2: the object schema toolsys generates for a spec's list of `Param`."""
    from toolsys.schema import json_schema, model_from_params

    if isinstance(spec.parameters, type):
        raise TypeError(
            f"spec_to_schema takes a spec whose parameters are a list of Param; {spec.name!r} "
            f"has the model class {spec.parameters.__name__}: build the tool with "
            "tool_from_spec(spec, fn) and read tool.parameters instead."
        )
    return json_schema(model_from_params(spec.name, list(spec.parameters)))


_SPEC_CASES: list[tuple[ToolSpec, str]] = [
    (
        ToolSpec("ping", "Check the service answers."),
        "No parameters: an object with empty properties (and additionalProperties false).",
    ),
    (
        ToolSpec(
            "search_docs",
            "Search the docs.",
            [
                Param("query", "string", "Search keywords."),
                Param("limit", "integer", "Max.", required=False, default=5, minimum=1),
                Param("sort", "string", "Order.", required=False, enum=["relevance", "date"]),
            ],
        ),
        "Only parameters with required=True go in 'required'.",
    ),
    (
        ToolSpec(
            "list_files",
            "List files.",
            [Param("pattern", "string", "Glob.", required=False, default="*")],
        ),
        "When nothing is required, 'required' is empty (or left out).",
    ),
    (
        ToolSpec(
            "get_docs",
            "Fetch a docs page.",
            [
                Param("page", "string", "Page name."),
                Param("version", "string", "Docs version; null for the latest.", nullable=True),
            ],
        ),
        "nullable=True means null is allowed: the type becomes [type, 'null'], in that order. "
        "It stays required: nullable is not optional.",
    ),
    (
        ToolSpec(
            "resize",
            "Resize an image.",
            [
                Param("width", "integer", "Pixels.", minimum=1),
                Param("height", "integer", "Pixels; null keeps the aspect ratio.", nullable=True),
                Param("scale", "number", "Factor.", required=False, default=1.0, nullable=True),
                Param("sharp", "boolean", "Sharpen.", required=False, default=True),
            ],
        ),
        "Optional and nullable combine: type [type, 'null'] and the default kept.",
    ),
    (
        ToolSpec(
            "send_mail",
            "Send an e-mail.",
            [
                Param("to", "array", "Recipients.", items="string"),
                Param("subject", "string", "Subject line."),
                Param("cc", "array", "Copies.", required=False, items="string"),
                Param("priority", "string", "How urgent.", enum=["low", "high"]),
            ],
        ),
        "'required' lists the names in the order of spec.parameters.",
    ),
]


# Where a spec's schema differs decides the hint: the case's own hint says what it shows, but a
# wrong 'required' list is about required, not about the nullable type next to it.
_SPEC_HINTS = {
    "required": "'required' lists the parameters with required=True, in the spec's order. "
    "nullable does not change it: a nullable parameter stays required unless it says "
    "required=False.",
    "additionalProperties": "Close the object: 'additionalProperties': False.",
    "type": "nullable=True makes the type [type, 'null'], in that order; without nullable it "
    "stays a string.",
}


@exercise(
    "3.2",
    title="A whole ToolSpec to its object schema",
    hints=[
        "The result is {'type': 'object', 'properties': {...}, 'required': [...], "
        "'additionalProperties': False}.",
        "Build each property with your param_to_schema, then handle nullable: "
        "prop['type'] = [prop['type'], 'null'].",
        "'required' is [p.name for p in spec.parameters if p.required], whatever nullable "
        "says: nullable=True alone keeps a parameter required, and required=False makes it "
        "optional, nullable or not.",
    ],
    reference=lambda: spec_to_schema,
)
def _check_spec_to_schema(student: Callable[[ToolSpec], dict[str, Any]]) -> None:
    for spec, hint in _SPEC_CASES:
        what = f"spec_to_schema(<{spec.name}>)"
        _compare(student(spec), spec_to_schema(spec), what, hint, _SPEC_HINTS)


# -- 3.3 -------------------------------------------------------------------------------------


def _obj(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, **extra}


_STRICT_CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "a flat schema with one optional parameter",
        _obj(
            {
                "city": {"type": "string", "description": "City."},
                "days": {"type": "integer", "description": "Days.", "default": 3, "minimum": 1},
            },
            ["city"],
            additionalProperties=False,
        ),
        "Every property goes in 'required'; the optional one becomes nullable and loses its "
        "default.",
    ),
    (
        "an already nullable optional field",
        _obj(
            {
                "page": {"type": "string"},
                "version": {"type": ["string", "null"], "default": None},
            },
            ["page"],
        ),
        "A field whose type already contains 'null' must not get a second 'null'.",
    ),
    (
        "an optional field with a list of types",
        _obj({"id": {"type": ["string", "integer"], "default": 0}, "q": {"type": "string"}}, ["q"]),
        "A list of types gets 'null' appended: ['string', 'integer', 'null'].",
    ),
    (
        "a schema without additionalProperties (as Pydantic writes it)",
        _obj({"title": {"type": "string"}, "done": {"type": "boolean", "default": False}}, []),
        "Add additionalProperties: false to every object, even when the key was absent.",
    ),
    (
        "a nested optional object",
        _obj(
            {
                "name": {"type": "string"},
                "address": _obj(
                    {"street": {"type": "string"}, "zip": {"type": "string", "default": ""}},
                    ["street"],
                ),
            },
            ["name"],
        ),
        "Recurse into properties that are objects: they get the same treatment, and the "
        "optional object itself becomes ['object', 'null'].",
    ),
    (
        "nested objects, one required and one optional",
        _obj(
            {
                "name": {"type": "string"},
                "address": _obj(
                    {"street": {"type": "string"}, "zip": {"type": "string", "default": ""}},
                    ["street"],
                ),
                "billing": _obj({"street": {"type": "string"}}, []),
            },
            ["name", "address"],
        ),
        "Recurse into every property that is an object, required or not: a required one is "
        "made strict too, it only stays non-nullable.",
    ),
    (
        "an array of objects",
        _obj(
            {
                "attendees": {
                    "type": "array",
                    "items": _obj(
                        {
                            "email": {"type": "string"},
                            "optional": {"type": "boolean", "default": False},
                        },
                        ["email"],
                    ),
                }
            },
            ["attendees"],
        ),
        "Recurse into an array's 'items' too.",
    ),
    (
        "an array of arrays of objects",
        _obj(
            {
                "grid": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "items": _obj({"v": {"type": "integer", "default": 1}}, []),
                    },
                }
            },
            ["grid"],
        ),
        "Recurse into 'items' whatever they are: items that are arrays have items of their own.",
    ),
    (
        "an object that is already strict",
        _obj({"q": {"type": "string"}}, ["q"], additionalProperties=False),
        "An already strict schema comes back unchanged.",
    ),
]

# what the case shows, the schema, words its error must contain (the path to the object)
_FREE_FORM_CASES: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    (
        "a dict parameter (additionalProperties is a schema)",
        _obj({"labels": {"type": "object", "additionalProperties": {"type": "string"}}}, []),
        ("labels",),
    ),
    (
        "a dict parameter whose values may be anything (additionalProperties is {})",
        _obj({"labels": {"type": "object", "additionalProperties": {}}}, []),
        ("labels",),
    ),
    (
        "an object with no properties at all",
        _obj({"q": {"type": "string"}, "extra": {"type": "object"}}, ["q"]),
        ("extra",),
    ),
    (
        "a free-form object two levels down",
        _obj(
            {"address": _obj({"street": {"type": "string"}, "meta": {"type": "object"}}, [])},
            ["address"],
        ),
        ("address", "meta"),
    ),
    (
        "a free-form object hidden inside an array",
        _obj(
            {"rows": {"type": "array", "items": {"type": "object", "additionalProperties": True}}},
            ["rows"],
        ),
        ("rows",),
    ),
    (
        "a root object that is itself free-form",
        {"type": "object", "additionalProperties": True},
        (),
    ),
]


def make_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Reference for 3.3: `toolsys.export.make_strict`."""
    from toolsys.export import make_strict as toolsys_make_strict

    return toolsys_make_strict(schema)


@exercise(
    "3.3",
    title="Make a schema strict by hand",
    hints=[
        "Work on copy.deepcopy(schema) and write a recursive helper strict(node, path).",
        "For an object (the root too): raise ValueError(f'{path}: free-form object') when "
        "additionalProperties is True or a dict (even {}), or when it has no 'properties' and "
        "no additionalProperties: false. Otherwise remember the old 'required', recurse into "
        "each property, make the ones that were not required nullable, then set 'required' to "
        "every name and 'additionalProperties' to False.",
        "Nullable: a string type T becomes [T, 'null']; a list of types gets 'null' appended "
        "unless it is already there. Pop 'default' from every node, and recurse into 'items', "
        "whatever they are.",
    ],
    reference=lambda: make_strict,
)
def _check_make_strict(student: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    for label, schema, hint in _STRICT_CASES:
        original = copy.deepcopy(schema)
        got = student(schema)
        changed = difference(schema, original, "the input")
        if changed is not None:
            raise CheckFailed(
                f"make_strict changed its input ({label}): {changed}.",
                expected=original,
                got=schema,
                hint="Work on copy.deepcopy(schema): the registry's schema is shared.",
            )
        _compare(got, make_strict(original), f"make_strict({label})", hint)
    for label, schema, words in _FREE_FORM_CASES:
        what = f"make_strict({label})"
        hint = (
            "Strict mode forbids objects with arbitrary keys; raise ValueError with a message "
            f"naming where, e.g. '$.{'.'.join(words) or 'labels'}: free-form object'."
        )
        error = expect_raises(ValueError, student, copy.deepcopy(schema), what=what, hint=hint)
        missing = [word for word in words if word not in text(error)]
        if missing:
            raise CheckFailed(
                f"{what} raised the right error, but its message does not say where: "
                f"{', '.join(map(repr, missing))} missing.",
                expected=Described(f"a message naming the path, e.g. '$.{'.'.join(words)}'"),
                got=text(error),
                hint=hint,
            )
