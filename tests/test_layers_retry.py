"""Retry: only when repeating is safe, with capped jittered backoff, and an honest last word."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsys import Category, Registry, ToolError
from toolsys.layers import Retry


class Script:
    """A tool body that fails with the scripted errors in order, then succeeds."""

    def __init__(self, *errors: ToolError | Exception) -> None:
        self.errors = list(errors)
        self.runs = 0

    def __call__(self) -> str:
        self.runs += 1
        if self.errors:
            raise self.errors.pop(0)
        return "done"


def rate_limited(retry_after: float | None = None) -> ToolError:
    return ToolError("RATE_LIMITED", "Slow down.", retryable=True, retry_after=retry_after)


def setup(
    script: Script, *, category: Category = Category.READ, **retry: Any
) -> tuple[Registry, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    registry = Registry(layers=[Retry(sleep=sleep, **{"seed": 0, "max_attempts": 4, **retry})])

    def tool() -> str:
        """A scripted tool."""
        return script()

    registry.register(tool, category=category)
    return registry, slept


def test_a_retryable_failure_of_an_idempotent_tool_is_retried_until_it_succeeds() -> None:
    script = Script(rate_limited(), rate_limited())
    registry, slept = setup(script)
    result = registry.execute("tool")
    assert result.ok and result.value == "done" and script.runs == 3
    assert result.meta["attempt"] == 3
    assert result.meta["attempts"] == [
        {"code": "RATE_LIMITED", "delay_s": round(slept[0], 3)},
        {"code": "RATE_LIMITED", "delay_s": round(slept[1], 3)},
        {"code": None, "delay_s": None},
    ]


def test_a_failure_that_is_not_retryable_returns_at_once() -> None:
    script = Script(ToolError("NOT_FOUND", "No such order."), rate_limited())
    registry, slept = setup(script)
    result = registry.execute("tool")
    assert result.error is not None and result.error.code == "NOT_FOUND"
    assert script.runs == 1 and slept == [] and "attempts" not in result.meta


@pytest.mark.parametrize("category", [Category.WRITE, Category.EXECUTE])
def test_a_write_without_an_idempotency_key_is_never_retried(category: Category) -> None:
    script = Script(rate_limited(), rate_limited())
    registry, slept = setup(script, category=category)
    result = registry.execute("tool")
    assert result.error is not None and result.error.code == "RATE_LIMITED"
    assert script.runs == 1 and slept == []


def test_a_write_with_an_idempotency_key_is_retried() -> None:
    script = Script(rate_limited())
    registry, _ = setup(script, category=Category.WRITE)
    assert registry.execute("tool", idempotency_key="order-7:refund").ok
    assert script.runs == 2


def test_an_unexpected_exception_of_a_write_is_not_retried_even_with_a_key() -> None:
    script = Script(ConnectionError("reset"))  # the write may have reached the server
    registry, _ = setup(script, category=Category.WRITE)
    result = registry.execute("tool", idempotency_key="k")
    assert result.error is not None and script.runs == 1


def test_the_last_envelope_says_how_many_attempts_and_not_to_repeat_blindly() -> None:
    script = Script(*(rate_limited() for _ in range(10)))
    registry, slept = setup(script)
    result = registry.execute("tool")
    error = result.error
    assert error is not None and error.code == "RATE_LIMITED"
    assert script.runs == 4 and len(slept) == 3
    assert "tried 4 times" in error.message
    assert "Do not repeat the same call blindly" in error.suggestion
    assert error.retryable is False and error.details["attempts"] == 4
    assert [a["code"] for a in result.meta["attempts"]] == ["RATE_LIMITED"] * 4


def test_retry_after_from_the_tool_wins_but_never_beyond_the_cap() -> None:
    script = Script(rate_limited(retry_after=1.5), rate_limited(retry_after=60))
    registry, slept = setup(script, base_delay=0.1, max_delay=5.0)
    assert registry.execute("tool").ok
    assert slept == [1.5, 5.0]


def test_the_schedule_is_deterministic_and_is_the_one_the_layer_sleeps() -> None:
    script = Script(*(rate_limited() for _ in range(10)))
    registry, slept = setup(script, base_delay=0.5, max_delay=5.0)
    registry.execute("tool")
    expected = Retry(max_attempts=4, base_delay=0.5, max_delay=5.0, seed=0).schedule()
    assert slept == expected
    assert Retry(seed=0).schedule(8) == Retry(seed=0).schedule(8)
    assert Retry(seed=0).schedule(8) != Retry(seed=1).schedule(8)


def test_without_jitter_the_schedule_is_exponential_and_capped() -> None:
    schedule = Retry(base_delay=0.5, max_delay=5.0, jitter="none").schedule(6)
    assert schedule == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]


@given(
    base=st.floats(0, 10),
    extra=st.floats(0, 100),
    seed=st.integers(0, 2**32),
    jitter=st.sampled_from(["full", "equal", "none"]),
)
def test_no_delay_ever_exceeds_the_cap(base: float, extra: float, seed: int, jitter: Any) -> None:
    retry = Retry(max_attempts=80, base_delay=base, max_delay=base + extra, jitter=jitter)
    rng = random.Random(seed)
    for n in range(1, 80):
        delay = retry.delay(n, rng=rng)
        assert 0 <= delay <= retry.cap(n) <= retry.max_delay


def test_full_jitter_spreads_clients_that_failed_together() -> None:
    first_retry = [Retry(seed=client).schedule(1)[0] for client in range(50)]
    assert len(set(first_retry)) == 50
    assert max(first_retry) <= Retry().cap(1)


def test_an_injected_rng_is_used() -> None:
    class Half(random.Random):
        def random(self) -> float:
            return 0.5

    assert Retry(base_delay=1.0, max_delay=8.0, rng=Half()).schedule(3) == [0.5, 1.0, 2.0]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"max_attempts": 0}, "max_attempts=0"),
        ({"max_attempts": 2.5}, "max_attempts=2.5"),
        ({"base_delay": -1}, "base_delay=-1"),
        ({"max_delay": float("nan")}, "max_delay=nan"),
        ({"base_delay": 2, "max_delay": 1}, "the cap must be at least"),
        ({"jitter": "some"}, "jitter='some'"),
        ({"seed": 1, "rng": random.Random()}, "not both"),
    ],
)
def test_bad_settings_are_refused_with_the_value_named(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        Retry(**options)


def test_a_plain_function_can_stand_in_for_sleep() -> None:
    slept: list[float] = []
    registry = Registry(layers=[Retry(seed=0, sleep=slept.append)])
    script = Script(rate_limited(retry_after=0.25))

    @registry.tool
    def tool() -> str:
        """A scripted tool."""
        return script()

    assert registry.execute("tool").ok and slept == [0.25]
