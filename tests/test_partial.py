"""Partial: a success that lists its failures and says exactly which items to retry."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolsys import Category, ErrorInfo, Partial, Registry, ToolError


def refund_batch(orders: list[str]) -> Partial:
    done, failed = [], []
    for order in orders:
        if order.startswith("busy"):
            failed.append({"item": order, "error": ToolError("RATE_LIMITED", "", retryable=True)})
        elif order.startswith("gone"):
            failed.append({"item": order, "error": ToolError("NOT_FOUND", f"No order {order}.")})
        else:
            done.append(order)
    return Partial(done=done, failed=failed)


def test_a_partial_result_is_ok_lists_failures_and_names_exactly_what_to_retry() -> None:
    registry = Registry()
    registry.register(
        refund_batch, description="Refund orders.", category=Category.WRITE, name="refund_batch"
    )
    result = registry.execute("refund_batch", {"orders": ["A-1", "busy-2", "A-3", "gone-4"]})
    assert result.ok
    envelope = json.loads(result.to_message())
    assert envelope["ok"] is True
    value = envelope["value"]
    assert value["done"] == ["A-1", "A-3"]
    assert value["retry"] == ["busy-2"]
    assert [f["item"] for f in value["failed"]] == ["busy-2", "gone-4"]
    assert value["failed"][1]["error"]["code"] == "NOT_FOUND"
    assert value["message"] == (
        '2 of 4 items done; 2 failed. Retry only these: "busy-2". Do not retry these unchanged '
        '(their errors, NOT_FOUND, are not temporary): "gone-4". Do not repeat the items that '
        "are done."
    )


def test_every_kind_of_error_is_accepted_and_judged_retryable_correctly() -> None:
    partial = Partial(
        done=[],
        failed=[
            ("a", ErrorInfo("X", "x", retryable=True)),
            ("b", TimeoutError("slow")),
            ("c", ValueError("bad")),
            ("d", {"code": "Y", "message": "y", "retryable": True}),
            ("e", "plain words"),
        ],
    )
    assert partial.retry == ["a", "b", "d"]
    assert [f["error"]["code"] for f in partial.failed] == [
        "X",
        "ITEM_FAILED",
        "ITEM_FAILED",
        "Y",
        "ITEM_FAILED",
    ]
    assert "0 of 5 items done" in partial["message"]
    assert "Do not repeat the items that are done" not in partial["message"]


def test_all_done_says_so_and_many_retries_are_all_listed() -> None:
    assert Partial(done=[1, 2])["message"] == "All 2 items done."
    many = Partial(failed=[(i, ToolError("BUSY", "", retryable=True)) for i in range(25)])
    assert many.retry == list(range(25))
    assert "and 5 more (all listed in this result)" in many["message"]


def test_an_error_message_is_redacted_like_any_envelope(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "s3cr3t-value")
    partial = Partial(failed=[("a", RuntimeError("token s3cr3t-value rejected"))])
    assert "s3cr3t-value" not in json.dumps(partial)


@pytest.mark.parametrize(
    "bad",
    [
        {"done": "abc"},
        {"failed": [{"item": 1}]},
        {"failed": [("a", 42)]},
        {"failed": {"item": 1, "error": "x"}},
    ],
)
def test_a_malformed_partial_is_refused_with_the_expected_shape(bad: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="Partial"):
        Partial(**bad)
