"""The Model Context Protocol, both ways: serve a registry, import a server's tools.

    from toolsys.mcp import serve, to_server, import_server
    server = to_server(registry, name="shop")        # an mcp MCPServer exposing every tool
    serve(registry)                                  # stdio: `toolsys mcp serve module:registry`
    tools = await import_server(registry, server_or_command, prefix="fs", trust="untrusted")

Errors cross as results (`isError`), never as protocol errors; categories cross as annotations,
believed only from a trusted server. It speaks MCP revision 2026-07-28 (the `mcp` 2.3 SDK's
newest, stateless: `server/discover`, no handshake) and the older handshake revisions with older
peers; a call the Policy holds for approval is asked of the client's user through the
multi round-trip `input_required` result when the client can answer one
(toolsys/mcp/_approval.py); toolsys/mcp/server.py lists what changed since 2025-06-18.
Needs the `mcp` package (the `workbook` extra); `import toolsys` never loads it. Chapter 10 is
the lesson.
"""

from toolsys.mcp.annotations import annotations_for, category_for
from toolsys.mcp.client import ImportedTools, import_server
from toolsys.mcp.server import call_result, serve, to_server

__all__ = [
    "ImportedTools",
    "annotations_for",
    "call_result",
    "category_for",
    "import_server",
    "serve",
    "to_server",
]
