"""Chapter 01 checks reject plausible wrong answers: each is the solution with one change."""

from __future__ import annotations

import pytest

from tests.liars import AlwaysEqual, YesStr
from tests.solution_code import answer, verdict
from toolsys import checks
from toolsys.checks import Status


@pytest.mark.parametrize("exercise_id", ["1.1", "1.2", "1.3"])
def test_the_solution_and_the_reference_pass(exercise_id: str) -> None:
    exercise = checks.get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    verdict(exercise_id, answer(exercise_id), Status.PASSED)
    verdict(exercise_id, exercise.reference(), Status.PASSED)


# -- 1.1 -----------------------------------------------------------------------------------------

_CALL = "return table[name](**arguments)"


def test_a_hard_coded_if_else_dispatcher_is_rejected() -> None:
    def careless(table, name, arguments=None):
        if name == "add":
            return table["add"](**arguments)
        if name == "get_time":
            return table["get_time"]()
        return None

    assert "dispatch(table, 'shout'" in verdict("1.1", careless).message


def test_a_dispatcher_that_returns_json_text_is_told_to_return_the_value_as_it_is() -> None:
    result = verdict("1.1", answer("1.1", (_CALL, f"return json.dumps({_CALL[7:]})")))
    assert "as it is" in (result.hint or "") and "1.3" in (result.hint or "")


@pytest.mark.parametrize(
    "change",
    [
        ("elif isinstance(arguments, str):", "elif False:"),  # JSON text never decoded
        ("**arguments", "arguments"),  # the dict passed positionally
    ],
    ids=["ignores-json-text", "dict-positionally"],
)
def test_a_dispatcher_that_crashes_is_an_error(change: tuple[str, str]) -> None:
    verdict("1.1", answer("1.1", change), Status.ERROR)


def test_a_dispatcher_that_returns_none_for_unknown_names_is_rejected() -> None:
    wrong = answer("1.1", ("raise KeyError(", "return None and KeyError("))
    assert "should raise KeyError" in verdict("1.1", wrong).message


# -- 1.2 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # a type table without bool: a bool parameter is never compared
        (('bool: "boolean", ', ""), "bool and dict annotations"),
        # X | None and Optional[X] skipped instead of unwrapped
        (
            ("return json_type(options[0]) if len(options) == 1 else None", "return None"),
            "optional and generic annotations that disagree",
        ),
        # list[str] looked up as it is, not by its origin
        (
            ("return JSON_TYPES.get(origin or annotation)", "return JSON_TYPES.get(annotation)"),
            "missed [('data', 'type_mismatch')]",
        ),
        # an unannotated parameter compared as a string
        (
            (
                "json_type(hints[name]) if name in hints else None",
                'json_type(hints[name]) if name in hints else "string"',
            ),
            "unannotated",
        ),
        (("typing.get_type_hints(fn)", "fn.__annotations__"), "__future__"),
        (("return drift", "return drift + drift[:1]"), "twice"),
    ],
    ids=[
        "no-bool",
        "unions-skipped",
        "generics-by-name",
        "unannotated-as-string",
        "raw-annotations",
        "twice",
    ],
)
def test_a_wrong_drift_finder_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("1.2", answer("1.2", change)).message


def test_a_drift_finder_that_needs_a_required_list_is_an_error() -> None:
    wrong = answer("1.2", ('set(schema.get("required", []))', 'set(schema["required"])'))
    assert "KeyError" in verdict("1.2", wrong, Status.ERROR).message


def test_drift_as_strings_gets_the_shape_expected_not_a_crash() -> None:
    wrong = answer("1.2", ("return drift", 'return [f"{n}:{p}" for n, p in drift]'))
    assert "pair of two strings" in verdict("1.2", wrong).message


def test_a_misspelt_problem_is_named_with_the_four_allowed() -> None:
    wrong = answer("1.2", ('(name, "type_mismatch")', '(name, "type-mismatch")'))
    result = verdict("1.2", wrong)
    assert "'type-mismatch'" in result.message and "type_mismatch" in result.message


def test_drift_that_is_not_a_list_gets_the_shape_expected() -> None:
    result = verdict("1.2", lambda definition, fn: "no drift")
    assert "(parameter, problem) pairs" in result.message


# -- 1.3 -----------------------------------------------------------------------------------------

_EMPTY = "if arguments is None or (isinstance(arguments, str) and not arguments.strip()):"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # numbers read the same either way; a dict, a bool and None do not
        (("else json.dumps(value)", "else str(value)"), "JSON text"),
        (("except Exception as exc:", "except (TypeError, ValueError) as exc:"), "KeyError"),
        ((_EMPTY, "if arguments is None:"), "''"),
        (("Error: tool", "Tool"), "must start with 'Error:'"),
        ((': {exc}"', '"'), "b must not be 0"),
        (("{', '.join(sorted(table))}", "{', '.join(sorted(table)[:4])}"), "must mention"),
    ],
    ids=["str-not-json", "narrow-except", "empty-text", "no-prefix", "no-message", "some-tools"],
)
def test_a_wrong_safe_dispatch_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("1.3", answer("1.3", change)).text()


def test_safe_dispatch_with_a_traceback_is_rejected() -> None:
    wrong = answer(
        "1.3",
        (
            'f"Error: tool {name!r} failed with {type(exc).__name__}: {exc}"',
            'f"Error: tool {name!r} failed: " + __import__("traceback").format_exc()',
        ),
    )
    assert "stack trace" in verdict("1.3", wrong).message


def test_safe_dispatch_raising_on_unknown_tools_is_rejected_as_raising() -> None:
    def wrong(table, name, arguments=None):
        return answer("1.3")(table, name, arguments) if name in table else table[name]

    result = verdict("1.3", wrong)
    assert "raised KeyError" in result.message and "never raise" in result.message


def test_a_half_finished_safe_dispatch_is_not_done() -> None:
    wrong = answer(
        "1.3",
        (
            "except json.JSONDecodeError as exc:\n",
            "except json.JSONDecodeError as exc:\n"
            "        raise NotImplementedError('bad JSON: later')\n",
        ),
    )
    verdict("1.3", wrong, Status.NOT_DONE)


def test_a_result_that_claims_to_equal_everything_does_not_pass_1_1() -> None:
    def liar(table, name, arguments=None):
        if name not in table:
            raise KeyError(name)
        return AlwaysEqual()

    assert "is an AlwaysEqual, not a str" in verdict("1.1", liar).message


def test_a_message_that_claims_to_contain_everything_does_not_pass_1_3() -> None:
    assert "YesStr (a subclass of str)" in verdict("1.3", lambda *a: YesStr("Error:")).message
