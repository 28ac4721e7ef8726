"""Exercise 3.1, one Param to its property schema: the check and its reference, `param_to_schema`.

The expected schema is computed by `toolsys.schema`, so a student's generator is held to exactly
what the workbook's registry sends to a model.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

from toolsys.checks import exercise
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks.ch03._shared import compare_schema, same_schema, some_param
from toolsys.spec import Param


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

    # nullable belongs to the whole object (exercise 3.2): one property's schema ignores it
    param = replace(param, nullable=False)
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
        Param("version", "string", "Docs version; null for the latest.", nullable=True),
        "Ignore nullable here: the type stays param.type, a string; [type, 'null'] is "
        "exercise 3.2's job, for the whole object.",
    ),
    (
        Param("celsius", "number", "Temperature.", minimum=0),
        "A minimum of 0 is a bound too: test `is not None`, not truthiness.",
    ),
]


def _param_call(rng: random.Random, size: int) -> Call:
    return Call((some_param(rng, size),))


_GENERATED = calls(_param_call, seed=31, count=200)


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
        compare_schema(student(param), param_to_schema(param), what, hint)
    agree(
        student,
        param_to_schema,
        _GENERATED,
        name="param_to_schema",
        compare=same_schema,
        hint="Include a key exactly when the table says so: a default of 0, False or '' is not "
        "None (test `is not None`), nor is a minimum of 0.",
    )
