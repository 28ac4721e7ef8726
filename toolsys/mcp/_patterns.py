"""An untrusted server's schema, checked in bounded time: RE2 for its patterns, limits for the rest.

Why: `jsonschema` matches `pattern` and `patternProperties` with Python's `re`, which backtracks.
An imported tool's `{"pattern": "^(a+)+$"}` and a 26-character argument take about a minute,
inside validation, before any layer (Policy, Timeout, the loop's deadline) has a chance to run.
So for an untrusted server:

- every regular expression of its input schema is compiled by RE2 (`google-re2`), which matches
  in time linear in the text; a pattern RE2 cannot compile (a back-reference, a lookaround, a
  repetition over 1000) makes the tool skipped, with the reason (`schema_problem`);
- its schema is at most `MAX_SCHEMA_CHARS` characters of JSON and `MAX_SCHEMA_DEPTH` levels deep,
  each pattern at most `MAX_PATTERN_CHARS` characters;
- one validation stops after `VALIDATION_SECONDS` (checked at every keyword), and the call is
  refused as invalid arguments, saying so;
- an output schema with any pattern makes the tool skipped: the MCP client itself checks
  results against it with Python's `re`, where nothing here can bound it.

RE2 follows ECMA-262 (JSON Schema's dialect) more closely than `re` does in the cases that matter:
`\\d` is ASCII digits and `$` is the end of the text. `\\uXXXX` is rewritten as RE2's `\\x{XXXX}`.
Without google-re2 installed, a schema with patterns is skipped and the reason says to install it.
A trusted server's schema is checked by `jsonschema` as it is.
"""

from __future__ import annotations

import contextvars
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

MAX_SCHEMA_CHARS = 100_000
"""An untrusted input schema longer than this (as JSON) is refused."""
MAX_SCHEMA_DEPTH = 32
"""An untrusted input schema nested deeper than this is refused."""
MAX_PATTERN_CHARS = 1_000
"""An untrusted pattern longer than this is refused."""
VALIDATION_SECONDS = 1.0
"""One validation of an untrusted tool's arguments stops after this long."""

_ESCAPE = re.compile(r"\\(u([0-9a-fA-F]{4})|.)", re.DOTALL)
_ENDS: contextvars.ContextVar[float] = contextvars.ContextVar("toolsys_mcp_checks_end")


class Overtime(Exception):
    """A validation ran past `VALIDATION_SECONDS`."""


def problem(schema: Any, output: Any = None) -> str | None:
    """Why an untrusted tool with this input (and output) schema cannot be imported, or None."""
    text = json.dumps(schema)
    if len(text) > MAX_SCHEMA_CHARS:
        return (
            f"its input schema is too large ({len(text):,} characters of JSON; an untrusted "
            f"server's may have {MAX_SCHEMA_CHARS:,})"
        )
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        return f"its input schema is nested more than {MAX_SCHEMA_DEPTH} levels deep"
    found = list(patterns(schema))
    if found and _has(schema, "unevaluatedProperties") and _has(schema, "patternProperties"):
        return (
            "its input schema combines unevaluatedProperties with patternProperties, which "
            "cannot be checked in bounded time here"
        )
    for pattern in found:
        why = _refused(pattern)
        if why is not None:
            return f"its input schema has the pattern {pattern[:80]!r}, which {why}"
    if output is not None and any(True for _ in patterns(output)):
        return (
            "its output schema has regular expressions, which the MCP client checks with "
            "Python's backtracking engine (an untrusted server could stall every call)"
        )
    return None


def patterns(schema: Any) -> Iterator[str]:
    """Every regular expression of a schema: `pattern` values and `patternProperties` keys."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "pattern" and isinstance(value, str):
                    yield value
                elif key == "patternProperties" and isinstance(value, Mapping):
                    yield from (k for k in value if isinstance(k, str))
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def bounded(validator_class: Any) -> Any:
    """`validator_class` with RE2 for every regular expression and a deadline at each keyword."""
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]
    from jsonschema.validators import extend  # type: ignore[import-untyped]

    original = validator_class.VALIDATORS

    def pattern(validator: Any, value: str, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not compiled(value).search(instance):
            yield ValidationError(f"{instance!r} does not match {value!r}")

    def pattern_properties(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for source, subschema in value.items():
            regex = compiled(source)
            for key, item in instance.items():
                if regex.search(key):
                    yield from validator.descend(item, subschema, path=key, schema_path=source)

    def additional_properties(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        if "patternProperties" not in schema:
            yield from original["additionalProperties"](validator, value, instance, schema) or ()
            return
        if not validator.is_type(instance, "object"):
            return
        known = schema.get("properties", {})
        regexes = [compiled(source) for source in schema["patternProperties"]]
        extras = [
            key
            for key in instance
            if key not in known and not any(regex.search(key) for regex in regexes)
        ]
        if validator.is_type(value, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], value, path=extra)
        elif value is False and extras:
            shown = ", ".join(repr(extra) for extra in sorted(extras))
            yield ValidationError(f"{shown} do not match any of the allowed patterns")

    replaced = {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
    keywords = {name: _timed(replaced.get(name, fn)) for name, fn in original.items()}
    return extend(validator_class, keywords)


def run_bounded(check: Callable[[], Any], trusted: bool = False) -> Any:
    """`check()`, stopped by Overtime at the next keyword after `VALIDATION_SECONDS` (a trusted
    server's validator has no deadline: it is called as it is)."""
    if trusted:
        return check()
    token = _ENDS.set(time.monotonic() + VALIDATION_SECONDS)
    try:
        return check()
    finally:
        _ENDS.reset(token)


@lru_cache(maxsize=1024)
def compiled(pattern: str) -> Any:
    """The pattern compiled by RE2 (raises re2.error, or ImportError without google-re2)."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False
    return re2.compile(_ecma(pattern), options)


def _refused(pattern: str) -> str | None:
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"is longer than {MAX_PATTERN_CHARS} characters"
    try:
        compiled(pattern)
    except ImportError:
        return "needs google-re2 to be checked safely (pip install google-re2)"
    except Exception as exc:
        reason = exc.args[0] if exc.args else exc
        reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        return f"a linear-time engine (RE2) cannot run: {reason}"
    return None


def _ecma(pattern: str) -> str:
    """ECMA-262's `\\uXXXX` as RE2's `\\x{XXXX}`; every other escape as it was."""
    return _ESCAPE.sub(lambda m: f"\\x{{{m[2]}}}" if m[2] else m[0], pattern)


def _timed(keyword: Any) -> Any:
    def timed(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        if time.monotonic() > _ENDS.get(float("inf")):
            raise Overtime
        return keyword(validator, value, instance, schema)

    return timed


def _depth(node: Any) -> int:
    deepest, stack = 0, [(node, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, Mapping) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _has(schema: Any, keyword: str) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if keyword in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
