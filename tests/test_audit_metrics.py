"""Usage metrics per tool from audit records: counts, ok rate, error codes, latency, retries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolsys import Registry
from toolsys.governance import AuditLog
from toolsys.governance.audit import read
from toolsys.metrics import UsageTable, plot_usage, usage_stats


def rec(tool: str, outcome: str = "ok", ms: float = 1.0, **more: Any) -> dict[str, Any]:
    return {"tool": tool, "outcome": outcome, "ok": outcome == "ok", "duration_ms": ms, **more}


RECORDS = [
    *(rec("search", ms=float(ms)) for ms in range(1, 19)),
    rec("search", "INVALID_ARGUMENTS", 100.0),
    rec("search", "TIMEOUT", 200.0, retries=2),
    rec("refund", decision="approved", approved_by="maria"),
    rec("refund", "PERMISSION_DENIED", decision="deny"),
    rec("refund", "INVALID_ARGUMENTS"),
    rec("refund", "INVALID_ARGUMENTS"),
    rec("refund", "INVALID_JSON", replayed=True),
]


def test_a_row_per_tool_most_called_first() -> None:
    table = usage_stats(RECORDS)
    assert [row.tool for row in table] == ["search", "refund"]
    assert len(table) == 2


def test_calls_ok_rate_and_error_codes_by_frequency() -> None:
    refund = usage_stats(RECORDS)["refund"]
    assert (refund.calls, refund.ok) == (5, 1)
    assert refund.ok_rate == pytest.approx(0.2)
    assert list(refund.errors.items()) == [
        ("INVALID_ARGUMENTS", 2),
        ("INVALID_JSON", 1),
        ("PERMISSION_DENIED", 1),
    ]
    assert (refund.approvals, refund.denials, refund.replays) == (1, 1, 1)


def test_median_and_nearest_rank_p95_latency_and_retries() -> None:
    search = usage_stats(RECORDS)["search"]
    assert search.median_ms == pytest.approx(10.5)  # 20 values: 1..18, 100, 200
    assert search.p95_ms == 100.0  # rank ceil(0.95 * 20) = 19
    assert search.retries == 2


def test_the_tool_with_the_worst_invalid_arguments_rate() -> None:
    table = usage_stats(RECORDS)
    worst = table.worst("INVALID_ARGUMENTS")
    assert worst is not None and worst.tool == "refund"
    assert table.worst("NEVER_SEEN") is None


def test_missing_or_hostile_fields_do_not_break_the_numbers() -> None:
    table = usage_stats(
        [
            {"tool": "x"},
            {"tool": "x", "duration_ms": float("nan"), "retries": -3, "ok": "yes"},
            {"tool": "x", "duration_ms": True, "retries": "many", "outcome": "BOOM"},
        ]
    )
    row = table["x"]
    assert (row.calls, row.ok, row.retries, row.median_ms) == (3, 0, 0, None)
    assert row.errors == {"BOOM": 1}


def test_the_text_table_and_an_empty_one() -> None:
    text = str(usage_stats(RECORDS))
    assert text.splitlines()[0].split()[:3] == ["tool", "calls", "ok"]
    assert "INVALID_ARGUMENTS 2" in text
    assert str(usage_stats([])) == "no calls"


def test_an_unknown_tool_asked_for_is_a_clear_key_error() -> None:
    with pytest.raises(KeyError, match="No calls of 'nope'"):
        usage_stats(RECORDS)["nope"]


def test_a_record_that_is_not_a_dict_is_refused() -> None:
    with pytest.raises(TypeError, match="a record is a dict"):
        usage_stats(["not a record"])  # type: ignore[list-item]


def test_stats_from_a_real_audit_log(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry = Registry(layers=[AuditLog(path)])

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    registry.execute("add", {"a": 1, "b": 2})
    registry.execute("add", {"a": "one", "b": 2})
    row = usage_stats(read(path))["add"]
    assert (row.calls, row.ok, row.errors) == (2, 1, {"INVALID_ARGUMENTS": 1})


def test_plot_usage_draws_a_bar_per_tool_and_outcome() -> None:
    import matplotlib

    matplotlib.use("Agg")
    figure = plot_usage(usage_stats(RECORDS))
    (ax,) = figure.axes
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["ok", "INVALID_ARGUMENTS", "INVALID_JSON", "PERMISSION_DENIED", "TIMEOUT"]
    assert [tick.get_text() for tick in ax.get_yticklabels()] == ["refund", "search"]


def test_plot_usage_refuses_what_usage_stats_did_not_return() -> None:
    with pytest.raises(TypeError, match="usage_stats"):
        plot_usage(RECORDS)  # type: ignore[arg-type]
    assert isinstance(usage_stats([]), UsageTable)
