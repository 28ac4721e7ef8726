"""Idempotency: the same call, made twice, runs once; a misused or busy key is said so."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from toolsys import Category, ErrorCode, Registry, ToolError, ToolResult
from toolsys.layers import Idempotency, ResultBudget, Retry, Timeout, idempotency_key
from toolsys.stores import MemoryStore, SQLiteStore, Store

ORDER = {"order_id": "A-7", "amount": 12.5}


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "calls.db")


def refunds(store: Store | Idempotency) -> tuple[Registry, list[dict[str, Any]]]:
    """A registry with a `refund` WRITE tool that records every real execution."""
    done: list[dict[str, Any]] = []
    layer = store if isinstance(store, Idempotency) else Idempotency(store)
    registry = Registry(layers=[layer])

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict[str, Any]:
        """Refund an order.

        Args:
            order_id: The order.
            amount: How much.
        """
        done.append({"order_id": order_id, "amount": amount})
        return {"refund_id": f"R-{len(done)}", "order_id": order_id, "amount": amount}

    return registry, done


def without_notice(message: str) -> str:
    data = json.loads(message)
    data.pop("notice")
    return json.dumps(data)


def test_a_completed_key_replays_the_result_byte_identical_without_running_again(
    store: Store,
) -> None:
    registry, done = refunds(store)
    first = registry.execute("refund", ORDER, idempotency_key="run-7:call_abc")
    again = registry.execute("refund", ORDER, idempotency_key="run-7:call_abc")
    assert len(done) == 1
    assert first.meta["replayed"] is False and again.meta["replayed"] is True
    original = first.to_message()
    assert again.to_message().startswith(original[:-1] + ', "notice": ')  # the same bytes first
    assert without_notice(again.to_message()) == original
    assert "already ran at" in again.notice and "Ask the user" in again.notice  # type: ignore[operator]
    assert again.meta["ran_at"].endswith("Z")


def test_the_same_key_with_other_arguments_is_refused_and_not_run(store: Store) -> None:
    registry, done = refunds(store)
    registry.execute("refund", ORDER, idempotency_key="k-1")
    other = registry.execute("refund", {**ORDER, "amount": 99.0}, idempotency_key="k-1")
    assert other.error is not None and other.error.code == ErrorCode.IDEMPOTENCY_KEY_REUSED
    assert other.error.retryable is False and '"k-1"' in other.error.message
    assert len(done) == 1


def test_a_key_still_in_flight_is_in_progress_and_retryable() -> None:
    release = asyncio.Event()
    done: list[str] = []
    registry = Registry(layers=[Idempotency()])

    @registry.tool(category=Category.WRITE)
    async def charge(card: str) -> str:
        """Charge a card.

        Args:
            card: The card.
        """
        await release.wait()
        done.append(card)
        return "charged"

    async def main() -> tuple[ToolResult, ToolResult, ToolResult]:
        first = asyncio.ensure_future(
            registry.aexecute("charge", {"card": "c"}, idempotency_key="k")
        )
        await asyncio.sleep(0.01)
        busy = await registry.aexecute("charge", {"card": "c"}, idempotency_key="k")
        release.set()
        return (
            await first,
            busy,
            await registry.aexecute("charge", {"card": "c"}, idempotency_key="k"),
        )

    first, busy, later = asyncio.run(main())
    assert first.value == "charged" and later.meta["replayed"] is True
    assert busy.error is not None and busy.error.code == ErrorCode.IN_PROGRESS
    assert busy.error.retryable is True and "not started a second time" in busy.error.message
    assert done == ["c"]


def test_a_write_is_keyed_by_run_tool_and_arguments_not_by_the_tool_call_id(store: Store) -> None:
    registry, done = refunds(store)
    first = registry.execute("refund", ORDER, run_id="run-1", call_id="call_1")
    repeat = registry.execute("refund", ORDER, run_id="run-1", call_id="call_2")
    assert repeat.meta["replayed"] is True and len(done) == 1
    assert first.meta["idempotency_key"] == repeat.meta["idempotency_key"]
    assert "call_" not in first.meta["idempotency_key"]
    registry.execute("refund", ORDER, run_id="run-2", call_id="call_1")  # another run
    registry.execute("refund", {**ORDER, "amount": 1.0}, run_id="run-1", call_id="call_3")
    assert len(done) == 3


def test_reads_and_calls_outside_a_run_get_no_derived_key(store: Store) -> None:
    registry, done = refunds(store)
    registry.execute("refund", ORDER)
    registry.execute("refund", ORDER)
    assert len(done) == 2  # no run id, no key: the caller decides
    reads: list[int] = []

    @registry.tool
    def lookup(order_id: str) -> int:
        """Look an order up.

        Args:
            order_id: The order.
        """
        reads.append(1)
        return len(reads)

    registry.execute("lookup", {"order_id": "A"}, run_id="r")
    assert registry.execute("lookup", {"order_id": "A"}, run_id="r").value == 2


def test_an_argument_the_model_writes_is_never_taken_as_the_key(store: Store) -> None:
    registry = Registry(layers=[Idempotency(store)])
    runs: list[str] = []

    @registry.tool(category=Category.WRITE)
    def send(to: str, idempotency_key: str) -> str:
        """Send a message.

        Args:
            to: Recipient.
            idempotency_key: A key the model made up.
        """
        runs.append(to)
        return "sent"

    registry.execute("send", {"to": "ana", "idempotency_key": "same"}, run_id="r")
    second = registry.execute("send", {"to": "bo", "idempotency_key": "same"}, run_id="r")
    assert second.ok and runs == ["ana", "bo"]


def test_a_retryable_failure_releases_the_key_and_a_final_one_is_replayed(store: Store) -> None:
    registry = Registry(layers=[Idempotency(store)])
    errors = [
        ToolError("RATE_LIMITED", "Slow down.", retryable=True),
        ToolError("CARD_DECLINED", "Declined."),
    ]
    runs: list[int] = []

    @registry.tool(category=Category.WRITE)
    def pay() -> str:
        """Pay."""
        runs.append(1)
        raise errors.pop(0)

    assert registry.execute("pay", idempotency_key="k").error.code == "RATE_LIMITED"  # type: ignore[union-attr]
    declined = registry.execute("pay", idempotency_key="k")
    replayed = registry.execute("pay", idempotency_key="k")
    assert len(runs) == 2
    assert declined.error is not None and declined.error.code == "CARD_DECLINED"
    assert replayed.meta["replayed"] is True
    assert without_notice(replayed.to_message()) == declined.to_message()


def test_a_write_that_times_out_is_in_progress_until_its_thread_ends_then_replayed() -> None:
    release = threading.Event()
    store = MemoryStore()
    layers = [ResultBudget(), Idempotency(store), Retry(seed=0), Timeout(seconds=0.1)]
    registry = Registry(layers=layers)
    done: list[str] = []

    @registry.tool(category=Category.WRITE)
    def transfer(amount: int) -> str:
        """Transfer money.

        Args:
            amount: How much.
        """
        release.wait(30)
        done.append("transferred")
        return f"transferred {amount}"

    ids = {"run_id": "run-9"}
    timed_out = registry.execute("transfer", {"amount": 5}, call_id="call_1", **ids)
    assert timed_out.error is not None and timed_out.error.code == ErrorCode.TIMEOUT
    assert timed_out.error.retryable is False and timed_out.meta["abandoned_thread"] is True
    again = registry.execute("transfer", {"amount": 5}, call_id="call_2", **ids)
    assert again.error is not None and again.error.code == ErrorCode.IN_PROGRESS
    release.set()
    key = timed_out.meta["idempotency_key"]
    deadline = time.monotonic() + 10
    while (record := store.get(key, time.time())) is not None and record.state != "done":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    replay = registry.execute("transfer", {"amount": 5}, call_id="call_3", **ids)
    assert replay.value == "transferred 5" and replay.meta["replayed"] is True
    assert done == ["transferred"]


def test_a_write_cancelled_while_running_is_remembered_as_cancelled(store: Store) -> None:
    registry = Registry(layers=[Idempotency(store)])
    runs: list[int] = []

    @registry.tool(category=Category.WRITE)
    async def ship() -> str:
        """Ship an order."""
        runs.append(1)
        await asyncio.sleep(60)
        return "shipped"

    async def main() -> ToolResult:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(registry.aexecute("ship", idempotency_key="k"), 0.05)
        return await registry.aexecute("ship", idempotency_key="k")

    result = asyncio.run(main())
    assert runs == [1]
    assert result.error is not None and result.error.code == ErrorCode.CANCELLED
    assert result.meta["replayed"] is True


def test_a_key_expires_after_its_ttl() -> None:
    now = [1_000_000.0]
    registry, done = refunds(Idempotency(MemoryStore(), ttl=60, clock=lambda: now[0]))
    registry.execute("refund", ORDER, idempotency_key="k")
    now[0] += 59
    assert registry.execute("refund", ORDER, idempotency_key="k").meta["replayed"] is True
    now[0] += 2
    assert registry.execute("refund", ORDER, idempotency_key="k").meta["replayed"] is False
    assert len(done) == 2


def test_a_tool_can_read_the_key_of_its_call_to_pass_it_on() -> None:
    seen: list[str | None] = []
    registry = Registry(layers=[Idempotency(), Timeout(seconds=5)])

    @registry.tool(category=Category.WRITE)
    def sync_write() -> None:
        """Records the key (runs on a worker thread)."""
        seen.append(idempotency_key())

    @registry.tool(category=Category.WRITE)
    async def async_write() -> None:
        """Records the key."""
        seen.append(idempotency_key())

    registry.execute("sync_write", idempotency_key="k-sync")
    registry.execute("async_write", idempotency_key="k-async")
    assert seen == ["k-sync", "k-async"]
    assert idempotency_key() is None


@pytest.mark.parametrize("key", ["", "x" * 256, 42])
def test_a_bad_key_is_a_layer_error_naming_it(key: Any) -> None:
    registry, done = refunds(MemoryStore())
    error = registry.execute("refund", ORDER, idempotency_key=key).error
    assert error is not None and error.code == ErrorCode.LAYER_ERROR
    assert "idempotency_key=" in error.message and done == []


def test_a_model_that_repeats_a_write_in_one_turn_refunds_once() -> None:
    from toolsys.loop import run_agent
    from toolsys.models import ScriptedModel
    from toolsys.models.scripted import calls, text

    registry, done = refunds(MemoryStore())
    model = ScriptedModel([calls(("refund", ORDER), ("refund", ORDER)), text("Refunded.")])
    transcript = run_agent(model.client(), registry, "refund A-7")
    assert len(done) == 1
    first, second = (json.loads(m["content"]) for m in transcript.messages if m["role"] == "tool")
    assert first["ok"] and "notice" not in first
    assert second["value"] == first["value"] and "already ran at" in second["notice"]
