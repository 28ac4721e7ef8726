"""Exercise 3.2, a whole ToolSpec to its object schema: the check and its reference,
`spec_to_schema`.

The whole object schema (properties, required, no extra properties) is compared with
`toolsys.export`, with hints keyed to the place where the two differ.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from toolsys.checks import CheckFailed, Described, exercise
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks.ch03._shared import compare_schema, same_schema, some_param
from toolsys.spec import Param, ToolSpec


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


def _spec_call(rng: random.Random, size: int) -> Call:
    """A spec of 0 to 5 parameters, each a Param of 3.1's kinds, nullable or not (but not a
    nullable array, enum or bounded number: toolsys writes those as anyOf [the type with its
    keywords, null], which the text's [type, "null"] rule does not say)."""
    names = rng.sample(["query", "limit", "city", "tags", "x", "été", "page"], rng.randint(0, 5))
    parameters = []
    for name in names:
        param = some_param(rng, size, name)
        plain = param.type != "array" and (param.enum, param.minimum, param.maximum) == (None,) * 3
        parameters.append(replace(param, nullable=plain and rng.random() < 0.4))
    return Call((ToolSpec("tool", "A tool.", parameters),))


_GENERATED = calls(_spec_call, seed=32, count=150)


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
        got, expected = student(spec), spec_to_schema(spec)
        compare_schema(got, expected, what, hint, _SPEC_HINTS)
        # equal dicts may still list their keys in another order: the spec's order is promised
        order, wanted = list(got["properties"]), list(expected["properties"])
        if order != wanted:
            raise CheckFailed(
                f"{what}['properties'] lists the parameters in another order than the spec: "
                f"{order}, not {wanted}.",
                expected=Described(repr(wanted)),
                got=Described(repr(order)),
                hint="Add the properties in the order of spec.parameters (a dict keeps the order "
                "of insertion); do not sort them. The model reads them in that order.",
            )
    agree(
        student,
        spec_to_schema,
        _GENERATED,
        name="spec_to_schema",
        compare=same_schema,
        hint="Include a key exactly when the table says so: a default of 0, False or '' is not "
        "None (test `is not None`), nor is a minimum of 0.",
    )
