"""A real stdio server in a child process, `toolsys mcp serve`, driven by the `mcp` client."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters, stdio_client

from tests.mcp_servers import shop
from toolsys import Category, Registry
from toolsys.cli import main
from toolsys.mcp import import_server

ROOT = Path(__file__).parent.parent
SERVE = ["-c", "from toolsys.cli import main; main()", "mcp", "serve", "tests.mcp_servers:shop"]


def _params() -> StdioServerParameters:
    env = {"PYTHONPATH": str(ROOT), "TOOLSYS_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    return StdioServerParameters(
        command=sys.executable, args=[*SERVE, "--name", "shop"], env=env, cwd=str(ROOT)
    )


def test_a_host_lists_and_calls_the_served_registry_over_stdio() -> None:
    async def main_() -> Any:
        async with Client(stdio_client(_params(), errlog=sys.stderr)) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            found = await client.call_tool("get_order", {"order_id": "ORD-42"})  # it prints
            missing = await client.call_tool("get_order", {"order_id": "ORD-9"})
            return client.server_info.name, names, found, missing

    name, names, found, missing = asyncio.run(main_())
    assert name == "shop"
    assert names == shop.names()
    assert found.structured_content == {"id": "ORD-42", "status": "shipped"}
    assert missing.is_error and missing.meta["toolsys/error"]["code"] == "ORDER_NOT_FOUND"


def test_import_server_over_stdio_then_close_ends_the_session() -> None:
    async def main_() -> Any:
        registry = Registry()
        tools = await import_server(registry, _params(), prefix="shop", trust="trusted")
        categories = {tool.name: tool.category for tool in tools}
        ok = await registry.aexecute("shop__get_order", {"order_id": "ORD-42"})
        await tools.aclose()
        after = await registry.aexecute("shop__get_order", {"order_id": "ORD-42"})
        return categories, ok, after

    categories, ok, after = asyncio.run(main_())
    assert categories["shop__cancel_order"] == Category.WRITE
    assert categories["shop__run_report"] == Category.EXECUTE
    assert ok.value == {"id": "ORD-42", "status": "shipped"}
    assert after.error.code == "MCP_UNAVAILABLE"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("tests.mcp_servers", "is not module:attribute"),
        ("no_such_module:registry", "cannot import 'no_such_module'"),
        ("tests.mcp_servers:nothing", "has no attribute 'nothing'"),
        ("tests.mcp_servers:ORDERS", "is a dict, not a toolsys Registry"),
    ],
)
def test_mcp_serve_refuses_a_bad_target_in_one_line(target: str, message: str) -> None:
    done = CliRunner().invoke(main, ["mcp", "serve", target])
    assert done.exit_code == 2
    assert done.output.startswith("toolsys mcp serve: ")
    assert message in done.output
    assert len(done.output.strip().splitlines()) == 1
