"""`parallel`: merged input (conflicts refused when built), partial success as data."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from tests.compose_tools import registry, tools
from toolsys import Registry, ToolDefinitionError, ToolError
from toolsys.compose import parallel
from toolsys.spec import Category
from toolsys.tool import tool_from_function


def stock(order_id: str) -> int:
    """Units in stock for an order's item.

    Args:
        order_id: The order.
    """
    return 3


def broken(order_id: str) -> int:
    """Always fails.

    Args:
        order_id: The order.
    """
    raise ToolError("DOWN", "The stock service is down.", retryable=True)


def test_the_merged_input_requires_what_any_child_requires() -> None:
    t = tools()
    built = parallel("both", [t["find_order"], t["refund"]])
    assert set(built.parameters["properties"]) == {"email", "order_id", "amount"}
    assert sorted(built.parameters["required"]) == ["email", "order_id"]
    assert built.category == Category.WRITE and built.idempotent is False


def test_a_shared_parameter_with_one_type_is_sent_to_every_child() -> None:
    reg = registry()
    reg.add(parallel("overview", [reg.get("refund"), stock]))
    result = reg.execute("overview", {"order_id": "ORD-1"})
    assert result.ok
    assert result.value == {
        "complete": True,
        "results": {"refund": "refunded ORD-1", "stock": 3},
        "errors": {},
    }


def test_a_shared_parameter_with_different_types_is_refused_naming_both_children() -> None:
    def lookup(order_id: int) -> int:
        """Find by number.

        Args:
            order_id: The order number.
        """
        return order_id

    with pytest.raises(ToolDefinitionError) as caught:
        parallel("both", [tools()["refund"], lookup])
    text = str(caught.value)
    assert "'order_id' is string in 'refund' but integer in 'lookup'" in text
    assert "Rename the parameter" in text


class Address(BaseModel):
    city: str


class Other(BaseModel):
    street: str


def ship(to: Address) -> str:
    """Ship."""
    return "ok"


def bill(to: Other) -> str:
    """Bill."""
    return "ok"


def test_nested_models_with_different_fields_conflict_even_under_one_name() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        parallel("both", [ship, bill])
    assert "'to' is {" in str(caught.value) and '"city"' in str(caught.value)
    assert '"street"' in str(caught.value)


def test_a_nullable_and_a_plain_parameter_merge_to_the_plain_one() -> None:
    def total(amount: float) -> float:
        """Total."""
        return amount

    built = parallel("both", [tools()["refund"], total])
    assert built.parameters["properties"]["amount"]["type"] == "number"
    assert "amount" in built.parameters["required"]
    reg = Registry()
    reg.add(built)
    assert not reg.execute("both", {"order_id": "A", "amount": None}).ok
    assert reg.execute("both", {"order_id": "A", "amount": 2.5}).value["complete"] is True


def test_some_children_failing_is_a_partial_success_with_their_envelopes() -> None:
    reg = Registry()
    reg.add(parallel("overview", [stock, broken]))
    result = reg.execute("overview", {"order_id": "ORD-1"})
    assert result.ok
    assert result.value["complete"] is False
    assert result.value["results"] == {"stock": 3}
    assert result.value["errors"]["broken"]["code"] == "DOWN"


def test_every_child_failing_is_a_failure_with_each_envelope() -> None:
    def also_broken(order_id: str) -> int:
        """Also fails."""
        raise ToolError("DOWN", "Also down.", retryable=True)

    reg = Registry()
    reg.add(parallel("overview", [broken, also_broken]))
    result = reg.execute("overview", {"order_id": "ORD-1"})
    assert not result.ok and result.error is not None
    assert result.error.code == "DOWN" and result.error.retryable is True
    assert set(result.error.details["errors"]) == {"broken", "also_broken"}
    assert "Every child of 'overview' failed" in result.error.message


def test_different_codes_when_all_fail_become_execution_error() -> None:
    def crash(order_id: str) -> int:
        """Crashes."""
        raise RuntimeError("boom")

    reg = Registry()
    reg.add(parallel("overview", [broken, crash]))
    error = reg.execute("overview", {"order_id": "ORD-1"}).error
    assert error is not None and error.code == "EXECUTION_ERROR" and error.retryable is False


def test_two_children_with_one_name_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="two children are named 'stock'"):
        parallel("p", [stock, stock])


def test_async_children_overlap() -> None:
    started: list[str] = []
    both = asyncio.Event()

    async def first(order_id: str) -> str:
        """First."""
        started.append("first")
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)
        return "a"

    async def second(order_id: str) -> str:
        """Second."""
        started.append("second")
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)
        return "b"

    reg = Registry()
    reg.add(parallel("p", [tool_from_function(first), tool_from_function(second)]))
    result = reg.execute("p", {"order_id": "x"})
    assert result.ok and result.value["results"] == {"first": "a", "second": "b"}
