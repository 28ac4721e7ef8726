"""What a simulated eval assumes: the offline model's mistake table, applied to a tool set.

Why this module exists: a rate measured against the offline teaching model follows from two
things only, both declared: how it reads a request (`models.explain` shows it) and the mistakes
it makes on purpose, at rates set by schema features in one table (`mistake_table()`). Printing
the table, the rates it gives each parameter of a design (`mistake_rates`), and what it predicts
before anything runs (`predicted_clean_first_calls`) keeps a simulated result honest: it shows
the mechanism, and it is no evidence about any real model's rates.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolsys.evals.cases import Case, Variant
from toolsys.models import (
    OfflineModel,
    call_rates,
    first_call_success,
    param_rates,
    rate_table,
)

__all__ = ["mistake_rates", "mistake_table", "predicted_clean_first_calls"]


def mistake_table(rates: dict[str, float] | None = None) -> str:
    """The offline model's declared mistake table (base rates overridden by `rates`)."""
    return rate_table(rates)


def mistake_rates(variant: Variant) -> str:
    """Each tool and parameter of a design with the effective rate of every mistake it invites."""
    lines = []
    for tool in variant.registry().export("openai"):
        function = tool["function"]
        params = function.get("parameters") or {}
        properties, required = params.get("properties", {}), set(params.get("required", []))
        whole = call_rates(function["name"], len(properties))
        lines.append(f"{function['name']}: {_rates(whole)} (with every argument sent)")
        for name, schema in properties.items():
            rates = param_rates(name, dict(schema), name in required)
            lines.append(f"  {name:<18} {_rates(rates) or 'no mistake applies'}")
    return "\n".join(lines)


def _rates(rates: dict[str, float]) -> str:
    shown = (f"{mistake} {rate:.3f}".rstrip("0").rstrip(".") for mistake, rate in rates.items())
    return ", ".join(shown)


def predicted_clean_first_calls(cases: Sequence[Case], variant: Variant) -> float:
    """The share of first calls the table predicts to carry no mistake, before anything runs.

    For each case the offline model's plan (perfect mode) gives the first call; the chance it is
    sent without a mistake is `models.first_call_success`. A case whose plan is not a call to
    the intended tool counts 0. Compare it with the measured `valid_first`: validation can only
    catch the mistakes the schema makes detectable.
    """
    registry = variant.registry()
    functions = {t["function"]["name"]: t["function"] for t in registry.export("openai")}
    total = 0.0
    for case in cases:
        calls = OfflineModel().explain(case.prompt, registry).calls
        intended = variant.tool_name(case.tool)
        if calls and calls[0][0] == intended:
            total += first_call_success(dict(functions[intended]), calls[0][1])
    return total / len(cases) if cases else 0.0
