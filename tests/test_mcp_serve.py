"""Serving a registry over MCP, checked through the `mcp` SDK's own client, as a host sees it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from tests.mcp_servers import shop
from toolsys import Category, Registry, ToolResult
from toolsys.mcp import annotations_for, category_for, serve, to_server
from toolsys.mcp.server import ERROR_META_KEY
from toolsys.tools import registry as builtin


def _with_client(registry: Registry, use: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(to_server(registry, name="shop")) as client:
            return await use(client)

    return asyncio.run(main())


def _call(registry: Registry, name: str, arguments: Any) -> CallToolResult:
    return _with_client(registry, lambda client: client.call_tool(name, arguments))


def _listed(registry: Registry) -> dict[str, Any]:
    async def use(client: Client) -> Any:
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    return _with_client(registry, use)


def test_every_tool_is_listed_with_its_own_schema_and_description() -> None:
    listed = _listed(builtin)
    assert list(listed) == builtin.names()
    for tool in builtin:
        assert listed[tool.name].input_schema == tool.parameters
        assert listed[tool.name].description == tool.description


def test_annotations_follow_the_category_table() -> None:
    listed = _listed(shop)
    hints = {
        name: listed[name].annotations.model_dump(by_alias=True, exclude_none=True)
        for name in listed
    }
    assert hints["get_order"] == {  # openWorldHint left out: a category does not say
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
    }
    assert hints["cancel_order"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": False,
    }
    assert hints["tag_order"]["destructiveHint"] is False
    assert hints["tag_order"]["idempotentHint"] is True
    assert hints["run_report"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    for tool in shop:
        assert hints[tool.name] == annotations_for(tool)


def test_an_output_schema_only_where_the_return_type_gives_one() -> None:
    listed = _listed(shop)
    assert listed["get_order"].output_schema == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
    assert listed["cancel_order"].output_schema == {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
    }
    assert listed["run_report"].output_schema is None


def test_a_success_is_json_text_and_structured_content() -> None:
    result = _call(shop, "get_order", {"order_id": "ORD-42"})
    assert not result.is_error
    assert result.content[0].text == '{"id": "ORD-42", "status": "shipped"}'
    assert result.structured_content == {"id": "ORD-42", "status": "shipped"}
    wrapped = _call(builtin, "calculator", {"expression": "6*7"})
    assert (wrapped.content[0].text, wrapped.structured_content) == ("42", {"result": 42})


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("get_order", {"order_id": "ORD-9"}, "ORDER_NOT_FOUND"),
        ("get_order", {"order_id": 9}, "INVALID_ARGUMENTS"),
        ("get_order", {"orderid": "ORD-42"}, "INVALID_ARGUMENTS"),
        ("get_ordr", {"order_id": "ORD-42"}, "UNKNOWN_TOOL"),
        ("run_report", {"name": "sales"}, "EXECUTION_ERROR"),
        ("liar_count", {}, "EXECUTION_ERROR"),
        ("digits_count", {}, "EXECUTION_ERROR"),  # "5" is not an int, even if it looks like one
    ],
)
def test_every_failure_is_an_is_error_result_with_the_envelope(
    name: str, arguments: dict[str, Any], code: str
) -> None:
    result = _call(shop, name, arguments)  # a protocol error would raise here
    envelope = result.meta[ERROR_META_KEY]
    assert result.is_error is True
    assert envelope["code"] == code
    assert result.content[0].text == f"{envelope['message']} {envelope['suggestion']}"
    assert result.structured_content is None


def test_validation_is_the_registrys_so_the_model_reads_our_message() -> None:
    result = _call(shop, "get_order", {"order_id": 9})
    direct = shop.execute("get_order", {"order_id": 9})
    assert result.meta[ERROR_META_KEY] == direct.to_dict()["error"]
    assert "order_id: got 9, expected a string" in result.content[0].text


def test_a_crash_reaches_the_host_redacted() -> None:
    text = _call(shop, "run_report", {"name": "sales"}).content[0].text
    assert "/srv/reports" not in text
    assert "Traceback" not in text


def test_a_tool_added_after_the_server_was_built_is_listed_and_callable() -> None:
    registry = Registry()
    server = to_server(registry)

    async def main() -> Any:
        async with Client(server) as client:
            registry.register(lambda: "pong", name="ping", description="Answer pong.")
            names = [tool.name for tool in (await client.list_tools()).tools]
            return names, await client.call_tool("ping", {})

    names, result = asyncio.run(main())
    assert names == ["ping"]
    assert result.content[0].text == "pong"


def test_the_registrys_layers_run_for_served_calls() -> None:
    registry = Registry()
    registry.register(lambda: "pong", name="ping", description="Answer pong.")
    seen: list[str] = []

    async def record(call: Any, call_next: Any) -> Any:
        seen.append(call.name)
        return await call_next(call)

    registry.use(record)
    _call(registry, "ping", {})
    assert seen == ["ping"]


def test_bad_input_to_to_server_and_serve_is_one_clear_error() -> None:
    with pytest.raises(TypeError, match="Registry"):
        to_server({"ping": lambda: 1})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name"):
        to_server(Registry(), name=" ")
    with pytest.raises(ValueError, match="stdio"):
        serve(Registry(), transport="carrier-pigeon")


@pytest.mark.parametrize(
    ("category", "tags", "open_world"),
    [
        (Category.READ, (), None),
        (Category.READ, ("open-world",), True),
        (Category.READ, ("closed-world",), False),
        (Category.WRITE, (), False),
        (Category.WRITE, ("open-world",), True),
        (Category.EXECUTE, ("closed-world",), True),  # a tag never weakens EXECUTE
    ],
)
def test_open_world_is_said_only_when_known(category, tags, open_world) -> None:
    registry = Registry()

    @registry.tool(category=category, tags=tags)
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: The key.
        """
        return key

    hints = annotations_for(registry.get("lookup"))
    assert hints.get("openWorldHint") is open_world
    imported = category_for(hints, "trusted")  # the round trip is never less cautious
    assert imported.category == (
        Category.READ
        if category == Category.READ
        else Category.EXECUTE
        if open_world
        else Category.WRITE
    )


def test_a_served_category_is_never_weaker_than_the_tools() -> None:
    for tool in shop:
        hints = annotations_for(tool)
        assert hints["readOnlyHint"] is (tool.category == Category.READ)
        if tool.category == Category.EXECUTE:
            assert hints["destructiveHint"] and hints["openWorldHint"]


def test_building_a_server_leaves_the_root_logger_alone() -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    root.handlers[:] = []  # as in a fresh notebook kernel: basicConfig would act now
    try:
        to_server(Registry())
        assert (root.handlers, root.level) == ([], saved[1])
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


def test_a_results_notice_reaches_the_host_as_a_second_text_block() -> None:
    registry = Registry()
    registry.register(lambda: "pong", name="ping", description="Answer pong.")

    async def replayed(call: Any, call_next: Any) -> Any:
        result = await call_next(call)
        return ToolResult(result.ok, result.value, result.error, result.meta, notice="Replayed.")

    registry.use(replayed)
    result = _call(registry, "ping", {})
    assert [block.text for block in result.content] == ["pong", "Replayed."]
    assert result.meta["toolsys/notice"] == "Replayed."
