"""Namespaces: wire-safe prefixed names, include all-or-nothing, collisions naming both tools."""

from __future__ import annotations

import re

import pytest

from tests.compose_tools import Recorder, find_order, refund
from toolsys import Registry, ToolDefinitionError
from toolsys.compose import pipeline
from toolsys.namespaces import SEPARATOR, qualified, split
from toolsys.spec import Category

WIRE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def billing() -> Registry:
    reg = Registry()
    reg.tool(refund, category=Category.WRITE)
    reg.tool(find_order)
    return reg


def test_include_registers_every_tool_under_the_prefix_with_wire_safe_names() -> None:
    app = Registry()
    added = app.include(billing(), prefix="billing")
    assert [t.name for t in added] == ["billing__refund", "billing__find_order"]
    assert app.names() == ["billing__refund", "billing__find_order"]
    assert all(WIRE.match(tool["function"]["name"]) for tool in app.export("openai"))
    assert app.get("billing__refund").category == Category.WRITE


def test_an_included_tool_runs_under_its_new_name_through_the_including_registrys_layers() -> None:
    recorder = Recorder()
    app = Registry(layers=[recorder])
    app.include(billing(), prefix="billing")
    assert app.execute("billing__refund", {"order_id": "A"}).value == "refunded A"
    assert [name for name, *_ in recorder.seen] == ["billing__refund"]


def test_an_included_tools_errors_name_it_by_its_new_name() -> None:
    app = Registry()
    app.include(billing(), prefix="billing")
    result = app.execute("billing__refund", {})
    assert result.error is not None and "'billing__refund'" in result.error.message


def test_a_collision_is_refused_naming_both_tools_and_nothing_is_included() -> None:
    app = Registry()
    app.tool(find_order, name="billing__find_order")
    with pytest.raises(ToolDefinitionError) as caught:
        app.include(billing(), prefix="billing")
    text = str(caught.value)
    assert "Cannot include 'find_order' as 'billing__find_order'" in text
    assert "already has 'billing__find_order'" in text
    assert app.names() == ["billing__find_order"]  # refund was not included either


def test_a_root_tool_that_reads_like_the_namespaced_one_is_a_collision() -> None:
    app = Registry()
    app.tool(refund, name="billing_refund")
    with pytest.raises(ToolDefinitionError, match="both read as 'billing_refund'"):
        app.include(billing(), prefix="billing")


def test_replace_true_overrides_a_collision_on_purpose() -> None:
    app = Registry()
    app.tool(find_order, name="billing__find_order", description="old")
    app.include(billing(), prefix="billing", replace=True)
    assert app.get("billing__find_order").description != "old"


@pytest.mark.parametrize(
    "prefix", ["billing.v2", "", "_billing", "billing_", "bill__", "a b", "billing/x", 7]
)
def test_a_prefix_that_is_not_wire_safe_or_cannot_be_split_off_is_refused(prefix: object) -> None:
    with pytest.raises(ToolDefinitionError, match="Namespace prefix"):
        Registry().include(billing(), prefix=prefix)  # type: ignore[arg-type]


def test_a_name_over_64_characters_is_refused_with_its_length() -> None:
    with pytest.raises(ToolDefinitionError, match=r"\(68 characters\).*shorter prefix"):
        qualified("x" * 60, "refund")
    with pytest.raises(ToolDefinitionError, match="characters"):
        Registry().namespace("a" * 58).tool(refund)


def test_split_recovers_namespace_and_short_name() -> None:
    assert split("billing__refund") == ("billing", "refund")
    assert split("shop__billing__refund") == ("shop__billing", "refund")
    assert split("refund") == (None, "refund")
    assert split("billing___private") == ("billing", "_private")
    assert split("__dunder") == (None, "__dunder")
    assert SEPARATOR == "__"


def test_a_namespace_view_registers_with_the_prefix_and_works_by_short_name() -> None:
    app = Registry()
    app.tool(find_order)
    space = app.namespace("billing")
    space.tool(refund, category=Category.WRITE)
    assert app.names() == ["find_order", "billing__refund"]
    assert space.names() == ["refund"] and "refund" in space and len(space) == 1
    assert space.get("refund").name == "billing__refund"
    assert space.execute("refund", {"order_id": "A"}).value == "refunded A"
    # listed by the name it is called by here: listing and calling agree
    assert [t["function"]["name"] for t in space.export()] == ["refund"]
    assert repr(space) == "Namespace('billing': refund)"


def test_a_namespace_filters_by_prefix_and_nests() -> None:
    app = Registry()
    app.include(billing(), prefix="shop__billing")
    app.namespace("shop").tool(find_order, name="lookup")
    assert app.namespace("shop").names() == ["lookup"]
    assert [t.name for t in app.namespace("shop").list()] == [
        "shop__billing__refund",
        "shop__billing__find_order",
        "shop__lookup",
    ]
    assert app.namespace("shop__billing").names() == ["refund", "find_order"]
    assert [t.name for t in app.list(prefix="shop__billing")] == [
        "shop__billing__refund",
        "shop__billing__find_order",
    ]


def test_a_namespace_view_refuses_a_collision_like_the_registry() -> None:
    app = Registry()
    app.namespace("billing").tool(refund)
    with pytest.raises(ToolDefinitionError, match="'billing__refund' is already registered"):
        app.namespace("billing").tool(refund)


def test_executing_a_bad_short_name_is_an_envelope_not_an_exception() -> None:
    space = Registry().namespace("billing")
    for name in ["x" * 100, "no such", 3]:
        result = space.execute(name)  # type: ignore[arg-type]
        assert result.error is not None and result.error.code == "UNKNOWN_TOOL"


def test_explain_shows_the_namespace() -> None:
    app = Registry()
    app.include(billing(), prefix="billing")
    text = app.explain("billing__refund")
    assert "Namespace: 'billing' (tool 'refund' in it" in text.splitlines()[1]
    app.tool(find_order)
    assert "Namespace" not in app.explain("find_order")


def test_a_composite_can_be_namespaced_and_still_sees_the_layers() -> None:
    recorder = Recorder()
    app = Registry(layers=[recorder])
    parts = billing()
    app.namespace("billing").add(
        pipeline("lookup_then_refund", [parts.get("find_order"), parts.get("refund")])
    )
    result = app.execute("billing__lookup_then_refund", {"email": "a@example.com"}, call_id="c")
    assert result.ok, result
    assert [(name, cid) for name, cid, *_ in recorder.seen] == [
        ("billing__lookup_then_refund", "c"),
        ("find_order", "c/1"),
        ("refund", "c/2"),
    ]


def test_a_composite_built_from_the_registered_tools_runs_them_under_their_namespaced_names() -> (
    None
):
    recorder = Recorder()
    app = Registry(layers=[recorder])
    app.include(billing(), prefix="billing")
    steps = [app.get("billing__find_order"), app.get("billing__refund")]
    app.add(pipeline("lookup_then_refund", steps))
    app.execute("lookup_then_refund", {"email": "a@example.com"})
    assert [name for name, *_ in recorder.seen] == [
        "lookup_then_refund",
        "billing__find_order",
        "billing__refund",
    ]


def test_a_registry_can_include_itself_once_under_a_prefix() -> None:
    app = billing()
    app.include(app, prefix="copy")
    assert app.names() == ["refund", "find_order", "copy__refund", "copy__find_order"]
    with pytest.raises(ToolDefinitionError, match="already has 'copy__refund'"):
        app.include(app, prefix="copy")


def test_include_refuses_what_is_not_a_registry_of_tools() -> None:
    for other in [42, ["refund"], None]:
        with pytest.raises(ToolDefinitionError, match="pass a Registry"):
            Registry().include(other, prefix="billing")  # type: ignore[arg-type]


def test_a_namespace_accepts_a_list_of_tools_and_specs() -> None:
    from toolsys.spec import Param, ToolSpec

    app = Registry()
    app.include(list(billing()), prefix="billing")
    spec = ToolSpec("void", "Void an order.", [Param("order_id", "string", "The order.")])
    app.namespace("billing").register(spec, lambda order_id: f"void {order_id}")
    assert app.execute("billing__void", {"order_id": "A"}).value == "void A"
    with pytest.raises(ToolDefinitionError, match="pass a ToolSpec first"):
        app.namespace("billing").register(refund, refund)
