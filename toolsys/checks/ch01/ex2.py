"""Exercise 1.2, find the drift: the check and its reference, `find_drift`.

Drift is a definition that no longer matches its function: the cases differ on either side, so a
check that reads only one side shows itself.
"""

from __future__ import annotations

import keyword
import random
import types
import typing
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, _differential, exercise
from toolsys.checks._differential import Call, agree, calls

_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
}
_PROBLEMS = ("not_in_function", "not_in_schema", "required_mismatch", "type_mismatch")


def _json_type(annotation: Any) -> str | None:
    """The JSON Schema type of an annotation, ignoring None in `X | None`; None if unknown."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(options[0]) if len(options) == 1 else None
    return _JSON_TYPES.get(origin or annotation)


def find_drift(definition: dict[str, Any], fn: Callable[..., Any]) -> list[tuple[str, str]]:
    """Reference for 1.2: every disagreement between a hand-written definition and `fn`."""
    import inspect

    schema = definition.get("function", definition).get("parameters", {})
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    hints = typing.get_type_hints(fn)
    parameters = {
        name: p
        for name, p in inspect.signature(fn).parameters.items()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    drift: list[tuple[str, str]] = []
    for name in properties:
        if name not in parameters:
            drift.append((name, "not_in_function"))
    for name, parameter in parameters.items():
        if name not in properties:
            drift.append((name, "not_in_schema"))
            continue
        if (parameter.default is inspect.Parameter.empty) != (name in required):
            drift.append((name, "required_mismatch"))
        if name in hints:
            expected = _json_type(hints[name])
            if expected is not None and properties[name].get("type") != expected:
                drift.append((name, "type_mismatch"))
    return drift


def _fn(source: str, *, future: bool = False) -> Callable[..., Any]:
    """Define a function from source (optionally under `from __future__ import annotations`)."""
    namespace: dict[str, Any] = {}
    prefix = "from __future__ import annotations\n" if future else ""
    # dont_inherit: this module's own `from __future__ import annotations` must not leak in.
    code = compile(prefix + source, "<check 1.2>", "exec", dont_inherit=True)
    exec(code, namespace)  # the check's own fixed source, never student input
    return next(v for v in namespace.values() if isinstance(v, types.FunctionType))


def _definition(
    properties: dict[str, str], required: list[str] | None, **extra: Any
) -> dict[str, Any]:
    props = {name: {"type": kind, "description": name} for name, kind in properties.items()}
    props.update(extra)
    parameters: dict[str, Any] = {"type": "object", "properties": props}
    if required is not None:
        parameters["required"] = required
    return {
        "type": "function",
        "function": {"name": "tool", "description": "A tool.", "parameters": parameters},
    }


# what the case shows, the definition, the function's source, under __future__?, the drift
_DRIFT_CASES: list[tuple[str, dict[str, Any], str, bool, set[tuple[str, str]]]] = [
    (
        "no drift at all",
        _definition({"a": "number", "b": "number"}, ["a", "b"]),
        "def add(a: float, b: float) -> float:\n    return a + b\n",
        False,
        set(),
    ),
    (
        "a renamed parameter (schema 'city', function 'location')",
        _definition({"city": "string"}, ["city"]),
        "def get_weather(location: str) -> dict:\n    return {}\n",
        False,
        {("city", "not_in_function"), ("location", "not_in_schema")},
    ),
    (
        "a new optional parameter the schema never mentions",
        _definition({"city": "string"}, ["city"]),
        "def get_weather(city: str, unit: str = 'celsius') -> dict:\n    return {}\n",
        False,
        {("unit", "not_in_schema")},
    ),
    (
        "a parameter the schema never mentions, before one whose type drifted",
        _definition({"limit": "string"}, ["limit"]),
        "def search(query: str, limit: int) -> list:\n    return []\n",
        False,
        {("query", "not_in_schema"), ("limit", "type_mismatch")},
    ),
    (
        "required in the schema but has a default in the function, and the reverse",
        _definition({"query": "string", "limit": "integer"}, ["limit"]),
        "def search(query: str, limit: int = 10) -> list:\n    return []\n",
        False,
        {("query", "required_mismatch"), ("limit", "required_mismatch")},
    ),
    (
        "a schema without a 'required' list (nothing is required there)",
        _definition({"host": "string", "port": "integer"}, None),
        "def ping(host: str, port: int = 80) -> bool:\n    return True\n",
        False,
        {("host", "required_mismatch")},
    ),
    (
        "types that disagree (int vs 'number', float vs 'integer', str vs 'integer')",
        _definition(
            {"count": "number", "ratio": "integer", "label": "integer"}, ["count", "ratio", "label"]
        ),
        "def stats(count: int, ratio: float, label: str) -> dict:\n    return {}\n",
        False,
        {("count", "type_mismatch"), ("ratio", "type_mismatch"), ("label", "type_mismatch")},
    ),
    (
        "bool and dict annotations (a bool is 'boolean', never 'integer')",
        _definition(
            {
                "flag": "integer",
                "verbose": "boolean",
                "options": "object",
                "level": "boolean",
                "data": "string",
            },
            ["flag", "verbose", "options", "level", "data"],
        ),
        "def configure(flag: bool, verbose: bool, options: dict, level: int,\n"
        "              data: dict[str, int]) -> None:\n    pass\n",
        False,
        {("flag", "type_mismatch"), ("level", "type_mismatch"), ("data", "type_mismatch")},
    ),
    (
        "optional and generic annotations that match (str | None, list[str], Optional[int])",
        _definition(
            {"query": "string", "page": "integer"},
            ["query"],
            tags={"type": "array", "items": {"type": "string"}, "description": "tags"},
            note={"type": "string", "description": "note"},
        ),
        "from typing import Optional\n"
        "def find(query: str, tags: list[str] | None = None, page: Optional[int] = None,\n"
        "         note: str | None = None) -> list:\n    return []\n",
        False,
        set(),
    ),
    (
        "optional and generic annotations that disagree (str | None, list[str], Optional[int])",
        _definition({"note": "integer", "tags": "string", "page": "string"}, []),
        "from typing import Optional\n"
        "def find(note: str | None = None, tags: list[str] | None = None,\n"
        "         page: Optional[int] = None) -> list:\n    return []\n",
        False,
        {("note", "type_mismatch"), ("tags", "type_mismatch"), ("page", "type_mismatch")},
    ),
    (
        "an unannotated parameter and one annotated Any (no JSON type to compare)",
        _definition({"command": "integer", "payload": "string"}, ["command"]),
        "from typing import Any\ndef run(command, payload: Any = None) -> str:\n    return ''\n",
        False,
        set(),
    ),
    (
        "a function that also takes *args and **kwargs (no arguments a model sends by name)",
        _definition({"message": "string"}, ["message"]),
        "def log(message: str, *args: str, **kwargs: int) -> None:\n    pass\n",
        False,
        set(),
    ),
    (
        "keyword-only parameters (after a bare *: sent by name like any other)",
        _definition({"to": "string", "urgent": "boolean"}, ["to"]),
        "def send(to: str, *, subject: str, urgent: bool = False) -> None:\n    pass\n",
        False,
        {("subject", "not_in_schema")},
    ),
    (
        "string annotations that disagree (str | None, list[str], Optional[int] under "
        "`from __future__ import annotations`)",
        _definition({"note": "integer", "tags": "string", "page": "string"}, []),
        "from typing import Optional\n"
        "def find(note: str | None = None, tags: list[str] | None = None,\n"
        "         page: Optional[int] = None) -> list:\n    return []\n",
        True,
        {("note", "type_mismatch"), ("tags", "type_mismatch"), ("page", "type_mismatch")},
    ),
    (
        "annotations written as strings (a module with `from __future__ import annotations`)",
        _definition({"city": "string", "days": "string"}, ["city", "days"]),
        "def forecast(city: str, days: int) -> list:\n    return []\n",
        True,
        {("days", "type_mismatch")},
    ),
]


_DRIFT_HINTS = {
    "not_in_function": "Compare the two sets of names: the schema's properties and "
    "inspect.signature(fn).parameters.",
    "not_in_schema": "Compare the two sets of names: the schema's properties and "
    "inspect.signature(fn).parameters, without *args and **kwargs (parameter.kind tells "
    "them); keyword-only parameters (after a bare *) stay in: the model sends them by name.",
    "required_mismatch": "A parameter is required when it has no default (parameter.default is "
    "inspect.Parameter.empty); compare with the schema's 'required' list (absent means []), "
    "both ways.",
    "type_mismatch": "Compare JSON types, not Python names: typing.get_type_hints(fn) resolves "
    "string annotations, X | None has the type of X, list[str] is a list, a bool is 'boolean' "
    "(not 'integer'), and a parameter without annotation (or Any) has no type to compare.",
    "twice": "Report each (parameter, problem) pair once.",
}
_PAIRS = "a list of (parameter, problem) pairs of strings, e.g. [('city', 'not_in_function')]"


def _pairs(got: Any, label: str) -> list[tuple[str, str]]:
    """The student's drift as a list of pairs, or CheckFailed saying what shape was expected."""
    items = list(got) if type(got) in (list, tuple, set, frozenset) else None
    if items is None:
        raise CheckFailed(
            f"For {label}, find_drift must return {_PAIRS}.", expected=Described(_PAIRS), got=got
        )
    for item in items:
        pair = type(item) in (tuple, list) and len(item) == 2
        if not (pair and all(type(part) is str for part in item)):
            raise CheckFailed(
                f"For {label}, find_drift returned {item!r} among its items; each item must be "
                "a (parameter, problem) pair of two strings.",
                expected=Described(_PAIRS),
                got=got,
                hint="Append tuples: drift.append((name, 'not_in_schema')).",
            )
        if item[1] not in _PROBLEMS:
            raise CheckFailed(
                f"For {label}, find_drift reported the problem {item[1]!r}, which is not one of "
                f"the four: {', '.join(_PROBLEMS)}.",
                expected=Described(_PAIRS),
                got=got,
                hint="Spell the problems exactly as in the exercise's table.",
            )
    return [(name, problem) for name, problem in items]


@exercise(
    "1.2",
    title="Find the drift",
    hints=[
        "Start from the two name sets: definition['function']['parameters']['properties'] and "
        "inspect.signature(fn).parameters. Names on one side only are drift.",
        "A function parameter is required when it has no default (parameter.default is "
        "inspect.Parameter.empty); compare with the schema's 'required' list, which may be "
        "absent (nothing required).",
        "For types, read typing.get_type_hints(fn) (it resolves string annotations), strip None "
        "from `X | None` with typing.get_args, and map the origin of list[str] (list) -> 'array'.",
    ],
    reference=lambda: find_drift,
)
def _check_find_drift(student: Any) -> None:
    for label, definition, source, future, expected in _DRIFT_CASES:
        pairs = _pairs(student(definition, _fn(source, future=future)), label)
        found = set(pairs)
        if found == expected and len(pairs) == len(found):
            continue
        missing = sorted(expected - found)
        extra = sorted(found - expected)
        detail = "; ".join(
            part
            for part in (
                f"missed {missing}" if missing else "",
                f"reported wrongly {extra}" if extra else "",
                "reported a pair twice" if len(pairs) != len(found) else "",
            )
            if part
        )
        wrong = [problem for _, problem in missing + extra]
        raise CheckFailed(
            f"For {label}: {detail}.",
            expected=Described(repr(sorted(expected))),
            got=Described(repr(sorted(pairs))),
            hint=_DRIFT_HINTS[wrong[0]] if wrong else _DRIFT_HINTS["twice"],
        )
    agree(
        _on_source(student),
        _on_source(find_drift),
        _GENERATED,
        name="find_drift for (the definition's parameters, the function's def line, under "
        "`from __future__ import annotations`?) = ({args})",
        hint="Report each (parameter, problem) pair once: "
        "names on one side only, required (no default) against the 'required' list (absent: "
        "none), and the JSON type of each annotated parameter (X | None as X) against 'type'.",
    )


# Annotations a generated function's parameters have, as source (None: no annotation). Left
# out, where the package's reference and the exercise text part ways or the text is silent:
# `tuple` (the reference reads it as "array", the text's table has no tuple), unions of two
# types (int | str: no single JSON type), annotations outside the text's table (set, bytes, a
# class), a property without "type" or with a list of types, a "required" name that is no
# property, and positional-only parameters (before /).
_ANNOTATIONS = [
    "str", "int", "float", "bool", "list", "dict", "list[str]", "dict[str, int]",
    "str | None", "Optional[int]", "list[int] | None", "Optional[bool]", "Any", None,
]  # fmt: skip
_DEFAULTS = ["None", "None", "0", "''", "False", "1", "'x'", "[]"]
_TYPES = ["string", "integer", "number", "boolean", "array", "object"]


def _parameter_name(rng: random.Random, taken: set[str]) -> str:
    made = _differential.name(rng, 5)
    while keyword.iskeyword(made) or made in taken or made in ("Any", "Optional"):
        made += "_"
    taken.add(made)
    return made


def _drift_call(rng: random.Random, size: int) -> Call:
    """A function (its def line: annotated or not, defaults, keyword-only parameters, *args
    and **kwargs; under `from __future__ import annotations` or not) and the parameters of an
    OpenAI definition that describes it with some drift: a parameter left out or added,
    required flipped, a type changed, no "required" list."""
    taken: set[str] = set()
    count = rng.randint(0, min(1 + size // 2, 5))
    parameters = []  # (name, annotation, has a default, keyword-only)
    for _ in range(count):
        parameters.append(
            (_parameter_name(rng, taken), rng.choice(_ANNOTATIONS), rng.random() < 0.4,
             rng.random() < 0.25)
        )  # fmt: skip
    # positional ones first, those without a default before those with one; then keyword-only
    ordered = sorted(parameters, key=lambda p: (p[3], p[2] and not p[3]))
    written: list[str] = []
    starred = rng.random() < 0.2
    for index, (parameter, annotation, default, keyword_only) in enumerate(ordered):
        if keyword_only and not any(p[3] for p in ordered[:index]):
            written.append("*args: int" if starred else "*")
        text = parameter + (f": {annotation}" if annotation else "")
        written.append(text + (f" = {rng.choice(_DEFAULTS)}" if default else ""))
    if starred and not any(p[3] for p in ordered):
        written.append("*args")
    if rng.random() < 0.2:
        written.append("**kwargs: str")
    line = f"def tool({', '.join(written)})"
    future = rng.random() < 0.3
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter, annotation, default, _ in ordered:
        if rng.random() < 0.15:
            continue  # not in the schema
        kind = _JSON_TYPES.get(_resolved(annotation)) if annotation else None
        if kind is None or rng.random() < 0.25:
            kind = rng.choice(_TYPES)
        properties[parameter] = {"type": kind}
        if (not default) != (rng.random() < 0.15):
            required.append(parameter)
    for _ in range(rng.randint(0, 1) if rng.random() < 0.3 else 0):
        extra = _parameter_name(rng, taken)  # in the schema only
        properties[extra] = {"type": rng.choice(_TYPES)}
        if rng.random() < 0.5:
            required.append(extra)
    keys = list(properties)
    rng.shuffle(keys)
    schema: dict[str, Any] = {"type": "object", "properties": {k: properties[k] for k in keys}}
    if required or rng.random() < 0.7:
        schema["required"] = required
    return Call((schema, line, future))


def _resolved(annotation: str) -> Any:
    """The Python type an annotation's source stands for, as `_JSON_TYPES` reads it."""
    head = annotation.replace("Optional[", "").split("[")[0].split(" |")[0].rstrip("]")
    return {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}.get(
        head
    )


_GENERATED = calls(_drift_call, seed=12, count=200)


def _on_source(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` on a definition and the function its source defines; the pairs it returns sorted
    (any order is fine), each as a tuple; anything else as it came, for the comparison."""

    def run(parameters: dict[str, Any], line: str, future: bool) -> Any:
        definition = {
            "type": "function",
            "function": {"name": "tool", "description": "A tool.", "parameters": parameters},
        }
        source = f"from typing import Any, Optional\n{line} -> None:\n    pass\n"
        got = func(definition, _fn(source, future=future))
        if type(got) not in (list, tuple, set, frozenset):
            return got
        items = list(got)
        if not all(type(i) in (tuple, list) and len(i) == 2 for i in items):
            return got
        if not all(type(part) is str for item in items for part in item):
            return got
        return sorted((first, second) for first, second in items)

    return run
