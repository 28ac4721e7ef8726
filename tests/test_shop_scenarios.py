"""The capstone's proof: every scenario passes with every layer on and no invariant ever broken,
and each kind of check in the runner fails when the bug it exists for is planted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from toolsys.models.scripted import calls, text
from toolsys.shop import _access, runner
from toolsys.shop.runner import report, run_all, run_scenario
from toolsys.shop.scenarios import MANAGER, SCENARIOS, Scenario


def _named(name: str) -> Scenario:
    return next(s for s in SCENARIOS if s.name == name)


def test_there_are_at_least_thirty_scenarios_with_distinct_names() -> None:
    names = [s.name for s in SCENARIOS]
    assert len(names) >= 30 and len(set(names)) == len(names)


def test_every_scenario_passes_and_no_invariant_breaks(tmp_path: Path) -> None:
    outcomes = run_all(workdir=tmp_path)
    table = report(outcomes)
    assert all(o.passed for o in outcomes), table
    assert sum(len(o.violations) for o in outcomes) == 0, table
    assert table.endswith(
        f"{len(outcomes)}/{len(outcomes)} scenarios pass; 0 invariant violations."
    )


def test_every_scenario_names_the_tools_it_must_call_or_must_not_see() -> None:
    assert all(s.called or s.hidden for s in SCENARIOS)


def test_a_row_filter_left_out_fails_the_scenarios_that_guard_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_access, "customer_scope", lambda caller: None)
    for name in (
        "customer cannot refund another customer's order",
        "customer cannot cancel another customer's order",
        "a lost login sees nothing",
    ):
        outcome = run_scenario(_named(name), tmp_path)
        assert not outcome.passed, name


def test_a_double_refund_fails_the_scenario(tmp_path: Path) -> None:
    refund = {"order_id": "ORD-1003", "amount": 10, "reason": "goodwill"}
    twice = dataclasses.replace(
        _named("asking twice refunds once"),
        prompts=("Refund 10 on order ORD-1003 as goodwill",),
        script=(
            calls(("refund_order", {**refund, "idempotency_key": "a"})),
            calls(("refund_order", {**refund, "idempotency_key": "b"})),
            text("Refunded twice."),
        ),
    )
    outcome = run_scenario(twice, tmp_path)
    assert not outcome.passed
    assert any(problem.startswith("changes") for problem in outcome.problems)


def test_a_tool_offered_to_the_wrong_caller_fails_the_scenario(tmp_path: Path) -> None:
    scenario = dataclasses.replace(_named("an agent cannot run reports"), caller=MANAGER)
    outcome = run_scenario(scenario, tmp_path)
    assert any(problem.startswith("offered") for problem in outcome.problems)


def test_a_broken_invariant_after_a_call_fails_the_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "invariants", lambda shop: ["refunded <= paid: order_id='X'"])
    outcome = run_scenario(_named("customer cancels own placed order"), tmp_path)
    assert not outcome.passed and outcome.violations
    assert "invariant broken after cancel_order" in " ".join(outcome.problems)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"asks": 0}, "approvals asked"),
        ({"codes": frozenset({"REFUND_EXCEEDS_PAYMENT"})}, "error codes"),
        ({"called": ("cancel_order",)}, "tools called"),
        ({"changes": {}}, "changes"),
        ({"absent": ("ORD-1003",)}, "the model read"),
    ],
)
def test_each_expectation_can_fail(tmp_path: Path, change: dict, problem: str) -> None:
    scenario = dataclasses.replace(
        _named("customer refund over the limit waits for approval: approved"), **change
    )
    outcome = run_scenario(scenario, tmp_path)
    assert not outcome.passed
    assert any(line.startswith(problem) for line in outcome.problems), outcome.problems


def test_a_tampered_audit_log_fails_the_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = runner.verify

    def tampered(path: Path):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[0] = lines[0].replace("cancel_order", "refund_order")
        path.write_text("".join(lines), encoding="utf-8")
        return real(path)

    monkeypatch.setattr(runner, "verify", tampered)
    outcome = run_scenario(_named("customer cancels own placed order"), tmp_path)
    assert any(line.startswith("audit log") for line in outcome.problems), outcome.problems
