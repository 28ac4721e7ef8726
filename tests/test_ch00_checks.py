"""Chapter 00 checks reject the careless solutions a student is likely to write."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolsys import checks
from toolsys.checks import ch00


def _status(exercise_id: str, student: Any) -> checks.CheckResult:
    result = checks.check(exercise_id, student)
    assert not result.passed, f"a wrong answer passed {exercise_id}"
    return result


# -- 0.1 -----------------------------------------------------------------------------------------


def test_tool_message_with_str_instead_of_json_is_rejected() -> None:
    def careless(call, result):
        return {"role": "tool", "tool_call_id": call.id, "content": str(result)}

    result = _status("0.1", careless)
    assert "not valid JSON" in result.message


def test_tool_message_with_the_function_name_as_id_is_rejected() -> None:
    def careless(call, result):
        return {"role": "tool", "tool_call_id": call.function.name, "content": json.dumps(result)}

    assert _status("0.1", careless).expected == "'call_0007'"


def test_tool_message_that_json_quotes_a_text_result_is_rejected() -> None:
    def careless(call, result):
        return {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}

    assert "as it is" in (_status("0.1", careless).hint or "")


def test_tool_message_with_a_dict_content_is_rejected() -> None:
    def careless(call, result):
        return {"role": "tool", "tool_call_id": call.id, "content": result}

    assert "must be a string" in _status("0.1", careless).message


# -- 0.2 -----------------------------------------------------------------------------------------


def _naive(message):
    return [
        {
            "id": c.id,
            "name": c.function.name,
            "arguments": json.loads(c.function.arguments),
            "error": None,
        }
        for c in message.tool_calls
    ]


def test_parse_that_iterates_none_is_an_error() -> None:
    assert _status("0.2", _naive).status is checks.Status.ERROR


def test_parse_that_crashes_on_malformed_json_is_rejected() -> None:
    def careless(message):
        return _naive(message) if message.tool_calls else []

    assert "JSONDecodeError" in _status("0.2", careless).message


def test_parse_that_accepts_a_json_list_as_arguments_is_rejected() -> None:
    def careless(message):
        out = []
        for c in message.tool_calls or []:
            try:
                out.append(
                    {
                        "id": c.id,
                        "name": c.function.name,
                        "arguments": json.loads(c.function.arguments or "{}"),
                        "error": None,
                    }
                )
            except json.JSONDecodeError as exc:
                out.append(
                    {
                        "id": c.id,
                        "name": c.function.name,
                        "arguments": None,
                        "error": f"{c.function.name}: bad JSON {exc}",
                    }
                )
        return out

    assert "list, not an object" in _status("0.2", careless).message


def test_parse_with_a_vague_error_is_rejected() -> None:
    def careless(message):
        out = []
        for item in ch00.parse_tool_calls(message):
            out.append({**item, "error": "failed" if item["error"] else None})
        return out

    assert "names the tool" in _status("0.2", careless).message


def test_parse_that_drops_the_bad_call_is_rejected() -> None:
    def careless(message):
        return [item for item in ch00.parse_tool_calls(message) if item["error"] is None]

    _status("0.2", careless)


# -- 0.3 -----------------------------------------------------------------------------------------


def _definition(**changes: Any) -> dict[str, Any]:
    definition = ch00._book_table_definition()
    function = json.loads(json.dumps(definition["function"]))
    for key, value in changes.items():
        if key == "people_type":
            function["parameters"]["properties"]["people"]["type"] = value
        elif key == "required":
            function["parameters"]["required"] = value
        else:
            function[key] = value
    return {"type": "function", "function": function}


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (lambda: _definition(people_type="int"), "properties['people']['type']"),
        (lambda: _definition(required=["restaurant", "people", "time", "outdoor"]), "required"),
        (lambda: _definition()["function"], 'definition["type"]'),
        (lambda: _definition(description=""), "description"),
        (lambda: _definition(name="bookTable"), "name"),
    ],
    ids=["python-type-name", "optional-marked-required", "no-wrapper", "no-description", "renamed"],
)
def test_definition_mistakes_are_rejected(wrong: Any, words: str) -> None:
    result = _status("0.3", wrong)
    assert words in result.message


def test_the_generated_definition_passes_with_extra_schema_keys() -> None:
    definition = ch00._book_table_definition()
    assert definition["function"]["parameters"]["additionalProperties"] is False
    assert checks.check("0.3", lambda: definition).passed
