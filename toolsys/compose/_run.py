"""How a composite runs its children: as inner calls through the registry's own execute path.

A composite is a tool, so the registry's layers see the outer call. Its children run as inner
calls through the very same path (`toolsys.execution.running()`), with the outer call's context,
run id and step, and a derived call id (`call_1/2` for step 2 of the call `call_1`): an audit log
records them, a policy can deny them, a timeout bounds them. Outside a registry (a composite's
`fn` called by hand) the children run through a path with no layers.

A composite that ends up calling itself (a child that executes the composite again by name) or
nests deeper than `MAX_NESTING` is stopped with COMPOSITE_TOO_DEEP, not a RecursionError.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from toolsys.errors import ErrorCode, ErrorInfo, ToolError
from toolsys.execution import Call, ExecutePath, Next, running
from toolsys.result import ToolResult
from toolsys.tool import Tool

MAX_NESTING = 16
"""Composites inside composites deeper than this are refused at call time."""

_chain: contextvars.ContextVar[tuple[int, ...]] = contextvars.ContextVar(
    "toolsys_composites", default=()
)


class _NoTools:
    """The scope of a composite run by hand: its children are given, no name reaches a tool."""

    gate = None

    def lookup(self, name: str) -> Tool | None:
        return None

    def entries(self) -> tuple[tuple[str, Tool], ...]:
        return ()


_standalone: Next = ExecutePath((), _NoTools()).handler


class Inner:
    """The inner calls of one composite run: same path, context and run id as the outer call."""

    def __init__(self, composite: str) -> None:
        current = running()
        self.handler: Next = _standalone if current is None else current[0]
        self.outer: Call | None = None if current is None else current[1]
        self.base = (self.outer.call_id if self.outer is not None else None) or composite

    async def call(self, label: str, tool: Tool, arguments: Any) -> ToolResult:
        """Run `tool` with raw `arguments` as the inner call `label`; never raises."""
        outer, call_id = self.outer, f"{self.base}/{label}"
        if outer is None:
            return await self.handler(Call(tool.name, arguments, tool=tool, call_id=call_id))
        key = outer.idempotency_key
        call = Call(
            tool.name,
            arguments,
            tool=tool,
            context=outer.context,
            run_id=outer.run_id,
            step=outer.step,
            call_id=call_id,
            idempotency_key=None if key is None else f"{key}/{label}",
        )
        return await self.handler(call)


async def guarded(composite: str, runner: object, body: Callable[[], Awaitable[Any]]) -> Any:
    """Run `body` as one level of composition, refusing a composite that calls itself."""
    chain = _chain.get()
    if id(runner) in chain or len(chain) >= MAX_NESTING:
        why = "calls itself" if id(runner) in chain else f"nests more than {MAX_NESTING} deep"
        raise ToolError(
            ErrorCode.COMPOSITE_TOO_DEEP,
            f"Composite tool {composite!r} {why}; the call was stopped before it ran again.",
            suggestion=f"Answer without {composite}; repeating the call will loop the same way.",
        )
    token = _chain.set((*chain, id(runner)))
    try:
        return await body()
    finally:
        _chain.reset(token)


def envelope(result: ToolResult) -> ErrorInfo:
    """A failed inner result's envelope (a result that carries none still reads as a failure)."""
    if isinstance(result.error, ErrorInfo):
        return result.error
    return ErrorInfo(ErrorCode.EXECUTION_ERROR, "The step failed without saying why.")


def own_failure(composite: str, what: str, exc: BaseException | None = None) -> ToolResult:
    """A failure of the composite's own code around a child (a mapping, a predicate), as a
    result for `step_failed`: `what` went wrong, with the exception's type and text."""
    if exc is not None:
        try:
            text = str(exc)[:200]
        except Exception:
            text = ""
        what += f" {type(exc).__name__}" + (f": {text}" if text else "")
    return ToolResult.failure(
        ErrorInfo(
            ErrorCode.EXECUTION_ERROR,
            what + ".",
            f"This is a bug in {composite}, not in your arguments; answer without {composite}.",
        ),
        exception=exc,
    )


def step_failed(
    composite: str,
    what: str,
    label: str,
    tool: Tool | None,
    result: ToolResult,
    completed: Sequence[tuple[Tool, Any]],
    *,
    made_by_us: bool,
) -> ToolError:
    """The composite's failure: the failing step, its own envelope, and what already ran.

    The code is the step's own (PERMISSION_DENIED stays PERMISSION_DENIED). A retry is offered
    only when the step's error is retryable and every step that already ran can safely run again.
    """
    error = envelope(result)
    ran = [
        {"step": i + 1, "tool": t.name, "result": value} for i, (t, value) in enumerate(completed)
    ]
    # The model can only call the composite, not its steps: point it there.
    name = "" if tool is None else tool.name
    suggestion = error.suggestion.replace(f"call {name} again", f"call {composite} again")
    if made_by_us and error.code == ErrorCode.INVALID_ARGUMENTS:
        suggestion = (
            f"These arguments were made by {composite} from earlier results, not sent by you: "
            f"answer without {composite}, or call its steps one by one."
        )
    unsafe = [t.name for t, _ in completed if not t.idempotent]
    if unsafe:
        suggestion += (
            f" Already done and not safe to repeat: {', '.join(unsafe)} (see details.completed)."
        )
    return ToolError(
        error.code,
        f"{what} of {composite!r}{f' ({name!r})' if name else ''} failed: {error.message}",
        suggestion=suggestion.strip(),
        retryable=error.retryable and not unsafe,
        retry_after=error.retry_after if error.retryable and not unsafe else None,
        details={
            "failed_step": {"step": label, "tool": name or None, "error": error.to_dict()},
            "completed": ran,
        },
    )
