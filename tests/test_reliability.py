"""The reliability suite: seeded hostile calls against every promise (a share of `make fuzz`).

Every built-in tool and every hostile tool (tests/hostile_tools.py) gets a few hundred seeded
calls; not one may raise, produce an unsendable message, or show a traceback, a machine path or a
planted secret. `make fuzz` runs the same calls by the ten thousand. Each attack of
tests/attacks.py (untrusted schemas, OpenAPI values, report queries, audit files, concurrent
refunds, network routes, secret keys, paused runs, isolated tools' escaped children, hung calls
past the thread cap) runs once here, ten times in `make fuzz`.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.attacks import ATTACKS
from tests.hostile_tools import PLANTED, hostile_registries
from toolsys import Registry, ToolResult
from toolsys.fuzz import FuzzReport, check_message, fuzz_tool
from toolsys.tools import registry as builtin

CALLS = 250
REGISTRIES = {"builtin": builtin} | dict(
    zip(("raisers", "returners", "layered"), hostile_registries(), strict=True)
)
CASES = [(label, name) for label, registry in REGISTRIES.items() for name in registry.names()]


@pytest.mark.parametrize(("label", "name"), CASES, ids=[f"{r}.{n}" for r, n in CASES])
def test_no_hostile_call_breaks_a_promise(label: str, name: str) -> None:
    report = fuzz_tool(REGISTRIES[label], name, calls=CALLS, secrets=PLANTED)
    assert report.calls == CALLS
    assert report.clean, "\n".join(report.problems[:5])


@pytest.mark.timeout(120)
@pytest.mark.parametrize("attack", ATTACKS, ids=[attack.__name__ for attack in ATTACKS])
def test_no_attack_outside_the_core_breaks_a_promise(attack) -> None:  # type: ignore[no-untyped-def]
    assert attack(1) == []


class _RaisingRegistry(Registry):
    def execute(self, *args: object, **kwargs: object) -> ToolResult:  # type: ignore[override]
        raise RuntimeError("escaped")


def test_the_fuzzer_notices_an_escape_a_leak_and_an_unsendable_message() -> None:
    broken = _RaisingRegistry()
    broken.tool(lambda: None, name="noop", description="Does nothing.")
    assert fuzz_tool(broken, "noop", calls=5).escapes == 5

    report = FuzzReport()
    check_message(ToolResult.success("key planted-value-123"), ["planted-value-123"], report, "x")
    assert report.leaks == 1
    check_message(object(), [], report, "y")
    assert report.escapes == 1
    check_message(_NotJSON(True), [], report, "z")
    assert report.unsendable == 1


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("Traceback (most recent call last):\n  File x", "a traceback"),
        (
            {"log": "see /home/alice/app/settings.py"},
            "an absolute path '/home/alice/app/settings.py'",
        ),
        (["ok", "planted-value-123"], "planted secret plante…"),
    ],
)
def test_a_successful_result_is_scanned_too_and_the_leak_is_named(value: object, says: str) -> None:
    report = FuzzReport()
    check_message(ToolResult.success(value), ["planted-value-123"], report, "x")
    assert (
        report.leaks == 1
        and says in report.problems[0]
        and "successful result" in report.problems[0]
    )


class _NotJSON(ToolResult):
    def to_message(self) -> str:
        return '{"value": NaN}'


def test_hypothesis_runs_derandomized_so_the_suite_cannot_fail_by_chance() -> None:
    assert settings.default.derandomize
