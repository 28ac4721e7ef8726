"""One audit record per call, whatever happened: ok, error, unknown, invalid, denied, approved,
timed out, retried, crashed, cancelled, replayed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from toolsys import Category, ErrorCode, Registry, ToolError, ToolResult
from toolsys.errors import ErrorInfo
from toolsys.execution import Call, Next
from toolsys.governance import AuditLog
from toolsys.governance.audit import read, verify
from toolsys.layers import Idempotency, Retry, Timeout

FIELDS = {
    "v",
    "seq",
    "ts",
    "run_id",
    "step",
    "call_id",
    "user",
    "roles",
    "tool",
    "category",
    "validated",
    "arguments",
    "decision",
    "approved_by",
    "outcome",
    "ok",
    "message",
    "duration_ms",
    "attempt",
    "retries",
    "replayed",
    "prev",
    "hash",
}


class FakePolicy:
    """Stands in for toolsys.governance.Policy: the decision contract, nothing more."""

    stage = "validated"
    name = "policy"

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        assert call.tool is not None
        if call.tool.name == "refund" and call.values["amount"] > 100:
            error = ErrorInfo(ErrorCode.PERMISSION_DENIED, "Over 100 needs a manager.")
            return ToolResult.failure(error, decision="deny")
        result = await call_next(call)
        if call.tool.category == Category.WRITE:
            result.meta.update(decision="approved", approved_by="maria")
        else:
            result.meta["decision"] = "allow"
        return result


def build(path: Path, *layers: Any) -> tuple[Registry, dict[str, int]]:
    runs: dict[str, int] = {}
    registry = Registry(layers=[AuditLog(path), *layers])

    @registry.tool
    def weather(city: str) -> str:
        """Weather.

        Args:
            city: The city.
        """
        runs["weather"] = runs.get("weather", 0) + 1
        return "sunny"

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict[str, Any]:
        """Refund.

        Args:
            order_id: The order.
            amount: How much.
        """
        runs["refund"] = runs.get("refund", 0) + 1
        return {"refund_id": "R-1"}

    @registry.tool
    def flaky(n: int) -> int:
        """Fails once, retryably, then works.

        Args:
            n: A number.
        """
        runs["flaky"] = runs.get("flaky", 0) + 1
        if runs["flaky"] == 1:
            raise ToolError("BUSY", "Busy, try again.", retryable=True)
        return n

    @registry.tool
    def broken(n: int) -> int:
        """Always crashes.

        Args:
            n: A number.
        """
        raise RuntimeError("boom")

    @registry.tool(category=Category.EXECUTE, timeout=0.05)
    async def slow(seconds: float) -> str:
        """Sleeps.

        Args:
            seconds: How long.
        """
        await asyncio.sleep(seconds)
        return "done"

    return registry, runs


def only(path: Path) -> dict[str, Any]:
    (record,) = read(path)
    return record


def test_a_record_has_every_field_and_the_callers_identity(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, _ = build(path)
    context = {"user": "ana", "roles": {"support", "viewer"}, "tenant": "t-1"}
    registry.execute("weather", {"city": "Oslo"}, context=context, run_id="r1", call_id="c1")
    record = only(path)
    assert set(record) == FIELDS
    assert record["user"] == "ana" and record["roles"] == ["support", "viewer"]
    assert (record["run_id"], record["call_id"], record["tool"]) == ("r1", "c1", "weather")
    assert record["category"] == "read" and record["validated"] is True
    assert record["arguments"] == {"city": "Oslo"}
    assert record["outcome"] == "ok" and record["ok"] is True and record["message"] is None
    assert record["decision"] == "none" and record["approved_by"] is None
    assert record["attempt"] == 1 and record["retries"] == 0 and record["replayed"] is False
    assert record["duration_ms"] >= 0 and record["ts"].endswith("+00:00")


def test_without_a_policy_the_decision_is_none(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, _ = build(path)
    registry.execute("refund", {"order_id": "A", "amount": 5})
    assert only(path)["decision"] == "none"


def test_an_unknown_tool_and_bad_arguments_are_recorded_unvalidated(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, runs = build(path)
    registry.execute("delete_everything", {"really": True})
    registry.execute("weather", '{"city": ')
    registry.execute("weather", {"city": 3})
    unknown, bad_json, invalid = read(path)
    assert unknown["outcome"] == "UNKNOWN_TOOL" and unknown["category"] is None
    assert unknown["arguments"] == {"really": True} and unknown["validated"] is False
    assert bad_json["outcome"] == "INVALID_JSON" and bad_json["arguments"] == {
        "unparsed": '{"city": '
    }
    assert invalid["outcome"] == "INVALID_ARGUMENTS" and invalid["arguments"] == {"city": 3}
    assert runs == {}


def test_a_denied_call_is_recorded_as_denied_and_did_not_run(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, runs = build(path, FakePolicy())
    registry.execute("refund", {"order_id": "A", "amount": 500}, context={"user": "ana"})
    record = only(path)
    assert record["decision"] == "deny" and record["outcome"] == "PERMISSION_DENIED"
    assert record["message"] == "Over 100 needs a manager." and record["category"] == "write"
    assert "refund" not in runs


def test_an_approved_call_records_who_approved_it(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, runs = build(path, FakePolicy())
    registry.execute("refund", {"order_id": "A", "amount": 50})
    record = only(path)
    assert (record["decision"], record["approved_by"], record["outcome"]) == (
        "approved",
        "maria",
        "ok",
    )
    assert runs["refund"] == 1


def test_a_decision_outside_the_contract_is_recorded_as_none(tmp_path: Path) -> None:
    async def liar(call: Call, call_next: Next) -> ToolResult:
        result = await call_next(call)
        result.meta["decision"] = {"not": "a decision"}
        return result

    path = tmp_path / "a.jsonl"
    registry, _ = build(path, liar)
    registry.execute("weather", {"city": "x"})
    assert only(path)["decision"] == "none"


def test_a_crash_is_recorded_with_its_redacted_message(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, _ = build(path)
    registry.execute("broken", {"n": 1})
    record = only(path)
    assert record["outcome"] == "EXECUTION_ERROR" and "boom" in record["message"]
    assert "Traceback" not in path.read_text()


def test_a_retried_call_is_one_record_with_its_attempts(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, runs = build(path, Retry(max_attempts=3, sleep=lambda _: None, seed=0))
    result = registry.execute("flaky", {"n": 4})
    assert result.ok and runs["flaky"] == 2
    record = only(path)
    assert (record["outcome"], record["attempt"], record["retries"]) == ("ok", 2, 1)


def test_a_timed_out_call_is_recorded_as_timeout(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, _ = build(path, Timeout(seconds=0.05))
    result = registry.execute("slow", {"seconds": 30})
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    record = only(path)
    assert record["outcome"] == "TIMEOUT" and record["category"] == "execute"


def test_a_replayed_call_is_recorded_as_a_replay(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, runs = build(path, Idempotency())
    for call_id in ("c1", "c2"):
        registry.execute("refund", {"order_id": "A", "amount": 5}, run_id="r", call_id=call_id)
    first, second = read(path)
    assert runs["refund"] == 1
    assert first["replayed"] is False and second["replayed"] is True
    assert second["outcome"] == "ok" and second["call_id"] == "c2"


def test_a_call_cancelled_while_it_runs_is_recorded_before_the_cancellation_goes_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.jsonl"
    registry, _ = build(path)

    async def main() -> None:
        task = asyncio.create_task(registry.aexecute("slow", {"seconds": 30}, call_id="c9"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    record = only(path)
    assert record["outcome"] == "CANCELLED" and record["ok"] is False
    assert record["call_id"] == "c9" and record["category"] == "execute"


def test_arguments_rewritten_by_a_layer_are_recorded_as_they_ran(tmp_path: Path) -> None:
    async def rewrite(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call.replace(raw_arguments={"city": "Bergen"}))

    rewrite.stage = "validated"  # type: ignore[attr-defined]
    path = tmp_path / "a.jsonl"
    registry, _ = build(path, rewrite)
    registry.execute("weather", {"city": "Oslo"})
    assert only(path)["arguments"] == {"city": "Bergen"}


def test_a_tool_calling_another_registry_does_not_change_its_own_record(
    tmp_path: Path,
) -> None:
    inner = Registry()

    @inner.tool
    def secret_helper(x: int) -> int:
        """Helper.

        Args:
            x: A number.
        """
        return x

    path = tmp_path / "a.jsonl"
    outer = Registry(layers=[AuditLog(path)])

    @outer.tool(category=Category.WRITE)
    async def composite(x: int) -> int:
        """Calls another registry.

        Args:
            x: A number.
        """
        result = await inner.aexecute("secret_helper", {"x": x})
        return int(result.value)

    outer.execute("composite", {"x": 2})
    record = only(path)
    assert (record["tool"], record["category"], record["arguments"]) == (
        "composite",
        "write",
        {"x": 2},
    )


def test_a_layer_that_fails_is_recorded_as_layer_error(tmp_path: Path) -> None:
    async def broken_layer(call: Call, call_next: Next) -> ToolResult:
        raise RuntimeError("layer bug")

    path = tmp_path / "a.jsonl"
    registry, _ = build(path, broken_layer)
    registry.execute("weather", {"city": "x"})
    assert only(path)["outcome"] == "LAYER_ERROR"


def test_every_kind_of_call_gives_exactly_one_record_and_a_valid_chain(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, _ = build(
        path, FakePolicy(), Idempotency(), Retry(sleep=lambda _: None, seed=0), Timeout(30)
    )
    calls: list[tuple[str, dict[str, Any]]] = [
        ("weather", {"city": "Oslo"}),
        ("nope", {}),
        ("weather", {}),
        ("refund", {"order_id": "A", "amount": 500}),
        ("refund", {"order_id": "A", "amount": 5}),
        ("refund", {"order_id": "A", "amount": 5}),
        ("flaky", {"n": 1}),
        ("broken", {"n": 1}),
        ("slow", {"seconds": 30}),
    ]
    for index, (name, arguments) in enumerate(calls):
        registry.execute(name, arguments, run_id="r", call_id=f"c{index}")
    records = read(path)
    assert [r["call_id"] for r in records] == [f"c{i}" for i in range(len(calls))]
    assert [r["outcome"] for r in records] == [
        "ok",
        "UNKNOWN_TOOL",
        "INVALID_ARGUMENTS",
        "PERMISSION_DENIED",
        "ok",
        "ok",
        "ok",
        "EXECUTION_ERROR",
        "TIMEOUT",
    ]
    assert records[5]["replayed"] is True and records[6]["retries"] == 1
    assert verify(path).ok


class HostileRoles:
    def __iter__(self) -> Any:
        raise RuntimeError("no iterating me")


def test_a_call_whose_full_record_cannot_be_built_is_still_recorded(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    registry, runs = build(path)
    result = registry.execute("weather", {"city": "x"}, context={"roles": HostileRoles()})
    assert result.ok and runs["weather"] == 1
    record = only(path)
    assert (record["tool"], record["outcome"]) == ("weather", "ok")
    assert record["record_error"].startswith("RuntimeError")
    assert verify(path).ok


def test_an_agent_run_records_its_run_id_steps_call_ids_and_caller(tmp_path: Path) -> None:
    from toolsys.loop import run_agent
    from toolsys.models import ScriptedModel, calls, text

    path = tmp_path / "a.jsonl"
    registry, _ = build(path)
    model = ScriptedModel(
        [
            calls(("weather", {"city": "Oslo"}), ("nope", {})),
            calls(("refund", {"order_id": "A", "amount": 5})),
            text("done"),
        ]
    )
    context = {"user": "ana", "roles": ["support"]}
    transcript = run_agent(model.client(), registry, "go", context=context)
    records = read(path)
    assert [(r["tool"], r["outcome"]) for r in records] == [
        ("weather", "ok"),
        ("nope", "UNKNOWN_TOOL"),
        ("refund", "ok"),
    ]
    assert [r["call_id"] for r in records] == ["call_0001", "call_0002", "call_0003"]
    assert len({r["run_id"] for r in records}) == 1 and records[0]["run_id"]
    assert records[0]["step"] != records[2]["step"]
    assert {r["user"] for r in records} == {"ana"}
    assert transcript.status == "completed"
