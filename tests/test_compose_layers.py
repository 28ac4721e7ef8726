"""Every layer sees a composite's inner calls: same path, context and run id, derived call ids."""

from __future__ import annotations

import asyncio

from tests.compose_tools import Deny, Recorder, registry
from toolsys.compose import parallel, pipeline


def test_a_recording_layer_sees_the_outer_call_and_each_inner_call() -> None:
    recorder = Recorder()
    reg = registry(recorder)
    reg.add(pipeline("lookup_then_refund", [reg.get("find_order"), reg.get("refund")]))
    reg.execute(
        "lookup_then_refund",
        {"email": "a@example.com"},
        context={"user": "ann"},
        run_id="run-1",
        call_id="call_7",
    )
    assert recorder.seen == [
        ("lookup_then_refund", "call_7", "run-1", {"user": "ann"}),
        ("find_order", "call_7/1", "run-1", {"user": "ann"}),
        ("refund", "call_7/2", "run-1", {"user": "ann"}),
    ]


def test_layers_at_the_validated_stage_see_inner_calls_too() -> None:
    recorder = Recorder("validated")
    reg = registry(recorder)
    reg.add(parallel("both", [reg.get("find_order"), reg.get("refund")]))
    reg.execute("both", {"email": "a@example.com", "order_id": "A"}, call_id="c")
    assert [(name, call_id) for name, call_id, _, _ in recorder.seen] == [
        ("both", "c"),
        ("find_order", "c/find_order"),
        ("refund", "c/refund"),
    ]


def test_call_ids_nest_for_composites_inside_composites() -> None:
    recorder = Recorder()
    reg = registry(recorder)
    inner = pipeline("inner", [reg.get("find_order"), reg.get("refund")])
    reg.add(pipeline("outer", [reg.get("find_order"), inner]))
    result = reg.execute("outer", {"email": "a@example.com"}, call_id="x")
    assert result.ok, result
    assert [call_id for _, call_id, _, _ in recorder.seen] == ["x", "x/1", "x/2", "x/2/1", "x/2/2"]


def test_without_a_call_id_inner_ids_derive_from_the_composite_name() -> None:
    recorder = Recorder()
    reg = registry(recorder)
    reg.add(pipeline("p", [reg.get("find_order")]))
    reg.execute("p", {"email": "a@example.com"})
    assert [call_id for _, call_id, _, _ in recorder.seen] == [None, "p/1"]


def test_a_policy_layer_that_denies_an_inner_call_stops_the_pipeline_at_that_step() -> None:
    recorder = Recorder()
    reg = registry(recorder, Deny())
    reg.add(pipeline("lookup_then_refund", [reg.get("find_order"), reg.get("refund")]))
    result = reg.execute(
        "lookup_then_refund", {"email": "a@example.com"}, context={"role": "admin"}
    )
    assert result.ok
    # The outer call is a WRITE tool, so the policy refuses it before any step runs...
    recorder.seen.clear()
    denied = reg.execute("lookup_then_refund", {"email": "a@example.com"})
    assert denied.error is not None and denied.error.code == "PERMISSION_DENIED"
    assert [name for name, *_ in recorder.seen] == ["lookup_then_refund"]


def test_the_policy_sees_the_inner_write_even_when_the_outer_call_was_allowed() -> None:
    class DenyRefund(Deny):
        name = "deny_refund"

        async def __call__(self, call, call_next):  # type: ignore[no-untyped-def]
            if call.name == "refund":
                return await super().__call__(call, call_next)
            return await call_next(call)

    reg = registry(DenyRefund())
    reg.add(pipeline("lookup_then_refund", [reg.get("find_order"), reg.get("refund")]))
    result = reg.execute("lookup_then_refund", {"email": "a@example.com"})
    error = result.error
    assert error is not None and error.code == "PERMISSION_DENIED"
    assert error.message == (
        "Step 2 of 'lookup_then_refund' ('refund') failed: refund needs the admin role."
    )
    assert error.details["failed_step"]["error"]["code"] == "PERMISSION_DENIED"
    assert error.details["completed"][0]["tool"] == "find_order"


def test_idempotency_keys_are_derived_per_inner_call() -> None:
    keys: list[str | None] = []

    async def keep(call, call_next):  # type: ignore[no-untyped-def]
        keys.append(call.idempotency_key)
        return await call_next(call)

    reg = registry(keep)
    reg.add(pipeline("p", [reg.get("find_order"), reg.get("refund")]))
    reg.execute("p", {"email": "a@example.com"}, idempotency_key="k1")
    assert keys == ["k1", "k1/1", "k1/2"]


def test_inner_calls_run_through_aexecute_as_well() -> None:
    recorder = Recorder()
    reg = registry(recorder)
    reg.add(pipeline("p", [reg.get("find_order"), reg.get("refund")]))
    result = asyncio.run(reg.aexecute("p", {"email": "a@example.com"}, call_id="a"))
    assert result.ok
    assert [call_id for _, call_id, _, _ in recorder.seen] == ["a", "a/1", "a/2"]
