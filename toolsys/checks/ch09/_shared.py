"""What exercises 9.1 and 9.4 share: a layer that records every call it sees."""

from __future__ import annotations

from typing import Any

from toolsys.execution import Call, Next
from toolsys.result import ToolResult


class Recorder:
    """A layer that notes the name of every call it sees, inner calls of composites included."""

    stage = "received"
    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.users: list[Any] = []

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.seen.append(call.name)
        self.users.append(call.context.get("user"))
        return await call_next(call)
