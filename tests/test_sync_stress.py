"""A short share of the sync stress run (tests/sync_stress.py); `make fuzz` runs a long one.

Every call must come back with the envelope its kind promises, and once everything hung is
released nothing may be left: no thread, no open event loop, no process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sync_stress import KINDS, stress


@pytest.mark.timeout(240)
@pytest.mark.parametrize("seed", [0])
def test_random_sequences_of_calls_come_back_right_and_leave_nothing_behind(
    seed: int, tmp_path: Path
) -> None:
    report = stress(rounds=len(KINDS) + 6, seed=seed, folder=tmp_path)
    assert report.calls >= len(KINDS) - 1
    assert report.clean, "\n".join([*report.wrong, *report.left])


@pytest.mark.timeout(120)
def test_the_refund_agent_answers_after_forks_hung_calls_and_other_threads(tmp_path: Path) -> None:
    """Issue 35's held-out test, after the earlier calls that made it hang: isolated tools that
    start a child and hang or ignore SIGTERM (here and on another thread), abandoned calls."""
    import json
    import threading
    import time

    from tests.sync_stress import HUNG, stress_registry
    from toolsys import Category, ErrorCode, Registry
    from toolsys.layers import Idempotency, Retry, Timeout
    from toolsys.loop import run_agent
    from toolsys.models import ScriptedModel, calls, text
    from toolsys.stores import MemoryStore

    earlier = stress_registry()

    def earlier_calls() -> None:
        for name in ("spawn_and_hang", "ignore_sigterm"):
            assert earlier.execute(name, {"record": str(tmp_path / name)}).error is not None
        assert earlier.execute("hang").error is not None

    earlier_calls()
    other = threading.Thread(target=earlier_calls)
    other.start()
    other.join(60)

    gate, runs = threading.Event(), []
    registry = Registry(
        layers=[
            Idempotency(MemoryStore()),
            Retry(max_attempts=4, base_delay=0.01, seed=0),
            Timeout(seconds=10),
        ]
    )

    @registry.tool(category=Category.WRITE, timeout=0.2)
    def refund(order_id: str, amount: float) -> str:
        """Refunds an order (held until the run is over: it must miss its deadline)."""
        runs.append(order_id)
        gate.wait(30)
        return "refunded"

    same = ("refund", {"order_id": "A1", "amount": 5.0})
    model = ScriptedModel([calls(same), calls(same), text("Refund requested.")])
    started = time.monotonic()
    try:
        transcript = run_agent(model.client(), registry, "Refund order A1.")
    finally:
        HUNG.release()
        gate.set()
    assert time.monotonic() - started < 30
    assert transcript.status == "completed"
    first = json.loads(next(m["content"] for m in transcript.messages if m["role"] == "tool"))
    assert first["error"]["code"] == ErrorCode.TIMEOUT
    # The timed-out refund's thread may start after its deadline (a loaded machine), even after
    # the run: wait for it, then it must have run once, the model's repeat not at all.
    end = time.monotonic() + 15
    while not runs and time.monotonic() < end:
        time.sleep(0.01)
    assert runs == ["A1"]
