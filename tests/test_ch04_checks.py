"""Chapter 04 checks reject the careless solutions a student is likely to write."""

from __future__ import annotations

import json
import re

import pytest

from tests.liars import YesDict, YesStr
from tests.solution_code import answer, reference, verdict
from toolsys import checks
from toolsys.checks import Status

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
    result = reference("4.1")(functions, name, arguments)
    if result["ok"] and result["value"] is None:
        return {"ok": False, "error": {"code": "EXECUTION_ERROR", "message": f"{name} failed"}}
    return result


def _vague(functions, name, arguments):
    result = reference("4.1")(functions, name, arguments)
    if not result["ok"]:
        result["error"] = {"code": result["error"]["code"], "message": "Error"}
    return result


def _empty_arguments_fail(functions, name, arguments):
    if arguments == "":
        return {"ok": False, "error": {"code": "INVALID_JSON", "message": f"{name}: empty"}}
    return reference("4.1")(functions, name, arguments)


def _lists_accepted(functions, name, arguments):
    # json.loads("[2, 3]") then f(**[2, 3]) -> TypeError reported as an execution error
    result = reference("4.1")(functions, name, arguments)
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


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # a number or a string is no more an object than a list is
        (("if not isinstance(arguments, dict):", "if isinstance(arguments, list):"), "'42'"),
        (
            (
                "Available tools: {', '.join(functions)}.",
                "Did you mean {__import__('difflib').get_close_matches(name, functions)}?",
            ),
            "'div'",
        ),
        (
            (
                "except Exception as exc:",
                "except (TypeError, ValueError, KeyError, ZeroDivisionError) as exc:",
            ),
            "raised QuotaExceeded",
        ),
        (("at position {exc.pos}", "at column {exc.colno}"), "'14'"),
        (("{type(exc).__name__}: {exc}", "{exc}"), "'ZeroDivisionError'"),
        (('json.loads(arguments_json or "{}")', "json.loads(arguments_json)"), "'ping', ''"),
    ],
    ids=["only-lists-refused", "only-close-names", "narrow-except", "column", "no-type", "empty"],
)
def test_a_wrong_safe_execute_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("4.1", answer("4.1", change)).text()


def test_a_half_finished_safe_execute_is_not_done() -> None:
    wrong = answer(
        "4.1",
        (
            'return fail("INVALID_JSON"',
            'raise NotImplementedError("JSON errors")\n        return fail("INVALID_JSON"',
        ),
    )
    verdict("4.1", wrong, Status.NOT_DONE)


# -- 4.2 -------------------------------------------------------------------------------------


def _str_of_error(tool, schema, error):
    return str(error)


def _with_tool_name(tool, schema, error):
    return f"{tool}: {error}"


def _first_problem_only(tool, schema, error):
    full = reference("4.2")(tool, schema, error)
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


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # 'input' of a missing argument is the whole arguments object, not a bad value
        (
            (
                'f"{path}: missing required argument"',
                "f\"{path}: missing required argument, got {json.dumps(problem['input'])}\"",
            ),
            "quotes 'kelvin'",
        ),
        (("Invalid arguments for {tool}: ", "Invalid arguments: "), "must start with the tool"),
        (("{', '.join(properties)}", "{', '.join(list(properties)[1:])}"), "'value'"),
        (("unknown argument (accepted:", "argument (accepted:"), "does not exist"),
        (("'; '.join(problems)", "'; '.join(problems[:1])"), "'rankine'"),
        (
            (
                "problems.append(f\"{path}: got {json.dumps(problem['input'])}, expected ",
                'problems.append(str(problem)) or (f"',  # the dict itself, pasted
            ),
            "internals",
        ),
    ],
    ids=[
        "missing-quotes-input",
        "tool-last",
        "accepted-off-by-one",
        "extra-not-called-unknown",
        "first-only",
        "problem-dicts",
    ],
)
def test_a_wrong_actionable_message_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("4.2", answer("4.2", change)).text()


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


_WORDS = "any(word in name.upper() for word in SECRET_WORDS)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((_WORDS, _WORDS.replace("SECRET_WORDS", "SECRET_WORDS[:2]")), "hunter2hunter2"),
        (("len(value) >= 4", "len(value) > 4"), "x9q2"),
        (
            (
                'text = text.replace(value, "[redacted]")',
                'text = re.sub(value, "[redacted]", text)',
            ),
            "p4ss+word.1",
        ),
        (
            ('text.replace(value, "[redacted]")', 'text.replace(value, "[redacted]", 1)'),
            "p4ss+word.1",
        ),
        (
            ('match.group(0).rsplit("/", 1)[-1]', '"/".join(match.group(0).rsplit("/", 2)[-2:])'),
            "'<path>/q3.csv'",
        ),
        (("(?:{segment}+/)+", "(?:{segment}+/){{2,}}"), "/root"),
        (("(?<![\\w.~/:-])", "(?<=[\\s'\\\"(\\[])"), "/root"),
        (("[^\\s/'\\\"()\\[\\]{},;:<>|]", "[^\\s/'\\\"]"), "'copied <path>/a.csv,<path>/b.csv'"),
    ],
    ids=[
        "key-and-token-only",
        "off-by-one-length",
        "regex-not-text",
        "first-occurrence-only",
        "keeps-the-parent-directory",
        "two-directories-needed",
        "path-after-a-space-only",
        "comma-inside-a-path",
    ],
)
def test_a_wrong_redact_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("4.3", answer("4.3", change)).text()


def test_an_envelope_that_claims_to_equal_everything_does_not_pass_4_1() -> None:
    def liar(functions, name, arguments):
        result = reference("4.1")(functions, name, arguments)
        return YesDict() if result["ok"] else result

    assert "YesDict (a subclass of dict)" in verdict("4.1", liar).message


def test_a_message_that_claims_to_contain_every_word_does_not_pass_4_2() -> None:
    assert "should return a str" in verdict("4.2", lambda *a: YesStr("x")).message


def test_a_text_that_claims_to_equal_the_redacted_text_does_not_pass_4_3() -> None:
    assert "should return a str" in verdict("4.3", lambda text, env: YesStr(text)).message
