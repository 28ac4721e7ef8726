"""How each kind of failure becomes an envelope a model can act on.

Every message names the tool, the bad value and what was expected; every suggestion says what to
do next. The model reads these words and nothing else, so they are written for it.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from pydantic_core import ValidationError

from toolsys._redact import redact
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.spec import Category
from toolsys.tool import Tool, normalize

_MAX_VALUE_CHARS = 80
_MAX_MESSAGE_CHARS = 500
_RETRYABLE_EXCEPTIONS = (TimeoutError, ConnectionError)


class NamedSchema(Protocol):
    """What an arguments message reads of a tool: its name and its parameters' JSON Schema.

    A `Tool` is one; so is anything with these two attributes (chapter 04's hand-built schemas).
    """

    @property
    def name(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, Any]: ...


def _show(value: Any) -> str:
    """A value as the model should see it quoted: 'text', 3, true, [1, 2]. Never raises."""
    try:
        text = (
            repr(redact(value[:20_000])[: _MAX_VALUE_CHARS * 2])
            if isinstance(value, str)
            else json.dumps(value, ensure_ascii=False, default=repr)
        )
    except Exception:  # huge integers, circular containers, a repr that raises
        text = _describe(value)
    return _cut(text, _MAX_VALUE_CHARS)


def _cut(text: str, limit: int) -> str:
    """Redacted first, then cut: a secret cut in half would survive as a long prefix."""
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"<an integer of about {value.bit_length() * 30103 // 100000 + 1} digits>"
    return f"<a {type(value).__name__} value that cannot be shown>"


def _text_of(exc: BaseException) -> str:
    """`str(exc)`, or a stand-in when the exception cannot even describe itself."""
    try:
        text = str(exc)
    except Exception:
        return "(the exception's message could not be read)"
    return text if isinstance(text, str) else ""


def did_you_mean(name: str, candidates: Iterable[str]) -> list[str]:
    """Registered names close to `name`: same normalised form first, then by similarity."""
    candidates = list(candidates)
    same = [c for c in candidates if normalize(c) == normalize(name)]
    close = difflib.get_close_matches(normalize(name), [normalize(c) for c in candidates], n=3)
    by_normal = {normalize(c): c for c in candidates}
    return list(dict.fromkeys([*same, *(by_normal[c] for c in close)]))[:3]


def unknown_tool(name: object, available: list[str]) -> ErrorInfo:
    if not isinstance(name, str):  # a model (or a caller) sent something that is not a name
        name = _show(name)
    matches = did_you_mean(name[:200], available)
    listed = ", ".join(available[:20]) + (", ..." if len(available) > 20 else "")
    hint = f"Did you mean {' or '.join(repr(m) for m in matches)}? " if matches else ""
    return ErrorInfo(
        ErrorCode.UNKNOWN_TOOL,
        f"Unknown tool {_show(name)}.",
        f"{hint}Available tools: {listed or 'none'}.",
        retryable=False,
        details={"tool": name, "did_you_mean": matches, "available": available[:20]},
    )


def not_permitted(name: str, reason: str) -> ErrorInfo:
    """The caller may not use this tool (its roles, `available`, a policy): it did not run."""
    return ErrorInfo(
        ErrorCode.PERMISSION_DENIED,
        f"Not allowed: {reason} The call to {name!r} did not run.",
        "Do not retry this call; tell the user it is not permitted for them, or use a tool "
        "you were offered.",
    )


def tool_not_loaded(name: str, search_tool: str) -> ErrorInfo:
    """A tool that exists but is not loaded yet (deferred export): search for it, then call it."""
    words = " ".join(name.replace("-", "_").split("_"))[:100]
    return ErrorInfo(
        ErrorCode.TOOL_NOT_LOADED,
        f"Tool {_show(name)} exists but is not loaded in this conversation yet.",
        f"Call {search_tool} with a query describing the task (e.g. {search_tool}(query="
        f"{json.dumps(words)})); the tools it finds can be called from the next turn on.",
        retryable=True,
        details={"tool": name, "search_tool": search_tool},
    )


def invalid_json(name: str, text: str, exc: json.JSONDecodeError) -> ErrorInfo:
    start = max(exc.pos - 15, 0)
    excerpt = text[start : exc.pos + 15]
    near = f"near {excerpt!r}" if redact(text) == text else "near a value that was redacted"
    return ErrorInfo(
        ErrorCode.INVALID_JSON,
        f"Arguments for {name!r} are not valid JSON: {exc.msg} at line {exc.lineno} column "
        f"{exc.colno} (char {exc.pos}), {near}.",
        f"Send the arguments for {name} as one JSON object with double-quoted keys and strings, "
        'e.g. {"key": "value"}.',
        retryable=False,
        details={"position": exc.pos, "line": exc.lineno, "column": exc.colno},
    )


def not_an_object(tool: Tool, value: Any) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.INVALID_ARGUMENTS,
        f"Invalid arguments for {tool.name!r}: expected a JSON object of named arguments, got "
        f"{_show(value)} ({type(value).__name__}).",
        f"Call {tool.name} again with an object such as {_example(tool)}.",
        retryable=False,
        details={"problems": [{"path": "", "value": value, "expected": "a JSON object"}]},
    )


def _example(tool: Tool) -> str:
    required = tool.parameters.get("required", [])
    return "{" + ", ".join(f'"{key}": ...' for key in required) + "}"


def _type_words(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    words = {
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "array": "an array",
        "object": "an object",
        "null": "null",
    }
    if isinstance(kind, list):
        return " or ".join(words.get(str(k), str(k)) for k in kind)
    if "enum" in schema:
        return "one of " + ", ".join(_show(v) for v in schema["enum"])
    return words.get(kind, "a value") if isinstance(kind, str) else "a value"


_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "an array",
    "tuple_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "none_required": "null",
}


def _property_schema(tool: NamedSchema, path: tuple[Any, ...]) -> Mapping[str, Any]:
    node: Mapping[str, Any] = tool.parameters
    for part in path:
        if isinstance(part, int):
            node = node.get("items", {})
        else:
            node = node.get("properties", {}).get(part, {})
    return node


def _problem(tool: NamedSchema, error: Mapping[str, Any]) -> dict[str, Any]:
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and "[" in p))
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    kind = error["type"]
    ctx = error.get("ctx") or {}
    problem: dict[str, Any] = {"path": path or "(arguments)", "type": kind}
    schema = _property_schema(tool, loc)
    if kind == "missing":
        problem["expected"] = f"a required argument ({_type_words(schema)})"
        description = schema.get("description")
        problem["clause"] = f"{path}: missing required argument ({_type_words(schema)})" + (
            f": {description.rstrip('.')}" if description else ""
        )
        return problem
    problem["value"] = error.get("input")
    if kind == "extra_forbidden":
        accepted = ", ".join(_property_schema(tool, loc[:-1]).get("properties", {})) or "none"
        problem["expected"] = f"no such argument; accepted: {accepted}"
        problem["clause"] = f"{path}: unknown argument (this tool accepts: {accepted})"
        return problem
    if kind in ("literal_error", "enum"):
        allowed = schema.get("enum") or _parse_expected(ctx.get("expected", ""))
        problem["allowed"] = allowed
        expected = "one of " + ", ".join(_show(v) for v in allowed)
    elif kind in _EXPECTED:
        expected = _EXPECTED[kind]
    else:
        expected = error["msg"][0].lower() + error["msg"][1:]
        expected = expected.removeprefix("input should be ").removeprefix("value error, ")
    problem["expected"] = expected
    if not loc and kind in _ACROSS_FIELDS:  # a validator over several fields: its own words
        problem["clause"] = expected
        return problem
    problem["clause"] = (
        f"{path or 'arguments'}: got {_show(error.get('input'))}, expected {expected}"
    )
    return problem


_ACROSS_FIELDS = ("value_error", "assertion_error")
"""Error types a model-level validator raises (e.g. "end must be after start")."""


def _parse_expected(text: str) -> list[str]:
    return [
        part.strip().strip("'\"") for part in text.replace(" or ", ",").split(",") if part.strip()
    ]


def invalid_arguments(tool: NamedSchema, exc: ValidationError) -> ErrorInfo:
    problems = [_problem(tool, error) for error in exc.errors(include_url=False)]
    clauses = "; ".join(p.pop("clause") for p in problems)
    fixes = []
    for p in problems:
        if "allowed" in p:
            fixes.append(f"{p['path']} must be one of " + ", ".join(_show(v) for v in p["allowed"]))
        elif p["type"] == "missing":
            fixes.append(f"add {p['path']}")
        elif p["type"] == "extra_forbidden":
            fixes.append(f"remove {p['path']}")
        elif p["path"] == "(arguments)" and p["type"] in _ACROSS_FIELDS:
            fixes.append(p["expected"])
        else:
            fixes.append(f"{p['path']} must be {p['expected']}")
    return ErrorInfo(
        ErrorCode.INVALID_ARGUMENTS,
        _cut(f"Invalid arguments for {tool.name!r}: {clauses}.", _MAX_MESSAGE_CHARS),
        _cut(
            f"Fix these arguments and call {tool.name} again: {'; '.join(fixes)}.",
            _MAX_MESSAGE_CHARS,
        ),
        retryable=False,
        details={"problems": problems},
    )


def execution_error(tool: Tool | str, exc: BaseException) -> ErrorInfo:
    """The tool raised. Retrying is suggested only when a second run cannot double a side effect.

    A timeout or a dropped connection may be temporary, but for a WRITE or EXECUTE tool the first
    attempt may already have changed the world (charged the card, sent the e-mail): repeating it
    blindly risks doing it twice, so only READ tools are marked retryable (chapter 04).
    """
    name = tool if isinstance(tool, str) else tool.name
    text = _text_of(exc).strip()
    what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    transient = isinstance(exc, _RETRYABLE_EXCEPTIONS)
    read_only = not isinstance(tool, str) and tool.category == Category.READ
    if transient and read_only:
        suggestion = "This may be temporary; try the same call once more."
    elif transient:
        suggestion = (
            f"This may be temporary, but {name} is a {_category_of(tool)} tool and may already "
            "have taken effect; check its effect (or ask the user) before calling it again."
        )
    else:
        suggestion = (
            "Check the arguments against the tool's description, or answer without this tool; "
            "repeating the same call will fail the same way."
        )
    return ErrorInfo(
        ErrorCode.EXECUTION_ERROR,
        _cut(f"Tool {name!r} failed: {what}", _MAX_MESSAGE_CHARS),
        suggestion,
        retryable=transient and read_only,
        details={"exception": type(exc).__name__},
    )


def _category_of(tool: Tool | str) -> str:
    return "side-effecting" if isinstance(tool, str) else str(tool.category)


def unvalidatable(tool: Tool, exc: BaseException) -> ErrorInfo:
    """The arguments broke the validator itself (e.g. a value that is not JSON data)."""
    return ErrorInfo(
        ErrorCode.INVALID_ARGUMENTS,
        f"Invalid arguments for {tool.name!r}: they could not be validated "
        f"({type(exc).__name__}: {_text_of(exc)[:120]}).",
        f"Send the arguments for {tool.name} as one JSON object of plain values "
        f"(strings, numbers, booleans, arrays, objects), e.g. {_example(tool)}.",
        retryable=False,
        details={"exception": type(exc).__name__},
    )


def too_large(name: str, size: int, limit: int) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.INVALID_JSON,
        f"Arguments for {name!r} are {size:,} characters long; the limit is {limit:,}.",
        f"Send {name} only the arguments it needs; pass large content by reference "
        "(an id, a file name) instead of inline.",
        retryable=False,
        details={"size": size, "limit": limit},
    )


def too_deep(name: str, limit: int, code: str) -> ErrorInfo:
    """Nested too deep: INVALID_JSON for text, INVALID_ARGUMENTS for decoded values."""
    return ErrorInfo(
        code,
        f"Arguments for {name!r} nest objects or arrays more than {limit} levels deep "
        "(or refer to themselves).",
        f"Send {name} a flat JSON object as its schema describes, nested at most {limit} levels.",
        retryable=False,
        details={"limit": limit},
    )


def too_many_digits(name: str, digits: int, limit: int) -> ErrorInfo:
    return ErrorInfo(
        ErrorCode.INVALID_JSON,
        f"Arguments for {name!r} contain an integer of {digits:,} digits; the limit is {limit:,}.",
        f"Send {name} numbers of at most {limit} digits, or the value as a string if the tool "
        "accepts one.",
        retryable=False,
        details={"digits": digits, "limit": limit},
    )


def layer_error(layer: str, name: object, exc: BaseException) -> ErrorInfo:
    """A layer around the tool failed: not the tool's fault, and not the arguments'."""
    text = _text_of(exc).strip()
    what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return ErrorInfo(
        ErrorCode.LAYER_ERROR,
        _cut(
            f"The call to {_show(name)} could not be completed: the tool layer {layer!r} failed "
            f"({what}).",
            _MAX_MESSAGE_CHARS,
        ),
        "This is a fault in the tool system, not in your arguments; the tool may not have run. "
        "Tell the user the action could not be completed, rather than repeating it.",
        retryable=False,
        details={"layer": layer, "exception": type(exc).__name__},
    )


def cancelled(name: str, reason: str) -> ErrorInfo:
    """The call was stopped while it ran (a run's deadline, a caller that stopped waiting).

    Whether it took effect is unknown, so it is never presented as safe to repeat (chapter 07).
    """
    return ErrorInfo(
        ErrorCode.CANCELLED,
        f"The call to {_show(name)} was cancelled before it finished: {reason}. Whether it "
        "took effect is unknown.",
        f"Do not assume {name} did or did not happen: check its effect, or ask the user, "
        "before calling it again.",
        retryable=False,
        details={"side_effects": "unknown"},
    )
