"""Usage metrics per tool, from audit records: which tools models use, and which they misuse.

    from toolsys.governance.audit import read
    from toolsys.metrics import plot_usage, usage_stats
    table = usage_stats(read("audit.jsonl"))
    print(table)             # tool, calls, ok rate, top error codes, median/p95 ms, retries...
    plot_usage(table)        # calls per tool, split into ok and each error code

A tool whose calls fail most often with INVALID_ARGUMENTS or INVALID_JSON usually has a
description or schema that misleads the model: that is the one to rewrite first. The same
numbers are on the command line: `toolsys audit stats FILE`.

Latencies are `duration_ms` as the audit log measured it (all attempts of a call together);
p95 is the nearest-rank percentile. matplotlib is imported only by `plot_usage`.

Chapter 11 uses it on a seeded batch of offline-model runs, finds the tool with the most
INVALID_ARGUMENTS and shows the rate drop once its description is fixed:
notebooks/11_testing.ipynb.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolUsage", "UsageTable", "plot_usage", "usage_stats"]

_DENIED = ("deny", "denied_by_human")


@dataclass(frozen=True)
class ToolUsage:
    """One tool's numbers. `errors` maps each error code to its count, most frequent first."""

    tool: str
    calls: int
    ok: int
    errors: dict[str, int] = field(default_factory=dict)
    median_ms: float | None = None
    p95_ms: float | None = None
    retries: int = 0
    approvals: int = 0
    denials: int = 0
    replays: int = 0

    @property
    def ok_rate(self) -> float:
        return self.ok / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "calls": self.calls,
            "ok": self.ok,
            "ok_rate": round(self.ok_rate, 4),
            "errors": dict(self.errors),
            "median_ms": self.median_ms,
            "p95_ms": self.p95_ms,
            "retries": self.retries,
            "approvals": self.approvals,
            "denials": self.denials,
            "replays": self.replays,
        }


@dataclass(frozen=True)
class UsageTable:
    """Rows per tool, most-called first (ties by name); `str()` is a text table."""

    rows: list[ToolUsage]

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, tool: str) -> ToolUsage:
        for row in self.rows:
            if row.tool == tool:
                return row
        raise KeyError(f"No calls of {tool!r}; the tools are: {[r.tool for r in self.rows]}.")

    def worst(self, code: str) -> ToolUsage | None:
        """The tool with the highest share of calls failing with `code` (None if none did)."""
        failing = [row for row in self.rows if row.errors.get(code)]
        if not failing:
            return None
        return max(failing, key=lambda row: (row.errors[code] / row.calls, row.calls))

    def to_dicts(self) -> list[dict[str, Any]]:
        return [row.to_dict() for row in self.rows]

    def __str__(self) -> str:
        header = ("tool", "calls", "ok", "errors", "median ms", "p95 ms", "retries", "approved")
        lines = [header]
        for row in self.rows:
            errors = ", ".join(f"{code} {n}" for code, n in row.errors.items()) or "-"
            lines.append(
                (
                    row.tool,
                    str(row.calls),
                    f"{row.ok_rate:.0%}",
                    errors,
                    _ms(row.median_ms),
                    _ms(row.p95_ms),
                    str(row.retries),
                    str(row.approvals),
                )
            )
        if len(lines) == 1:
            return "no calls"
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        return "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
            for line in lines
        )


def usage_stats(records: Iterable[Mapping[str, Any]]) -> UsageTable:
    """Per-tool calls, ok rate, error codes by frequency, median/p95 latency, retries,
    approvals, denials and replays, from audit records (`toolsys.governance.audit.read`).

    The records are tallied one at a time (only each call's duration is kept), so a stream of
    them, e.g. a whole log read line by line, needs no more memory than the table."""
    tallies: dict[str, _Tally] = {}
    for record in records:
        if not isinstance(record, Mapping):
            raise TypeError(
                f"usage_stats: a record is a dict from the audit log, not {type(record).__name__}"
            )
        tool = str(record.get("tool"))
        tally = tallies.get(tool)
        if tally is None:
            tally = tallies[tool] = _Tally()
        tally.add(record)
    rows = [tally.row(tool) for tool, tally in tallies.items()]
    rows.sort(key=lambda row: (-row.calls, row.tool))
    return UsageTable(rows)


class _Tally:
    """One tool's numbers so far."""

    def __init__(self) -> None:
        self.calls = self.ok = self.retries = self.approvals = self.denials = self.replays = 0
        self.codes: Counter[str] = Counter()
        self.durations = array("d")

    def add(self, r: Mapping[str, Any]) -> None:
        self.calls += 1
        self.ok += r.get("ok") is True
        if r.get("ok") is not True and r.get("outcome"):
            self.codes[str(r.get("outcome"))] += 1
        duration = r.get("duration_ms")
        if (
            isinstance(duration, int | float)
            and not isinstance(duration, bool)
            and math.isfinite(duration)
        ):
            self.durations.append(float(duration))
        self.retries += _count(r.get("retries"))
        self.approvals += r.get("decision") == "approved"
        self.denials += r.get("decision") in _DENIED
        self.replays += r.get("replayed") is True

    def row(self, tool: str) -> ToolUsage:
        durations = sorted(self.durations)
        return ToolUsage(
            tool=tool,
            calls=self.calls,
            ok=self.ok,
            errors=dict(sorted(self.codes.items(), key=lambda item: (-item[1], item[0]))),
            median_ms=round(statistics.median(durations), 3) if durations else None,
            p95_ms=_percentile(durations, 95),
            retries=self.retries,
            approvals=self.approvals,
            denials=self.denials,
            replays=self.replays,
        )


def _percentile(ordered: list[float], percent: float) -> float | None:
    """Nearest-rank percentile of sorted values."""
    if not ordered:
        return None
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return round(ordered[rank - 1], 3)


def _count(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def plot_usage(stats: UsageTable, ax: Any = None) -> Any:
    """A horizontal bar per tool: ok calls, then each error code, stacked. Returns the Figure."""
    import matplotlib.pyplot as plt

    if not isinstance(stats, UsageTable):
        raise TypeError("plot_usage: give the table usage_stats(records) returned.")
    rows = list(reversed(stats.rows))  # most-called at the top
    if ax is None:
        figure, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * max(len(rows), 1)))
    else:
        figure = ax.figure
    names = [row.tool for row in rows]
    ax.barh(names, [row.ok for row in rows], color="#4c9a2a", label="ok")
    left = [float(row.ok) for row in rows]
    codes = sorted({code for row in rows for code in row.errors})
    colors = plt.get_cmap("tab10")
    for index, code in enumerate(codes):
        counts = [row.errors.get(code, 0) for row in rows]
        ax.barh(names, counts, left=left, color=colors(index % 10), label=code)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    ax.set_xlabel("calls")
    ax.set_title("Calls per tool, by outcome")
    if rows:
        ax.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    return figure
