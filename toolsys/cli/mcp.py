"""`toolsys mcp serve module:registry`: a registry as an MCP server over stdio.

    toolsys mcp serve toolsys.tools:registry            # the built-in tools
    toolsys mcp serve shop.tools:registry --name shop   # yours (the module must be importable)

An MCP host starts this command as its child process and speaks JSON-RPC on its stdin/stdout;
see toolsys/mcp/server.py. Bad input (no such module, no such attribute, not a Registry) is one
line on stderr and exit code 2.
"""

from __future__ import annotations

import importlib
from typing import Any, NoReturn

import click

from toolsys.cli._errors import fail_command


def usage_error(message: str) -> NoReturn:
    """`toolsys mcp serve: message` on stderr, exit 2 (the group's name included)."""
    fail_command("mcp serve", message)


def load_registry(target: str) -> Any:
    """The Registry named `module:attribute`, or exit 2 saying what is wrong."""
    from toolsys.registry import Registry

    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        usage_error(
            f"{target!r} is not module:attribute; name the registry like toolsys.tools:registry."
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        usage_error(
            f"cannot import {module_name!r} ({type(exc).__name__}: {exc}); check the module "
            "name and that its folder is on PYTHONPATH."
        )
    registry = module
    for part in attribute.split("."):
        if not hasattr(registry, part):
            usage_error(f"module {module_name!r} has no attribute {attribute!r}.")
        registry = getattr(registry, part)
    if not isinstance(registry, Registry):
        usage_error(
            f"{target} is a {type(registry).__name__}, not a toolsys Registry; point at the "
            "Registry your tools are registered on."
        )
    return registry


@click.group()
def mcp() -> None:
    """The Model Context Protocol: serve a registry to MCP hosts."""


@mcp.command()
@click.argument("target", metavar="MODULE:REGISTRY")
@click.option("--name", default="toolsys", show_default=True, help="The server's name.")
def serve(target: str, name: str) -> None:
    """Serve the Registry at MODULE:REGISTRY over stdio until the host disconnects."""
    registry = load_registry(target)
    try:
        from toolsys.mcp import serve as run
    except ImportError as exc:
        usage_error(f"needs the mcp package ({exc}); pip install 'toolsys[workbook]'.")
    if not name.strip():
        usage_error("--name is empty; give the server a name, e.g. --name shop.")
    run(registry, name=name)


COMMANDS = [mcp]
