"""Exercise 0.3, write a tool definition by hand: the check and its reference, `book_table_tool`.

A definition written by hand is compared key by key with the shape the API expects, so a parameter
marked required in the wrong place, a Python type name or a default the function does not have shows
before a model ever sees it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise, expect_equal, expect_plain, expect_true
from toolsys.checks._plain import as_plain


def book_table_tool() -> dict[str, Any]:
    """Reference for 0.3: the definition toolsys generates from the function itself."""
    from toolsys import Registry

    def book_table(restaurant: str, people: int, time: str, outdoor: bool = False) -> dict:
        """Book a table at a restaurant for today.

        Args:
            restaurant: Name of the restaurant, e.g. "Chez Lulu".
            people: Number of guests, at least 1.
            time: Time of the booking, 24-hour "HH:MM", e.g. "19:30".
            outdoor: True for a table outside.
        """
        return {}

    registry = Registry()
    registry.register(book_table)
    return registry.export("openai")[0]


# parameter -> (JSON type, the function's default or _REQUIRED)
_REQUIRED = object()
_BOOK_TABLE: dict[str, tuple[str, Any]] = {
    "restaurant": ("string", _REQUIRED),
    "people": ("integer", _REQUIRED),
    "time": ("string", _REQUIRED),
    "outdoor": ("boolean", False),
}
# What JSON Schema lets a property say about one value; anything else is a misunderstanding.
_PROPERTY_KEYS = {
    "type",
    "description",
    "default",
    "enum",
    "const",
    "examples",
    "title",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
}


# A value the function's docstring describes, for each parameter: the schema must accept it.
_EXAMPLES: dict[str, Any] = {
    "restaurant": "Chez Lulu",
    "people": 2,
    "time": "19:30",
    "outdoor": True,
}
# The string formats whose shape is easy to test; another format is left alone.
_FORMATS = {
    "date-time": r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}",
    "date": r"\d{4}-\d{2}-\d{2}",
    "email": r"[^@\s]+@[^@\s]+",
    "uri": r"[A-Za-z][A-Za-z0-9+.-]*:\S*",
    "uuid": r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}",
    "ipv4": r"\d{1,3}(\.\d{1,3}){3}",
}


def _expect_example_fits(where: str, name: str, schema: dict[str, Any]) -> None:
    """The schema accepts a value the docstring describes (a format or a bound that refuses
    it would make the model send something else)."""
    value, refused = _EXAMPLES[name], None
    kind = schema.get("format")
    shape = _FORMATS.get(kind) if isinstance(value, str) and isinstance(kind, str) else None
    if shape is not None and not re.fullmatch(shape, value):
        refused = f"'format': {schema['format']!r}"
    pattern = schema.get("pattern")
    if isinstance(value, str) and isinstance(pattern, str):
        try:
            if not re.search(pattern, value):
                refused = f"'pattern': {pattern!r}"
        except re.error:
            refused = f"'pattern': {pattern!r} (not a regular expression)"
    if "enum" in schema and value not in (schema["enum"] or []):
        refused = "its 'enum'"
    for key, fits in (("minimum", lambda b: value >= b), ("maximum", lambda b: value <= b)):
        bound = schema.get(key)
        if type(value) is int and type(bound) in (int, float) and not fits(bound):
            refused = f"{key!r}: {bound!r}"
    if refused is not None:
        raise CheckFailed(
            f"{where} refuses {value!r}, a value the function takes (see its docstring), "
            f"because of {refused}.",
            expected=Described(f"a schema that accepts {value!r}"),
            got=schema,
            hint="Only say what the docstring says: a format, pattern or bound that does not fit "
            "the value (a time '19:30' is no 'date-time') makes the model send something else.",
        )


def _check_property(name: str, schema: Any) -> None:
    kind, default = _BOOK_TABLE[name]
    where = f"properties[{name!r}]"
    expect_true(
        type(schema) is dict,
        f'{where} must be a schema dict such as {{"type": {json.dumps(kind)}, '
        f'"description": "..."}}, got {schema!r}.',
        hint="Each property is itself a small JSON Schema: a dict with a type and a description.",
    )
    strange = sorted(set(schema) - _PROPERTY_KEYS)
    if strange:
        raise CheckFailed(
            f"{where} has the key {strange[0]!r}, which a JSON Schema property does not have.",
            expected=Described("JSON Schema keywords: type, description, default, enum, ..."),
            got=schema,
            hint='Which parameters are required is said once, in parameters["required"], not '
            "in each property.",
        )
    expect_equal(
        schema.get("type"),
        kind,
        what=f"{where}['type']",
        hint="JSON Schema spells types string, integer, number, boolean.",
    )
    text = schema.get("description")
    expect_true(
        type(text) is str and text.strip(),
        f"{where} needs a description: the model fills arguments from it (format, unit, example).",
    )
    words = set(re.findall(r"\w+", str(text).lower())) - {name, "the", "a", "an", "of"}
    expect_true(
        bool(words),
        f"{where}['description'] is {text!r}, which only repeats the parameter's name: say what "
        "the value is (its unit, format or an example), as the docstring does.",
        hint="For example 'Number of guests, at least 1.': the model reads it to fill the value.",
    )
    _expect_example_fits(where, name, schema)
    if "default" not in schema:
        return
    expect_true(
        default is not _REQUIRED,
        f"{where} has a default, but the function has none for {name}: the model may then "
        "leave it out, and the call fails.",
        hint="Give a default only to a parameter that has one in the function.",
    )
    expect_equal(
        schema["default"],
        default,
        what=f"{where}['default']",
        hint=f"The default must be the function's, as a JSON value of type {kind}: "
        f"{json.dumps(default)}.",
    )


@exercise(
    "0.3",
    title="Write a tool definition by hand",
    hints=[
        'The outer shape is {"type": "function", "function": {"name", "description", '
        '"parameters"}}.',
        'parameters is a JSON Schema: {"type": "object", "properties": {...}, "required": [...]}, '
        'and each property a dict such as {"type": "string", "description": "..."}.',
        "JSON Schema type names: str -> string, int -> integer, float -> number, bool -> boolean. "
        "Only parameters without a default are required.",
    ],
    reference=lambda: book_table_tool,
)
def _check_book_table_tool(student: Any) -> None:
    definition = as_plain(student())  # the package's own exports are read-only dicts
    shape = 'a dict {"type": "function", "function": {...}} of plain JSON values'
    expect_plain(definition, what="book_table_tool()", shape=shape)
    expect_true(
        type(definition) is dict, f"book_table_tool() must return {shape}, got {definition!r}."
    )
    expect_equal(
        definition.get("type"),
        "function",
        what='definition["type"]',
        hint='OpenAI wraps each tool: {"type": "function", "function": {...}}.',
    )
    function = definition.get("function")
    expect_true(
        type(function) is dict,
        'definition["function"] must be a dict with name, description and parameters.',
    )
    expect_equal(function.get("name"), "book_table", what='definition["function"]["name"]')
    description = function.get("description")
    expect_true(
        type(description) is str and len(description.split()) >= 4,
        f"The tool needs a description of a few words (the model reads it to decide when to "
        f"call the tool); got {description!r}.",
    )
    schema = function.get("parameters")
    expect_true(type(schema) is dict, '"parameters" must be a JSON Schema dict.')
    expect_equal(schema.get("type"), "object", what='parameters["type"]')
    properties = schema.get("properties")
    expect_true(type(properties) is dict, 'parameters must have a "properties" dict.')
    expect_equal(
        sorted(properties),
        sorted(_BOOK_TABLE),
        what="the parameter names in properties",
        hint="Use exactly the function's parameter names; a renamed one drifts.",
    )
    for name in _BOOK_TABLE:
        _check_property(name, properties[name])
    required = schema.get("required")
    expect_true(type(required) is list, f'"required" must be a list, got {required!r}.')
    expect_equal(
        sorted(required),
        ["people", "restaurant", "time"],
        what='parameters["required"]',
        hint="outdoor has a default (False), so the model may leave it out.",
    )
