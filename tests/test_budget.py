"""A result budget keeps every tool message within its size, and says what it cut."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import Registry, ToolResult, models
from toolsys.budget import MIN_BUDGET, fit_result, result_budget
from toolsys.errors import ErrorInfo
from toolsys.loop import run_agent


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
    assert fitted.meta["truncated_from"] == size


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
def test_a_budget_too_small_or_not_an_integer_is_refused(bad):
    with pytest.raises(ValueError, match="max_chars"):
        fit_result(ToolResult.success(1), bad)
    with pytest.raises(ValueError, match="max_chars"):
        result_budget(bad)


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


def test_as_a_layer_no_tool_message_in_a_run_exceeds_the_budget():
    registry = _big_registry()
    flooded = run_agent(models.client(), registry, "Search the logs for timeout")
    registry.use(result_budget(4000))
    budgeted = run_agent(models.client(), registry, "Search the logs for timeout")
    flood = max(len(m["content"]) for m in flooded.messages if m["role"] == "tool")
    assert flood > 150_000
    sizes = [len(m["content"]) for m in budgeted.messages if m["role"] == "tool"]
    assert sizes and max(sizes) <= 4000
    assert budgeted.usage["prompt_tokens"] < flooded.usage["prompt_tokens"] / 10
    envelope = json.loads(budgeted.messages[2]["content"])
    assert envelope["error"]["code"] == "RESULT_TOO_LARGE"
    assert "'search_logs'" in envelope["error"]["message"]  # the layer names the tool
