"""Chapter 01 checks reject the careless solutions a student is likely to write."""

from __future__ import annotations

import inspect
import json
import traceback
from typing import Any

from toolsys import checks
from toolsys.checks import ch01


def _rejected(exercise_id: str, student: Any) -> checks.CheckResult:
    result = checks.check(exercise_id, student)
    assert not result.passed, f"a wrong answer passed {exercise_id}"
    return result


# -- 1.1 -----------------------------------------------------------------------------------------


def test_a_hard_coded_if_else_dispatcher_is_rejected() -> None:
    def careless(table, name, arguments=None):
        if name == "add":
            return table["add"](**arguments)
        if name == "get_time":
            return table["get_time"]()
        return None

    assert "dispatch(table, 'shout'" in _rejected("1.1", careless).message


def test_a_dispatcher_that_ignores_json_text_is_an_error() -> None:
    def careless(table, name, arguments=None):
        return table[name](**(arguments or {}))

    assert _rejected("1.1", careless).status is checks.Status.ERROR


def test_a_dispatcher_that_passes_the_dict_positionally_is_an_error() -> None:
    def careless(table, name, arguments=None):
        return table[name](arguments)

    _rejected("1.1", careless)


def test_a_dispatcher_that_returns_none_for_unknown_names_is_rejected() -> None:
    def careless(table, name, arguments=None):
        fn = table.get(name)
        return ch01.dispatch(table, name, arguments) if fn else None

    assert "should raise KeyError" in _rejected("1.1", careless).message


# -- 1.2 -----------------------------------------------------------------------------------------


def _names_only(definition, fn):
    properties = definition["function"]["parameters"]["properties"]
    parameters = inspect.signature(fn).parameters
    return [(n, "not_in_function") for n in properties if n not in parameters] + [
        (n, "not_in_schema") for n in parameters if n not in properties
    ]


def test_drift_that_ignores_required_and_types_is_rejected() -> None:
    result = _rejected("1.2", _names_only)
    assert "required" in result.message and "missed" in result.message
    assert "default" in (result.hint or ""), "the hint should point at the missed problem"


def test_drift_that_reads_raw_annotations_is_rejected() -> None:
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}

    def careless(definition, fn):
        drift = _names_only(definition, fn)
        schema = definition["function"]["parameters"]
        for name, p in inspect.signature(fn).parameters.items():
            if name not in schema["properties"]:
                continue
            if (p.default is p.empty) != (name in schema.get("required", [])):
                drift.append((name, "required_mismatch"))
            kind = names.get(p.annotation)  # unknown for str | None, list[str], 'int'
            if kind != schema["properties"][name].get("type"):
                drift.append((name, "type_mismatch"))
        return drift

    result = _rejected("1.2", careless)
    assert "optional and generic annotations" in result.message


def test_drift_that_misses_string_annotations_is_rejected() -> None:
    def careless(definition, fn):
        found = ch01.find_drift(definition, fn)
        if any(isinstance(p.annotation, str) for p in inspect.signature(fn).parameters.values()):
            return [pair for pair in found if pair[1] != "type_mismatch"]
        return found

    assert "__future__" in _rejected("1.2", careless).message


def test_drift_reported_twice_is_rejected() -> None:
    def careless(definition, fn):
        found = ch01.find_drift(definition, fn)
        return found + found[:1]

    assert "twice" in _rejected("1.2", careless).message


# -- 1.3 -----------------------------------------------------------------------------------------


def test_safe_dispatch_catching_only_unknown_names_is_rejected() -> None:
    def careless(table, name, arguments=None):
        if name not in table:
            return f"Error: unknown tool {name!r}. Available tools: {', '.join(table)}."
        return ch01.dispatch(table, name, arguments)

    result = _rejected("1.3", careless)
    assert result.status is checks.Status.FAILED  # a wrong result type first, then raised


def test_safe_dispatch_with_a_traceback_is_rejected() -> None:
    def careless(table, name, arguments=None):
        try:
            return (
                ch01.safe_dispatch(table, name, arguments)
                if name not in table
                else json.dumps(ch01.dispatch(table, name, arguments))
                if not isinstance(ch01.dispatch(table, name, arguments), str)
                else ch01.dispatch(table, name, arguments)
            )
        except Exception:
            return f"Error: {name}\n{traceback.format_exc()}"

    assert "stack trace" in _rejected("1.3", careless).message


def test_safe_dispatch_with_a_vague_message_is_rejected() -> None:
    def careless(table, name, arguments=None):
        text = ch01.safe_dispatch(table, name, arguments)
        return "Error: failed" if text.startswith("Error:") else text

    assert "must mention" in _rejected("1.3", careless).message


def test_safe_dispatch_raising_on_unknown_tools_is_rejected() -> None:
    def careless(table, name, arguments=None):
        return ch01.safe_dispatch(table, name, arguments) if name in table else table[name]

    assert "raised for an unknown tool" in _rejected("1.3", careless).message
