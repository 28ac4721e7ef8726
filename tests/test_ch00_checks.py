"""Chapter 00 checks reject plausible wrong answers and accept correct ones written differently.

Each wrong answer is the solution with one change, written as code (`swap`, or a function around
the solution's answer), so re-formatting a solution does not break it.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.solution_code import answer, swap, verdict
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
        (swap(_JSON, "str(result)"), "not valid JSON"),
        (swap("tool_call.id", "tool_call.function.name"), "tool_call_id"),
        (swap(f"result if isinstance(result, str) else {_JSON}", _JSON), "as it is"),
        (swap(_JSON, "result"), "must be a string"),
        # numbers read the same either way: only None shows the mistake
        (
            swap(_JSON, f"{_JSON} if isinstance(result, (dict, list, bool)) else str(result)"),
            "None",
        ),
    ],
    ids=["str-not-json", "name-as-id", "json-quotes-text", "dict-content", "str-for-scalars"],
)
def test_a_wrong_tool_message_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("0.1", answer("0.1", change)).text()


def _tool_message_stripping_text(tool_call: Any, result: Any) -> dict:
    message = answer("0.1")(tool_call, result)
    return {**message, "content": message["content"].strip()}


def _tool_message_quoting_empty_text(tool_call: Any, result: Any) -> dict:
    content = result if isinstance(result, str) and result else json.dumps(result)
    return {"role": "tool", "tool_call_id": tool_call.id, "content": content}


def _tool_message_normalising_json_text(tool_call: Any, result: Any) -> dict:
    """Text that happens to be JSON is parsed and dumped again: its spacing changes."""
    if isinstance(result, str):
        try:
            result = json.loads(result)
        except ValueError:
            return {"role": "tool", "tool_call_id": tool_call.id, "content": result}
    return {"role": "tool", "tool_call_id": tool_call.id, "content": json.dumps(result)}


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (_tool_message_stripping_text, "final newline"),
        (_tool_message_quoting_empty_text, "an empty string"),
        (_tool_message_normalising_json_text, "already JSON text"),
    ],
    ids=["strips", "quotes-empty", "re-dumps-json-text"],
)
def test_text_that_is_not_sent_as_it_is_is_rejected(wrong: Callable[..., Any], words: str) -> None:
    result = verdict("0.1", wrong)
    assert words in result.message and "not stripped" in result.text()


def _tool_message_built_up(tool_call: Any, result: Any) -> dict:
    message = {"role": "tool", "tool_call_id": tool_call.id}
    message["content"] = json.dumps(result) if not isinstance(result, str) else result
    return message


def _tool_message_by_type(tool_call: Any, result: Any) -> dict:
    if type(result) is str:
        content = result
    else:
        content = json.dumps(result, separators=(",", ":"), sort_keys=True)
    return dict(content=content, tool_call_id=tool_call.id, role="tool")


@pytest.mark.parametrize("correct", [_tool_message_built_up, _tool_message_by_type])
def test_a_correct_tool_message_written_differently_passes(correct: Callable[..., Any]) -> None:
    verdict("0.1", correct, Status.PASSED)


# -- 0.2 -----------------------------------------------------------------------------------------


def _naming_the_first_call(message: Any) -> list[dict]:
    """The solution's parse, but every error names the first call's tool, not its own."""
    parsed = answer("0.2")(message)
    for item in parsed:
        if item["error"]:
            first = message.tool_calls[0].function.name
            item["error"] = item["error"].replace(repr(item["name"]), repr(first))
    return parsed


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        # the bad call is not always the first: name the tool of the call the error is about
        (_naming_the_first_call, "'book_table'"),
        # null, "Paris" and 42 are valid JSON too, and no more an object than a list is
        (
            answer("0.2", swap("isinstance(value, dict)", "not isinstance(value, list)")),
            "not an object",
        ),
        # the four keys, always: error is None, not absent, when the call is fine
        (
            answer(
                "0.2",
                swap(
                    '{"id": call.id, "name": name, "arguments": arguments, "error": error}',
                    '{"id": call.id, "name": name, "arguments": arguments, '
                    '**({"error": error} if error else {})}',
                ),
            ),
            "exactly the keys",
        ),
        (answer("0.2", swap("message.tool_calls or []", "(message.tool_calls or [])[:2]")), "3"),
        (answer("0.2", swap("json.loads(text) if text.strip() else {}", "json.loads(text)")), "''"),
    ],
    ids=["names-the-first-call", "only-lists-refused", "error-key-dropped", "drops-calls", "empty"],
)
def test_a_wrong_parse_is_rejected(wrong: Callable[..., Any], words: str) -> None:
    assert words in verdict("0.2", wrong).text()


_SHARED_EMPTY: dict = {}


def _parse_sharing_one_empty_dict(message: Any) -> list[dict]:
    parsed = answer("0.2")(message)
    for item in parsed:
        if item["arguments"] == {}:
            item["arguments"] = _SHARED_EMPTY
    _SHARED_EMPTY.clear()
    return parsed


def _parse_keyed_by_id(message: Any) -> list[dict]:
    return list({item["id"]: item for item in answer("0.2")(message)}.values())


_ONE_SENTENCE = 'f"The arguments for {name!r} must be a valid JSON object."'


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (
            answer(
                "0.2",
                swap(
                    "json.loads(text) if text.strip() else {}",
                    'json.loads(text) if text != "" else {}',
                ),
            ),
            "'   '",
        ),
        (_parse_sharing_one_empty_dict, "same dict object"),
        (_parse_keyed_by_id, "share the id"),
        (
            answer(
                "0.2",
                swap(
                    'f"The arguments for {name!r} are not valid JSON ({exc.msg}): {text!r}."',
                    _ONE_SENTENCE,
                ),
                swap(
                    'f"The arguments for {name!r} must be a JSON object, got {text!r}."',
                    _ONE_SENTENCE,
                ),
            ),
            "same sentence",
        ),
    ],
    ids=[
        "whitespace-is-not-empty",
        "one-shared-empty-dict",
        "keyed-by-id",
        "one-sentence-for-both",
    ],
)
def test_a_parse_that_blurs_empty_calls_or_errors_is_rejected(
    wrong: Callable[..., Any], words: str
) -> None:
    assert words in verdict("0.2", wrong).text()


def test_a_parse_that_crashes_on_a_text_answer_is_rejected_as_raising() -> None:
    wrong = answer("0.2", swap("message.tool_calls or []", "message.tool_calls"))
    result = verdict("0.2", wrong)
    assert "raised TypeError" in result.message and "never raise" in result.message


def test_a_parse_that_crashes_on_bad_json_is_rejected_as_raising() -> None:
    wrong = answer("0.2", swap("json.JSONDecodeError", "KeyError"))
    assert "raised JSONDecodeError" in verdict("0.2", wrong).message


def _not_done_where_json_is_bad(tree: ast.Module) -> None:
    handler = next(node for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler))
    handler.body.insert(0, ast.parse("raise NotImplementedError('later')").body[0])


def test_a_parse_that_is_half_done_is_not_done() -> None:
    verdict("0.2", answer("0.2", _not_done_where_json_is_bad), Status.NOT_DONE)


def _parse_with_a_helper(message: Any) -> list[dict]:
    def one(call: Any) -> dict:
        item = {"id": call.id, "name": call.function.name, "arguments": None, "error": None}
        text = call.function.arguments
        if text.isspace() or not text:
            item["arguments"] = {}
            return item
        try:
            value = json.loads(text)
        except ValueError:
            item["error"] = f"{call.function.name}: the arguments are not JSON"
            return item
        if type(value) is dict:
            item["arguments"] = value
        else:
            item["error"] = f"{call.function.name} needs a JSON object, not {type(value).__name__}"
        return item

    return [one(call) for call in message.tool_calls] if message.tool_calls else []


def test_a_correct_parse_written_differently_passes() -> None:
    verdict("0.2", _parse_with_a_helper, Status.PASSED)


# -- 0.3 -----------------------------------------------------------------------------------------


def _edited(edit: Callable[[dict], Any]) -> Callable[[], dict]:
    """The solution's definition with `edit` applied to its "function" part."""

    def book_table_tool() -> dict:
        definition = answer("0.3")()
        edit(definition["function"])
        return definition

    return book_table_tool


def _properties(function: dict) -> dict:
    return function["parameters"]["properties"]


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda f: _properties(f)["outdoor"].update(default="false"), "['default']"),
        (
            lambda f: _properties(f)["people"].update(default=2),
            "has a default, but the function has none",
        ),
        (lambda f: _properties(f)["outdoor"].update(required=False), "'required'"),
        (lambda f: _properties(f)["people"].update(type="int"), "properties['people']"),
        (lambda f: f["parameters"]["required"].append("outdoor"), "required"),
        (lambda f: f.update(description="Book a table."), "description"),
        (lambda f: f.update(name="bookTable"), "name"),
    ],
    ids=[
        "default-of-the-wrong-type",
        "default-for-a-required-parameter",
        "required-inside-a-property",
        "python-type-name",
        "optional-marked-required",
        "short-description",
        "renamed",
    ],
)
def test_a_wrong_definition_is_rejected(edit: Callable[[dict], Any], words: str) -> None:
    assert words in verdict("0.3", _edited(edit)).text()


def test_a_definition_without_its_wrapper_is_rejected() -> None:
    result = verdict("0.3", lambda: {"function": answer("0.3")()["function"]})
    assert 'definition["type"]' in result.text()


def test_shorthand_properties_get_the_shape_expected_not_a_crash() -> None:
    result = verdict("0.3", _edited(lambda f: _properties(f).update(people="integer")))
    assert "must be a schema dict such as" in result.message
    assert "'integer'" in result.message


def test_a_definition_with_a_python_set_is_not_json() -> None:
    wrong = _edited(lambda f: f["parameters"].update(required=set(f["parameters"]["required"])))
    assert "is a set, not plain data" in verdict("0.3", wrong).message


def _definition_in_another_order() -> dict:
    def prop(kind: str, text: str, **extra: Any) -> dict:
        return {"description": text, "type": kind, **extra}

    parameters = {
        "type": "object",
        "required": ["time", "restaurant", "people"],
        "properties": {
            "outdoor": prop("boolean", "Whether to sit outside.", default=False),
            "time": prop("string", "When, as HH:MM (24 h), for example 20:15."),
            "people": prop("integer", "How many guests (1 or more).", minimum=1),
            "restaurant": prop("string", "The restaurant's name."),
        },
    }
    return {
        "function": {
            "parameters": parameters,
            "description": "Reserve a restaurant table for tonight.",
            "name": "book_table",
        },
        "type": "function",
    }


def test_a_correct_definition_written_differently_passes() -> None:
    verdict("0.3", _definition_in_another_order, Status.PASSED)


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


def test_a_parser_that_iterates_none_is_told_about_text_answers() -> None:
    # adv2: the hint spoke of json.loads, which the answer wrapped already.
    wrong = answer("0.2", swap("message.tool_calls or []", "message.tool_calls"))
    text = verdict("0.2", wrong).text()
    assert "'NoneType' object is not iterable" in text
    assert "`message.tool_calls or []`" in text


def _book_table_with(change: Callable[[dict[str, Any]], None]) -> Callable[[], dict[str, Any]]:
    definition = answer("0.3")()
    change(definition["function"]["parameters"]["properties"])
    return lambda: definition


def test_a_description_that_only_repeats_the_name_is_rejected() -> None:
    # adv2: "people" described as "people" passed.
    wrong = _book_table_with(lambda p: p["people"].update(description="people"))
    assert "which only repeats the parameter's name" in verdict("0.3", wrong).text()


def test_a_format_that_refuses_the_documented_value_is_rejected() -> None:
    # adv2: time as a "date-time" passed, though the function takes "19:30".
    wrong = _book_table_with(lambda p: p["time"].update(format="date-time"))
    assert "refuses '19:30'" in verdict("0.3", wrong).text()


def test_a_pattern_and_a_minimum_that_fit_the_values_pass() -> None:
    def fits(properties: dict[str, Any]) -> None:
        properties["time"]["pattern"] = "^[0-2][0-9]:[0-5][0-9]$"
        properties["people"]["minimum"] = 1

    verdict("0.3", _book_table_with(fits), Status.PASSED)
