"""Shop tools, a recording layer and a deny layer for the composite tests."""

from __future__ import annotations

from typing import Any

from toolsys import Registry, ToolError, ToolResult
from toolsys.execution import Call, Next
from toolsys.spec import Category
from toolsys.tool import Tool, tool_from_function


def find_order(email: str) -> dict[str, Any]:
    """Find a customer's latest order.

    Args:
        email: The customer's e-mail address.
    """
    if email == "nobody@example.com":
        raise ToolError("ORDER_NOT_FOUND", f"No order for {email}.", suggestion="Ask the user.")
    return {"order_id": "ORD-1", "total": 30.0}


def refund(order_id: str, amount: float | None = None) -> str:
    """Refund an order.

    Args:
        order_id: The order to refund.
        amount: How much; the whole order when left out.
    """
    return f"refunded {order_id}" + ("" if amount is None else f" ({amount})")


def escalate(order_id: str, reason: str = "large refund") -> str:
    """Hand an order to a human.

    Args:
        order_id: The order.
        reason: Why.
    """
    return f"escalated {order_id}: {reason}"


def tools() -> dict[str, Tool]:
    return {
        "find_order": tool_from_function(find_order),
        "refund": tool_from_function(refund, category=Category.WRITE),
        "escalate": tool_from_function(escalate, category=Category.EXECUTE, idempotent=True),
    }


class Recorder:
    """A layer that writes down every call it sees: name, call id, run id, context."""

    def __init__(self, stage: str = "received") -> None:
        self.stage = stage
        self.name = f"recorder_{stage}"
        self.seen: list[tuple[str, str | None, str | None, dict[str, Any]]] = []

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.seen.append((call.name, call.call_id, call.run_id, dict(call.context)))
        return await call_next(call)


class Deny:
    """A Policy-like layer: refuses WRITE and EXECUTE tools unless the context says admin."""

    stage = "validated"
    name = "deny"

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        assert call.tool is not None
        if call.tool.category != Category.READ and call.context.get("role") != "admin":
            return ToolResult.failure(
                ToolError(
                    "PERMISSION_DENIED",
                    f"{call.name} needs the admin role.",
                    suggestion="Ask an admin.",
                ).to_info()
            )
        return await call_next(call)


def registry(*layers: Any) -> Registry:
    reg = Registry()
    for layer in layers:
        reg.use(layer)
    for tool in tools().values():
        reg.add(tool)
    return reg
