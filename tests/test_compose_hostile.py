"""Hostile children, self-inclusion, deep nesting and the fuzzer: execute still never raises."""

from __future__ import annotations

import pytest

from tests.compose_tools import tools
from tests.hostile_tools import PLANTED, aexplode, explode, faulty, give, passthrough
from toolsys import Registry
from toolsys.compose import MAX_NESTING, parallel, pipeline, step, when
from toolsys.fuzz import fuzz_tool
from toolsys.tool import tool_from_function


def _composites() -> Registry:
    reg = Registry(layers=[passthrough, faulty])
    reg.add(pipeline("explode_then_give", [explode, step(give, lambda _, a: {"shape": "nan"})]))
    reg.add(pipeline("give_then_explode", [give, step(explode, lambda v, a: {"kind": "value"})]))
    reg.add(parallel("all_at_once", [explode, aexplode]))
    reg.add(when("pick", lambda args: args["kind"] == "value", explode, aexplode))
    reg.add(pipeline("nested", [parallel("inner", [explode, aexplode])]))
    return reg


COMPOSITES = _composites()


@pytest.mark.parametrize("name", COMPOSITES.names())
def test_no_hostile_call_to_a_composite_breaks_a_promise(name: str) -> None:
    report = fuzz_tool(COMPOSITES, name, calls=150, secrets=PLANTED)
    assert report.clean, "\n".join(report.problems[:5])


@pytest.mark.parametrize(
    "kind", ["secret_message", "traceback_text", "home_path", "system_exit", "cancelled"]
)
def test_a_child_that_raises_anything_becomes_a_step_envelope(kind: str) -> None:
    result = COMPOSITES.execute("explode_then_give", {"kind": kind})
    message = result.to_message()
    assert not result.ok and result.error is not None
    assert result.error.message.startswith("Step 1 of 'explode_then_give' ('explode') failed")
    assert "Traceback" not in message and "/home/" not in message
    assert not any(secret in message for secret in PLANTED)


@pytest.mark.parametrize("shape", ["nan", "circular", "bad_repr", "env_secret", "non_string_keys"])
def test_an_unsendable_result_of_a_completed_step_is_sent_safely(shape: str) -> None:
    reg = Registry()

    def fail(kind: str) -> None:
        """Fail after the first step."""
        raise RuntimeError("second step failed")

    reg.add(pipeline("p", [give, step(fail, lambda v, a: {"kind": "x"})]))
    result = reg.execute("p", {"shape": shape})
    assert not result.ok
    message = result.to_message()
    assert message.startswith('{"ok": false')
    assert not any(secret in message for secret in PLANTED)


def test_a_composite_that_calls_itself_is_stopped_with_a_clear_envelope() -> None:
    reg = Registry()

    def again(email: str) -> dict[str, object]:
        """Call the composite again, by name, through the registry."""
        return reg.execute("loop", {"email": email}).to_dict()

    reg.add(pipeline("loop", [tools()["find_order"], step(again, lambda v, a: a)]))
    result = reg.execute("loop", {"email": "a@example.com"})
    assert result.ok  # `again` returned the inner envelope as its value
    inner = result.value["error"]
    assert inner["code"] == "COMPOSITE_TOO_DEEP"
    assert inner["message"].startswith("Composite tool 'loop' calls itself")


def test_composites_nested_deeper_than_the_limit_are_refused_at_call_time() -> None:
    built = tools()["find_order"]
    for level in range(MAX_NESTING + 1):
        built = pipeline(f"level_{level}", [built])
    reg = Registry()
    reg.add(built)
    result = reg.execute(built.name, {"email": "a@example.com"})
    assert result.error is not None and result.error.code == "COMPOSITE_TOO_DEEP"
    assert f"nests more than {MAX_NESTING} deep" in result.error.message


def test_nesting_within_the_limit_works() -> None:
    built = tools()["find_order"]
    for level in range(MAX_NESTING - 1):
        built = pipeline(f"level_{level}", [built])
    reg = Registry()
    reg.add(built)
    assert reg.execute(built.name, {"email": "a@example.com"}).value["order_id"] == "ORD-1"


def test_a_composite_registers_exports_and_lints_like_any_tool() -> None:
    reg = Registry()
    t = tools()
    reg.add(pipeline("lookup_then_refund", [t["find_order"], t["refund"]]))
    reg.add(parallel("both", [t["find_order"], t["refund"]]))
    reg.add(when("w", lambda a: True, t["refund"], t["escalate"]))
    for target in ("openai", "anthropic", "mcp"):
        assert len(reg.export(target)) == 3
    assert reg.lint("openai") == []
    assert "from pipeline" in reg.explain("lookup_then_refund")


def test_a_composite_can_be_a_step_of_itself_only_as_a_distinct_older_tool() -> None:
    first = pipeline("p", [tools()["find_order"]])
    second = pipeline("p", [first, tool_from_function(lambda_free)])
    reg = Registry()
    reg.add(second)
    assert reg.execute("p", {"email": "a@example.com"}).value == "ORD-1"


def lambda_free(order_id: str) -> str:
    """Echo the order id."""
    return order_id
