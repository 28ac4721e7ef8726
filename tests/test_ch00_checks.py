"""Chapter 00 checks reject plausible wrong answers: each is the solution with one change."""

from __future__ import annotations

import json

import pytest

from tests.solution_code import answer, verdict
from toolsys import checks
from toolsys.checks import Status


@pytest.mark.parametrize("exercise_id", ["0.1", "0.2", "0.3"])
def test_the_solution_and_the_reference_pass(exercise_id: str) -> None:
    exercise = checks.get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    verdict(exercise_id, answer(exercise_id), Status.PASSED)
    verdict(exercise_id, exercise.reference(), Status.PASSED)


# -- 0.1 -----------------------------------------------------------------------------------------

_JSON = "json.dumps(result, ensure_ascii=False)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((_JSON, "str(result)"), "not valid JSON"),
        (("tool_call.id", "tool_call.function.name"), "tool_call_id"),
        (("result if isinstance(result, str) else ", ""), "as it is"),
        ((_JSON, "result"), "must be a string"),
        # numbers read the same either way: only None shows the mistake
        ((_JSON, f"{_JSON} if isinstance(result, (dict, list, bool)) else str(result)"), "None"),
    ],
    ids=["str-not-json", "name-as-id", "json-quotes-text", "dict-content", "str-for-scalars"],
)
def test_a_wrong_tool_message_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("0.1", answer("0.1", change)).text()


# -- 0.2 -----------------------------------------------------------------------------------------

_NOT_JSON = 'error = f"The arguments for {name!r} are not valid JSON'


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # the bad call is not always the first: name the tool of the call the error is about
        (
            (_NOT_JSON, _NOT_JSON.replace("{name!r}", "{message.tool_calls[0].function.name!r}")),
            "'book_table'",
        ),
        # null, "Paris" and 42 are valid JSON too, and no more an object than a list is
        (("if isinstance(value, dict):", "if not isinstance(value, list):"), "not an object"),
        # the four keys, always: error is None, not absent, when the call is fine
        (('"error": error}', '**({"error": error} if error else {})}'), "exactly the keys"),
        (
            (
                "for call in message.tool_calls or []:",
                "for call in (message.tool_calls or [])[:2]:",
            ),
            "3",
        ),
        (("value = json.loads(text) if text.strip() else {}", "value = json.loads(text)"), "''"),
    ],
    ids=["names-the-first-call", "only-lists-refused", "error-key-dropped", "drops-calls", "empty"],
)
def test_a_wrong_parse_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("0.2", answer("0.2", change)).text()


def test_a_parse_that_crashes_on_a_text_answer_is_rejected_as_raising() -> None:
    wrong = answer("0.2", ("message.tool_calls or []", "message.tool_calls"))
    result = verdict("0.2", wrong)
    assert "raised TypeError" in result.message and "never raise" in result.message


def test_a_parse_that_crashes_on_bad_json_is_rejected_as_raising() -> None:
    wrong = answer("0.2", ("except json.JSONDecodeError as exc:", "except KeyError as exc:"))
    assert "raised JSONDecodeError" in verdict("0.2", wrong).message


def test_a_parse_that_is_half_done_is_not_done() -> None:
    wrong = answer(
        "0.2", (_NOT_JSON, 'raise NotImplementedError("later")\n            ' + _NOT_JSON)
    )
    verdict("0.2", wrong, Status.NOT_DONE)


# -- 0.3 -----------------------------------------------------------------------------------------

_PEOPLE = '"people": {"type": "integer", "description": "Number of guests, at least 1."}'
_OUTDOOR = '"description": "True for a table outside."}'


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((_OUTDOOR, _OUTDOOR[:-1] + ', "default": "false"}'), "['default']"),
        ((_PEOPLE, _PEOPLE[:-1] + ', "default": 2}'), "has a default, but the function has none"),
        ((_OUTDOOR, _OUTDOOR[:-1] + ', "required": False}'), "'required'"),
        (('"type": "integer"', '"type": "int"'), "properties['people']"),
        (('"time"]', '"time", "outdoor"]'), "required"),
        (('"type": "function",\n', ""), 'definition["type"]'),
        (('"Book a table at a restaurant for today."', '"Book a table."'), "description"),
        (('"name": "book_table"', '"name": "bookTable"'), "name"),
    ],
    ids=[
        "default-of-the-wrong-type",
        "default-for-a-required-parameter",
        "required-inside-a-property",
        "python-type-name",
        "optional-marked-required",
        "no-wrapper",
        "short-description",
        "renamed",
    ],
)
def test_a_wrong_definition_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("0.3", answer("0.3", change)).text()


def test_shorthand_properties_get_the_shape_expected_not_a_crash() -> None:
    wrong = answer("0.3", (_PEOPLE, '"people": "integer"'))
    result = verdict("0.3", wrong)
    assert "must be a schema dict such as" in result.message
    assert "'integer'" in result.message


def test_a_definition_with_a_python_set_is_not_json() -> None:
    wrong = answer("0.3", ('["restaurant", "people", "time"]', '{"restaurant", "people", "time"}'))
    assert "is a set, not plain data" in verdict("0.3", wrong).message


def test_the_generated_definition_passes_with_extra_schema_keys() -> None:
    definition = checks.get_exercise("0.3").reference()()
    assert definition["function"]["parameters"]["additionalProperties"] is False
    verdict("0.3", lambda: definition, Status.PASSED)


def test_content_that_claims_to_equal_the_text_does_not_pass() -> None:
    """The JSON-quoted text '"18 °C and sunny"' is not the text, whatever its __eq__ says."""

    class Same(str):
        def __eq__(self, other: object) -> bool:
            return True

        def __ne__(self, other: object) -> bool:
            return False

        __hash__ = str.__hash__

    def liar(tool_call, result):
        content = Same(json.dumps(result, ensure_ascii=False))
        return {"role": "tool", "tool_call_id": tool_call.id, "content": content}

    assert "Same (a subclass of str)" in verdict("0.1", liar).message
