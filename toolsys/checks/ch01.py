"""Checks for chapter 01 (if/else dispatch and its two walls): a table, drift, errors as strings.

The tools in these checks have names no if/else chain written for the lesson would know, so
only a dispatcher that reads its table passes. They return every kind of JSON value (text,
numbers, a dict, a bool, None) and fail in every way the exercises name.
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
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_raises,
    expect_true,
)


def _shout(text: str) -> str:
    return text.upper() + "!"


def _count_words(text: str) -> int:
    return len(text.split())


def _word_stats(text: str) -> dict[str, Any]:
    words = text.split()
    return {"words": len(words), "longest": max(words, key=len)}


def _is_palindrome(text: str) -> bool:
    return text == text[::-1]


def _forget(note: str) -> None:
    return None


def _today() -> str:
    return "2025-01-15"


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ValueError("b must not be 0")
    return a / b


def _colour_code(colour: str) -> str:
    return {"red": "#ff0000", "green": "#00ff00"}[colour]


def _table() -> dict[str, Callable[..., Any]]:
    return {
        "shout": _shout,
        "count_words": _count_words,
        "word_stats": _word_stats,
        "is_palindrome": _is_palindrome,
        "forget": _forget,
        "today": _today,
        "divide": _divide,
        "colour_code": _colour_code,
    }


# name, arguments, what the tool returns
_CALLS: list[tuple[str, Any, Any]] = [
    ("shout", {"text": "hello"}, "HELLO!"),
    ("count_words", '{"text": "one two three"}', 3),
    ("word_stats", {"text": "a bb ccc"}, {"words": 3, "longest": "ccc"}),
    ("is_palindrome", '{"text": "level"}', True),
    ("forget", {"note": "x"}, None),
    ("today", None, "2025-01-15"),
    ("today", "", "2025-01-15"),
    ("today", "{}", "2025-01-15"),
    ("divide", {"a": 1, "b": 4}, 0.25),
]


def _decode(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        return json.loads(arguments)
    return dict(arguments)


# -- 1.1 ------------------------------------------------------------------------------------------


def dispatch(table: dict[str, Callable[..., Any]], name: str, arguments: Any = None) -> Any:
    """Reference for 1.1: look the name up in the table and call it with keyword arguments."""
    if name not in table:
        raise KeyError(f"unknown tool {name!r}; known tools: {', '.join(table)}")
    return table[name](**_decode(arguments))


def _dispatch_hint(got: Any, expected: Any) -> str:
    """The hint for a wrong result: what the student most likely did."""
    if type(got) is str and (type(expected) is not str or got == json.dumps(expected)):
        return (
            "dispatch returns what the function returned, as it is (3, not '3'): turning the "
            "result into text for the model is exercise 1.3's job."
        )
    if got is None:
        return "Return the function's result: return table[name](**arguments)."
    return "Look the function up in the table and call it with the decoded arguments."


@exercise(
    "1.1",
    title="A dispatch table",
    hints=[
        "Look the function up with table[name] (or table.get(name)) instead of comparing names.",
        "Arguments arrive as a JSON string from the model: json.loads it when it is a str; "
        "None or '' means no arguments.",
        "Call the function with keyword arguments, fn(**arguments), and return what it returns, "
        "unchanged (no json.dumps here).",
    ],
    reference=lambda: dispatch,
)
def _check_dispatch(student: Any) -> None:
    table = _table()
    for name, arguments, expected in _CALLS:
        got = student(table, name, arguments)
        expect_equal(
            got,
            expected,
            what=f"dispatch(table, {name!r}, {arguments!r})",
            hint=_dispatch_hint(got, expected),
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


def _safe_call(student: Any, table: dict[str, Any], name: str, arguments: Any) -> tuple[str, str]:
    """The student's text for one call, checked to be a str; and how the call reads."""
    what = f"safe_dispatch(table, {name!r}, {arguments!r})"
    text = call_student(
        student,
        table,
        name,
        arguments,
        what=what,
        returns="a string",
        hint="Catch every Exception around json.loads and the call, and return the error as "
        "'Error: ...' text.",
    )
    expect_plain(text, what=what, shape="a string")
    expect_true(type(text) is str, f"{what} must return a string, got {text!r}.")
    return text, what


def _expect_result(
    student: Any, table: dict[str, Any], name: str, arguments: Any, value: Any
) -> None:
    text, what = _safe_call(student, table, name, arguments)
    if type(value) is str:
        expect_equal(text, value, what=what, hint="A string result is returned as it is.")
        return
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError:
        raise CheckFailed(
            f"{what} must return the result as JSON text, so the model can read it.",
            expected=json.dumps(value),
            got=text,
            hint="str(value) writes Python (True, None, {'a': 1}); json.dumps(value) writes JSON.",
        ) from None
    expect_equal(decoded, value, what=f"json.loads({what})")


def _expect_error(text: str, what: str, must_mention: list[str], hint: str) -> None:
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
    if leaked:
        raise CheckFailed(
            f"{what} leaks a stack trace ({leaked[0]!r} in it); the model cannot use it and it "
            f"costs tokens. Got {text!r}.",
            hint="Use the exception's type and message, not traceback.format_exc().",
        )


# name, arguments, words the error must contain, what goes wrong
_FAILURES: list[tuple[str, Any, list[str], str]] = [
    ("divide", {"a": 1, "b": 0}, ["divide", "b must not be 0"], "an exception in the tool"),
    ("colour_code", {"colour": "blue"}, ["colour_code", "blue"], "a KeyError in the tool"),
    ("shout", {"txt": "hi"}, ["shout", "txt"], "a wrong argument name"),
    ("shout", '{"text": "hi"', ["shout", "JSON"], "malformed JSON arguments"),
]


@exercise(
    "1.3",
    title="Errors as strings, not crashes",
    hints=[
        "Check `name in table` first and return an 'Error: ...' string naming the tool and the "
        "available ones.",
        "Decode the arguments as in 1.1 (None or '' mean none). Wrap json.loads and the call in "
        "try/except Exception (any exception, not only ValueError) and return the error as text.",
        "Success: a str result as it is, anything else json.dumps(value). A good error names the "
        "tool and the exception's message; never paste a traceback.",
    ],
    reference=lambda: safe_dispatch,
)
def _check_safe_dispatch(student: Any) -> None:
    table = _table()
    for name, arguments, value in _CALLS:
        _expect_result(student, table, name, arguments, value)
    text, what = _safe_call(student, table, "launch_rocket", {})
    _expect_error(
        text,
        what,
        ["launch_rocket", *_table()],
        "Name the unknown tool and list every available one.",
    )
    for name, arguments, words, label in _FAILURES:
        text, what = _safe_call(student, table, name, arguments)
        _expect_error(
            text,
            f"{what} ({label})",
            words,
            "Include the tool name and the exception's message (str(exc)).",
        )
