"""toolsys.evals: episodes scored from transcripts, rates with Wilson intervals, stable reports.

The tools here are a learner's own, defined in this file, not the package's examples.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from datetime import datetime
from typing import Any, Literal

import pytest

from toolsys import Registry, ToolError
from toolsys.evals import (
    METRICS,
    OFFLINE,
    Case,
    EvalReport,
    Rate,
    Variant,
    episode_seed,
    run_episode,
    run_eval,
    score,
    wilson,
)
from toolsys.loop import run_agent
from toolsys.models import OfflineModel, ScriptedModel, calls, config, text

# -- a learner's tools ---------------------------------------------------------------------------


def _pantry() -> Registry:
    registry = Registry()

    @registry.tool
    def add_item(item: str, quantity: int, unit: Literal["g", "kg", "piece"] = "piece") -> dict:
        """Add an item to the pantry list.

        Args:
            item: What to add, e.g. "flour".
            quantity: How many units, e.g. 3.
            unit: The unit of quantity: g, kg or piece (the default).
        """
        return {"item": item, "quantity": quantity, "unit": unit}

    @registry.tool
    def plan_meal(day: datetime, dish: str) -> dict:
        """Plan a dish for a meal at a date and time.

        Args:
            day: When, in ISO 8601, e.g. "2025-01-16T19:00:00".
            dish: The dish, e.g. "lasagne".
        """
        return {"day": day.isoformat(), "dish": dish}

    return registry


def _three_kg(value: dict) -> bool:
    return value.get("quantity") == 3 and value.get("unit") == "kg"


CASES = [
    Case("Add 3 kg of 'flour' to the pantry list", "add_item", effect=_three_kg),
    Case("Add 6 'eggs' to the pantry list", "add_item"),
    Case("Plan a meal of 'lasagne' for tomorrow at 7pm", "plan_meal"),
]


# -- wilson and Rate -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (62, 100, 0.5221, 0.7090),
        (1, 2, 0.0945, 0.9055),
    ],
)
def test_wilson_gives_the_published_interval(k: int, n: int, low: float, high: float) -> None:
    assert wilson(k, n) == pytest.approx((low, high), abs=5e-5)


@pytest.mark.parametrize("n", [1, 2, 7, 30, 101])
def test_wilson_contains_the_rate_stays_in_0_1_and_mirrors_failures(n: int) -> None:
    for k in range(n + 1):
        low, high = wilson(k, n)
        assert 0.0 <= low <= k / n <= high <= 1.0
        mirror = wilson(n - k, n)
        assert (low, high) == pytest.approx((1 - mirror[1], 1 - mirror[0]), abs=1e-12)


def test_wilson_narrows_as_tries_grow_at_the_same_rate() -> None:
    widths = [wilson(6 * m, 10 * m)[1] - wilson(6 * m, 10 * m)[0] for m in (1, 10, 100)]
    assert widths[0] > widths[1] > widths[2] > 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((0, 0), "at least one try"),
        ((11, 10), "between 0 and n=10"),
        ((-1, 10), "between 0 and n=10"),
        ((True, 10), "whole number"),
        ((2.0, 10), "whole number"),
        ((1, 10, 0), "must be positive"),
        ((1, 10, math.nan), "must be positive"),
    ],
)
def test_wilson_refuses_bad_input_in_one_line(args: tuple, words: str) -> None:
    with pytest.raises(ValueError, match=words) as error:
        wilson(*args)
    assert "\n" not in str(error.value)


def test_a_rate_prints_with_its_interval_and_serialises_to_plain_numbers() -> None:
    rate = Rate(62, 100)
    assert str(rate) == "62% [52–71]"
    assert rate.to_dict() == {"successes": 62, "n": 100, "rate": 0.62, "low": 0.5221,
                              "high": 0.709}  # fmt: skip


# -- cases and variants --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: Case("", "add_item"), "the prompt"),
        (lambda: Case(42, "add_item"), "the prompt"),
        (lambda: Case("Add flour", ""), "name the tool"),
        (lambda: Case("Add flour", "add_item", effect="yes"), "pass a function"),
        (lambda: Variant("", _pantry()), "short name"),
        (lambda: Variant("A", "not a registry"), "neither a Registry"),
    ],
)
def test_cases_and_variants_refuse_bad_input_with_what_to_do(make: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make()


def test_a_variant_built_by_a_function_gives_each_episode_a_fresh_registry() -> None:
    built: list[Registry] = []

    def fresh() -> Registry:
        built.append(_pantry())
        return built[-1]

    run_eval(CASES[:2], [Variant("fresh", fresh)], seeds=[0, 1], client=OFFLINE)
    assert len(built) == 4 and len({id(r) for r in built}) == 4


def test_a_function_that_returns_no_registry_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="returned list, not a Registry"):
        run_eval(CASES[:1], [Variant("broken", lambda: [])], seeds=[0], client=OFFLINE)


def test_a_case_whose_tool_the_variant_does_not_offer_is_refused_before_running() -> None:
    with pytest.raises(ValueError, match=r"expects tool 'add_item'.*does not offer"):
        run_eval(CASES[:1], [Variant("other", Registry())], seeds=[0], client=OFFLINE)


def test_a_variant_can_rename_the_tools_a_case_names() -> None:
    renamed = Registry()
    renamed.register(_pantry().get("add_item").fn, name="pantry_add_item")
    report = run_eval(CASES[:1], [Variant("renamed", renamed, {"add_item": "pantry_add_item"})],
                      seeds=[0], client=OFFLINE)  # fmt: skip
    assert report.rate("renamed", "right_tool").successes == 1


def _split_pantry() -> Registry:
    """add_item in two steps: add the item, then set its quantity; each returns the whole item."""
    registry = Registry()
    items: dict[str, dict] = {}

    @registry.tool
    def pantry_add(item: str) -> dict:
        """Add an item to the pantry list, with a quantity of 1 piece until it is set.

        Args:
            item: What to add, e.g. "flour".
        """
        items[item] = {"item": item, "quantity": 1, "unit": "piece"}
        return items[item]

    @registry.tool
    def pantry_set_quantity(item: str, quantity: int, unit: Literal["g", "kg", "piece"]) -> dict:
        """Set how much of a pantry item to buy.

        Args:
            item: The item, as added, e.g. "flour".
            quantity: How many units, e.g. 3.
            unit: The unit of quantity: g, kg or piece.
        """
        if item not in items:
            raise ToolError("NOT_ON_LIST", f"No {item!r} on the list.", suggestion="Add it first.")
        items[item].update(quantity=quantity, unit=unit)
        return items[item]

    return registry


STEPS = ("pantry_add", "pantry_set_quantity")
ADD, SET = {"item": "flour"}, {"item": "flour", "quantity": 3, "unit": "kg"}


def _steps_episode(*turns: dict[str, Any]) -> dict[str, Any]:
    script = ScriptedModel([*turns, text("done")])
    variant = Variant("steps", _split_pantry, {"add_item": STEPS})
    episode, _ = run_episode(CASES, 0, variant, 0, client=script.client())
    return episode.to_dict()


def test_a_job_split_into_steps_is_served_by_its_steps_and_judged_on_the_last() -> None:
    got = _steps_episode(calls(("pantry_add", ADD)), calls(("pantry_set_quantity", SET)))
    assert [got[m] for m in METRICS] == [True, True, True, True] and got["calls"] == 2


def test_a_split_job_left_half_done_misses_the_effect_but_not_the_tool() -> None:
    got = _steps_episode(calls(("pantry_add", ADD)))
    assert [got[m] for m in METRICS] == [True, True, True, False]


def test_a_later_step_first_fails_valid_first_and_names_the_step_s_error() -> None:
    got = _steps_episode(calls(("pantry_set_quantity", SET)), calls(("pantry_add", ADD)))
    assert (got["valid_first"], got["first_error"], got["effect"]) == (False, "NOT_ON_LIST", False)


def test_the_names_a_split_gives_must_be_offered_and_be_names() -> None:
    unoffered = Variant("steps", _split_pantry, {"add_item": (*STEPS, "pantry_weigh")})
    with pytest.raises(ValueError, match=r"expects tool 'pantry_weigh'.*does not offer"):
        run_eval(CASES[:1], [unoffered], seeds=[0], client=OFFLINE)
    for bad in ((), ("pantry_add", ""), ("pantry_add", 3)):
        with pytest.raises(ValueError, match="tuple of tool names"):
            Variant("steps", _split_pantry, {"add_item": bad})
    listed = Variant("steps", _split_pantry, {"add_item": list(STEPS)})
    assert listed.tool_names("add_item") == STEPS and listed.tool_name("add_item") == STEPS[0]


@pytest.mark.parametrize(
    "bad",
    [
        {"cases": []},
        {"cases": ["Add flour"]},
        {"variants": []},
        {"variants": [Variant("A", Registry()), Variant("A", Registry())]},
        {"seeds": []},
        {"seeds": [0.5]},
        {"client": "gpt-4o"},
        {"client": 42},
    ],
)
def test_run_eval_refuses_bad_arguments_in_one_line(bad: dict[str, Any]) -> None:
    arguments: dict[str, Any] = {
        "cases": CASES[:1],
        "variants": [Variant("pantry", _pantry())],
        "seeds": [0],
        **bad,
    }
    with pytest.raises(ValueError) as error:
        run_eval(arguments.pop("cases"), arguments.pop("variants"), **arguments)
    assert "\n" not in str(error.value)


# -- scoring ---------------------------------------------------------------------------------------


def _scripted(*turns: dict[str, Any]) -> Any:
    return run_agent(ScriptedModel(list(turns)).client(), _pantry(), "Add 3 kg of flour")


OFFERED = {"add_item", "plan_meal"}
RIGHT = {"item": "flour", "quantity": 3, "unit": "kg"}


def test_a_right_first_call_scores_on_every_metric() -> None:
    transcript = _scripted(calls(("add_item", RIGHT)), text("done"))
    got = score(transcript, "add_item", OFFERED, _three_kg)
    assert [got[m] for m in METRICS] == [True, True, True, True]
    assert (got["calls"], got["first_error"], got["note"]) == (1, "", "")


def test_a_misspelled_name_then_a_retry_is_the_right_tool_but_not_valid_first() -> None:
    transcript = _scripted(calls(("add_itm", RIGHT)), calls(("add_item", RIGHT)), text("done"))
    got = score(transcript, "add_item", OFFERED, _three_kg)
    assert [got[m] for m in METRICS] == [True, False, True, True]
    assert (got["calls"], got["first_error"]) == (2, "UNKNOWN_TOOL")


def test_calling_another_offered_tool_as_well_is_not_the_right_tool() -> None:
    meal = {"day": "2025-01-16T19:00:00", "dish": "flour"}
    transcript = _scripted(calls(("plan_meal", meal), ("add_item", RIGHT)), text("done"))
    got = score(transcript, "add_item", OFFERED, _three_kg)
    assert (got["right_tool"], got["valid_first"], got["effect"]) == (False, False, True)


def test_a_valid_call_with_the_wrong_values_misses_the_effect() -> None:
    transcript = _scripted(calls(("add_item", {**RIGHT, "unit": "g"})), text("done"))
    got = score(transcript, "add_item", OFFERED, _three_kg)
    assert (got["valid_first"], got["valid_final"], got["effect"]) == (True, True, False)


def test_the_effect_judges_the_last_accepted_call() -> None:
    transcript = _scripted(
        calls(("add_item", {**RIGHT, "unit": "g"})), calls(("add_item", RIGHT)), text("done")
    )
    assert score(transcript, "add_item", OFFERED, _three_kg)["effect"] is True


def test_an_episode_without_calls_scores_nothing() -> None:
    got = score(_scripted(text("Which unit?")), "add_item", OFFERED, _three_kg)
    assert [got[m] for m in METRICS] == [False] * 4 and got["calls"] == 0


def test_a_tool_error_is_the_first_error_and_not_accepted() -> None:
    registry = Registry()

    @registry.tool
    def add_item(item: str) -> dict:
        """Add an item.

        Args:
            item: What to add.
        """
        raise ToolError("OUT_OF_STOCK", f"No {item} left.")

    model = ScriptedModel([calls(("add_item", {"item": "flour"})), text("sorry")])
    transcript = run_agent(model.client(), registry, "Add flour")
    got = score(transcript, "add_item", {"add_item"}, None)
    assert (got["valid_first"], got["valid_final"], got["first_error"]) == (
        False,
        False,
        "OUT_OF_STOCK",
    )


@pytest.mark.parametrize(
    ("effect", "note"),
    [
        (lambda value: value["missing"], "effect raised KeyError"),
        (lambda value: "yes", "effect returned str, not True or False"),
        (lambda value: 1, "effect returned int"),
    ],
)
def test_an_effect_that_raises_or_is_not_a_bool_fails_with_a_note(effect: Any, note: str) -> None:
    transcript = _scripted(calls(("add_item", RIGHT)), text("done"))
    got = score(transcript, "add_item", OFFERED, effect)
    assert got["effect"] is False and note in got["note"]


def test_a_broken_effect_is_reported_under_the_table_not_raised() -> None:
    broken = Case(CASES[0].prompt, "add_item", effect=lambda v: v["nope"])
    report = run_eval([broken], [Variant("pantry", _pantry())], seeds=[0], client=OFFLINE)
    assert report.notes() == ["case 0: effect raised KeyError: 'nope'"]
    assert "note: case 0: effect raised KeyError" in report.table()


# -- the harness and its clients -----------------------------------------------------------------


def test_the_same_seeds_give_the_same_report_byte_for_byte() -> None:
    first = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(4), client=OFFLINE)
    again = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(4), client=OFFLINE)
    assert first.to_json() == again.to_json()
    assert first.sha256() == again.sha256() and len(first.sha256()) == 64


def test_other_seeds_give_other_episodes() -> None:
    first = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(4), client=OFFLINE)
    other = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(4, 8), client=OFFLINE)
    assert first.sha256() != other.sha256()


def test_the_report_holds_no_timings_or_run_ids() -> None:
    report = run_eval(CASES[:1], [Variant("pantry", _pantry())], seeds=[0], client=OFFLINE)
    data = json.loads(report.to_json())
    assert set(data) == {"format", "model", "simulated", "seeds", "variants", "cases", "summary",
                         "episodes"}  # fmt: skip
    flat = report.to_json()
    assert "duration" not in flat and "run_id" not in flat and "_ms" not in flat


def test_a_one_case_eval_reproduces_the_offline_model_seeded_by_hand() -> None:
    report = run_eval(CASES[:1], [Variant("pantry", _pantry())], seeds=range(12), client=OFFLINE)
    by_hand = []
    for seed in range(12):
        transcript = run_agent(OfflineModel(imperfect=True, seed=seed).client(), _pantry(),
                               CASES[0].prompt)  # fmt: skip
        by_hand.append(bool(transcript.results) and transcript.results[0].result.ok)
    assert [e.valid_first for e in report.episodes] == by_hand
    assert episode_seed(5, 0) == 5 and episode_seed(5, 1) != episode_seed(6, 0)


def test_the_offline_default_records_the_mistakes_it_made() -> None:
    report = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(10), client=OFFLINE)
    made = [m for e in report.episodes for m in e.mistakes]
    assert made and all(":" in m or m in ("misspelled_tool", "malformed_json") for m in made)
    assert report.model == config.OFFLINE_MODEL and report.simulated


def test_a_client_object_answers_every_episode() -> None:
    model = ScriptedModel([calls(("add_item", RIGHT)), text("done")] * 2)
    report = run_eval(CASES[:1], [Variant("pantry", _pantry())], seeds=[0, 1],
                      client=model.async_client())  # fmt: skip
    assert len(model.requests) == 4 and report.model == config.SCRIPTED_MODEL
    assert report.rate("pantry", "effect") == Rate(2, 2)


def test_a_client_factory_gets_each_episode_seed() -> None:
    seen: list[int] = []

    def factory(seed: int) -> Any:
        seen.append(seed)
        return OfflineModel(seed=seed).async_client()

    run_eval(CASES[:2], [Variant("pantry", _pantry())], seeds=[3, 4], client=factory)
    assert seen == [episode_seed(s, i) for s in (3, 4) for i in (0, 1)]


def test_no_client_means_the_configured_real_endpoint_when_there_is_one(monkeypatch) -> None:
    from toolsys import models

    model = ScriptedModel([calls(("add_item", RIGHT)), text("done")])
    monkeypatch.setattr(config, "real_endpoint", lambda: ("sk-test", None, "gpt-test"))
    monkeypatch.setattr(models, "async_client", model.async_client)
    report = run_eval(CASES[:1], [Variant("pantry", _pantry())], seeds=[0])
    assert len(model.requests) == 2 and report.model == config.SCRIPTED_MODEL
    # "offline" stays offline whatever the environment says
    offline = run_eval(CASES[:1], [Variant("pantry", _pantry())], seeds=[0], client=OFFLINE)
    assert offline.simulated and len(model.requests) == 2


def test_no_client_and_no_endpoint_means_the_imperfect_offline_model(monkeypatch) -> None:
    monkeypatch.setattr(config, "real_endpoint", lambda: None)
    implicit = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(3))
    explicit = run_eval(CASES, [Variant("pantry", _pantry())], seeds=range(3), client=OFFLINE)
    assert implicit.sha256() == explicit.sha256()


def test_run_episode_gives_the_transcript_behind_a_reported_episode() -> None:
    variant = Variant("pantry", _pantry())
    report = run_eval(CASES, [variant], seeds=range(5), client=OFFLINE)
    for reported in report.episodes:
        again, transcript = run_episode(CASES, reported.case, variant, reported.seed,
                                        client=OFFLINE)  # fmt: skip
        assert again == reported and transcript.status == reported.status


# -- the report ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report() -> EvalReport:
    loose = Registry()

    @loose.tool(name="add_item")
    def add_loose(item: str, quantity: str, unit: str) -> dict:
        """Add an item to the pantry list."""
        return {"item": item, "quantity": quantity, "unit": unit}

    variants = [Variant("loose", loose), Variant("designed", _pantry())]
    return run_eval(CASES[:2], variants, seeds=range(5), client=OFFLINE)


def test_rates_count_the_episodes_of_each_variant(report: EvalReport) -> None:
    for variant in report.variants:
        episodes = report.of(variant)
        assert len(episodes) == 10
        for metric in METRICS:
            assert report.rate(variant, metric) == Rate(sum(getattr(e, metric) for e in episodes),
                                                        10)  # fmt: skip
        failed = report.failures(variant, "effect")
        assert len(failed) == 10 - report.rate(variant, "effect").successes


def test_a_loose_design_is_valid_yet_misses_the_effect(report: EvalReport) -> None:
    assert report.rate("loose", "valid_final").rate == 1.0
    assert report.rate("loose", "effect").rate < report.rate("designed", "effect").rate == 1.0


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda r: r.rate("nope", "effect"), "No variant 'nope'"),
        (lambda r: r.rate("loose", "succes"), "No metric 'succes'"),
        (lambda r: r.mean("loose", "tokens"), "No number 'tokens'"),
        (lambda r: r.plot(("effect", "speed")), "No metric 'speed'"),
    ],
)
def test_the_report_names_what_it_has_when_asked_for_something_else(
    report: EvalReport, call: Any, words: str
) -> None:
    with pytest.raises(KeyError, match=words):
        call(report)


def test_the_table_fits_100_columns_and_says_it_is_a_simulation(report: EvalReport) -> None:
    lines = report.table().splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert lines[0].split()[:3] == ["variant", "n", "right"]
    assert lines[1].startswith("loose ") and "%" in lines[1]
    assert lines[-1].startswith("(simulation, model toolsys-offline-1")


def test_save_writes_the_json_whose_hash_is_reported(report: EvalReport, tmp_path) -> None:
    import hashlib

    path = report.save(tmp_path / "eval.json")
    assert hashlib.sha256(path.read_text(encoding="ascii").strip().encode()).hexdigest() == (
        report.sha256()
    )
    assert json.loads(path.read_text())["summary"]["designed"]["effect"]["n"] == 10


def test_the_plot_labels_a_simulation_and_every_rate_in_percent(report: EvalReport) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = report.plot()
    try:
        (axes,) = figure.axes
        figure.canvas.draw()
        assert axes.get_title().startswith("Simulation with the offline teaching model")
        ticks = [t.get_text() for t in axes.get_yticklabels() if t.get_text()]
        assert ticks and all(t.endswith("%") for t in ticks)
        labels = [t.get_text() for t in axes.texts]
        rates = [f"{report.rate(v, m).rate:.0%}" for v in report.variants for m in METRICS]
        assert labels == rates
        assert [t.get_text() for t in axes.get_xticklabels()] == list(METRICS.values())
    finally:
        plt.close("all")


def test_a_real_model_s_plot_is_not_called_a_simulation(report: EvalReport) -> None:
    import dataclasses

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    real = dataclasses.replace(report, model="gpt-test")
    try:
        assert real.plot().axes[0].get_title().startswith("Model gpt-test")
        assert "simulation" not in real.table()
    finally:
        plt.close("all")


def test_importing_evals_loads_neither_openai_nor_matplotlib() -> None:
    code = (
        "import sys, json, toolsys.evals; "
        "print(json.dumps([m for m in ('openai', 'matplotlib', 'httpx2') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
