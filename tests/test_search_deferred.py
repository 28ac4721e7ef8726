"""Deferred export: core tools + search_tools first, found tools from the next turn on,
TOOL_NOT_LOADED (not UNKNOWN_TOOL) for a known tool called too early; end to end through the
real openai client with the offline model."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolsys import Category, Param, Registry, ToolSpec
from toolsys.governance import Policy
from toolsys.loop import ToolCallEvent, ToolResultEvent, run_agent
from toolsys.models import ScriptedModel, calls, client, text
from toolsys.search import SEARCH_TOOL, Deferred, catalog_registry


def _impl(**arguments: object) -> dict[str, object]:
    return {"summary": f"ran with {arguments}"}


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    for name, description, param in [
        ("get_time", "Current time in a time zone.", "timezone"),
        ("refund_payment", "Refund a payment to the customer's card.", "payment_id"),
        ("track_package", "Track a parcel by its tracking number.", "tracking_number"),
        ("get_weather", "Current weather for a city.", "city"),
    ]:
        registry.register(
            ToolSpec(name, description, [Param(param, "string", "The value.")]), _impl
        )
    return registry


@pytest.fixture(scope="module")
def catalog() -> Registry:
    return catalog_registry()  # shared: a deferred session never changes its registry


def _names(definitions: list[dict]) -> list[str]:
    return [d["function"]["name"] for d in definitions]


def test_the_first_turn_lists_only_core_tools_and_search_tools(registry: Registry) -> None:
    session = registry.deferred(core=["get_time"])
    assert _names(session.export("openai")) == ["get_time", SEARCH_TOOL]
    assert _names(registry.export("openai", deferred=True, core=["get_time"])) == [
        "get_time",
        SEARCH_TOOL,
    ]


def test_core_can_be_a_rule_or_nothing(registry: Registry) -> None:
    rule = registry.deferred(core=lambda tool: tool.name.startswith("get_"))
    assert _names(rule.export()) == ["get_time", "get_weather", SEARCH_TOOL]
    assert _names(registry.deferred().export()) == [SEARCH_TOOL]


def test_every_export_format_carries_search_tools(registry: Registry) -> None:
    session = registry.deferred()
    assert session.export("anthropic")[0]["name"] == SEARCH_TOOL
    assert session.export("mcp")[0]["inputSchema"]["required"] == ["query"]
    assert session.export("openai", strict=True)[0]["function"]["strict"] is True


def test_a_search_loads_what_it_found_for_the_next_export(registry: Registry) -> None:
    session = registry.deferred(core=["get_time"])
    result = session.execute(SEARCH_TOOL, {"query": "refund the customer", "k": 1})
    assert result.ok
    assert [found["name"] for found in result.value["found"]] == ["refund_payment"]
    assert "next turn" in result.value["note"]
    assert session.loaded == ["refund_payment"]
    assert _names(session.export()) == ["get_time", "refund_payment", SEARCH_TOOL]
    assert session.execute("refund_payment", {"payment_id": "py_1"}).ok


def test_a_known_tool_called_before_it_is_loaded_gets_tool_not_loaded(registry: Registry) -> None:
    session = registry.deferred(core=["get_time"])
    result = session.execute("track_package", {"tracking_number": "1Z"})
    assert not result.ok and result.error is not None
    assert result.error.code == "TOOL_NOT_LOADED"
    assert result.error.retryable is True
    assert SEARCH_TOOL in result.error.suggestion and "track package" in result.error.suggestion
    assert result.meta["tool"] == "track_package"


def test_an_unknown_tool_is_still_unknown_tool(registry: Registry) -> None:
    session = registry.deferred()
    for name in ("fly_to_mars", "", 42, None, ["track_package"]):
        result = session.execute(name, {})  # type: ignore[arg-type]
        assert result.error is not None and result.error.code == "UNKNOWN_TOOL", name


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"query": 42},
        {"query": None},
        {"query": "x", "k": 0},
        {"query": "x", "k": 99},
        "{not json",
        "[]",
    ],
)
def test_bad_search_arguments_from_a_model_come_back_as_an_envelope(
    registry: Registry, arguments: object
) -> None:
    result = registry.deferred().execute(SEARCH_TOOL, arguments)  # type: ignore[arg-type]
    assert not result.ok and result.error is not None
    assert result.error.code in {"INVALID_ARGUMENTS", "INVALID_JSON"}


@pytest.mark.parametrize("query", ["", "東京", "\x00", "z" * 200_000, "the of and"])
def test_a_search_that_finds_nothing_says_what_to_do(registry: Registry, query: str) -> None:
    result = registry.deferred().execute(SEARCH_TOOL, {"query": query})
    assert result.ok and result.value["found"] == []
    assert "other words" in result.value["note"]


def test_core_must_name_registered_tools(registry: Registry) -> None:
    with pytest.raises(ValueError, match=r"'nope'.*not a registered tool"):
        registry.deferred(core=["nope"])
    with pytest.raises(ValueError, match="list of tool names"):
        registry.deferred(core="get_time")
    with pytest.raises(ValueError, match="k=0"):
        registry.deferred(k=0)


def test_a_registry_with_its_own_search_tools_cannot_be_deferred(registry: Registry) -> None:
    registry.register(ToolSpec(SEARCH_TOOL, "Mine."), lambda: "mine")
    with pytest.raises(ValueError, match="already has a tool named 'search_tools'"):
        Deferred(registry)


def test_the_loop_sends_the_tools_found_in_the_turn_after_the_search(registry: Registry) -> None:
    model = ScriptedModel(
        [
            calls(("track_package", {"tracking_number": "1Z"})),
            calls((SEARCH_TOOL, {"query": "track a parcel"})),
            calls(("track_package", {"tracking_number": "1Z"})),
            text("It is on its way."),
        ]
    )
    transcript = run_agent(model.client(), registry.deferred(core=["get_time"]), "Where is 1Z?")
    sent = [_names(request["tools"]) for request in model.requests]
    assert sent[0] == sent[1] == ["get_time", SEARCH_TOOL]
    assert "track_package" in sent[2]
    codes = [
        e.result.error.code if e.result.error else "ok"
        for e in transcript.events
        if isinstance(e, ToolResultEvent)
    ]
    assert codes == ["TOOL_NOT_LOADED", "ok", "ok"]


def test_the_offline_model_searches_then_calls_what_it_found_through_the_openai_client(
    catalog: Registry,
) -> None:
    session = catalog.deferred(core=["math_calculate"])
    transcript = run_agent(client(), session, "track my package 1Z999AA10123456784")
    called = [e.name for e in transcript.events if isinstance(e, ToolCallEvent)]
    assert called == [SEARCH_TOOL, "shipping_track_package"]
    assert transcript.status == "completed"
    first = json.loads(transcript.messages[2]["content"])  # the search_tools result message
    assert first["ok"] and first["value"]["found"][0]["name"] == "shipping_track_package"


def test_the_offline_model_does_not_search_when_a_loaded_tool_covers_the_request(
    catalog: Registry,
) -> None:
    session = catalog.deferred(core=["math_calculate"])
    transcript = run_agent(client(), session, "what is 17 times 38")
    called = [e.name for e in transcript.events if isinstance(e, ToolCallEvent)]
    assert called == ["math_calculate"]
    assert session.loaded == []


def test_the_offline_model_searches_only_for_the_clause_no_tool_covers(catalog: Registry) -> None:
    session = catalog.deferred(core=["math_calculate"])
    transcript = run_agent(
        client(), session, "what is 17 times 38 and track my package 1Z999AA10123456784"
    )
    first = next(e for e in transcript.events if isinstance(e, ToolCallEvent))
    assert first.name == SEARCH_TOOL and "17" not in first.arguments
    called = [e.name for e in transcript.events if isinstance(e, ToolCallEvent)]
    assert called[1:] == ["math_calculate", "shipping_track_package"]


def test_the_offline_model_searches_once_and_then_says_nothing_fits(catalog: Registry) -> None:
    session = catalog.deferred(core=["math_calculate"])
    transcript = run_agent(client(), session, "juggle seven flaming torches")
    called = [e.name for e in transcript.events if isinstance(e, ToolCallEvent)]
    assert called == [SEARCH_TOOL]
    assert transcript.status == "completed" and "fits this request" in (transcript.answer or "")


def _staff_only_registry(*layers: Any) -> Registry:
    registry = Registry(layers=list(layers))

    @registry.tool
    def get_time() -> str:
        """Tell the current time."""
        return "12:00"

    @registry.tool(category=Category.WRITE, roles={"manager"})
    def refund_order(order_id: str) -> str:
        """Refund an order to the customer's card."""
        return order_id

    @registry.tool
    def track_order(order_id: str) -> str:
        """Track where an order is on its way."""
        return order_id

    return registry


def test_a_caller_is_never_shown_or_searched_into_a_tool_hidden_from_them() -> None:
    registry = _staff_only_registry()
    customer = {"user": "ana", "roles": ["customer"]}
    shown = registry.export("openai", deferred=True, core=["refund_order"], context=customer)
    assert [t["function"]["name"] for t in shown] == ["search_tools"]
    session = registry.deferred(core=["get_time"])
    found = session.execute("search_tools", {"query": "refund order"}, context=customer)
    assert "refund_order" not in json.dumps(found.value) and "refund_order" not in session.loaded
    manager = {"user": "mia", "roles": ["manager"]}
    found = session.execute("search_tools", {"query": "refund order"}, context=manager)
    assert "refund_order" in session.loaded
    names = [t["function"]["name"] for t in session.export(context=customer)]
    assert "refund_order" not in names


def test_a_hidden_tool_called_by_name_is_not_told_to_search() -> None:
    session = _staff_only_registry(Policy()).deferred()
    result = session.execute("refund_order", {"order_id": "A1"}, context={"roles": ["customer"]})
    assert result.error.code == "PERMISSION_DENIED"
    loaded = session.execute("track_order", {"order_id": "A1"}, context={"roles": ["customer"]})
    assert loaded.error.code == "TOOL_NOT_LOADED"
