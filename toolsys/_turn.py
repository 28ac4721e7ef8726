"""One model turn's tool calls: run them concurrently, each id answered exactly once.

Split from `toolsys.loop` so the loop and a resumed run (`toolsys._pause`) share one way of
running calls: every call reaches the registry with the run's id, the step, the model's
tool_call_id and the caller's context; a call still in flight at the run's deadline is answered
CANCELLED; a registry that breaks its never-raise promise is answered EXECUTION_ERROR.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolsys._reply import Call
from toolsys._wire import ChatWire, Wire
from toolsys.errors import ErrorInfo
from toolsys.execution import ToolExecutor, failure
from toolsys.failures import cancelled, execution_error
from toolsys.governance.approval import Approver, HumanDecision, human_decisions
from toolsys.result import ToolResult
from toolsys.transcript import Event, Transcript

_STOP_GRACE = 1.0  # seconds cancelled calls get to stop (an isolated process to be killed)


@dataclass
class Run:
    """What a running (or resumed) agent loop needs from one step to the next."""

    client: Any
    registry: ToolExecutor
    model: str
    transcript: Transcript
    emit: Callable[[Event], None]
    run_id: str
    context: Mapping[str, Any] | None = None
    ends: float | None = None
    max_steps: int = 8
    tool_choice: Any = "auto"
    approver: Approver | None = None
    wire: Wire = field(default_factory=ChatWire)  # the API the loop speaks (toolsys._wire)


async def execute(registry: ToolExecutor, name: str, arguments: str, **ids: Any) -> ToolResult:
    try:
        result = await registry.aexecute(name, arguments, **ids)
    except Exception as exc:  # aexecute promises never to raise; keep the promise for it
        return _failed(name, exc)
    if not isinstance(result, ToolResult):
        return _failed(
            name, TypeError(f"aexecute returned {type(result).__name__}, not a ToolResult")
        )
    return result


def _failed(name: str, exc: Exception) -> ToolResult:
    return failure(execution_error, name, exc, exception=exc)


def not_run(call: Call) -> ToolResult:
    """The transcript's record of a duplicate call: the model is answered for its id once."""
    return ToolResult.failure(
        ErrorInfo(
            "DUPLICATE_CALL_ID",
            f"Not run: the model used tool call id {call.id!r} more than once in one turn; only "
            "the first call with that id was run and answered (one tool message per id).",
        ),
        tool=call.name,
    )


async def run_calls(
    run: Run,
    step: int,
    calls: Sequence[Call],
    decisions: Mapping[str, HumanDecision] | None = None,
) -> tuple[dict[str, ToolResult], str | None]:
    """Each call's result by id, with a person's `decisions` visible to the Policy layer."""
    with human_decisions(decisions or {}):
        runs = [
            execute(
                run.registry,
                c.name,
                c.arguments,
                context=run.context,
                run_id=run.run_id,
                step=step,
                call_id=c.id,
            )
            for c in calls
        ]
        results, stopped = await execute_all([c.name for c in calls], runs, run.ends)
    return dict(zip((c.id for c in calls), results, strict=True)), stopped


async def execute_all(
    names: list[str], runs: list[Coroutine[Any, Any, ToolResult]], ends: float | None
) -> tuple[list[ToolResult], str | None]:
    """Run the calls concurrently until `ends`; a call still in flight then is CANCELLED.

    The second value says why calls were cut short: "deadline", "cancelled" or None.
    """
    tasks = [asyncio.ensure_future(run) for run in runs]
    stopped = None
    try:
        timeout = None if ends is None else max(0.0, ends - time.monotonic())
        _, pending = await asyncio.wait(tasks, timeout=timeout) if tasks else (set(), set())
        stopped = "deadline" if pending else None
    except asyncio.CancelledError:
        pending, stopped = {t for t in tasks if not t.done()}, "cancelled"
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=_STOP_GRACE)
    reason = {"deadline": "the run's deadline passed", "cancelled": "the run was cancelled"}
    return [
        task.result()
        if task.done() and not task.cancelled()
        else ToolResult.failure(cancelled(name, reason[stopped or "cancelled"]), tool=name)
        for name, task in zip(names, tasks, strict=True)
    ], stopped
