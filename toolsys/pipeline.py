"""The execute path as a chain of layers, so robustness and governance wrap it from outside.

A layer is `async def layer(call, call_next) -> ToolResult`. It may look at the call, refuse it
(return a failure without calling `call_next`), retry it, time it out or record it. The registry
runs its layers around its own core step (resolve, decode, validate, invoke) and never needs to
know what they do. Timeouts, retries, idempotency, permissions, hooks and audit are all layers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolsys.result import ToolResult
    from toolsys.tool import Tool


@dataclass
class Call:
    """One requested tool call as it travels through the layers."""

    name: str
    arguments: Any
    tool: Tool | None = None
    attempt: int = 1
    context: dict[str, Any] = field(default_factory=dict)


Next = Callable[[Call], Awaitable["ToolResult"]]
Layer = Callable[[Call, Next], Awaitable["ToolResult"]]


def chain(layers: list[Layer], core: Next) -> Next:
    """Wrap `core` in `layers`; the first layer is the outermost."""
    handler = core
    for layer in reversed(layers):
        handler = _bind(layer, handler)
    return handler


def _bind(layer: Layer, call_next: Next) -> Next:
    async def handler(call: Call) -> ToolResult:
        return await layer(call, call_next)

    return handler
