"""Serve a registry as an MCP server: every tool, its schema, its hints, and errors as results.

`to_server(registry)` is an `mcp` `MCPServer` whose tools are the registry's, listed live, as the
registry lists them to the server's caller (`context=`, none by default: tools with `roles` or a
policy's refusal stay hidden, and a call to one is refused as hidden): its
`tools/list` shows each tool's generated input schema, an output schema where the return type
gives one, and the annotations its category implies (toolsys/mcp/annotations.py); its
`tools/call` runs `registry.aexecute`, so validation, layers and error envelopes are the
registry's own. What a host's model reads:

- success: the value as JSON text (and as `structuredContent` when there is an output schema);
- failure: a result with `isError: true` whose text is the envelope's message and suggestion,
  with the whole envelope in `_meta["toolsys/error"]`. Never a JSON-RPC protocol error (the model
  would never see why), never a success (the model would believe it worked).

`serve(registry)` runs it over stdio, which is what `toolsys mcp serve module:registry` does.

Which protocol: the `mcp` SDK we pin (2.3) speaks revision 2026-07-28 and negotiates down to the
handshake revisions (2024-11-05 ... 2025-11-25) with older peers; `mcp.Client(server)` in process
and over stdio both settle on 2026-07-28. What changed since 2025-06-18 that a tool author sees
(docs/specification/2025-11-25/changelog.mdx and 2026-07-28/changelog.mdx of
modelcontextprotocol/modelcontextprotocol):

- stateless: no `initialize` handshake and no session; every request carries its protocol
  version and client capabilities in `_meta`, and `server/discover` says what a server speaks. A
  tool that needs state across calls returns a handle and takes it as an argument.
- a server asks the client for more (elicitation, sampling, roots) by answering a request with an
  `InputRequiredResult`, and the client retries it with `inputResponses` (multi round-trip
  requests), instead of sending requests of its own. toolsys uses it for approval
  (toolsys/mcp/_approval.py).
- input-validation errors are tool execution errors (`isError: true`, so the model can correct
  its call: SEP-1303, 2025-11-25), as toolsys has always sent them; only an unknown tool or a
  malformed request is a protocol error.
- `inputSchema` and `outputSchema` may use any JSON Schema 2020-12 keyword (2020-12 is the
  default dialect since 2025-11-25); `structuredContent` may be any JSON value.
- `tools/list` SHOULD be in a deterministic order (registration order, here) and its result
  carries caching hints (`ttlMs`, `cacheScope`); roots, sampling and logging are deprecated;
  tasks moved to an extension.

Chapter 10 builds this by hand first: notebooks/10_mcp.ipynb.
"""

from __future__ import annotations

import inspect
import logging
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import (
    CallToolResult,
    ContentBlock,
    InputRequiredResult,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as MCPTool
from pydantic import TypeAdapter

from toolsys._readonly import thaw
from toolsys._redact import redact_secrets
from toolsys._sendable import dumps, sendable
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.mcp._approval import approved_call
from toolsys.mcp.annotations import annotations_for
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.tool import Tool

__all__ = ["ERROR_META_KEY", "call_result", "serve", "to_server"]

ERROR_META_KEY = "toolsys/error"
"""Where a failed call's whole envelope travels, in the result's `_meta`."""
NOTICE_META_KEY = "toolsys/notice"
TRANSPORTS = ("stdio",)


def to_server(
    registry: Registry, *, name: str = "toolsys", context: Mapping[str, Any] | None = None
) -> MCPServer:
    """An MCP server exposing the tools of `registry` (tools added later included) that its
    caller may use: `context` is who the server's clients are (user, roles...), the same for
    every request; listing and calling both go through the registry with it."""
    if not isinstance(registry, Registry):
        raise TypeError(
            f"to_server() needs a toolsys Registry, not {type(registry).__name__}; "
            "build one with Registry() and register tools on it."
        )
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"to_server(name={name!r}): give the server a non-empty name.")
    return _RegistryServer(registry, name, dict(context or {}))


def serve(registry: Registry, *, transport: str = "stdio", name: str = "toolsys") -> None:
    """Run `registry` as an MCP server until the client disconnects (blocks).

    Only stdio here: a host starts the server as its child process. In-process (tests,
    notebooks): `mcp.Client(to_server(registry))`.
    """
    if transport not in TRANSPORTS:
        raise ValueError(
            f"serve(transport={transport!r}) is not supported; use 'stdio', or connect in "
            "process with mcp.Client(to_server(registry))."
        )
    to_server(registry, name=name).run("stdio")


@dataclass(frozen=True)
class _Listed:
    """One tool as listed, computed once per registered `Tool`."""

    tool: Tool
    listing: MCPTool
    output: _Output | None


@dataclass(frozen=True)
class _Output:
    """A return type as an output schema; `wrapped` when it is not an object (`{"result": ...}`)."""

    schema: dict[str, Any]
    wrapped: bool
    adapter: TypeAdapter[Any]

    def structured(self, value: Any) -> Any:
        """The value as structured content, or None when it is not of the declared type."""
        try:
            data = self.adapter.dump_python(
                self.adapter.validate_python(value, strict=True), mode="json"
            )
        except Exception:
            return None
        data = sendable(data, text=redact_secrets)
        return {"result": data} if self.wrapped else data


class _RegistryServer(MCPServer):
    """An `MCPServer` that lists and calls a registry's tools instead of its own."""

    def __init__(self, registry: Registry, name: str, context: dict[str, Any]) -> None:
        # MCPServer calls logging.basicConfig(level=INFO): a library must not configure the
        # root logger (in a notebook every HTTP request would then be logged), so undo it.
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        try:
            super().__init__(name, warn_on_duplicate_tools=False)
        finally:
            root.handlers[:] = handlers
            root.setLevel(level)
        self.registry = registry
        self.context = context
        self._listed: dict[str, _Listed] = {}

    def _entry(self, tool: Tool) -> _Listed:
        entry = self._listed.get(tool.name)
        if entry is None or entry.tool is not tool:
            output = output_schema(tool)
            listing = MCPTool(
                name=tool.name,
                description=tool.description,
                input_schema=thaw(tool.parameters),
                output_schema=None if output is None else output.schema,
                annotations=ToolAnnotations.model_validate(annotations_for(tool)),
            )
            entry = self._listed[tool.name] = _Listed(tool, listing, output)
        return entry

    async def list_tools(self) -> list[MCPTool]:
        return [self._entry(tool).listing for tool in self.registry.list(context=self.context)]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        result = await approved_call(
            lambda **ids: self.registry.aexecute(name, arguments, context=self.context, **ids),
            name,
            arguments,
            context,
        )
        if isinstance(result, InputRequiredResult):  # approval asked through the client (MRTR)
            return result
        tool = self._find(name)
        return call_result(result, self._entry(tool).output if tool is not None else None)

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        tool = self._find(name)
        return None if tool is None else thaw(tool.parameters)

    def _find(self, name: object) -> Tool | None:
        """The tool called `name`, when this server's caller may see it."""
        tool = self.registry.lookup(name) if isinstance(name, str) else None
        if tool is None or not self.registry.path().visible(tool, self.context):
            return None
        return tool


def call_result(result: ToolResult, output: _Output | None = None) -> CallToolResult:
    """A registry result as an MCP tool result: an error stays an error, with its envelope.

    A result's `notice` (how it came about, e.g. a replay) is a second text block: the model
    reads it beside the value or the error, as it does in the agent loop.
    """
    meta = {NOTICE_META_KEY: result.notice} if result.notice else None
    if not result.ok:
        return _result(result.to_dict()["error"], None, result.notice, meta)
    value = sendable(result.value, text=redact_secrets)
    text = value if isinstance(value, str) else dumps(value)
    if output is None:
        return _result(None, text, result.notice, meta)
    structured = output.structured(result.value)
    if structured is None:
        error = ErrorInfo(
            ErrorCode.EXECUTION_ERROR,
            "The tool ran, but returned a value that does not match its declared return type, "
            f"so it cannot be sent as structured content: {text[:200]}",
            "Use the value shown if it answers the question; the tool's return annotation "
            "needs fixing. Do not repeat a call that changes anything.",
        )
        return _result(error.to_dict(), None, result.notice, meta)
    return _result(None, text, result.notice, meta, structured)


def _result(
    envelope: dict[str, Any] | None,
    text: str | None,
    notice: str | None,
    meta: dict[str, Any] | None,
    structured: Any = None,
) -> CallToolResult:
    """An error result (`envelope`) or a success (`text`, maybe `structured`), notice after."""
    if envelope is not None:
        parts = (envelope["message"], envelope["suggestion"])
        text = " ".join(part for part in parts if part)
        meta = {**(meta or {}), ERROR_META_KEY: envelope}
    content: list[ContentBlock] = [TextContent(type="text", text=text or "")]
    if notice:
        content.append(TextContent(type="text", text=redact_secrets(notice)))
    if structured is None:
        return CallToolResult(content=content, is_error=envelope is not None, _meta=meta)
    return CallToolResult(content=content, structured_content=structured, _meta=meta)


def output_schema(tool: Tool) -> _Output | None:
    """The output schema a function tool's return annotation gives, or None."""
    if tool.source != "function":
        return None
    fn = tool.fn
    target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else type(fn).__call__
    try:
        returns = typing.get_type_hints(target, include_extras=True).get("return")
        if returns is None or returns is type(None) or returns is Any:
            return None
        adapter: TypeAdapter[Any] = TypeAdapter(returns)
        schema = adapter.json_schema(mode="serialization")
    except Exception:  # an annotation pydantic cannot describe: no output schema, not a crash
        return None
    wrapped = schema.get("type") != "object" or "$ref" in schema
    if wrapped:
        defs = schema.pop("$defs", None)
        schema = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
        if defs:
            schema["$defs"] = defs
    return _Output(schema, wrapped, adapter)
