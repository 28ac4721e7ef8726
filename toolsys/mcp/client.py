"""Import an MCP server's tools into a registry, as real registry tools.

`await import_server(registry, source, prefix="fs", trust="untrusted")` lists the server's tools
and registers each one (named `fs__<name>`, as every prefix qualifies a name: `toolsys.names`)
with the server's input schema unchanged; `roles=` and `available=` say who may see and use
them, as for any tool. Calls then
go through the registry like any other: its layers (timeouts, retries, approval, audit) apply,
the arguments are decoded and checked against the schema here first (toolsys/mcp/_arguments.py),
and every failure comes back as an envelope:

    the server's result has isError     -> MCP_TOOL_ERROR with the server's text
    the server answers a protocol error -> MCP_TOOL_ERROR with its code and message
    the server cannot be reached        -> MCP_UNAVAILABLE, retryable for READ or idempotent tools

A trusted server's annotations decide the category, and an error envelope it sends in
`_meta["toolsys/error"]` (a toolsys server does) is restored as it was; an untrusted server's
tools are all EXECUTE (toolsys/mcp/annotations.py) and its errors are MCP_TOOL_ERROR. An
untrusted server's schemas are checked in bounded time (RE2 for their patterns, capped sizes:
toolsys/mcp/_patterns.py); a tool whose schema cannot be is skipped, named in `skipped`.

`source` is an `MCPServer` (in process), `StdioServerParameters` or a command list (a child
process over stdio), or a `mcp.Client` not yet connected. The session stays open for later
calls (toolsys/mcp/_connection.py): close it with `await tools.aclose()`.

Chapter 10 builds this by hand first: notebooks/10_mcp.ipynb.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, TextIO, overload

from mcp import Client, StdioServerParameters, stdio_client
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ListToolsResult
from mcp_types import Tool as MCPTool
from pydantic import BaseModel

from toolsys._readonly import freeze
from toolsys.errors import ErrorCode, ToolDefinitionError, ToolError
from toolsys.mcp._arguments import arguments_model, schema_problem
from toolsys.mcp._connection import Connection, Unavailable
from toolsys.mcp.annotations import Imported, Trust, category_for
from toolsys.mcp.server import ERROR_META_KEY
from toolsys.names import SEPARATOR, check_prefix, qualified
from toolsys.registry import Registry
from toolsys.spec import Category
from toolsys.tool import Tool, normalize, tool_from_function

__all__ = ["ImportedTools", "import_server"]

Source = MCPServer | Server[Any] | Client | StdioServerParameters | Sequence[str]
_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,30}$")
_MAX_PAGES = 100
_MAX_ERROR_CHARS = 1000


class ImportedTools(Sequence[Tool]):
    """The tools imported from one server, and the session their calls use.

    `skipped` names the server's tools that were not imported, and why (a schema a provider
    would refuse: one bad tool must not break every request the model makes).
    """

    def __init__(
        self, tools: list[Tool], connection: Connection, skipped: dict[str, str] | None = None
    ) -> None:
        self._tools = tools
        self._connection = connection
        self.skipped = dict(skipped or {})

    @overload
    def __getitem__(self, index: int) -> Tool: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Tool]: ...
    def __getitem__(self, index: int | slice) -> Tool | Sequence[Tool]:
        return self._tools[index]

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools)

    def __repr__(self) -> str:
        skipped = f"; skipped: {', '.join(self.skipped)}" if self.skipped else ""
        names = ", ".join(self.names()) or "none"
        return f"ImportedTools({self._connection.label}: {names}{skipped})"

    def names(self) -> list[str]:
        return [tool.name for tool in self._tools]

    async def aclose(self) -> None:
        """End the session (and the server process, for stdio); later calls are MCP_UNAVAILABLE."""
        await self._connection.aclose()

    def close(self) -> None:
        self._connection.close()

    async def __aenter__(self) -> ImportedTools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def import_server(
    registry: Registry,
    source: Source,
    *,
    prefix: str | None = None,
    trust: Trust = "untrusted",
    timeout: float = 30.0,
    roles: Any = None,
    available: Any = None,
) -> ImportedTools:
    """Register every tool of an MCP server on `registry`; see the module docstring.

    `timeout` bounds connecting and listing (seconds); a call's own deadline is the registry's
    business (`toolsys.layers.Timeout`). Nothing is registered if any name would clash.
    """
    if not isinstance(registry, Registry):
        raise TypeError(f"import_server() needs a toolsys Registry, not {type(registry).__name__}.")
    category_for(None, trust)  # refuses an unknown trust level before connecting
    if prefix is not None and not (isinstance(prefix, str) and _PREFIX.match(prefix)):
        raise ValueError(
            f"prefix={prefix!r}: use 1-31 letters, digits, '_' or '-', starting with a letter "
            "or digit (e.g. prefix='fs'), or leave it out."
        )
    if prefix is not None:
        check_prefix(prefix)  # one rule for every prefix: no '__', no '_' at either end
    access = tool_from_function(lambda: None, name="imported", roles=roles, available=available)
    connection = Connection(_opener(source), _label(source, prefix))
    try:
        listed = await connection.run(_list_tools, timeout)
    except Exception as exc:
        await connection.aclose()
        reason = exc if isinstance(exc, Unavailable) else f"{type(exc).__name__}: {exc}"
        raise ConnectionError(
            f"Could not list the tools of {connection.label}: {reason}. Check that the server "
            "starts on its own (run its command in a terminal)."
        ) from exc
    skipped = {
        remote.name: problem
        for remote in listed
        if (
            problem := schema_problem(
                remote.input_schema, remote.output_schema, trusted=trust == "trusted"
            )
        )
        is not None
    }
    try:
        tools = [
            _tool(remote, prefix, trust, connection, access)
            for remote in listed
            if remote.name not in skipped
        ]
        _check_names(registry, tools)
    except Exception:
        await connection.aclose()
        raise
    for tool in tools:
        registry.add(tool)
    return ImportedTools(tools, connection, skipped)


def _opener(source: object) -> Any:
    if isinstance(source, MCPServer | Server):
        return lambda: Client(source)
    if isinstance(source, Client):
        return _once(source)
    if isinstance(source, Sequence) and not isinstance(source, str):
        parts = list(source)
        if not parts or not all(isinstance(part, str) and part for part in parts):
            raise ValueError(
                f"import_server(): the command {parts!r} must be a non-empty list of strings, "
                "e.g. ['toolsys', 'mcp', 'serve', 'toolsys.tools:registry']."
            )
        source = StdioServerParameters(command=parts[0], args=parts[1:])
    if isinstance(source, StdioServerParameters):
        params = source
        return lambda: Client(stdio_client(params, errlog=_errlog()))
    raise TypeError(
        f"import_server() cannot connect to a {type(source).__name__}; pass an MCPServer, "
        "StdioServerParameters, a command list, or an mcp.Client not yet connected."
    )


def _once(client: Client) -> Any:
    """A client given by the caller can be entered once: a second open is refused."""
    used: list[bool] = []

    def open_client() -> AbstractAsyncContextManager[Client]:
        if used:
            raise Unavailable("the connection broke, and a given mcp.Client cannot reconnect")
        used.append(True)
        return client

    return open_client


def _errlog() -> TextIO:
    """Where a stdio server's stderr goes: a real file (a notebook's sys.stderr is not one)."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return open(os.devnull, "w")  # lives as long as the server process


def _label(source: object, prefix: str | None) -> str:
    if isinstance(source, MCPServer | Server):
        return f"the MCP server {source.name!r}"
    return f"the MCP server {prefix!r}" if prefix else "the MCP server"


async def _list_tools(client: Client) -> list[MCPTool]:
    tools: list[MCPTool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page: ListToolsResult = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _tool(
    remote: MCPTool, prefix: str | None, trust: Trust, connection: Connection, access: Tool
) -> Tool:
    head = f"{prefix}{SEPARATOR}" if prefix else ""
    wanted = head + remote.name
    short = re.sub(r"[^A-Za-z0-9_-]", "_", remote.name)[: 64 - len(head)] or "tool"
    name = qualified(prefix, short) if prefix else short  # wire-safe, at most 64 characters
    hints = remote.annotations.model_dump(by_alias=True) if remote.annotations else None
    imported = category_for(hints, trust)
    schema = remote.input_schema
    diagnostics = [] if name == wanted else [f"{name}: renamed from {wanted!r}."]
    return Tool(
        name=name,
        description=(remote.description or "").strip(),
        parameters=freeze(json.loads(json.dumps(schema))),
        fn=_caller(remote, connection, imported, trust == "trusted"),
        model=arguments_model(name, schema, trusted=trust == "trusted"),
        category=imported.category,
        tags=imported.tags,
        diagnostics=tuple(diagnostics),
        source="mcp",
        is_async=True,
        pass_model=True,
        idempotent=imported.idempotent,
        roles=access.roles,
        available=access.available,
    )


def _caller(remote: MCPTool, connection: Connection, imported: Imported, trusted: bool) -> Any:
    retryable = imported.category == Category.READ or imported.idempotent
    wrapped = _is_wrapped(remote.output_schema)

    async def call_remote(arguments: BaseModel) -> Any:
        values = arguments.model_dump(mode="json")
        try:
            result = await connection.run(lambda client: client.call_tool(remote.name, values))
        except Unavailable as exc:
            raise ToolError(
                ErrorCode.MCP_UNAVAILABLE,
                f"{_upper(connection.label)} could not be reached to run {remote.name!r}: {exc}.",
                suggestion="This may be temporary; try the same call once more."
                if retryable
                else f"The call may or may not have reached the server; check whether "
                f"{remote.name} took effect before calling it again.",
                retryable=retryable,
                details={"tool": remote.name},
            ) from exc
        except MCPError as exc:
            raise _tool_error(remote, connection, f"protocol error {exc.code}: {exc}") from exc
        except Exception as exc:  # the client refused the answer (e.g. not its output schema)
            raise _tool_error(remote, connection, f"{type(exc).__name__}: {exc}") from exc
        if result.is_error:
            raise _error_of(result, remote, connection, trusted)
        return _value_of(result, wrapped)

    return call_remote


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _tool_error(remote: MCPTool, connection: Connection, text: str) -> ToolError:
    text = text.strip() or "it did not say why"
    if len(text) > _MAX_ERROR_CHARS:
        text = text[: _MAX_ERROR_CHARS - 3] + "..."
    return ToolError(
        ErrorCode.MCP_TOOL_ERROR,
        f"The tool {remote.name!r} of {connection.label} reported an error: {text}",
        suggestion="Read the server's message: fix what it names and call again, or answer "
        "without this tool.",
        details={"tool": remote.name},
    )


def _error_of(
    result: CallToolResult, remote: MCPTool, connection: Connection, trusted: bool
) -> ToolError:
    envelope = (result.meta or {}).get(ERROR_META_KEY)
    if trusted and isinstance(envelope, dict) and isinstance(envelope.get("code"), str):
        details = envelope.get("details")
        return ToolError(
            envelope["code"],
            str(envelope.get("message", "")),
            suggestion=str(envelope.get("suggestion", "")),
            retryable=envelope.get("retryable") is True,
            details=details if isinstance(details, dict) else None,
        )
    return _tool_error(remote, connection, _text(result))


def _text(result: CallToolResult) -> str:
    parts = [
        block.text if block.type == "text" else f"[{block.type} content]"
        for block in result.content
    ]
    return "\n".join(parts)


def _value_of(result: CallToolResult, wrapped: bool) -> Any:
    """What the model reads of a success: the structured value, else the content."""
    structured = result.structured_content
    if structured is not None:
        return structured["result"] if wrapped and isinstance(structured, dict) else structured
    if result.content and all(block.type == "text" for block in result.content):
        text = "\n".join(block.text for block in result.content)  # type: ignore[union-attr]
        if len(result.content) == 1 and text.lstrip()[:1] in ("{", "["):
            try:
                return json.loads(text)
            except ValueError:
                pass
        return text
    return [
        block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content
    ]


def _is_wrapped(schema: dict[str, Any] | None) -> bool:
    """An output schema that only wraps a non-object value as {"result": ...}."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and set(schema.get("properties", {})) == {"result"}
        and schema.get("required") == ["result"]
    )


def _check_names(registry: Registry, tools: list[Tool]) -> None:
    taken = {normalize(name): name for name in registry.names()}
    clashes = []
    for tool in tools:
        key = normalize(tool.name)
        if key in taken:
            clashes.append(f"{tool.name!r} (clashes with {taken[key]!r})")
        taken[key] = tool.name
    if clashes:
        raise ToolDefinitionError(
            f"Cannot import {', '.join(clashes)}: the registry already has a tool by that name. "
            "Import with a prefix (prefix='fs') or unregister the other tool first; "
            "nothing was imported."
        )
