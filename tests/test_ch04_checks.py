"""Chapter 04 checks reject the careless solutions a student is likely to write, and accept
correct ones written differently.

Wrong answers are functions around a correct one, or the solution with one change written as code
(`swap`), so re-formatting a solution does not break them.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

import pytest

from tests.liars import YesDict, YesStr
from tests.solution_code import answer, reference, swap, verdict
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


_UNKNOWN = "f\"Unknown tool {name!r}. Available tools: {', '.join(functions)}.\""
_FAILED = "f'Tool {name!r} failed: {type(exc).__name__}: {exc}'"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # a number or a string is no more an object than a list is
        (swap("not isinstance(arguments, dict)", "isinstance(arguments, list)"), "'42'"),
        (
            swap(
                _UNKNOWN,
                'f"Unknown tool {name!r}. Did you mean '
                "{__import__('difflib').get_close_matches(name, functions)}?\"",
            ),
            "'div'",
        ),
        (
            swap("Exception", "(TypeError, ValueError, KeyError, ZeroDivisionError)"),
            "raised QuotaExceeded",
        ),
        (swap("f'{exc.msg} at position {exc.pos}'", "f'{exc.msg} at column {exc.colno}'"), "'14'"),
        (swap(_FAILED, "f'Tool {name!r} failed: {exc}'"), "'ZeroDivisionError'"),
        (swap("json.loads(arguments_json or '{}')", "json.loads(arguments_json)"), "'ping', ''"),
        # adv2: valid JSON that reads as false (null, [], 0, false) became {} and ran the tool
        (
            swap("json.loads(arguments_json or '{}')", "json.loads(arguments_json or '{}') or {}"),
            "safe_execute(functions, 'ping', '[]') should fail with code INVALID_ARGUMENTS",
        ),
        # the tool runs twice: once to see whether it raises, once for the envelope
        (
            swap(
                "return {'ok': True, 'value': functions[name](**arguments)}",
                "functions[name](**arguments)\n"
                "return {'ok': True, 'value': functions[name](**arguments)}",
            ),
            "notes filed by one",
        ),
    ],
    ids=[
        "only-lists-refused",
        "only-close-names",
        "narrow-except",
        "column",
        "no-type",
        "empty",
        "falsy-json-as-empty",
        "runs-twice",
    ],
)
def test_a_wrong_safe_execute_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("4.1", answer("4.1", change)).text()


def _not_done_where_json_is_bad(tree: ast.Module) -> None:
    handler = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ExceptHandler) and "JSONDecodeError" in ast.unparse(node.type)
    )
    handler.body.insert(0, ast.parse("raise NotImplementedError('JSON errors')").body[0])


def _without_the_recursion_handler(tree: ast.Module) -> None:
    """adv3: only JSONDecodeError caught, so json.loads' RecursionError escapes."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            node.handlers = [
                h
                for h in node.handlers
                if not (isinstance(h.type, ast.Name) and h.type.id == "RecursionError")
            ]


def _type_error_read_as_bad_arguments(functions: dict, name: str, arguments_json: str) -> dict:
    """adv3: any TypeError reported as INVALID_ARGUMENTS, even one raised inside the tool."""
    result = answer("4.1")(functions, name, arguments_json)
    if not result["ok"] and "TypeError" in result["error"]["message"]:
        result["error"]["code"] = "INVALID_ARGUMENTS"
    return result


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (answer("4.1", _without_the_recursion_handler), "raised RecursionError"),
        (
            _type_error_read_as_bad_arguments,
            "'label', '{\"count\": 3}') should fail with code EXECUTION_ERROR",
        ),
    ],
    ids=["recursion-escapes", "type-error-as-invalid-arguments"],
)
def test_a_safe_execute_that_misreads_an_exception_is_rejected(wrong: Any, words: str) -> None:
    assert words in verdict("4.1", wrong).text()


def test_a_half_finished_safe_execute_is_not_done() -> None:
    verdict("4.1", answer("4.1", _not_done_where_json_is_bad), Status.NOT_DONE)


def _execute_step_by_step(functions: dict, name: str, arguments_json: str) -> dict:
    """A correct 4.1 with one exit: each step sets `error` or moves on."""
    error = None
    function = functions.get(name)
    if function is None:
        error = ("UNKNOWN_TOOL", f"{name!r} is no tool; the tools are {sorted(functions)}")
    else:
        try:
            arguments = json.loads(arguments_json) if arguments_json.strip() else {}
        except (ValueError, RecursionError) as exc:
            error = ("INVALID_JSON", f"{name}: bad JSON at character {getattr(exc, 'pos', 0)}")
        else:
            if type(arguments) is not dict:
                error = ("INVALID_ARGUMENTS", f"{name} takes a JSON object of arguments")
            else:
                try:
                    value = function(**arguments)
                except Exception as exc:
                    error = ("EXECUTION_ERROR", f"{name} raised {exc.__class__.__name__}")
    if error:
        return {"ok": False, "error": {"code": error[0], "message": error[1]}}
    return {"ok": True, "value": value}


def test_a_correct_safe_execute_written_differently_passes() -> None:
    verdict("4.1", _execute_step_by_step, Status.PASSED)


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


_GOT = "f\"{path}: got {json.dumps(problem['input'])}, expected {expected}\""
_INVALID = (
    "f\"Invalid arguments for {tool}: {'; '.join(problems)}. Fix them and call {tool} again.\""
)
_UNKNOWN_ARGUMENT = "f\"{path}: unknown argument (accepted: {', '.join(properties)})\""


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # 'input' of a missing argument is the whole arguments object, not a bad value
        (
            swap(
                "f'{path}: missing required argument'",
                "f\"{path}: missing required argument, got {json.dumps(problem['input'])}\"",
            ),
            "quotes 'kelvin'",
        ),
        (
            swap(_INVALID, "f\"Invalid arguments: {'; '.join(problems)}. Call {tool} again.\""),
            "must start with the tool",
        ),
        (
            swap(
                _UNKNOWN_ARGUMENT,
                "f\"{path}: unknown argument (accepted: {', '.join(list(properties)[1:])})\"",
            ),
            "'value'",
        ),
        (
            swap(_UNKNOWN_ARGUMENT, "f\"{path}: argument (accepted: {', '.join(properties)})\""),
            "does not exist",
        ),
        (swap("'; '.join(problems)", "'; '.join(problems[:1])"), "'rankine'"),
        # the problem dict itself, pasted
        (swap(f"problems.append({_GOT})", "problems.append(str(problem))"), "internals"),
        # adv3: the bad value written bare (str), not quoted
        (swap("json.dumps(problem['input'])", "problem['input']"), "without quotes"),
    ],
    ids=[
        "missing-quotes-input",
        "tool-last",
        "accepted-off-by-one",
        "extra-not-called-unknown",
        "first-only",
        "problem-dicts",
        "value-unquoted",
    ],
)
def test_a_wrong_actionable_message_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("4.2", answer("4.2", change)).text()


def _message_from_the_schema(tool: str, schema: dict, error: Any) -> str:
    """A correct 4.2 that reads the expectation from the schema into sentences."""
    names = list(schema["properties"])
    lines = []
    for problem in error.errors(include_url=False):
        argument = problem["loc"][0]
        if problem["type"] == "missing":
            lines.append(f"'{argument}' is missing")
        elif problem["type"] == "extra_forbidden":
            lines.append(f"'{argument}' does not exist; use {' or '.join(names)}")
        else:
            spec = schema["properties"][argument]
            allowed = spec.get("enum") or [spec["type"]]
            lines.append(f"'{argument}' was {problem['input']!r} but must be {'/'.join(allowed)}")
    return f"{tool} was called wrongly: " + "; ".join(lines)


def test_a_correct_actionable_message_written_differently_passes() -> None:
    verdict("4.2", _message_from_the_schema, Status.PASSED)


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
_PATH = 'path = re.compile(rf"(?<![\\w.~/:-])/(?:{segment}+/)+{segment}*")'


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap(_WORDS, _WORDS.replace("SECRET_WORDS", "SECRET_WORDS[:2]")), "hunter2hunter2"),
        (swap("len(value) >= 4", "len(value) > 4"), "x9q2"),
        (
            swap(
                "text = text.replace(value, '[redacted]')",
                "text = re.sub(value, '[redacted]', text)",
            ),
            "p4ss+word.1",
        ),
        (
            swap("text.replace(value, '[redacted]')", "text.replace(value, '[redacted]', 1)"),
            "p4ss+word.1",
        ),
        (
            swap(
                "match.group(0).rsplit('/', 1)[-1]",
                "'/'.join(match.group(0).rsplit('/', 2)[-2:])",
            ),
            "'<path>/q3.csv'",
        ),
        (swap(_PATH, _PATH.replace("(?:{segment}+/)+", "(?:{segment}+/){{2,}}")), "/root"),
        (swap(_PATH, _PATH.replace("(?<![\\w.~/:-])", "(?<=[\\s'\\\"(\\[])")), "/root"),
        (
            swap("segment = ...", "segment = r'[^\\s/\\'\"]'"),
            "'copied <path>/a.csv,<path>/b.csv'",
        ),
        # every long value redacted, whatever its variable's name
        (swap(f"len(value) >= 4 and {_WORDS}", "len(value) >= 4"), "alice"),
        # path segments of ASCII letters only
        (swap("segment = ...", "segment = r'[A-Za-z0-9_.~-]'"), "données"),
        # the values in the set's order: caught whatever the hash seed (the mutation run found
        # a seed where the one prefix pair came longest first)
        (swap("sorted(secrets, key=len, reverse=True)", "secrets"), "replace the longest first"),
        # adv3: the secret word only at the end of the name
        (swap(_WORDS, "name.upper().endswith(SECRET_WORDS)"), "TOKEN_SYNC_SERVICE"),
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
        "every-value-secret",
        "ascii-paths",
        "unsorted-secrets",
        "word-at-the-end-only",
    ],
)
def test_a_wrong_redact_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("4.3", answer("4.3", change)).text()


def _redact_by_splitting(text: str, environ: dict) -> str:
    """A correct 4.3 without a regular expression for paths: word by word."""
    secret = ("KEY", "TOKEN", "SECRET", "PASSWORD")
    values = [v for k, v in environ.items() if len(v) > 3 and any(w in k.upper() for w in secret)]
    for value in sorted(values, key=lambda v: -len(v)):
        text = "[redacted]".join(text.split(value))
    stops = set(" \t\n'\"()[]{},;:<>|")
    out, i = [], 0
    while i < len(text):
        before = text[i - 1] if i else " "
        if text[i] != "/" or before.isalnum() or before in "_.~/:-":
            out.append(text[i])
            i += 1
            continue
        end = i
        while end < len(text) and text[end] not in stops:
            end += 1
        parts = text[i:end].split("/")
        is_path = len(parts) > 2 and all(parts[1:-1])
        out.append("<path>/" + parts[-1] if is_path else text[i:end])
        i = end
    return "".join(out)


def test_a_correct_redact_written_differently_passes() -> None:
    verdict("4.3", _redact_by_splitting, Status.PASSED)


def _redact_paths_between_delimiters(text: str, environ: dict) -> str:
    """4.3 with paths only between the delimiters that end one: 'x=/opt/a.sh' is left alone."""
    secret = ("KEY", "TOKEN", "SECRET", "PASSWORD")
    values = [v for k, v in environ.items() if len(v) > 3 and any(w in k.upper() for w in secret)]
    for value in sorted(values, key=lambda v: -len(v)):
        text = text.replace(value, "[redacted]")
    pieces = re.split(r"""(\s|['"(),;:\[\]{}<>|])""", text)
    for index, piece in enumerate(pieces):
        if re.fullmatch(r"/(?:[^/]+/)+[^/]*", piece) and not re.search(
            r"[\w.~/:-]$", "".join(pieces[:index])
        ):
            pieces[index] = "<path>/" + piece.rsplit("/", 1)[-1]
    return "".join(pieces)


def test_a_path_after_an_equals_sign_is_a_path() -> None:
    # Held-out round 5: the text said where a path ends, not where it starts; it now says both
    # (a '/' that follows no letter, digit, '.', '~', '/', ':' or '-'), and 'x=/opt/...' is one.
    text = verdict("4.3", _redact_paths_between_delimiters).text()
    assert "'x=<path>/run.sh" in text


def test_an_envelope_that_claims_to_equal_everything_does_not_pass_4_1() -> None:
    def liar(functions, name, arguments):
        result = reference("4.1")(functions, name, arguments)
        return YesDict() if result["ok"] else result

    assert "YesDict (a subclass of dict)" in verdict("4.1", liar).message


def test_a_message_that_claims_to_contain_every_word_does_not_pass_4_2() -> None:
    assert "should return a str" in verdict("4.2", lambda *a: YesStr("x")).message


def test_a_text_that_claims_to_equal_the_redacted_text_does_not_pass_4_3() -> None:
    assert "should return a str" in verdict("4.3", lambda text, env: YesStr(text)).message
