"""The Model Context Protocol, both ways: serve a registry, import a server's tools.

    from toolsys.mcp import serve, to_server, import_server
    server = to_server(registry, name="shop")        # an mcp MCPServer exposing every tool
    serve(registry)                                  # stdio: `toolsys mcp serve module:registry`
    tools = await import_server(registry, server_or_command, prefix="fs", trust="untrusted")

Errors cross as results (`isError`), never as protocol errors; categories cross as annotations,
believed only from a trusted server. Needs the `mcp` package (the `workbook` extra); `import
toolsys` never loads it. Chapter 10 is the lesson.
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
