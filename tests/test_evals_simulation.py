"""What a simulated eval assumes is declared once, and the offline model does what it declares.

The mistake table printed in chapter 05 is built from the same objects the rates are computed
from; the rates an eval measures follow from it; and a repair the table relies on (a free-form
date-time sent back in ISO form) keeps the time the model wrote.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

import pytest

from toolsys import Registry
from toolsys.evals import (
    OFFLINE,
    Case,
    Variant,
    mistake_rates,
    mistake_table,
    predicted_clean_first_calls,
    run_eval,
)
from toolsys.loop import run_agent
from toolsys.models import BASE_RATES, OfflineModel
from toolsys.models._imperfect import FACTORS, SCALES, call_rates, param_rates
from toolsys.models._repair import repair


def test_the_table_names_every_mistake_its_base_rate_and_every_factor() -> None:
    table = mistake_table()
    rows = {line.split()[0]: line for line in table.splitlines()[1:] if line[:1].strip()}
    assert list(rows) == list(BASE_RATES)
    for mistake, rate in BASE_RATES.items():
        assert f"{rate:.2f}" in rows[mistake]
    for factor in FACTORS:
        assert re.search(rf"× {factor.multiplier:g}\s+if {re.escape(factor.feature)}", table)
    for scale in SCALES.values():
        assert scale in table
    assert all(len(line) <= 100 for line in table.splitlines())


def test_the_table_shows_overridden_base_rates() -> None:
    assert "freeform_date     0.90" in mistake_table({"freeform_date": 0.9})


def test_the_rates_are_computed_from_the_declared_factors() -> None:
    bare = {"type": "string"}
    rich = {
        "type": "string",
        "format": "date-time",
        "description": 'Start in ISO 8601, e.g. "2025-01-16T15:00:00".',
    }
    assert param_rates("start_datetime", bare, True) == {
        "freeform_date": BASE_RATES["freeform_date"],
        "missing_required": BASE_RATES["missing_required"],
    }
    product = BASE_RATES["freeform_date"]
    for factor in FACTORS:
        if factor.mistake == "freeform_date":
            product *= factor.multiplier
    assert param_rates("start", rich, False) == {"freeform_date": pytest.approx(product)}
    assert call_rates("book_table", 4) == {
        "misspelled_tool": pytest.approx(BASE_RATES["misspelled_tool"] * len("book_table") / 10),
        "malformed_json": pytest.approx(BASE_RATES["malformed_json"] * (1 + 0.25 * 4)),
    }


def _designed() -> Registry:
    registry = Registry()

    @registry.tool
    def log_run(day: datetime, kilometres: float, effort: Literal["easy", "hard"] = "easy") -> dict:
        """Log a run in the training diary.

        Args:
            day: When, in ISO 8601, e.g. "2025-01-16T07:00:00".
            kilometres: Distance in kilometres, e.g. 8.5.
            effort: easy (the default) or hard.
        """
        return {"day": day.isoformat(), "km": kilometres, "effort": effort}

    return registry


RUNS = [
    Case("Log a run of 8 kilometres tomorrow at 7am, hard", "log_run"),
    Case("Log a run of 12 kilometres on Friday at 6pm", "log_run"),
    Case("Log a run of 5 kilometres today at noon, easy", "log_run"),
]


def test_mistake_rates_lists_each_parameter_of_a_design() -> None:
    shown = mistake_rates(Variant("runs", _designed()))
    assert shown.splitlines()[0].startswith("log_run: misspelled_tool 0.028, malformed_json 0.052")
    assert re.search(r"^  day\s+freeform_date 0.019, missing_required 0.03$", shown, re.M)
    assert re.search(r"^  effort\s+invented_enum 0.03$", shown, re.M)


def test_measured_first_tries_agree_with_what_the_table_predicts() -> None:
    variant = Variant("runs", _designed())
    predicted = predicted_clean_first_calls(RUNS, variant)
    report = run_eval(RUNS, [variant], seeds=range(100), client=OFFLINE)
    measured = report.rate("runs", "valid_first")
    assert 0.7 < predicted < 0.9
    assert measured.low <= predicted <= measured.high, (predicted, str(measured))


def test_a_request_the_model_sends_to_no_tool_predicts_no_clean_first_call() -> None:
    variant = Variant("runs", _designed())
    assert predicted_clean_first_calls(RUNS[:1], variant) > 0
    nothing = [Case("What is the capital of France?", "log_run")]
    assert predicted_clean_first_calls(nothing, variant) == 0.0


# -- the repair of a free-form date-time ---------------------------------------------------------


def _start_schema() -> list[dict]:
    return [
        {
            "name": "book",
            "parameters": {
                "type": "object",
                "properties": {
                    "start": {"type": "string", "format": "date-time"},
                    "day": {"type": "string", "format": "date"},
                },
            },
        }
    ]


@pytest.mark.parametrize(
    ("sent", "fixed"),
    [
        ("January 16, 2025 15:00", "2025-01-16T15:00:00"),
        ("January 16, 2025 3pm", "2025-01-16T15:00:00"),
        ("2025-01-16 09:30", "2025-01-16T09:30:00"),
    ],
)
def test_a_free_form_date_time_is_repaired_with_its_time(sent: str, fixed: str) -> None:
    error = f"Invalid arguments for 'book': start: got '{sent}', expected a valid datetime."
    assert repair("book", f'{{"start": "{sent}"}}', error, _start_schema(), "") == (
        "book",
        {"start": fixed},
    )


def test_a_free_form_date_is_still_repaired_to_a_date() -> None:
    error = "Invalid arguments for 'book': day: got 'January 16, 2025', expected a valid date."
    assert repair("book", '{"day": "January 16, 2025"}', error, _start_schema(), "") == (
        "book",
        {"day": "2025-01-16"},
    )


def test_a_model_that_wrote_a_free_form_date_time_books_the_time_it_was_asked_for() -> None:
    registry = Registry()

    @registry.tool
    def book_court(start: datetime) -> str:
        """Book a tennis court.

        Args:
            start: Start in ISO 8601, e.g. "2025-01-16T15:00:00".
        """
        return start.isoformat()

    model = OfflineModel(imperfect=True, seed=1, rates={"freeform_date": 100})
    transcript = run_agent(model.client(), registry, "Book a tennis court tomorrow at 3pm")
    assert "freeform_date:start" in model.mistakes
    assert [e.result.ok for e in transcript.results] == [False, True]
    assert transcript.results[-1].result.value == "2025-01-16T15:00:00"
