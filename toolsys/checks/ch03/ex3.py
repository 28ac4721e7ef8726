"""Exercise 3.3, make a schema strict by hand: the check and its reference, `make_strict`.

Strict mode is what a provider enforces: every object closed, every property required, optional ones
nullable, at every depth. The cases nest objects inside arrays of arrays.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise, expect_raises
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import difference, text
from toolsys.checks.ch03._shared import compare_schema, same_schema


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
        "an optional object that is already nullable (type ['object', 'null'])",
        _obj(
            {
                "name": {"type": "string"},
                "address": {
                    "type": ["object", "null"],
                    "properties": {
                        "street": {"type": "string"},
                        "zip": {"type": "string", "default": ""},
                    },
                    "required": ["street"],
                },
            },
            ["name"],
        ),
        "An object whose type is already ['object', 'null'] is still an object: recognise it by "
        "'object' in its type (a str or a list) and make it strict inside too.",
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
        "an optional closed object without properties",
        _obj({"options": {"type": "object", "additionalProperties": False}}, []),
        "An object that says additionalProperties: false is closed, even with no properties: it "
        "is not free-form. Only True, a schema, or no properties and no false are.",
    ),
    (
        "an object that is already strict",
        _obj({"q": {"type": "string"}}, ["q"], additionalProperties=False),
        "An already strict schema comes back unchanged.",
    ),
]

# a hint for a difference that names the key, before the case's own
_BY_KEY = {
    "default": "A 'default' is left: remove it from every property you make nullable, at every "
    "depth (nested objects and array items too); strict mode fills no defaults, null stands "
    "for 'not given'.",
}

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
        "an object with properties that also allows any other key (additionalProperties: true)",
        _obj({"filters": _obj({"q": {"type": "string"}}, ["q"], additionalProperties=True)}, []),
        ("filters",),
    ),
    (
        "an object with properties and a schema for any other key",
        _obj(
            {
                "tags": _obj(
                    {"main": {"type": "string"}}, [], additionalProperties={"type": "string"}
                )
            },
            [],
        ),
        ("tags",),
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


def _schema(rng: random.Random, size: int, depth: int = 0) -> dict[str, Any]:
    """A property schema of the kinds the text covers: a scalar type (or [type, "null"]), an
    array of scalars or of objects, a nested object; a default now and then."""
    pick = rng.randrange(7 if depth < 2 else 4)
    node: dict[str, Any]
    if pick <= 2:
        kind = rng.choice(["string", "integer", "number", "boolean"])
        node = {"type": rng.choice([kind, [kind, "null"]])}
        if rng.random() < 0.3:
            node["default"] = {"string": "é", "integer": 0, "number": 1.5, "boolean": False}[kind]
    elif pick == 3:
        node = {"type": "array", "items": {"type": rng.choice(["string", "integer"])}}
    elif pick == 4:
        node = {"type": "array", "items": _object(rng, size, depth + 1)}
    else:
        node = _object(rng, size, depth + 1)
    if rng.random() < 0.3 and "default" not in node:  # toolsys writes a default into one
        node["description"] = "Ville, e.g. Zürich."
    return node


def _object(rng: random.Random, size: int, depth: int = 0) -> dict[str, Any]:
    """An object schema: some properties, some of them required; closed, or (now and then)
    free-form in one of the ways the text names; its type "object" or ["object", "null"]."""
    names = rng.sample(["title", "labels", "été", "n", "items", "when"], rng.randint(0, 4))
    node: dict[str, Any] = {"type": "object" if rng.random() < 0.85 else ["object", "null"]}
    if names or rng.random() < 0.5:
        node["properties"] = {name: _schema(rng, size, depth) for name in names}
    node["required"] = [name for name in names if rng.random() < 0.5]
    for name in set(names) - set(node["required"]):  # toolsys moves such a default into the
        node["properties"][name].pop("default", None)  # description, which the text does not say
    if not node["required"] and rng.random() < 0.5:
        del node["required"]
    closing = rng.random()
    if closing < 0.75:
        node["additionalProperties"] = False
    elif closing < 0.85:
        node["additionalProperties"] = rng.choice([True, {}, {"type": "string"}])
    return node


def _strict_call(rng: random.Random, size: int) -> Call:
    return Call((_object(rng, size),))


_GENERATED = calls(_strict_call, seed=33, count=150)


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
        try:
            got = student(schema)
        except ValueError as exc:
            raise CheckFailed(
                f"make_strict({label}) raised ValueError ({text(exc)}), but every object in it "
                "is closed: strict mode accepts it.",
                expected=make_strict(original),
                got=exc,
                hint="Free-form means additionalProperties is True or a schema, or there are no "
                "properties and no additionalProperties: false. " + hint,
            ) from None
        changed = difference(schema, original, "the input")
        if changed is not None:
            raise CheckFailed(
                f"make_strict changed its input ({label}): {changed}.",
                expected=original,
                got=schema,
                hint="Work on copy.deepcopy(schema): the registry's schema is shared.",
            )
        compare_schema(got, make_strict(original), f"make_strict({label})", hint, _BY_KEY)
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
    agree(
        student,
        make_strict,
        _GENERATED,
        name="make_strict",
        compare=same_schema,
        hint="Every object (root, property, items, nullable ones too): ValueError for a free-form "
        "one, else required = all its properties in order, additionalProperties False, the "
        "ones not required before made nullable (after making their insides strict); no "
        "default anywhere.",
    )
