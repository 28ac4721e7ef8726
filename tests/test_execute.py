"""execute/aexecute: every failure is data, the envelope is actionable, nothing leaks."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
from dataclasses import dataclass
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import ErrorCode, Registry, ToolError, ToolResult
from toolsys.execution import Call, Next

reg = Registry()


@reg.tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


@reg.tool
def convert(value: float, unit: Literal["celsius", "fahrenheit"]) -> float:
    """Convert a temperature.

    Args:
        value: The temperature.
        unit: The unit to convert to.
    """
    return value


@reg.tool
def find_order(order_id: str) -> dict:
    """Find an order.

    Args:
        order_id: Like ORD-1.
    """
    raise ToolError(
        "ORDER_NOT_FOUND",
        f"No order {order_id!r}.",
        suggestion="List orders with search_orders first.",
        details={"order_id": order_id},
    )


@reg.tool
def divide(a: float, b: float) -> float:
    """Divide a by b.

    Args:
        a: Dividend.
        b: Divisor.
    """
    return a / b


@reg.tool
async def slow_double(x: int) -> int:
    """Double x, asynchronously.

    Args:
        x: A number.
    """
    await asyncio.sleep(0)
    return 2 * x


@dataclass
class Point:
    x: int
    y: int


@reg.tool
def odd_values(kind: str) -> object:
    """Return values json cannot encode.

    Args:
        kind: Which one.
    """
    return {
        "point": Point(1, 2),
        "set": {3},
        "date": dt.date(2025, 1, 15),
        "bytes": b"abc",
        "object": object.__new__(type("Thing", (), {"__str__": lambda self: "a thing"})),
    }[kind]


def error_of(result: ToolResult):
    assert not result.ok, result
    assert result.error is not None
    return result.error


def test_success_with_dict_and_with_raw_json_agree() -> None:
    assert reg.execute("add", {"a": 1, "b": 2}).value == 3
    assert reg.execute("add", '{"a": 1, "b": 2}').value == 3


def test_meta_names_tool_attempt_and_duration() -> None:
    meta = reg.execute("add", {"a": 1, "b": 2}).meta
    assert meta["tool"] == "add" and meta["attempt"] == 1 and meta["duration_ms"] >= 0


def test_to_message_is_the_json_envelope() -> None:
    assert json.loads(reg.execute("add", {"a": 1, "b": 2}).to_message()) == {"ok": True, "value": 3}


def test_unknown_tool_suggests_close_names() -> None:
    error = error_of(reg.execute("ad", {}))
    assert error.code == ErrorCode.UNKNOWN_TOOL
    assert "Did you mean 'add'?" in error.suggestion
    assert error.details["did_you_mean"] == ["add"] and not error.retryable


def test_unknown_tool_with_other_case_suggests_the_real_name() -> None:
    assert error_of(reg.execute("Divide", {})).details["did_you_mean"] == ["divide"]


def test_invalid_json_gives_the_position() -> None:
    error = error_of(reg.execute("add", '{"a": 1 "b": 2}'))
    assert error.code == ErrorCode.INVALID_JSON
    assert error.details == {"position": 8, "line": 1, "column": 9}
    assert "line 1 column 9" in error.message


@pytest.mark.parametrize("raw", ["", "null", "  ", None])
def test_empty_arguments_mean_no_arguments(raw) -> None:
    error = error_of(reg.execute("add", raw))
    assert error.code == ErrorCode.INVALID_ARGUMENTS
    assert "a: missing required argument (a number): First addend" in error.message


@pytest.mark.parametrize("raw", ["[1, 2]", "3", '"text"'])
def test_arguments_that_are_not_an_object_are_invalid(raw: str) -> None:
    error = error_of(reg.execute("add", raw))
    assert error.code == ErrorCode.INVALID_ARGUMENTS
    assert "expected a JSON object" in error.message


def test_invalid_arguments_name_tool_path_value_and_expectation() -> None:
    error = error_of(reg.execute("add", {"a": "one", "b": 2}))
    assert error.message == "Invalid arguments for 'add': a: got 'one', expected a number."
    assert error.suggestion == "Fix these arguments and call add again: a must be a number."
    assert error.details["problems"] == [
        {"path": "a", "type": "float_type", "value": "one", "expected": "a number"}
    ]


def test_enum_errors_list_the_allowed_values() -> None:
    error = error_of(reg.execute("convert", {"value": 3, "unit": "kelvin"}))
    assert "expected one of 'celsius', 'fahrenheit'" in error.message
    assert error.details["problems"][0]["allowed"] == ["celsius", "fahrenheit"]


def test_unknown_argument_names_what_is_accepted() -> None:
    error = error_of(reg.execute("add", {"a": 1, "b": 2, "c": 3}))
    assert "c: unknown argument (this tool accepts: a, b)" in error.message


def test_strict_by_default_and_coercing_on_request() -> None:
    assert error_of(reg.execute("add", {"a": "1", "b": 2})).code == ErrorCode.INVALID_ARGUMENTS
    lenient = Registry(coerce=True)
    lenient.tool(add)
    assert lenient.execute("add", {"a": "1", "b": 2}).value == 3


def test_tool_error_keeps_the_tools_own_code_and_suggestion() -> None:
    error = error_of(reg.execute("find_order", {"order_id": "ORD-9"}))
    assert (error.code, error.message) == ("ORDER_NOT_FOUND", "No order 'ORD-9'.")
    assert error.suggestion == "List orders with search_orders first."
    assert error.details == {"order_id": "ORD-9"}


def test_exceptions_become_execution_errors_and_keep_the_exception() -> None:
    result = reg.execute("divide", {"a": 1, "b": 0})
    error = error_of(result)
    assert error.code == ErrorCode.EXECUTION_ERROR and not error.retryable
    assert error.message == "Tool 'divide' failed: ZeroDivisionError: float division by zero"
    assert isinstance(result.exception, ZeroDivisionError)


def test_transient_exceptions_are_retryable() -> None:
    local = Registry()

    @local.tool
    def flaky() -> None:
        """Fail like a network."""
        raise ConnectionError("connection reset")

    assert error_of(local.execute("flaky")).retryable


def test_secrets_paths_and_tracebacks_never_reach_the_model(monkeypatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "sk-test-0123456789")
    monkeypatch.setenv("DB_PASSWORD", "hunter2-correct")
    local = Registry()

    @local.tool
    def leak() -> None:
        """Leak everything."""
        raise RuntimeError(
            f"auth {os.environ['SERVICE_API_KEY']} pw={os.environ['DB_PASSWORD']} in "
            "/home/alice/.config/app/settings.py\nTraceback (most recent call last):\n  File x"
        )

    result = local.execute("leak")
    message = result.to_message()
    for leaked in ("sk-test-0123456789", "hunter2-correct", "/home/alice", "Traceback"):
        assert leaked not in message
    assert "[redacted]" in message and "settings.py" in message
    assert "sk-test-0123456789" in str(result.exception)  # the developer still sees it


def test_secret_in_a_successful_value_is_redacted_in_the_message(monkeypatch) -> None:
    monkeypatch.setenv("MY_TOKEN", "tok-abcdef-123")
    local = Registry()

    @local.tool
    def whoami() -> str:
        """Return the token (a bug)."""
        return os.environ["MY_TOKEN"]

    result = local.execute("whoami")
    assert result.value == "tok-abcdef-123"
    assert "tok-abcdef-123" not in result.to_message()


@pytest.mark.parametrize(
    ("kind", "encoded"),
    [
        ("point", {"x": 1, "y": 2}),
        ("set", [3]),
        ("date", "2025-01-15"),
        ("bytes", "<3 bytes>"),
        ("object", "a thing"),
    ],
)
def test_values_json_cannot_encode_still_become_a_message(kind: str, encoded) -> None:
    result = reg.execute("odd_values", {"kind": kind})
    assert json.loads(result.to_message()) == {"ok": True, "value": encoded}


def test_async_tool_through_execute_and_aexecute() -> None:
    assert reg.execute("slow_double", {"x": 2}).value == 4
    assert asyncio.run(reg.aexecute("slow_double", '{"x": 3}')).value == 6


def test_sync_and_async_tools_inside_a_running_event_loop() -> None:
    async def inside_jupyter_cell() -> tuple[object, object, object]:
        return (
            reg.execute("slow_double", {"x": 5}).value,
            reg.execute("add", {"a": 1, "b": 1}).value,
            (await reg.aexecute("add", {"a": 2, "b": 2})).value,
        )

    assert asyncio.run(inside_jupyter_cell()) == (10, 2, 4)


def test_aexecute_never_raises_for_async_failures() -> None:
    local = Registry()

    @local.tool
    async def broken() -> None:
        """Always fails."""
        raise ValueError("bad state")

    error = error_of(asyncio.run(local.aexecute("broken")))
    assert error.message == "Tool 'broken' failed: ValueError: bad state"


def test_system_exit_inside_a_tool_is_contained() -> None:
    local = Registry()

    @local.tool
    def quitter() -> None:
        """Calls sys.exit."""
        raise SystemExit(3)

    assert error_of(local.execute("quitter")).code == ErrorCode.EXECUTION_ERROR


def test_layers_wrap_the_execute_path_in_order() -> None:
    seen: list[str] = []

    async def outer(call: Call, call_next: Next) -> ToolResult:
        seen.append(f"outer>{call.name}")
        result = await call_next(call)
        seen.append("outer<")
        return result

    async def deny_divide(call: Call, call_next: Next) -> ToolResult:
        if call.name == "divide":
            from toolsys import ErrorInfo

            return ToolResult.failure(ErrorInfo("PERMISSION_DENIED", "No dividing today."))
        return await call_next(call)

    local = Registry(layers=[outer])
    local.use(deny_divide)
    local.tool(add)
    local.tool(divide)
    assert local.execute("add", {"a": 1, "b": 2}).value == 3
    assert error_of(local.execute("divide", {"a": 1, "b": 2})).code == "PERMISSION_DENIED"
    assert seen == ["outer>add", "outer<", "outer>divide", "outer<"]


def test_a_failing_layer_is_its_own_error_not_the_tools() -> None:
    async def broken_layer(call: Call, call_next: Next) -> ToolResult:
        raise RuntimeError("layer bug")

    local = Registry(layers=[broken_layer])
    local.tool(add)
    error = error_of(local.execute("add", {"a": 1, "b": 2}))
    assert error.code == ErrorCode.LAYER_ERROR
    assert "broken_layer" in error.message and "not in your arguments" in error.suggestion


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from([*reg.names(), "nope", ""]) | st.text(max_size=10),
    arguments=json_values | st.text(max_size=30) | st.binary(max_size=10),
)
def test_execute_never_raises_whatever_it_is_given(name, arguments) -> None:
    result = reg.execute(name, arguments)
    assert isinstance(result, ToolResult)
    json.loads(result.to_message())


def test_the_full_traceback_goes_to_the_developer_log(caplog) -> None:
    with caplog.at_level("DEBUG", logger="toolsys"):
        reg.execute("divide", {"a": 1, "b": 0})
    record = next(r for r in caplog.records if r.name == "toolsys")
    assert "'divide' raised" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is ZeroDivisionError
