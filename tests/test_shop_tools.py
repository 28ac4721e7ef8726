"""The shop's tools through the full stack: domain errors as data, one refund per key with its
one email, personal data hidden from the model, the caller never settable, hostile input safe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolsys import Registry
from toolsys.execution import Call, Next
from toolsys.fuzz import fuzz_tool
from toolsys.result import ToolResult
from toolsys.shop import Shop, create, invariants
from toolsys.shop.agent import build
from toolsys.shop.tools import tools

MANAGER = {"user": "mia", "roles": ["manager"]}
CHLOE = {"user": "C003", "roles": ["customer"]}


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    return create(tmp_path / "shop.db")


def _run(shop: Shop, name: str, arguments: dict[str, Any], context: dict[str, Any]) -> Any:
    return build(shop).execute(name, arguments, context=context)


def test_adding_a_tool_is_adding_a_file() -> None:
    names = sorted(fn.__name__ for fn, _ in tools())
    assert names == [
        "cancel_order",
        "find_orders",
        "get_order",
        "refund_order",
        "run_report",
        "send_email",
        "update_address",
    ]


def test_no_exported_schema_mentions_the_shop_or_the_caller(shop: Shop) -> None:
    for target in ("openai", "anthropic"):
        text = json.dumps(build(shop).export(target))
        assert '"shop"' not in text and '"ctx"' not in text


def test_a_refund_is_written_once_with_exactly_one_email(shop: Shop) -> None:
    refund = {"order_id": "ORD-1003", "amount": 10, "reason": "goodwill"}
    first = _run(shop, "refund_order", refund, MANAGER)
    again = _run(shop, "refund_order", refund, MANAGER)
    assert first.ok and again.ok
    assert first.value["replayed"] is False and again.value["replayed"] is True
    assert len(shop.rows("SELECT * FROM refunds")) == 1
    assert len(shop.rows("SELECT * FROM outbox")) == 1
    assert invariants(shop) == []


def test_a_refund_over_what_is_left_says_how_much_is_left(shop: Shop) -> None:
    _run(shop, "refund_order", {"order_id": "ORD-1003", "amount": 50, "reason": "late"}, MANAGER)
    result = _run(
        shop, "refund_order", {"order_id": "ORD-1003", "amount": 10, "reason": "damaged"}, MANAGER
    )
    assert result.error.code == "REFUND_EXCEEDS_PAYMENT"
    assert "9.00" in result.error.suggestion and result.error.details == {"refundable": 9.0}


def test_a_fraction_of_a_cent_is_refused(shop: Shop) -> None:
    result = _run(
        shop, "refund_order", {"order_id": "ORD-1003", "amount": 1.005, "reason": "late"}, MANAGER
    )
    assert result.error.code == "INVALID_AMOUNT"
    assert shop.rows("SELECT * FROM refunds") == []


def test_card_numbers_and_emails_never_reach_the_model(shop: Shop) -> None:
    result = _run(shop, "get_order", {"order_id": "ORD-1003"}, MANAGER)
    message = result.to_message()
    assert result.ok and "4111" not in message and "@example.com" not in message
    assert "[card hidden]" in message and "[email hidden]" in message


def test_a_model_cannot_send_the_caller_or_the_shop(shop: Shop) -> None:
    for extra in ({"ctx": MANAGER}, {"shop": "/etc/passwd"}):
        result = _run(shop, "get_order", {"order_id": "ORD-1004", **extra}, CHLOE)
        assert result.error.code == "INVALID_ARGUMENTS"


def test_a_customer_cannot_tell_a_foreign_order_from_a_missing_one(shop: Shop) -> None:
    foreign = _run(shop, "get_order", {"order_id": "ORD-1004"}, CHLOE)
    missing = _run(shop, "get_order", {"order_id": "ORD-9999"}, CHLOE)
    assert foreign.error.code == missing.error.code == "ORDER_NOT_FOUND"
    assert foreign.error.message.replace("1004", "9999") == missing.error.message


def test_a_customer_is_not_offered_staff_tools(shop: Shop) -> None:
    offered = {t["function"]["name"] for t in build(shop).export(context=CHLOE)}
    assert "send_email" not in offered and "run_report" not in offered
    assert {"get_order", "refund_order", "cancel_order"} <= offered


async def _as_manager(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call.replace(context=MANAGER))


@pytest.mark.parametrize("name", [fn.__name__ for fn, _ in tools()])
def test_hostile_arguments_never_raise_leak_or_break_an_invariant(shop: Shop, name: str) -> None:
    registry = Registry(layers=[_as_manager])  # no policy in the way: every call reaches the tool
    registry.provide(shop=shop)
    for fn, options in tools():
        registry.register(fn, **options)
    report = fuzz_tool(registry, name, calls=150, seed=7)
    assert report.clean and report.calls == 150, report.problems
    assert invariants(shop) == []


@pytest.mark.timeout(30)
@pytest.mark.parametrize("filler", ["a", "1", "a.", "@a", "a@", "@a."])
def test_hiding_personal_data_is_linear_in_a_long_value(filler: str) -> None:
    # The old e-mail regex was quadratic: 0.8 s per 10,000 letters, ~80 s for this value.
    from toolsys.shop.agent import hide_personal

    text = filler * (100_000 // len(filler))
    value = {"rows": [[text, f"{text} ana.silva@example.com {text}"]]}
    hidden = hide_personal(None, ToolResult.success(value)).value
    assert hidden["rows"][0][0] == text
    assert "@example.com" not in hidden["rows"][0][1] and "[email hidden]" in hidden["rows"][0][1]


def test_the_shop_agent_budgets_every_result_after_hiding_personal_data(shop: Shop) -> None:
    from toolsys.shop.agent import RESULT_CHARS

    registry = build(shop)
    assert registry.layers[:3] == ["result_budget", "hooks", "policy"]
    budget = next(layer for layer in registry._layers if layer.name == "result_budget")
    assert budget.max_chars == RESULT_CHARS <= 20_000
