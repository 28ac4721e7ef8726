"""`pipeline`: a Tool whose schema is its first step's, fed step to step, failing as data."""

from __future__ import annotations

import asyncio

import pytest

from tests.compose_tools import find_order, registry, tools
from toolsys import Registry, ToolDefinitionError, ToolError
from toolsys.compose import pipeline, step
from toolsys.spec import Category


def test_a_pipeline_is_a_tool_with_the_first_steps_schema_and_the_highest_category() -> None:
    t = tools()
    built = pipeline("lookup_then_refund", [t["find_order"], t["refund"]])
    assert built.parameters == t["find_order"].parameters
    assert built.category == Category.WRITE
    assert built.idempotent is False
    assert built.source == "pipeline"
    assert "find_order, then refund" in built.description


def test_a_pipeline_is_idempotent_only_if_every_step_is() -> None:
    t = tools()
    assert pipeline("p", [t["find_order"], t["escalate"]]).idempotent is True
    assert pipeline("p", [t["find_order"], t["escalate"]]).category == Category.EXECUTE
    assert pipeline("p", [t["find_order"], t["refund"]]).idempotent is False


def test_each_step_gets_earlier_results_by_parameter_name() -> None:
    reg = registry()
    reg.add(pipeline("lookup_then_refund", [reg.get("find_order"), reg.get("refund")]))
    result = reg.execute("lookup_then_refund", {"email": "a@example.com"})
    assert result.ok, result
    assert result.value == "refunded ORD-1"


def test_a_mapping_builds_the_next_steps_arguments() -> None:
    reg = registry()
    mapped = step(
        reg.get("refund"),
        inputs=lambda order, args: {"order_id": order["order_id"], "amount": order["total"] / 2},
    )
    reg.add(pipeline("half_refund", [reg.get("find_order"), mapped]))
    assert reg.execute("half_refund", {"email": "a@example.com"}).value == "refunded ORD-1 (15.0)"


def lower(order_id: str) -> str:
    """Lower-case an order id.

    Args:
        order_id: The order id.
    """
    return order_id.lower()


def not_an_object(email: str) -> str:
    """Return text where the next step needs an object."""
    return "not an object"


def test_plain_functions_are_accepted_as_steps() -> None:
    built = pipeline("p", [find_order, lower])
    reg = Registry()
    reg.add(built)
    assert reg.execute("p", {"email": "a@example.com"}).value == "ord-1"


def test_a_failure_at_step_k_names_the_step_its_envelope_and_the_completed_steps() -> None:
    reg = registry()

    def charge(order_id: str) -> str:
        raise ToolError("CARD_DECLINED", "The card was declined.", suggestion="Ask for another.")

    reg.add(pipeline("p", [reg.get("find_order"), reg.get("refund"), charge]))
    result = reg.execute("p", {"email": "a@example.com"})
    assert not result.ok
    error = result.error
    assert error is not None
    assert error.code == "CARD_DECLINED"
    assert error.message == "Step 3 of 'p' ('charge') failed: The card was declined."
    assert error.details["failed_step"]["tool"] == "charge"
    assert error.details["failed_step"]["error"]["code"] == "CARD_DECLINED"
    assert error.details["completed"] == [
        {"step": 1, "tool": "find_order", "result": {"order_id": "ORD-1", "total": 30.0}},
        {"step": 2, "tool": "refund", "result": "refunded ORD-1"},
    ]
    assert "refund" in error.suggestion  # already done, not safe to repeat
    assert error.retryable is False


def test_a_retryable_failure_is_not_retryable_after_a_write_step_ran() -> None:
    def flaky(order_id: str) -> str:
        raise ToolError("BUSY", "Try later.", retryable=True, retry_after=1.0)

    t = tools()
    reg = Registry()
    reg.add(pipeline("reads", [t["find_order"], flaky]))
    reg.add(pipeline("writes", [t["refund"], flaky]))
    reads = reg.execute("reads", {"email": "a@example.com"}).error
    writes = reg.execute("writes", {"order_id": "ORD-1"}).error
    assert reads is not None and reads.retryable is True and reads.retry_after == 1.0
    assert writes is not None and writes.retryable is False and writes.retry_after is None


def test_the_first_steps_failure_keeps_its_own_code_and_suggestion() -> None:
    reg = registry()
    reg.add(pipeline("p", [reg.get("find_order"), reg.get("refund")]))
    error = reg.execute("p", {"email": "nobody@example.com"}).error
    assert error is not None
    assert (error.code, error.suggestion) == ("ORDER_NOT_FOUND", "Ask the user.")
    assert error.details["completed"] == []


def test_a_result_that_does_not_fit_the_next_step_is_blamed_on_the_pipeline() -> None:
    reg = Registry()
    reg.add(pipeline("p", [not_an_object, tools()["refund"]]))
    error = reg.execute("p", {"email": "a@example.com"}).error
    assert error is not None and error.code == "INVALID_ARGUMENTS"
    assert error.message.startswith("Step 2 of 'p' ('refund') failed")
    assert "not sent by you" in error.suggestion


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        (lambda order, args: order["missing"], "raised KeyError: 'missing'"),
        (lambda order, args: ["order_id"], "gave list, not a dict of arguments"),
    ],
)
def test_a_broken_mapping_is_an_envelope_naming_the_step(inputs: object, said: str) -> None:
    reg = Registry()
    reg.add(pipeline("p", [tools()["find_order"], step(tools()["refund"], inputs=inputs)]))  # type: ignore[arg-type]
    result = reg.execute("p", {"email": "a@example.com"})
    assert not result.ok and result.error is not None
    assert result.error.message.startswith("Step 2 of 'p' ('refund') failed")
    assert said in result.error.message
    assert "Traceback" not in result.to_message()


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        ([], "at least 1 step"),
        ("find_order", "must be a list of tools"),
        ([42], "step 42 is not a tool"),
        ([int], "is not a tool"),
        ([lambda order_id: order_id], "'<lambda>' cannot be exported"),
    ],
)
def test_a_bad_step_list_is_refused_when_built(steps: object, said: str) -> None:
    with pytest.raises(ToolDefinitionError, match=said):
        pipeline("p", steps)  # type: ignore[arg-type]


def test_a_mapping_that_cannot_take_previous_and_arguments_is_refused_when_built() -> None:
    with pytest.raises(ToolDefinitionError, match=r"inputs\(previous_result, arguments\)"):
        step(tools()["refund"], inputs=lambda order: {})  # type: ignore[arg-type,misc]


def test_a_composite_name_providers_refuse_is_refused_when_built() -> None:
    with pytest.raises(ToolDefinitionError, match="1-64 characters"):
        pipeline("billing.refund", [find_order])


def test_a_pipeline_runs_outside_a_registry_too() -> None:
    built = pipeline("p", [tools()["find_order"], tools()["refund"]])
    arguments = built.validate({"email": "a@example.com"})
    assert asyncio.run(built.call(arguments)) == "refunded ORD-1"
