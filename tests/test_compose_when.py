"""`when`: a predicate or a condition tool picks one branch; answers that are not bools fail."""

from __future__ import annotations

import pytest

from tests.compose_tools import Recorder, registry, tools
from toolsys import Registry, ToolDefinitionError
from toolsys.compose import when
from toolsys.spec import Category
from toolsys.tool import tool_from_function


def small(amount: float) -> bool:
    """Whether an amount is small enough to refund without a human.

    Args:
        amount: The amount asked for.
    """
    return amount <= 100


def build(condition: object) -> Registry:
    reg = registry()
    reg.add(when("refund_or_escalate", condition, reg.get("refund"), reg.get("escalate")))  # type: ignore[arg-type]
    return reg


def test_a_predicate_over_the_arguments_picks_the_branch() -> None:
    reg = build(lambda args: (args["amount"] or 0) <= 100)
    assert reg.execute("refund_or_escalate", {"order_id": "A", "amount": 20}).value == (
        "refunded A (20.0)"
    )
    assert reg.execute("refund_or_escalate", {"order_id": "A", "amount": 500}).value == (
        "escalated A: large refund"
    )


def test_the_schema_requires_what_both_branches_require() -> None:
    built = build(lambda args: True).get("refund_or_escalate")
    assert built.parameters["required"] == ["order_id"]
    assert set(built.parameters["properties"]) == {"order_id", "amount", "reason"}
    assert "default" not in built.parameters["properties"]["reason"] or (
        built.parameters["properties"]["reason"]["default"] == "large refund"
    )
    assert built.category == Category.EXECUTE and built.idempotent is False


def test_a_condition_tool_runs_as_an_inner_call_and_its_parameters_are_required() -> None:
    recorder = Recorder()
    reg = registry(recorder)
    reg.add(when("r", tool_from_function(small), reg.get("refund"), reg.get("escalate")))
    assert "amount" in reg.get("r").parameters["required"]
    result = reg.execute("r", {"order_id": "A", "amount": 500}, call_id="c9")
    assert result.value == "escalated A: large refund"
    assert [(name, call_id) for name, call_id, _, _ in recorder.seen] == [
        ("r", "c9"),
        ("small", "c9/condition"),
        ("escalate", "c9/otherwise"),
    ]


@pytest.mark.parametrize("answer", ["false", 0, None, [True]])
def test_a_condition_that_is_not_a_bool_is_an_error_not_a_truthy_guess(answer: object) -> None:
    reg = build(lambda args: answer)
    result = reg.execute("refund_or_escalate", {"order_id": "A"})
    assert not result.ok and result.error is not None
    assert "not True or False" in result.error.message
    assert result.error.details["failed_step"]["step"] == "condition"


def test_a_predicate_that_raises_is_an_envelope_without_a_traceback() -> None:
    reg = build(lambda args: args["missing"])
    result = reg.execute("refund_or_escalate", {"order_id": "A"})
    assert not result.ok and result.error is not None
    assert "The condition of 'refund_or_escalate'" in result.error.message
    assert "KeyError" in result.error.message and "Traceback" not in result.to_message()


def test_a_failing_branch_is_named_in_the_envelope() -> None:
    reg = registry()
    reg.add(when("w", lambda args: False, reg.get("refund"), reg.get("find_order")))
    error = reg.execute("w", {"order_id": "A", "email": "nobody@example.com"}).error
    assert error is not None and error.code == "ORDER_NOT_FOUND"
    assert error.message.startswith("The 'otherwise' branch of 'w' ('find_order') failed")


def test_a_branch_missing_an_argument_tells_the_model_to_call_the_composite_again() -> None:
    reg = registry()
    reg.add(when("w", lambda args: False, reg.get("find_order"), reg.get("refund")))
    error = reg.execute("w", {"email": "a@example.com"}).error
    assert error is not None and error.code == "INVALID_ARGUMENTS"
    assert error.suggestion == "Fix these arguments and call w again: add order_id."


def test_a_condition_that_is_neither_a_tool_nor_callable_is_refused_when_built() -> None:
    t = tools()
    with pytest.raises(ToolDefinitionError, match="neither a Tool nor a predicate"):
        when("w", True, t["refund"], t["escalate"])  # type: ignore[arg-type]
