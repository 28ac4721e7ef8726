"""What chapter 12 needs from the shop: an audit log of the lesson's own (a fixed clock), an
agent builder a scenario can be run against (a planted bug), a report that fits a page, and a
benchmark that runs the whole suite. Timings are printed by the benchmark, never checked here.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

from toolsys.governance import AuditLog
from toolsys.governance.audit import verify
from toolsys.shop import create
from toolsys.shop.agent import build
from toolsys.shop.runner import Outcome, report, run_scenario
from toolsys.shop.scenarios import CHLOE, SCENARIOS

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_build_takes_an_audit_log_with_its_own_clock(tmp_path: Path) -> None:
    ticks = iter(range(1_796_115_600, 1_796_115_700))
    path = tmp_path / "audit.jsonl"
    agent = build(create(tmp_path / "shop.db"), audit=AuditLog(path, clock=lambda: next(ticks)))
    for order in ("ORD-1003", "ORD-1004"):
        agent.execute("get_order", {"order_id": order}, context=CHLOE)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["ts"][:19] for r in records] == ["2026-12-01T09:00:00", "2026-12-01T09:00:01"]
    assert [r["outcome"] for r in records] == ["ok", "ORDER_NOT_FOUND"]
    assert verify(path).ok


def test_a_builder_with_a_planted_bug_fails_the_scenario_that_guards_it(tmp_path: Path) -> None:
    (guard,) = [s for s in SCENARIOS if s.name.endswith("waits for approval: approved")]
    assert run_scenario(guard, tmp_path).passed
    bugged = run_scenario(guard, tmp_path, builder=functools.partial(build, refund_limit=100))
    assert not bugged.passed
    assert "approvals asked: expected 1, got 0" in bugged.problems


def test_the_report_fits_100_columns_with_the_longest_names() -> None:
    longest = max((s.name for s in SCENARIOS), key=len)
    outcomes = [Outcome(longest, passed=True, calls=3, approvals=12), Outcome("short")]
    table = report(outcomes)
    assert max(len(line) for line in table.splitlines()) <= 100, table
    assert table.splitlines()[1] == f"pass           3.0     12       0  {longest}"
    assert table.endswith("1/2 scenarios pass; 0 invariant violations.")


@pytest.mark.timeout(300)
def test_the_shop_benchmark_runs_the_suite_and_every_stack(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_shop
    finally:
        sys.path.remove(str(BENCHMARKS))
    bench_shop.main(["--rounds", "1", "--calls", "2"])
    printed = capsys.readouterr().out
    assert f"{len(SCENARIOS)} scenarios, {len(SCENARIOS)} pass" in printed
    assert ", 0 violations" in printed
    for label in ("bare registry", "+ Timeout", "+ (full stack) AuditLog", "build(shop"):
        assert label in printed
    assert max(len(line) for line in printed.splitlines()) <= 100


def test_the_lessons_hand_built_agent_is_what_build_returns(tmp_path: Path) -> None:
    """Lesson 12 writes the stack line by line and then says `build` is exactly those lines:
    the same layers in the same order, with the same settings."""
    lesson = BENCHMARKS.parent / "notebooks" / "12_capstone.ipynb"
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    namespace: dict[str, object] = {}
    exec(code[0] + "\n" + next(c for c in code if "agent = Registry()" in c), namespace)
    hand_built = namespace["agent"]._layers  # type: ignore[attr-defined]
    built = build(create(tmp_path / "shop.db"), audit=tmp_path / "audit.jsonl")._layers

    def settings(layer: object) -> tuple[object, ...]:
        kept = ("seconds", "cooperative", "max_attempts", "grants")
        return type(layer), *(getattr(layer, name, None) for name in kept)

    assert [settings(layer) for layer in hand_built] == [settings(layer) for layer in built]
    policy = next(layer for layer in built if type(layer).__name__ == "Policy")
    assert set(policy.rules) == {"refund_order"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("4111111111111", "[card hidden]"),  # 13 digits, the shortest card number
        ("card 4111 1111 1111 1111, ok", "card [card hidden], ok"),
        ("411111111111", "411111111111"),  # 12 digits: no card, and too short to be looked at
        ("ORD-1003", "ORD-1003"),
        ("mail chloe.patel@example.com now", "mail [email hidden] now"),
    ],
)
def test_hide_personal_hides_cards_and_emails_in_every_text(text: str, shown: str) -> None:
    from toolsys.result import ToolResult
    from toolsys.shop.agent import hide_personal

    hidden = hide_personal(None, ToolResult.success({"a": [text], "b": {"c": text}}))
    assert hidden.value == {"a": [shown], "b": {"c": shown}}
