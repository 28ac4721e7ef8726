"""Checks for chapter 01 (if/else dispatch and its two walls): a table, drift, errors as strings.

The tools in these checks have names no if/else chain written for the lesson would know, so
only a dispatcher that reads its table passes.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    exercise,
    expect_equal,
    expect_raises,
    expect_true,
)


def _shout(text: str) -> str:
    return text.upper() + "!"


def _count_words(text: str) -> int:
    return len(text.split())


def _today() -> str:
    return "2025-01-15"


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ValueError("b must not be 0")
    return a / b


def _table() -> dict[str, Callable[..., Any]]:
    return {"shout": _shout, "count_words": _count_words, "today": _today, "divide": _divide}


# -- 1.1 ------------------------------------------------------------------------------------------


def _decode(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        return json.loads(arguments)
    return dict(arguments)


def dispatch(table: dict[str, Callable[..., Any]], name: str, arguments: Any = None) -> Any:
    """Reference for 1.1: look the name up in the table and call it with keyword arguments."""
    if name not in table:
        raise KeyError(f"unknown tool {name!r}; known tools: {', '.join(table)}")
    return table[name](**_decode(arguments))


@exercise(
    "1.1",
    title="A dispatch table",
    hints=[
        "Look the function up with table[name] (or table.get(name)) instead of comparing names.",
        "Arguments arrive as a JSON string from the model: json.loads it when it is a str; "
        "None or '' means no arguments.",
        "Call the function with keyword arguments: fn(**arguments).",
    ],
    reference=lambda: dispatch,
)
def _check_dispatch(student: Any) -> None:
    table = _table()
    cases = [
        ("shout", {"text": "hello"}, "HELLO!"),
        ("count_words", '{"text": "one two three"}', 3),
        ("today", None, "2025-01-15"),
        ("today", "", "2025-01-15"),
        ("today", "{}", "2025-01-15"),
        ("divide", {"a": 1, "b": 4}, 0.25),
    ]
    for name, arguments, expected in cases:
        expect_equal(
            student(table, name, arguments),
            expected,
            what=f"dispatch(table, {name!r}, {arguments!r})",
            hint="Dispatch by looking the name up in the table: these tool names are new to you.",
        )
    expect_equal(
        sorted(table),
        sorted(_table()),
        what="the table's names after dispatching",
        hint="Dispatching must not add or remove tools.",
    )
    expect_raises(
        KeyError,
        student,
        table,
        "launch_rocket",
        {},
        what="dispatch(table, 'launch_rocket', {})",
        match="launch_rocket",
        hint="For an unknown name, raise KeyError with a message that names it (exercise 1.3 "
        "turns this into an answer for the model).",
    )


# -- 1.2 ------------------------------------------------------------------------------------------

_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
}


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


def _definition(properties: dict[str, str], required: list[str], **extra: Any) -> dict[str, Any]:
    props = {name: {"type": kind, "description": name} for name, kind in properties.items()}
    for name, schema in extra.items():
        props[name] = schema
    return {
        "type": "function",
        "function": {
            "name": "tool",
            "description": "A tool.",
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


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
        "required in the schema but has a default in the function, and the reverse",
        _definition({"query": "string", "limit": "integer"}, ["limit"]),
        "def search(query: str, limit: int = 10) -> list:\n    return []\n",
        False,
        {("query", "required_mismatch"), ("limit", "required_mismatch")},
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
    "inspect.signature(fn).parameters.",
    "required_mismatch": "A parameter is required when it has no default (parameter.default is "
    "inspect.Parameter.empty); compare with the schema's 'required' list, both ways.",
    "type_mismatch": "Compare JSON types, not Python names: typing.get_type_hints(fn) resolves "
    "string annotations, X | None has the type of X, and list[str] is a list.",
    "twice": "Report each (parameter, problem) pair once.",
}


@exercise(
    "1.2",
    title="Find the drift",
    hints=[
        "Start from the two name sets: definition['function']['parameters']['properties'] and "
        "inspect.signature(fn).parameters. Names on one side only are drift.",
        "A function parameter is required when it has no default (parameter.default is "
        "inspect.Parameter.empty); compare with the schema's 'required' list.",
        "For types, read typing.get_type_hints(fn) (it resolves string annotations), strip None "
        "from `X | None` with typing.get_args, and map the origin of list[str] (list) -> 'array'.",
    ],
    reference=lambda: find_drift,
)
def _check_find_drift(student: Any) -> None:
    for label, definition, source, future, expected in _DRIFT_CASES:
        fn = _fn(source, future=future)
        got = student(definition, fn)
        try:
            pairs = [tuple(item) for item in got]
        except TypeError:
            raise CheckFailed(
                f"For {label}, find_drift must return a list of (parameter, problem) pairs.",
                expected=sorted(expected),
                got=got,
            ) from None
        if set(pairs) != expected or len(pairs) != len(set(pairs)):
            missing = sorted(expected - set(pairs))
            extra = sorted(set(pairs) - expected)
            detail = "; ".join(
                part
                for part in (
                    f"missed {missing}" if missing else "",
                    f"reported wrongly {extra}" if extra else "",
                    "reported a pair twice" if len(pairs) != len(set(pairs)) else "",
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


# -- 1.3 ------------------------------------------------------------------------------------------


def safe_dispatch(table: dict[str, Callable[..., Any]], name: str, arguments: Any = None) -> str:
    """Reference for 1.3: like `dispatch`, but every failure is a string for the model."""
    if name not in table:
        return f"Error: unknown tool {name!r}. Available tools: {', '.join(sorted(table))}."
    try:
        decoded = _decode(arguments)
    except json.JSONDecodeError as exc:
        return f"Error: the arguments for {name!r} are not valid JSON ({exc.msg}): {arguments!r}."
    try:
        value = table[name](**decoded)
    except Exception as exc:
        return f"Error: tool {name!r} failed with {type(exc).__name__}: {exc}"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _expect_error(text: Any, what: str, must_mention: list[str], hint: str) -> None:
    expect_true(
        isinstance(text, str),
        f"{what} must return a string, got {text!r}.",
        hint="Return the error as text instead of raising it.",
    )
    expect_true(
        text.startswith("Error:"),
        f"{what} must start with 'Error:' so the model (and "
        f"the loop) can tell a failure from a result; got {text!r}.",
        hint=hint,
    )
    missing = [word for word in must_mention if word not in text]
    expect_true(
        not missing,
        f"{what} must mention {missing} so the model knows what to fix; got {text!r}.",
        hint=hint,
    )
    leaked = [word for word in ("Traceback", 'File "') if word in text]
    expect_true(
        not leaked,
        f"{what} leaks a stack trace ({leaked[0]!r} in it); the model cannot "
        f"use it and it costs tokens. Got {text!r}."
        if leaked
        else "",
        hint="Use the exception's type and message, not traceback.format_exc().",
    )


@exercise(
    "1.3",
    title="Errors as strings, not crashes",
    hints=[
        "Check `name in table` first and return an 'Error: ...' string naming the tool and the "
        "available ones.",
        "Wrap the call (and the json.loads) in try/except Exception and return the error as text.",
        "A good message names the tool, the bad value or exception, and what to do instead; "
        "never paste a traceback.",
    ],
    reference=lambda: safe_dispatch,
)
def _check_safe_dispatch(student: Any) -> None:
    table = _table()
    expect_equal(
        student(table, "shout", {"text": "hi"}),
        "HI!",
        what="safe_dispatch(table, 'shout', {'text': 'hi'})",
        hint="A string result is returned as it is.",
    )
    expect_equal(
        student(table, "divide", '{"a": 1, "b": 4}'),
        "0.25",
        what="safe_dispatch(table, 'divide', '{\"a\": 1, \"b\": 4}')",
        hint="Any other result goes back as JSON text: json.dumps(value).",
    )
    expect_equal(
        student(table, "count_words", {"text": "a b"}),
        "2",
        what="safe_dispatch(table, 'count_words', {'text': 'a b'})",
    )
    try:
        unknown = student(table, "launch_rocket", {})
    except Exception as exc:
        raise CheckFailed(
            "safe_dispatch raised for an unknown tool; it must return a string.",
            expected=Described("'Error: unknown tool ...'"),
            got=exc,
        ) from None
    _expect_error(
        unknown,
        "safe_dispatch(table, 'launch_rocket', {})",
        ["launch_rocket", "shout", "count_words", "today", "divide"],
        "Name the unknown tool and list every available one.",
    )
    failures = [
        ("divide", {"a": 1, "b": 0}, ["divide", "b must not be 0"], "an exception in the tool"),
        ("shout", {"txt": "hi"}, ["shout", "txt"], "a wrong argument name"),
        ("shout", '{"text": "hi"', ["shout", "JSON"], "malformed JSON arguments"),
    ]
    for name, arguments, words, label in failures:
        what = f"safe_dispatch(table, {name!r}, {arguments!r})"
        try:
            text = student(table, name, arguments)
        except Exception as exc:
            raise CheckFailed(
                f"{what} raised for {label}; it must return a string.",
                expected=Described("'Error: ...'"),
                got=exc,
                hint="Catch every Exception around json.loads and the call.",
            ) from None
        _expect_error(
            text,
            f"{what} ({label})",
            words,
            "Include the tool name and the exception's message (str(exc)).",
        )
