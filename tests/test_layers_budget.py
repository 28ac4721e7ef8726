"""Result budgets: cut on JSON boundaries with the exact totals, or refused when asked."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import ErrorCode, Registry, ToolResult, models
from toolsys.errors import ErrorInfo
from toolsys.layers import NO_TRUNCATE, Idempotency, ResultBudget, fit_result
from toolsys.layers.budget import MIN_BUDGET
from toolsys.loop import run_agent

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


def test_a_tool_that_asks_for_refusal_gets_result_too_large_with_a_preview_that_fits() -> None:
    result = budgeted("x" * MIB, tags=(NO_TRUNCATE,)).execute("report")
    error = result.error
    assert error is not None and error.code == ErrorCode.RESULT_TOO_LARGE
    size = len(ToolResult.success("x" * MIB).to_message())  # measured on the message text
    assert f"{size:,} characters, over the 4,000-character budget" in error.message
    assert error.details["total_chars"] == size and error.details["max_chars"] == 4000
    assert error.details["preview"].startswith('{"ok": true, "value": "xxx')
    assert len(result.to_message()) <= 4000 and len(error.details["preview"]) > 3000
    assert result.meta["truncated"] is False
    refused = Registry(layers=[ResultBudget(max_chars=100, refuse=True)])
    refused.register(lambda: "y" * 101, name="any_tool", description="Anything.")
    small = refused.execute("any_tool")
    assert small.error.code == ErrorCode.RESULT_TOO_LARGE  # type: ignore[union-attr]
    assert len(small.to_message()) <= MIN_BUDGET  # below MIN_BUDGET, the refusal needs room


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


# -- fit_result: the refusal, measured on the message text the model reads --------------------


def test_a_result_that_fits_passes_unchanged():
    result = ToolResult.success({"lines": ["a", "b"]}, tool="logs")
    assert fit_result(result, 1000) is result


def test_a_result_exactly_at_the_budget_fits():
    value = "x" * (1000 - len(ToolResult.success("").to_message()))
    result = ToolResult.success(value)
    assert len(result.to_message()) == 1000
    assert fit_result(result, 1000) is result


def test_an_oversized_result_becomes_result_too_large_with_size_budget_and_preview():
    value = [f"2026-11-30 12:00:{i % 60:02d} ERROR timeout on node-{i}" for i in range(5000)]
    result = ToolResult.success(value, tool="search_logs")
    size = len(result.to_message())
    fitted = fit_result(result, 8000)
    message = fitted.to_message()
    assert len(message) <= 8000
    assert not fitted.ok and fitted.error.code == "RESULT_TOO_LARGE"
    assert f"{size:,}" in fitted.error.message and "8,000" in fitted.error.message
    assert "'search_logs'" in fitted.error.message
    assert "asking for less" in fitted.error.suggestion
    preview = fitted.error.details["preview"]
    assert preview.endswith("…") and result.to_message().startswith(preview[:-1])
    assert len(preview) > 7000  # the room left is used, not wasted
    assert fitted.meta["total_chars"] == size and fitted.meta["truncated"] is False


def test_the_budget_counts_json_escapes_not_python_characters():
    value = '"\n' * 600  # 1,200 characters in Python, about 2,400 in the JSON the model reads
    result = ToolResult.success(value)
    assert len(str(value)) < 2000 < len(result.to_message())
    fitted = fit_result(result, 2000)
    assert not fitted.ok and len(fitted.to_message()) <= 2000


def test_an_oversized_failure_is_cut_too():
    huge = ToolResult.failure(ErrorInfo("E", "m" * 400, details={"dump": "d" * 5000}))
    fitted = fit_result(huge, 1000)
    assert fitted.error.code == "RESULT_TOO_LARGE" and len(fitted.to_message()) <= 1000


@pytest.mark.parametrize("bad", [0, MIN_BUDGET - 1, 1000.0, "8000", True, None])
def test_fit_result_refuses_a_budget_too_small_or_not_an_integer(bad):
    with pytest.raises(ValueError, match="max_chars"):
        fit_result(ToolResult.success(1), bad)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=400),
        lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=40,
    ),
    budget=st.integers(MIN_BUDGET, 3000),
    name=st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=64),
)
def test_whatever_the_result_its_message_fits_the_budget(value, budget, name):
    result = ToolResult.success(value, tool=name)
    fitted = fit_result(result, budget)
    assert len(fitted.to_message()) <= budget
    assert (fitted is result) == (len(result.to_message()) <= budget)


def _big_registry() -> Registry:
    registry = Registry()

    @registry.tool
    def search_logs(query: str) -> list[str]:
        """Search the service logs for lines that contain a word.

        Args:
            query: The word to look for, e.g. "timeout".
        """
        return [f"12:00:{i % 60:02d} node-{i} {query} after 30 s" for i in range(4000)]

    return registry


def test_refusing_layer_no_tool_message_in_a_run_exceeds_the_budget():
    registry = _big_registry()
    flooded = run_agent(models.client(), registry, "Search the logs for timeout")
    registry.use(ResultBudget(max_chars=4000, refuse=True))
    budgeted = run_agent(models.client(), registry, "Search the logs for timeout")
    flood = max(len(m["content"]) for m in flooded.messages if m["role"] == "tool")
    assert flood > 150_000
    sizes = [len(m["content"]) for m in budgeted.messages if m["role"] == "tool"]
    assert sizes and max(sizes) <= 4000
    assert budgeted.usage["prompt_tokens"] < flooded.usage["prompt_tokens"] / 10
    envelope = json.loads(budgeted.messages[2]["content"])
    assert envelope["error"]["code"] == "RESULT_TOO_LARGE"
    assert "'search_logs'" in envelope["error"]["message"]  # the layer names the tool
