"""calculator refuses results a message cannot carry: huge integers, infinity, NaN, complex.

Each refusal is a ToolError that says what happened, the value's size or kind, and what to do;
`toolsys chat` on such a request ends with a trace, not a traceback.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys.tools import registry

FIVE_POWERS = "9**999*9**999*9**999*9**999*9**999"


def error_of(expression: str) -> dict:
    result = registry.execute("calculator", {"expression": expression})
    assert not result.ok, result
    return json.loads(result.to_message())["error"]


@pytest.mark.parametrize(
    ("expression", "code", "words"),
    [
        (FIVE_POWERS, "RESULT_TOO_LARGE", ["1907 digits", "the limit is 1000"]),
        ("9**999*9**999", "RESULT_TOO_LARGE", ["1907 digits"]),
        ("10**999*10**999 - 10**999*10**999", "RESULT_TOO_LARGE", ["digits"]),
        ("1e999", "RESULT_TOO_LARGE", ["infinity"]),
        ("1e308*10", "RESULT_TOO_LARGE", ["infinity"]),
        ("10.0 ** 999", "RESULT_TOO_LARGE", ["too large for a float"]),
        ("10**400/3", "RESULT_TOO_LARGE", ["too large for a float"]),
        ("sqrt(10**400)", "RESULT_TOO_LARGE", ["sqrt()"]),
        ("(-8) ** 0.5", "NOT_A_REAL_NUMBER", ["complex number"]),
        ("(-1) ** (1/3)", "NOT_A_REAL_NUMBER", ["complex number"]),
        ("0 ** -1", "DIVISION_BY_ZERO", ["negative power"]),
    ],
)
def test_results_a_message_cannot_carry_are_refused_clearly(expression, code, words) -> None:
    error = error_of(expression)
    assert error["code"] == code
    for word in words:
        assert word in error["message"]
    assert expression in error["message"]
    assert error["suggestion"]


def test_large_but_representable_results_still_come_back_exactly() -> None:
    result = registry.execute("calculator", {"expression": "9**999"})
    assert result.ok and result.value == 9**999
    assert json.loads(result.to_message())["value"] == 9**999
    assert registry.execute("calculator", {"expression": "1e308"}).value == 1e308


def test_toolsys_chat_on_a_huge_product_prints_a_trace_not_a_traceback(monkeypatch) -> None:
    from toolsys.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(main, ["chat", f"what is {FIVE_POWERS}"])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code in (0, 1)
    assert "Traceback" not in result.output
    assert "RESULT_TOO_LARGE" in result.output
    data = json.loads(CliRunner().invoke(main, ["chat", "--json", f"what is {FIVE_POWERS}"]).output)
    assert data["status"] == "completed"


NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["9**999", "10**999", "1e308", "1e999", "0", "0.0", "-8", "2**0.5"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
EXPRESSIONS = st.recursive(
    NUMBERS,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), inner).map(
            lambda t: f"({t[0]}) {t[1]} ({t[2]})"
        ),
        st.tuples(st.sampled_from(["sqrt", "abs", "round", "-"]), inner).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(EXPRESSIONS)
def test_any_arithmetic_gives_a_number_or_a_tool_error_and_a_strict_message(expression) -> None:
    result = registry.execute("calculator", {"expression": expression})
    message = result.to_message()
    json.loads(message, parse_constant=lambda c: pytest.fail(f"{c} in {message}"))
    if result.ok:
        assert isinstance(result.value, int | float)
        assert abs(result.value) < 10**1000
    else:
        assert result.error is not None
        assert result.error.code != "EXECUTION_ERROR", result.error.message
