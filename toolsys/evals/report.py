"""An eval's results: rates with 95 % intervals per variant, as a table, JSON and a figure.

Why this module exists: an eval is only worth what others can check. The report keeps every
episode (variant, case, seed, scores), so a rate can be traced to the runs behind it; its JSON
holds nothing that changes between two runs with the same seeds (no timings, no run ids), so
`sha256()` is the same on every machine: a cheap proof that a result was reproduced. The figure
says in its title when the numbers come from a simulation.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsys.evals.cases import Case
from toolsys.evals.scoring import METRICS, Episode
from toolsys.evals.stats import Rate
from toolsys.models.config import OFFLINE_MODEL, SCRIPTED_MODEL

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["FORMAT", "EvalReport"]

FORMAT = "toolsys-eval/1"
"""The `format` field of the JSON report."""

_SIMULATED = (OFFLINE_MODEL, SCRIPTED_MODEL)
_COLORS = ("#9e9e9e", "#e07b39", "#4a7fb5", "#3a7d44", "#8e5ea2", "#c44e52")


@dataclass(frozen=True)
class EvalReport:
    """Every episode of one eval, and the rates computed from them."""

    model: str
    seeds: tuple[int, ...]
    variants: tuple[str, ...]
    cases: tuple[Case, ...]
    episodes: tuple[Episode, ...]

    @property
    def simulated(self) -> bool:
        """True when the answers came from toolsys's offline or scripted model, not an LLM."""
        return self.model in _SIMULATED

    def of(self, variant: str) -> list[Episode]:
        """The episodes of one variant."""
        if variant not in self.variants:
            raise KeyError(f"No variant {variant!r} in this report; it has {list(self.variants)}.")
        return [e for e in self.episodes if e.variant == variant]

    def rate(self, variant: str, metric: str) -> Rate:
        """Successes out of episodes for one variant and one metric (see `METRICS`)."""
        if metric not in METRICS:
            raise KeyError(f"No metric {metric!r}; the metrics are {list(METRICS)}.")
        episodes = self.of(variant)
        return Rate(sum(getattr(e, metric) for e in episodes), len(episodes))

    def mean(self, variant: str, field: str = "calls") -> float:
        """The mean of a number per episode: "calls" (tool calls) or "result_chars"."""
        if field not in ("calls", "result_chars"):
            raise KeyError(f"No number {field!r} per episode; use 'calls' or 'result_chars'.")
        episodes = self.of(variant)
        return sum(getattr(e, field) for e in episodes) / len(episodes)

    def failures(self, variant: str, metric: str = "effect") -> list[Episode]:
        """The episodes of `variant` that failed `metric`: where to look next."""
        self.rate(variant, metric)  # names a wrong variant or metric
        return [e for e in self.of(variant) if not getattr(e, metric)]

    def notes(self) -> list[str]:
        """Problems with the eval itself (an effect predicate that raised), one line each."""
        seen = dict.fromkeys(f"case {e.case}: {e.note}" for e in self.episodes if e.note)
        return list(seen)

    # -- text ---------------------------------------------------------------------------------

    def table(self) -> str:
        """One line per variant: each rate with its 95 % interval, calls and result size."""
        width = max(7, *(len(v) for v in self.variants))
        head = f"{'variant':<{width}} {'n':>4}"
        head += "".join(f"  {label:<{size}}" for label, size in zip(_SHORT, _WIDTHS, strict=True))
        lines = [head + "  calls  chars"]
        for variant in self.variants:
            rates = [self.rate(variant, metric) for metric in METRICS]
            cells = "".join(f"  {r!s:<{size}}" for r, size in zip(rates, _WIDTHS, strict=True))
            n = len(self.of(variant))
            calls, chars = self.mean(variant), self.mean(variant, "result_chars")
            lines.append(f"{variant:<{width}} {n:>4}{cells}  {calls:>5.2f}  {chars:>5.0f}")
        source = "simulation, " if self.simulated else ""
        lines.append(f"({source}model {self.model}; rates with 95 % Wilson intervals)")
        lines += [f"note: {note}" for note in self.notes()[:3]]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    # -- data ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Everything, as JSON data; nothing in it varies between runs with the same seeds."""
        summary = {
            variant: {
                **{metric: self.rate(variant, metric).to_dict() for metric in METRICS},
                "calls_per_task": round(self.mean(variant), 4),
                "result_chars_per_task": round(self.mean(variant, "result_chars"), 2),
            }
            for variant in self.variants
        }
        return {
            "format": FORMAT,
            "model": self.model,
            "simulated": self.simulated,
            "seeds": list(self.seeds),
            "variants": list(self.variants),
            "cases": [{"name": c.label, "prompt": c.prompt, "tool": c.tool} for c in self.cases],
            "summary": summary,
            "episodes": [e.to_dict() for e in self.episodes],
        }

    def to_json(self) -> str:
        """`to_dict()` as canonical JSON: sorted keys, no spaces, ASCII, so its hash is stable."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    def sha256(self) -> str:
        """The SHA-256 of `to_json()`: equal for two runs with the same cases, tools and seeds."""
        return hashlib.sha256(self.to_json().encode("ascii")).hexdigest()

    def save(self, path: str | Path) -> Path:
        """Write `to_json()` to `path` (a .json file) and return the path."""
        path = Path(path)
        path.write_text(self.to_json() + "\n", encoding="ascii")
        return path

    # -- figure -------------------------------------------------------------------------------

    def plot(self, metrics: tuple[str, ...] = tuple(METRICS), *, ax: Axes | None = None) -> Figure:
        """Grouped bars: each metric per variant, with its 95 % interval as an error bar.

        The title says "simulation" when the offline model answered. matplotlib is imported
        here, not with toolsys.
        """
        import matplotlib.pyplot as plt
        from matplotlib.ticker import PercentFormatter

        unknown = [m for m in metrics if m not in METRICS]
        if unknown:
            raise KeyError(f"No metric {unknown[0]!r}; the metrics are {list(METRICS)}.")
        if ax is None:
            _, ax = plt.subplots(figsize=(8, 3))
        slot = 0.8 / len(self.variants)
        for i, variant in enumerate(self.variants):
            rates = [self.rate(variant, m) for m in metrics]
            values = [r.rate for r in rates]
            errors = [[r.rate - r.low for r in rates], [r.high - r.rate for r in rates]]
            spots = [m + (i - (len(self.variants) - 1) / 2) * slot for m in range(len(metrics))]
            ax.bar(spots, values, slot * 0.9, yerr=errors, capsize=3, label=variant,
                   color=_COLORS[i % len(_COLORS)])  # fmt: skip
            for spot, r in zip(spots, rates, strict=True):  # the rate, above its interval
                ax.text(spot, r.high + 0.02, f"{r.rate:.0%}", ha="center", fontsize=7)
        ax.set_xticks(range(len(metrics)), [METRICS[m] for m in metrics])
        ax.set_ylim(0, 1.12)
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.yaxis.set_major_formatter(PercentFormatter(xmax=1))
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        n = len(self.episodes) // max(1, len(self.variants))
        who = (
            "Simulation with the offline teaching model (not a real LLM)"
            if self.simulated
            else f"Model {self.model}"
        )
        ax.set_title(f"{who}: {n} episodes per design, 95 % intervals", fontsize=9)
        figure = ax.get_figure(root=True)
        assert figure is not None
        figure.tight_layout()
        return figure


_SHORT = ("right tool", "valid 1st try", "valid at end", "intended effect")
_WIDTHS = (13, 13, 13, 15)
