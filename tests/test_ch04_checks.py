"""Chapter 04 checks reject the careless solutions a student is likely to write."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from toolsys import checks
from toolsys.checks import Status, get_exercise


def _reference(exercise_id: str) -> Any:
    exercise = get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    return exercise.reference()


# -- 4.1 -------------------------------------------------------------------------------------


def _raises_on_unknown(functions, name, arguments):
    return {"ok": True, "value": functions[name](**json.loads(arguments or "{}"))}


def _only_value_errors(functions, name, arguments):
    if name not in functions:
        return {
            "ok": False,
            "error": {
                "code": "UNKNOWN_TOOL",
                "message": f"Unknown tool {name!r}: {', '.join(functions)}",
            },
        }
    try:
        return {"ok": True, "value": functions[name](**json.loads(arguments or "{}"))}
    except (ValueError, TypeError) as exc:  # JSONDecodeError is a ValueError; KeyError escapes
        return {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": f"{name}: {exc}"}}


def _none_is_failure(functions, name, arguments):
    result = _reference("4.1")(functions, name, arguments)
    if result["ok"] and result["value"] is None:
        return {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": f"{name} failed"}}
    return result


def _vague(functions, name, arguments):
    result = _reference("4.1")(functions, name, arguments)
    if not result["ok"]:
        result["error"] = {"code": result["error"]["code"], "message": "Error"}
    return result


def _empty_arguments_fail(functions, name, arguments):
    if arguments == "":
        return {"ok": False, "error": {"code": "INVALID_JSON", "message": f"{name}: empty"}}
    return _reference("4.1")(functions, name, arguments)


def _lists_accepted(functions, name, arguments):
    # json.loads("[2, 3]") then f(**[2, 3]) -> TypeError reported as an execution error
    result = _reference("4.1")(functions, name, arguments)
    if arguments.startswith("["):
        return {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": f"{name} failed"}}
    return result


@pytest.mark.parametrize(
    "wrong",
    [
        _raises_on_unknown,
        _only_value_errors,
        _none_is_failure,
        _vague,
        _empty_arguments_fail,
        _lists_accepted,
    ],
)
def test_careless_safe_execute_fails(wrong) -> None:
    result = checks.check("4.1", wrong)
    assert result.status is Status.FAILED, result.text()


# -- 4.2 -------------------------------------------------------------------------------------


def _str_of_error(tool, schema, error):
    return str(error)


def _with_tool_name(tool, schema, error):
    return f"{tool}: {error}"


def _first_problem_only(tool, schema, error):
    full = _reference("4.2")(tool, schema, error)
    return full.split(";")[0]


def _no_allowed_values(tool, schema, error):
    parts = [f"{'.'.join(map(str, e['loc']))}: got {e['input']!r}" for e in error.errors()]
    return f"{tool}: " + "; ".join(parts)


def _missing_shows_input(tool, schema, error):
    parts = []
    for e in error.errors():
        prop = schema["properties"].get(e["loc"][0], {})
        expected = prop.get("enum") or prop.get("type")
        parts.append(f"{e['loc'][0]}: got {e['input']!r}, expected {expected}")
    return f"Invalid arguments for {tool}: " + "; ".join(parts)


@pytest.mark.parametrize(
    "wrong",
    [_str_of_error, _with_tool_name, _first_problem_only, _no_allowed_values, _missing_shows_input],
)
def test_careless_actionable_message_fails(wrong) -> None:
    result = checks.check("4.2", wrong)
    assert result.status is Status.FAILED, result.text()


# -- 4.3 -------------------------------------------------------------------------------------

_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def _secrets(environ, minimum=4, longest_first=True, any_case=True):
    names = [n for n in environ if any(w in (n.upper() if any_case else n) for w in _SECRET_WORDS)]
    values = [environ[n] for n in names if len(environ[n]) >= minimum]
    return sorted(values, key=len, reverse=True) if longest_first else sorted(values, key=len)


def _good_paths(text):
    return re.sub(
        r"(?<![\w.~/:-])/(?:[^\s/'\"()\[\]{},;:<>|]+/)+[^\s/'\"()\[\]{},;:<>|]*",
        lambda m: "<path>/" + m.group(0).rsplit("/", 1)[-1],
        text,
    )


def _build(minimum=4, longest_first=True, any_case=True, paths=_good_paths):
    def redact(text, environ):
        for value in _secrets(environ, minimum, longest_first, any_case):
            text = text.replace(value, "[redacted]")
        return paths(text)

    return redact


def _greedy_paths(text):
    return re.sub(r"/\S+", lambda m: "<path>/" + m.group(0).rsplit("/", 1)[-1], text)


def _url_eating_paths(text):
    pattern = r"/(?:[^\s/'\"]+/)+[^\s/'\",]*"
    return re.sub(pattern, lambda m: "<path>/" + m.group(0).rsplit("/", 1)[-1], text)


@pytest.mark.parametrize(
    "wrong",
    [
        _build(minimum=1),
        _build(longest_first=False),
        _build(any_case=False),
        _build(paths=lambda text: text),
        _build(paths=_greedy_paths),
        _build(paths=_url_eating_paths),
    ],
    ids=[
        "short-values",
        "shortest-first",
        "case-sensitive",
        "no-paths",
        "greedy-paths",
        "urls-as-paths",
    ],
)
def test_careless_redact_fails(wrong) -> None:
    result = checks.check("4.3", wrong)
    assert result.status is Status.FAILED, result.text()


def test_the_careful_redact_passes() -> None:
    assert checks.check("4.3", _build()).passed
