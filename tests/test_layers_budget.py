"""Result budgets: cut on JSON boundaries with the exact totals, or refused when asked."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsys import ErrorCode, Registry
from toolsys.layers import NO_TRUNCATE, Idempotency, ResultBudget

MIB = 1_048_576


def budgeted(value: Any, *, max_chars: int = 4000, **options: Any) -> Registry:
    registry = Registry(layers=[ResultBudget(max_chars=max_chars)])

    def search(query: str = "", offset: int = 0) -> Any:
        """Search.

        Args:
            query: What to look for.
            offset: Where to start.
        """
        return value

    def report() -> Any:
        """A report."""
        return value

    registry.register(search, **options)
    registry.register(report, **options)
    return registry


def test_a_long_text_is_cut_with_a_marker_stating_the_exact_total() -> None:
    result = budgeted("x" * MIB).execute("search")
    assert result.ok and result.meta["truncated"] is True
    message = json.loads(result.to_message())  # the cut result still parses
    value = message["value"]
    assert value["truncated"] == (
        "Cut to fit: shown 4,000 of 1,048,576 characters; ask for a narrower query or pass "
        "offset=4000."
    )
    assert value["shown"] == "x" * 4000
    assert (result.meta["shown_chars"], result.meta["total_chars"]) == (4000, MIB)


def test_offset_is_offered_only_when_the_tool_has_an_offset_parameter() -> None:
    result = budgeted("x" * 5000).execute("report")
    marker = result.value["truncated"]
    assert "shown 4,000 of 5,000 characters; ask for a narrower query." in marker
    assert "offset" not in marker


def test_a_long_list_keeps_the_whole_items_that_fit_and_counts_them() -> None:
    rows = [{"id": i, "name": f"row {i}"} for i in range(10_000)]
    result = budgeted(rows).execute("search")
    shown = result.value["shown"]
    total = len(json.dumps(rows, ensure_ascii=False))
    assert shown == rows[: len(shown)] and len(json.dumps(shown)) <= 4000
    assert result.value["truncated"] == (
        f"Cut to fit: shown {len(shown):,} of 10,000 items ({result.meta['shown_chars']:,} of "
        f"{total:,} characters); ask for a narrower query or pass offset={len(shown)}."
    )


def test_a_list_whose_first_item_is_too_big_shows_part_of_it_and_offers_no_offset() -> None:
    result = budgeted(["z" * 10_000, "next"]).execute("search")
    assert result.value["shown"][0] == "z" * len(result.value["shown"][0])
    assert "shown 0 of 2 items (the first one cut)" in result.value["truncated"]
    assert "offset" not in result.value["truncated"]


def test_a_nested_object_is_cut_inside_and_keeps_its_first_keys() -> None:
    value = {"query": "q", "count": 3, "rows": ["y" * 3000] * 3, "after": "never shown"}
    result = budgeted(value).execute("report")
    shown = result.value["shown"]
    assert shown["query"] == "q" and shown["count"] == 3 and "after" not in shown
    assert shown["rows"][0] == "y" * 3000 and len(json.dumps(shown)) <= 4000


def test_a_result_within_the_budget_is_untouched() -> None:
    result = budgeted({"a": 1}).execute("search")
    assert result.value == {"a": 1} and "truncated" not in result.meta


def test_a_tool_that_asks_for_refusal_gets_result_too_large() -> None:
    result = budgeted("x" * MIB, tags=(NO_TRUNCATE,)).execute("report")
    error = result.error
    assert error is not None and error.code == ErrorCode.RESULT_TOO_LARGE
    assert "1,048,576 characters, over the 4,000-character budget" in error.message
    assert error.details == {"total_chars": MIB, "max_chars": 4000}
    assert result.meta["truncated"] is False
    refused = Registry(layers=[ResultBudget(max_chars=100, refuse=True)])
    refused.register(lambda: "y" * 101, name="any_tool", description="Anything.")
    assert refused.execute("any_tool").error.code == ErrorCode.RESULT_TOO_LARGE  # type: ignore[union-attr]


def test_a_replay_is_cut_exactly_as_the_first_answer_was() -> None:
    runs: list[int] = []
    registry = Registry(layers=[ResultBudget(max_chars=200), Idempotency()])

    @registry.tool(idempotent=False)
    def dump() -> list[int]:
        """Dumps numbers."""
        runs.append(1)
        return list(range(1000))

    first = registry.execute("dump", idempotency_key="k")
    replay = registry.execute("dump", idempotency_key="k")
    assert runs == [1] and replay.meta["replayed"] is True
    assert replay.value == first.value and replay.meta["truncated"] is True


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)  # JSON has neither
    | st.text(),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(), inner, max_size=8),
    max_leaves=60,
)


@given(value=json_values, budget=st.integers(100, 400))
def test_any_cut_value_parses_fits_and_states_its_total(value: Any, budget: int) -> None:
    result = budgeted(value, max_chars=budget).execute("report")
    message = json.loads(result.to_message())
    total = len(value) if isinstance(value, str) else len(json.dumps(value, ensure_ascii=False))
    if total <= budget:
        assert message["value"] == value
        return
    shown = message["value"]["shown"]
    size = len(shown) if isinstance(value, str) else len(json.dumps(shown, ensure_ascii=False))
    assert size <= budget
    assert f"of {total:,} characters" in message["value"]["truncated"]


@pytest.mark.parametrize("bad", [0, 99, 4000.0, "4000"])
def test_a_bad_budget_is_refused_with_the_value_named(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_chars="):
        ResultBudget(max_chars=bad)
