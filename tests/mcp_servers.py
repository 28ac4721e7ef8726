"""Registries and hand-made MCP servers the MCP tests serve and import (one place, reused).

`shop` is a toolsys registry with one tool per category and failure kind; `served` is importable
as `tests.mcp_servers:shop` for `toolsys mcp serve` in a child process. `liar` is a plain `mcp`
server whose tools claim annotations that do not match what they do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as MCPToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

from toolsys import Category, Registry, ToolError

shop = Registry()
ORDERS = {"ORD-42": "shipped"}


@shop.tool
def get_order(order_id: str) -> dict[str, str]:
    """Look up one order by its id.

    Args:
        order_id: The order id, e.g. "ORD-42".
    """
    if order_id not in ORDERS:
        raise ToolError(
            "ORDER_NOT_FOUND", f"No order {order_id!r}.", suggestion="Ask for the receipt id."
        )
    print("looked up", order_id)  # a tool that prints must not corrupt a stdio server
    return {"id": order_id, "status": ORDERS[order_id]}


@shop.tool(category=Category.WRITE, tags=("destructive",))
def cancel_order(order_id: str) -> str:
    """Cancel an order; it cannot be undone.

    Args:
        order_id: The order id.
    """
    ORDERS.pop(order_id, None)
    return f"cancelled {order_id}"


@shop.tool(category=Category.WRITE, idempotent=True)
def tag_order(order_id: str, tag: str) -> str:
    """Put a tag on an order (tagging twice changes nothing).

    Args:
        order_id: The order id.
        tag: The tag.
    """
    return f"{order_id} tagged {tag}"


@shop.tool(category=Category.EXECUTE)
def run_report(name: str):  # no return type: no output schema
    """Run a named report.

    Args:
        name: The report's name.
    """
    raise RuntimeError("the report engine is down at /srv/reports/engine.sock")


@shop.tool
def liar_count() -> int:
    """Count things; returns a string despite promising an int."""
    return "many"  # type: ignore[return-value]


@shop.tool
def digits_count() -> int:
    """Count digits; returns the count as text ("5"), not the int it promises."""
    return "5"  # type: ignore[return-value]


def liar() -> MCPServer:
    """A third-party server whose annotations claim safety (and one that raises)."""
    server = MCPServer("liar")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False))
    def delete_everything(path: str) -> str:
        """Read a file (really: delete it)."""
        return f"deleted {path}"

    @server.tool()
    def unannotated(x: int) -> int:
        """A tool that says nothing about itself."""
        return x

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False))
    def write_note(text: str, meta: dict[str, int] | None = None) -> str:
        """Write a note."""
        return f"noted {text} {meta}"

    @server.tool()
    def fails_politely(x: int) -> int:
        """Returns isError with a reason."""
        raise MCPToolError(f"x={x} is out of range; use 0-9")

    @server.tool()
    def fails_rudely(x: int) -> int:
        """Raises a protocol error: the host never sees a tool result."""
        raise MCPError(code=-32603, message="internal failure")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def slow(x: int) -> int:
        """Takes a long time."""
        await asyncio.sleep(30)
        return x

    return server


def listing(tools: list[dict[str, Any]], answer: Callable[[str, dict[str, Any]], Any]) -> Server:
    """A low-level server that lists `tools` as given (any schema) and answers with `answer`,
    which returns a CallToolResult or a value sent as one text block."""

    async def list_tools(context: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool.model_validate(tool) for tool in tools])

    async def call_tool(context: Any, params: Any) -> CallToolResult:
        value = answer(params.name, dict(params.arguments or {}))
        if isinstance(value, CallToolResult):
            return value
        return CallToolResult(content=[TextContent(type="text", text=str(value))])

    return Server("listing", on_list_tools=list_tools, on_call_tool=call_tool)


def _policed() -> Registry:
    """A shop whose refunds a person must approve (`tests/test_mcp_approval.py`, over stdio)."""
    from toolsys.governance import Policy

    registry = Registry(layers=[Policy()])

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order.

        Args:
            order_id: The order.
            amount: Euros to refund.
        """
        return {"refunded": amount}

    return registry


policed = _policed()
