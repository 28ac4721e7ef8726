"""Arguments as JSON Schema reads them: integral floats are integers, nulls for defaults are
omissions at any depth, and only JSON gets through (never a value stringified into validity).

Both doors are held to it: `Tool.validate` (a decoded dict) and `Tool.validate_json` (raw text),
and `Registry.execute` turns a refusal into INVALID_ARGUMENTS.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import ValidationError

from toolsys import Registry
from toolsys.tool import Tool, tool_from_function


class Item(BaseModel):
    sku: str
    quantity: int = 1


def order(count: int, items: list[Item], sizes: list[int] | None = None, note: str = "") -> dict:
    """Place an order.

    Args:
        count: How many orders.
        items: What to buy.
        sizes: Sizes, whole numbers.
        note: Free text.
    """
    return {"count": count, "items": [i.model_dump() for i in items], "sizes": sizes, "note": note}


def store(payload: Any, label: str = "") -> str:
    """Store anything.

    Args:
        payload: Any JSON value.
        label: A label.
    """
    return repr(payload)


def ratio(x: float) -> float:
    """Half of x.

    Args:
        x: A number.
    """
    return x / 2


def on(day: dt.date) -> str:
    """A day.

    Args:
        day: The day.
    """
    return day.isoformat()


ORDER = tool_from_function(order)
STORE = tool_from_function(store)
RATIO = tool_from_function(ratio)


def _both(tool: Tool, arguments: dict) -> list[Any]:
    """What each door makes of the same arguments: the model, or the ValidationError."""
    results = []
    for door in (
        lambda: tool.validate(arguments),
        lambda: tool.validate_json(json.dumps(arguments)),
    ):
        try:
            results.append(door())
        except ValidationError as exc:
            results.append(exc)
    return results


# -- integral floats ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"count": 2.0, "items": []}, {"count": 2, "items": [], "sizes": None, "note": ""}),
        (
            {"count": 1, "items": [{"sku": "A", "quantity": 3.0}], "sizes": [1.0, 2]},
            {"count": 1, "items": [{"sku": "A", "quantity": 3}], "sizes": [1, 2], "note": ""},
        ),
        ({"count": -0.0, "items": []}, {"count": 0, "items": [], "sizes": None, "note": ""}),
        (
            {"count": 1e20, "items": []},
            {"count": 10**20, "items": [], "sizes": None, "note": ""},
        ),
    ],
)
def test_an_integral_float_is_an_integer_at_any_depth(arguments: dict, expected: dict) -> None:
    for model in _both(ORDER, arguments):
        assert not isinstance(model, Exception), model
        value = ORDER.call(model)
        assert value == expected
        assert type(value["count"]) is int


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"count": 2.5, "items": []}, ("count",)),
        ({"count": 1, "items": [{"sku": "A", "quantity": 1.5}]}, ("items", 0, "quantity")),
        ({"count": 1, "items": [], "sizes": [1.0, 2.5]}, ("sizes", 1)),
    ],
)
def test_a_fractional_float_is_still_refused_where_it_is(arguments: dict, path: tuple) -> None:
    for error in _both(ORDER, arguments):
        assert isinstance(error, ValidationError)
        assert [e["loc"][: len(path)] for e in error.errors()] == [path]


def test_execute_reports_a_fractional_integer_clearly() -> None:
    registry = Registry()
    registry.register(order)
    result = registry.execute("order", '{"count": 2.5, "items": []}')
    assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"
    assert "count: got 2.5, expected an integer" in result.error.message
    assert registry.execute("order", {"count": 2.0, "items": []}).value["count"] == 2


def test_an_integral_float_where_a_float_is_expected_stays_a_float() -> None:
    for model in _both(RATIO, {"x": 3.0}):
        assert RATIO.call(model) == 1.5


def test_an_integral_float_in_an_any_parameter_is_left_alone() -> None:
    for model in _both(STORE, {"payload": [2.0, {"k": 3.0}]}):
        assert STORE.call(model) == "[2.0, {'k': 3.0}]"


# -- null means "left out" at any depth -------------------------------------------------------


def test_null_for_an_omittable_nested_field_means_its_default() -> None:
    arguments = {"count": 1, "items": [{"sku": "A", "quantity": None}], "note": None}
    for model in _both(ORDER, arguments):
        assert ORDER.call(model)["items"] == [{"sku": "A", "quantity": 1}]


def test_null_for_a_required_nested_field_is_still_refused() -> None:
    arguments = {"count": 1, "items": [{"sku": None, "quantity": 2}]}
    for error in _both(ORDER, arguments):
        assert isinstance(error, ValidationError)
        assert [e["loc"] for e in error.errors()] == [("items", 0, "sku")]


def test_null_for_a_nullable_field_stays_null() -> None:
    for model in _both(ORDER, {"count": 1, "items": [], "sizes": None}):
        assert ORDER.call(model)["sizes"] is None


# -- only JSON ------------------------------------------------------------------------------------


class Opaque:
    def __str__(self) -> str:
        return "looks like a string"


@pytest.mark.parametrize(
    ("tool", "arguments", "path"),
    [
        (STORE, {"payload": Opaque()}, ("payload",)),
        (STORE, {"payload": b"bytes"}, ("payload",)),
        (STORE, {"payload": {1, 2}}, ("payload",)),
        (STORE, {"payload": {"deep": [1, {"x": b"no"}]}}, ("payload", "deep", 1, "x")),
        (STORE, {"payload": {1: "int key"}}, ("payload",)),
        (STORE, {"payload": math.nan}, ("payload",)),
        (STORE, {"payload": [math.inf]}, ("payload", 0)),
        (STORE, {"payload": 1, "label": Opaque()}, ("label",)),
        (ORDER, {"count": 1, "items": [], "note": Opaque()}, ("note",)),
        (ORDER, {"count": 1, "items": [], "note": b"bytes"}, ("note",)),
        (ORDER, {"count": 1, "items": [{"sku": Opaque()}]}, ("items", 0, "sku")),
        (RATIO, {"x": math.nan}, ("x",)),
        (RATIO, {"x": -math.inf}, ("x",)),
    ],
)
def test_a_value_json_cannot_carry_is_refused_with_its_path(
    tool: Tool, arguments: dict, path: tuple
) -> None:
    with pytest.raises(ValidationError) as info:
        tool.validate(arguments)
    assert [e["loc"] for e in info.value.errors()] == [path]


@pytest.mark.parametrize(
    "text",
    [
        '{"payload": NaN}',
        '{"payload": [1, Infinity]}',
        '{"payload": {"x": -Infinity}}',
        '{"payload": 1, "label": NaN}',
    ],
)
def test_json_text_with_nan_or_infinity_is_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        STORE.validate_json(text)
    with pytest.raises(ValidationError):
        STORE.validate_json(text.encode())


def test_nan_as_a_string_is_just_a_string() -> None:
    assert STORE.call(STORE.validate_json('{"payload": "NaN", "label": "Infinity"}')) == "'NaN'"


def test_execute_turns_an_unencodable_value_into_invalid_arguments() -> None:
    registry = Registry()
    registry.register(order)
    for bad in (Opaque(), b"bytes", {"a"}):
        result = registry.execute("order", {"count": 1, "items": [], "note": bad})
        assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"
        assert "note:" in result.error.message and "not a Python" in result.error.message


def test_a_python_caller_may_still_pass_the_declared_type_itself() -> None:
    tool = tool_from_function(on)
    assert tool.call(tool.validate({"day": dt.date(2025, 1, 2)})) == "2025-01-02"
    assert tool.call(tool.validate({"day": "2025-01-02"})) == "2025-01-02"


def test_tuples_are_json_arrays() -> None:
    model = ORDER.validate({"count": 1, "items": (), "sizes": (1, 2.0)})
    assert ORDER.call(model)["sizes"] == [1, 2]
