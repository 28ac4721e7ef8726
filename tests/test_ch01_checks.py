"""Chapter 01 checks reject plausible wrong answers and accept correct ones written differently.

Each wrong answer is the solution with one change, written as code (`swap`, or a function around
the solution's answer), so re-formatting a solution does not break it.
"""

from __future__ import annotations

import ast
import inspect
import json
import types
import typing
from typing import Any

import pytest

from tests.liars import AlwaysEqual, YesStr
from tests.solution_code import answer, drop, swap, verdict
from toolsys import checks
from toolsys.checks import Status


@pytest.mark.parametrize("exercise_id", ["1.1", "1.2", "1.3"])
def test_the_solution_and_the_reference_pass(exercise_id: str) -> None:
    exercise = checks.get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    verdict(exercise_id, answer(exercise_id), Status.PASSED)
    verdict(exercise_id, exercise.reference(), Status.PASSED)


# -- 1.1 -----------------------------------------------------------------------------------------


def test_a_hard_coded_if_else_dispatcher_is_rejected() -> None:
    def careless(table, name, arguments=None):
        if name == "add":
            return table["add"](**arguments)
        if name == "get_time":
            return table["get_time"]()
        return None

    assert "dispatch(table, 'shout'" in verdict("1.1", careless).message


def test_a_dispatcher_that_returns_json_text_is_told_to_return_the_value_as_it_is() -> None:
    wrong = answer("1.1", swap("table[name](**arguments)", "json.dumps(table[name](**arguments))"))
    result = verdict("1.1", wrong)
    assert "as it is" in (result.hint or "") and "1.3" in (result.hint or "")


@pytest.mark.parametrize(
    "change",
    [
        drop("arguments = json.loads(arguments)"),  # JSON text never decoded
        swap("table[name](**arguments)", "table[name](arguments)"),  # the dict positionally
    ],
    ids=["ignores-json-text", "dict-positionally"],
)
def test_a_dispatcher_that_crashes_is_an_error(change: Any) -> None:
    verdict("1.1", answer("1.1", change), Status.ERROR)


def test_a_dispatcher_that_returns_none_for_unknown_names_is_rejected() -> None:
    wrong = answer("1.1", swap("raise KeyError(...)", "return None"))
    assert "should raise KeyError" in verdict("1.1", wrong).message


def test_a_dispatcher_that_calls_the_tool_twice_is_rejected() -> None:
    once = "return table[name](**arguments)"
    wrong = answer("1.1", swap(once, f"table[name](**arguments)\n{once}"))
    result = verdict("1.1", wrong)
    assert "notes filed by one" in result.message and "twice" in (result.hint or "")


def test_a_dispatcher_that_passes_the_values_in_their_order_is_rejected() -> None:
    # adv2: fn(*arguments.values()) works only when the model sends the keys in the function's
    # order; '{"b": 4, "a": 1}' for divide(a, b) divided 4 by 1.
    wrong = answer("1.1", swap("table[name](**arguments)", "table[name](*arguments.values())"))
    text = verdict("1.1", wrong).text()
    assert """dispatch(table, 'divide', '{"b": 4, "a": 1}') returned a wrong value""" in text
    assert "fn(**arguments), not fn(*arguments.values())" in text


def test_a_dispatcher_that_calls_a_key_error_an_unknown_tool_is_rejected() -> None:
    # adv2: try/except KeyError around the call reported a KeyError raised inside a known tool
    # as an unknown tool.
    def dispatch(table, name, arguments=None):
        if isinstance(arguments, str):
            arguments = json.loads(arguments) if arguments.strip() else None
        try:
            return table[name](**(arguments or {}))
        except KeyError:
            raise KeyError(f"unknown tool {name!r}") from None

    text = verdict("1.1", dispatch).text()
    assert "dispatch(table, 'colour_code', {'colour': 'blue'}) reported \"unknown tool" in text
    assert "colour_code's own KeyError" in text


def _dispatch_with_get(table, name, arguments=None):
    tool = table.get(name)
    if tool is None:
        raise KeyError(f"no tool called {name}")
    if isinstance(arguments, str):
        arguments = json.loads(arguments) if arguments else None
    return tool(**(arguments or {}))


def _dispatch_filtering_by_signature(table, name, arguments=None):
    """Drops the arguments the function does not take: the model never hears of its mistake."""
    if name not in table:
        raise KeyError(f"unknown tool {name!r}")
    if isinstance(arguments, str):
        arguments = json.loads(arguments) if arguments.strip() else {}
    accepted = inspect.signature(table[name]).parameters
    return table[name](**{k: v for k, v in (arguments or {}).items() if k in accepted})


def _dispatch_dropping_none(table, name, arguments=None):
    """Cleans the caller's dict in place: None values are deleted before the call."""
    if isinstance(arguments, dict):
        for key in [key for key, value in arguments.items() if value is None]:
            del arguments[key]
    return answer("1.1")(table, name, arguments)


def _dispatch_mutating_quietly(table, name, arguments=None):
    """Right result, but the caller's dict gains a key."""
    result = answer("1.1")(table, name, arguments)
    if isinstance(arguments, dict):
        arguments.setdefault("_tool", name)
    return result


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (_dispatch_filtering_by_signature, "'volume'"),
        (_dispatch_dropping_none, "None values too"),
        (_dispatch_mutating_quietly, "the arguments after dispatch"),
    ],
    ids=["filters-by-signature", "drops-none", "mutates-arguments"],
)
def test_a_dispatcher_that_changes_the_arguments_is_rejected(wrong: Any, words: str) -> None:
    assert words in verdict("1.1", wrong).text()


def test_a_correct_dispatcher_written_differently_passes() -> None:
    verdict("1.1", _dispatch_with_get, Status.PASSED)


# -- 1.2 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # a type table without bool: a bool parameter is never compared
        (
            swap(
                "JSON_TYPES = ...",
                'JSON_TYPES = {str: "string", int: "integer", float: "number", list: "array", '
                'tuple: "array", dict: "object"}',
            ),
            "bool and dict annotations",
        ),
        # X | None and Optional[X] skipped instead of unwrapped
        (
            swap("json_type(options[0]) if len(options) == 1 else None", "None"),
            "optional and generic annotations that disagree",
        ),
        # list[str] looked up as it is, not by its origin
        (
            swap("JSON_TYPES.get(origin or annotation)", "JSON_TYPES.get(annotation)"),
            "missed [('data', 'type_mismatch')]",
        ),
        # an unannotated parameter compared as a string
        (
            swap(
                "json_type(hints[name]) if name in hints else None",
                'json_type(hints[name]) if name in hints else "string"',
            ),
            "unannotated",
        ),
        (swap("typing.get_type_hints(fn)", "fn.__annotations__"), "__future__"),
        (swap("return drift", "return drift + drift[:1]"), "twice"),
        # *args and **kwargs reported as parameters the schema lacks
        (
            swap(
                "{name: p for name, p in inspect.signature(fn).parameters.items() if ...}",
                "dict(inspect.signature(fn).parameters)",
            ),
            "*args and **kwargs",
        ),
        # a parameter missing from the schema ends the comparison of the others
        (swap("continue", "break"), "before one whose type drifted"),
        # keyword-only parameters left out with *args and **kwargs
        (
            swap(
                "p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)",
                "p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY)",
            ),
            "keyword-only",
        ),
        # string annotations mapped by their spelling: 'str | None' and 'list[str]' have no type
        (
            swap(
                "typing.get_type_hints(fn)",
                "{k: {'str': str, 'int': int, 'float': float, 'bool': bool}.get(v, v) "
                "for k, v in fn.__annotations__.items()}",
            ),
            "string annotations that disagree",
        ),
    ],
    ids=[
        "no-bool",
        "unions-skipped",
        "generics-by-name",
        "unannotated-as-string",
        "raw-annotations",
        "twice",
        "var-args",
        "break",
        "keyword-only-left-out",
        "string-annotations-by-spelling",
    ],
)
def test_a_wrong_drift_finder_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("1.2", answer("1.2", change)).text()


def test_a_drift_finder_that_needs_a_required_list_is_an_error() -> None:
    wrong = answer("1.2", swap("set(schema.get('required', []))", "set(schema['required'])"))
    assert "KeyError" in verdict("1.2", wrong, Status.ERROR).message


def test_drift_as_strings_gets_the_shape_expected_not_a_crash() -> None:
    wrong = answer("1.2", swap("return drift", 'return [f"{n}:{p}" for n, p in drift]'))
    assert "pair of two strings" in verdict("1.2", wrong).message


def test_a_misspelt_problem_is_named_with_the_four_allowed() -> None:
    wrong = answer("1.2", swap("(name, 'type_mismatch')", "(name, 'type-mismatch')"))
    result = verdict("1.2", wrong)
    assert "'type-mismatch'" in result.message and "type_mismatch" in result.message


def test_drift_that_is_not_a_list_gets_the_shape_expected() -> None:
    result = verdict("1.2", lambda definition, fn: "no drift")
    assert "(parameter, problem) pairs" in result.message


_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array"}


def _kind(annotation: Any) -> str | None:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _kind(args[0]) if len(args) == 1 else None
    base = typing.get_origin(annotation) or annotation
    return "object" if base is dict else _NAMES.get(base)


def _drift_by_sets(definition: dict, fn: Any) -> set[tuple[str, str]]:
    """Set algebra over the two sides, and the signature's own resolved annotations."""
    schema = definition["function"]["parameters"]
    declared = schema.get("properties", {})
    signature = inspect.signature(fn, eval_str=True)
    real = {
        n: p
        for n, p in signature.parameters.items()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    found = {(n, "not_in_function") for n in declared.keys() - real.keys()}
    found |= {(n, "not_in_schema") for n in real.keys() - declared.keys()}
    for name in real.keys() & declared.keys():
        if (real[name].default is inspect.Parameter.empty) is not (
            name in schema.get("required", ())
        ):
            found.add((name, "required_mismatch"))
        kind = (
            _kind(real[name].annotation)
            if real[name].annotation is not inspect.Parameter.empty
            else None
        )
        if kind and declared[name].get("type") != kind:
            found.add((name, "type_mismatch"))
    return found


def test_a_correct_drift_finder_written_differently_passes() -> None:
    verdict("1.2", _drift_by_sets, Status.PASSED)


# -- 1.3 -----------------------------------------------------------------------------------------

_EMPTY = "arguments is None or (isinstance(arguments, str) and not arguments.strip())"


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        # numbers read the same either way; a dict, a bool and None do not
        (answer("1.3", swap("json.dumps(value)", "str(value)")), "JSON text"),
        (answer("1.3", swap("Exception", "(TypeError, ValueError)")), "KeyError"),
        (answer("1.3", swap(_EMPTY, "arguments is None")), "''"),
        (
            lambda *args: answer("1.3")(*args).replace("Error: tool", "Tool", 1),
            "must start with 'Error:'",
        ),
        (
            answer(
                "1.3",
                swap(
                    "f'Error: tool {name!r} failed with {type(exc).__name__}: {exc}'",
                    "f'Error: tool {name!r} failed with {type(exc).__name__}'",
                ),
            ),
            "b must not be 0",
        ),
        (answer("1.3", swap("sorted(table)", "sorted(table)[:4]")), "must mention"),
        # the table printed as it is: every function's repr, memory address included
        (answer("1.3", swap("', '.join(sorted(table))", "str(table)")), "Python objects"),
        # the tool runs twice: once to see whether it fails, once for its value
        (
            answer(
                "1.3",
                swap(
                    "value = table[name](**arguments)",
                    "table[name](**arguments)\nvalue = table[name](**arguments)",
                ),
            ),
            "notes filed by one",
        ),
    ],
    ids=[
        "str-not-json",
        "narrow-except",
        "empty-text",
        "no-prefix",
        "no-message",
        "some-tools",
        "table-repr",
        "twice",
    ],
)
def test_a_wrong_safe_dispatch_is_rejected(wrong: Any, words: str) -> None:
    assert words in verdict("1.3", wrong).text()


def test_safe_dispatch_that_dumps_the_result_outside_its_try_is_rejected() -> None:
    # adv2 (and the solution itself before): a tool returning a set made json.dumps raise,
    # although safe_dispatch never raises.
    def outside(table, name, arguments=None):
        if name not in table:
            return f"Error: unknown tool {name!r}. Available tools: {', '.join(table)}."
        try:
            if isinstance(arguments, str):
                arguments = json.loads(arguments) if arguments.strip() else None
            value = table[name](**(arguments or {}))
        except json.JSONDecodeError as exc:
            return f"Error: the arguments for {name!r} are not valid JSON ({exc.msg})."
        except Exception as exc:
            return f"Error: tool {name!r} failed with {type(exc).__name__}: {exc}"
        return value if isinstance(value, str) else json.dumps(value)

    text = verdict("1.3", outside).text()
    assert "safe_dispatch(table, 'tags', None) (a tool that returns a set) raised TypeError" in text
    assert "json.dumps of its result" in text


def test_safe_dispatch_that_writes_a_set_as_text_passes() -> None:
    def safe_dispatch(table, name, arguments=None):
        if name == "tags":
            return json.dumps(table[name](), default=sorted)
        return answer("1.3")(table, name, arguments)

    verdict("1.3", safe_dispatch, Status.PASSED)


def test_safe_dispatch_with_a_traceback_is_rejected() -> None:
    wrong = answer(
        "1.3",
        swap(
            "f'Error: tool {name!r} failed with {type(exc).__name__}: {exc}'",
            'f"Error: tool {name!r} failed: " + __import__("traceback").format_exc()',
        ),
    )
    assert "stack trace" in verdict("1.3", wrong).message


def test_safe_dispatch_raising_on_unknown_tools_is_rejected_as_raising() -> None:
    def wrong(table, name, arguments=None):
        return answer("1.3")(table, name, arguments) if name in table else table[name]

    result = verdict("1.3", wrong)
    assert "raised KeyError" in result.message and "never raise" in result.message


def _not_done_where_json_is_bad(tree: ast.Module) -> None:
    handler = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ExceptHandler) and "JSONDecodeError" in ast.unparse(node.type)
    )
    handler.body.insert(0, ast.parse("raise NotImplementedError('bad JSON: later')").body[0])


def test_a_half_finished_safe_dispatch_is_not_done() -> None:
    verdict("1.3", answer("1.3", _not_done_where_json_is_bad), Status.NOT_DONE)


def _safe_dispatch_with_one_try(table, name, arguments=None):
    if name not in table:
        return "Error: no tool " + repr(name) + "; the tools are " + ", ".join(table)
    try:
        decoded = json.loads(arguments) if isinstance(arguments, str) and arguments else arguments
        value = table[name](**(decoded or {}))
        return value if type(value) is str else json.dumps(value, indent=1)
    except json.JSONDecodeError as exc:
        return f"Error: {name} got arguments that are not JSON: {exc}"
    except Exception as exc:
        return f"Error: {name} raised {exc.__class__.__name__} ({exc})"


def test_a_correct_safe_dispatch_written_differently_passes() -> None:
    verdict("1.3", _safe_dispatch_with_one_try, Status.PASSED)


def test_a_result_that_claims_to_equal_everything_does_not_pass_1_1() -> None:
    def liar(table, name, arguments=None):
        if name not in table:
            raise KeyError(name)
        return AlwaysEqual()

    assert "is an AlwaysEqual, not a str" in verdict("1.1", liar).message


def test_a_message_that_claims_to_contain_everything_does_not_pass_1_3() -> None:
    assert "YesStr (a subclass of str)" in verdict("1.3", lambda *a: YesStr("Error:")).message


def test_a_dispatcher_that_ignores_the_letter_case_of_names_is_rejected() -> None:
    # adv2: a lower-cased table found 'Shout' for 'shout'.
    def dispatch(table, name, arguments=None):
        lowered = {key.lower(): fn for key, fn in table.items()}
        if name.lower() not in lowered:
            raise KeyError(f"unknown tool {name!r}")
        return answer("1.1")({name: lowered[name.lower()]}, name, arguments)

    assert "Tool names are exact: 'Shout' is not 'shout'" in verdict("1.1", dispatch).text()


def test_a_dispatcher_that_strips_the_arguments_is_rejected() -> None:
    # adv2: every string argument stripped before the call.
    def dispatch(table, name, arguments=None):
        if isinstance(arguments, str):
            arguments = json.loads(arguments) if arguments.strip() else {}
        arguments = {
            k: v.strip() if isinstance(v, str) else v for k, v in (arguments or {}).items()
        }
        return answer("1.1")(table, name, arguments)

    assert "exactly as they came (no strip" in verdict("1.1", dispatch).text()
