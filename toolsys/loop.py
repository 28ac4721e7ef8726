"""The agent loop: ask the model, run the tools it calls, feed back the results, repeat.

    transcript = run_agent(client, registry, "What is 17 times 38?")
    print(transcript)

The loop knows the registry through two methods only: `export("openai")` (what exists, asked
before every request) and `aexecute(name, raw_arguments)` (run it; never raises). Each model
turn's tool calls run concurrently (async tools overlap; sync tools run one after another, see
`Registry.aexecute`), and exactly one tool message per distinct `tool_call_id` goes back, in the
order of the calls, whether each succeeded or failed. The run stops when the model answers in text
("completed"; "length" when the endpoint cut that answer at its token limit), after
`max_steps` model requests ("max_steps"), when a request to the model
fails or its reply breaks the protocol ("model_error": reported, never raised), or when its
`deadline` passes ("deadline"). A call still in flight when the deadline passes, or when the
caller cancels the run ("cancelled", then the CancelledError goes on), is answered CANCELLED:
each tool_call_id still gets exactly one tool message. Only calls that can be interrupted stop
(async tools, and sync tools behind `toolsys.layers.Timeout`); a sync tool run inline holds the
loop until it returns.

No reply is trusted: `toolsys._reply` checks each one before the loop acts on it. It ends the
run on a reply it cannot act on (no choices, not JSON, a tool call without a function name...),
reads null or non-string arguments as JSON text, gives a call without an id a stable
`toolsys_call_<step>_<n>` id (in the assistant message and its tool message alike: the API
rejects `tool_call_id: null`), and runs and answers a call id used twice in one turn once,
recording the duplicate in the transcript as not run.

Everything that happens is an event (`toolsys.transcript`), recorded in the `Transcript` in
order and passed to `on_event` as it happens (a widget, a logger); an exception raised by
`on_event` is recorded as an `ObserverError` event and the run goes on.

Chapter 00 builds this by hand first: notebooks/00_welcome.ipynb.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from toolsys._reply import BadReply, Call, Turn, read_reply
from toolsys._sync import run_sync
from toolsys.errors import ErrorInfo
from toolsys.execution import ToolExecutor, failure
from toolsys.failures import cancelled, execution_error
from toolsys.result import ToolResult
from toolsys.transcript import (
    Event,
    FinalAnswer,
    ModelErrorEvent,
    ModelRequest,
    ModelResponse,
    ObserverError,
    RunFinished,
    ToolCallEvent,
    ToolResultEvent,
    Transcript,
    UserMessage,
)

__all__ = [
    "Event",
    "FinalAnswer",
    "ModelErrorEvent",
    "ModelRequest",
    "ModelResponse",
    "ObserverError",
    "RunFinished",
    "ToolCallEvent",
    "ToolResultEvent",
    "Transcript",
    "UserMessage",
    "arun_agent",
    "run_agent",
]

# --- the loop ----------------------------------------------------------------------------------


def _start_messages(
    messages_or_prompt: str | list[dict[str, Any]], system: str | None
) -> list[dict[str, Any]]:
    if isinstance(messages_or_prompt, str):
        messages = [{"role": "user", "content": messages_or_prompt}]
    else:
        messages = [dict(m) for m in messages_or_prompt]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    return messages


async def _create(client: Any, **request: Any) -> Any:
    """One chat completion from a sync or async client, without blocking the event loop."""
    create = client.chat.completions.create
    if inspect.iscoroutinefunction(inspect.unwrap(create)):
        return await create(**request)
    return await asyncio.to_thread(create, **request)


async def _ask(client: Any, request: dict[str, Any], step: int) -> Turn | ModelErrorEvent:
    """The model's checked turn, or the event that ends the run: the request or its reply failed."""
    try:
        response = await _create(client, **request)
    except Exception as exc:  # any failed request ends the run, reported: HTTP, JSON, encoding
        return ModelErrorEvent(step, type(exc).__name__, _api_message(exc))
    try:
        return read_reply(response, step)
    except BadReply as exc:
        return ModelErrorEvent(step, "BadReply", str(exc))


async def _execute(registry: ToolExecutor, name: str, arguments: str, **ids: Any) -> ToolResult:
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


def _not_run(call: Call) -> ToolResult:
    """The transcript's record of a duplicate call: the model is answered for its id once."""
    return ToolResult.failure(
        ErrorInfo(
            "DUPLICATE_CALL_ID",
            f"Not run: the model used tool call id {call.id!r} more than once in one turn; only "
            "the first call with that id was run and answered (one tool message per id).",
        ),
        tool=call.name,
    )


_STOP_GRACE = 1.0  # seconds cancelled calls get to stop (an isolated process to be killed)


async def _execute_all(
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


def _add_usage(total: dict[str, int] | None, usage: dict[str, int] | None) -> dict[str, int] | None:
    if usage is None:
        return total
    total = dict(total or {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})
    for key in total:
        total[key] += usage.get(key, 0)
    return total


async def arun_agent(
    client: Any,
    registry: ToolExecutor,
    messages_or_prompt: str | list[dict[str, Any]],
    *,
    model: str | None = None,
    max_steps: int = 8,
    on_event: Callable[[Event], Any] | None = None,
    tool_choice: Any = "auto",
    system: str | None = None,
    context: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Transcript:
    """Run the agent loop with an `openai.OpenAI` or `openai.AsyncOpenAI` client.

    Each tool call reaches the registry with this run's id, the step and the model's
    tool_call_id, and `context` (the caller: user, roles...), for layers to use.

    `model` defaults to the name the `toolsys.models` client was made for. A forced
    `tool_choice` ("required" or a named function) applies to the first request only, then
    "auto", so the model can answer; "none" applies to every request.

    `deadline`: seconds for the whole run; calls still in flight then are answered CANCELLED
    and the run ends with status "deadline".
    """
    if deadline is not None and not (
        type(deadline) in (int, float) and 0 < deadline < float("inf")
    ):
        raise ValueError(
            f"deadline={deadline!r}: give the seconds the whole run may take, e.g. deadline=60, "
            "or leave it out."
        )
    if max_steps < 1:
        raise ValueError(
            f"max_steps={max_steps!r}: a run needs at least one model request; "
            "pass max_steps=1 or more (default 8)."
        )
    model = model or getattr(client, "toolsys_model", None)
    if not model:
        raise ValueError(
            "No model name: pass model=..., e.g. model='gpt-4o-mini', or make the "
            "client with toolsys.models.client()."
        )
    started = time.perf_counter()
    ends = None if deadline is None else time.monotonic() + deadline
    run_id = uuid.uuid4().hex[:12]
    transcript = Transcript(messages=_start_messages(messages_or_prompt, system), model=model)
    messages = transcript.messages

    def emit(event: Event) -> None:
        transcript.events.append(event)
        if on_event is None:
            return
        try:
            on_event(event)
        except Exception as exc:
            transcript.events.append(
                ObserverError(type(event).__name__, type(exc).__name__, _text(exc))
            )

    user = next((m for m in reversed(messages) if m["role"] == "user"), None)
    if user is not None:
        emit(UserMessage(str(user["content"])))
    for step in range(1, max_steps + 1):
        transcript.steps = step
        tools = registry.export("openai")  # each step: a deferred session loads tools as it goes
        choice = tool_choice if step == 1 or tool_choice == "none" else "auto"
        emit(ModelRequest(step, len(messages), choice))
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request.update(tools=tools, tool_choice=choice)
        try:
            remaining = None if ends is None else max(0.0, ends - time.monotonic())
            turn = await asyncio.wait_for(_ask(client, request, step), remaining)
        except TimeoutError:
            transcript.status = "deadline"
            break
        if isinstance(turn, ModelErrorEvent):
            emit(turn)
            transcript.status = "model_error"
            break
        transcript.usage = _add_usage(transcript.usage, turn.usage)
        messages.append(turn.assistant_message())
        emit(
            ModelResponse(
                step, turn.content, [c.to_dict() for c in turn.calls], turn.usage, turn.model
            )
        )
        if not turn.calls:
            emit(FinalAnswer(step, turn.content or ""))
            transcript.status = "length" if turn.finish_reason == "length" else "completed"
            break
        for call in turn.calls:
            emit(ToolCallEvent(step, call.event_id, call.name, call.arguments))
        runs = [c for c in turn.calls if not c.duplicate]
        results, stopped = await _execute_all(
            [c.name for c in runs],
            [
                _execute(
                    registry,
                    c.name,
                    c.arguments,
                    context=context,
                    run_id=run_id,
                    step=step,
                    call_id=c.id,
                )
                for c in runs
            ],
            ends,
        )
        answered = dict(zip((c.id for c in runs), results, strict=True))
        for call in turn.calls:
            if call.duplicate:
                emit(ToolResultEvent(step, call.event_id, call.name, _not_run(call)))
                continue
            result = answered[call.id]
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": result.to_message()}
            )
            emit(ToolResultEvent(step, call.id, call.name, result))
        if stopped is not None:
            transcript.status = stopped
            break
    else:
        transcript.status = "max_steps"
    transcript.duration_s = time.perf_counter() - started
    emit(RunFinished(transcript.status, transcript.steps, transcript.usage))
    if transcript.status == "cancelled":
        raise asyncio.CancelledError
    return transcript


def _api_message(exc: Exception) -> str:
    """The endpoint's own error message when it sent one, else what went wrong, in words."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    if isinstance(exc, json.JSONDecodeError):
        return (
            f"The endpoint's reply is not valid JSON ({exc.msg} at character {exc.pos}). Check "
            "that base_url points at a chat completions endpoint."
        )
    return _text(exc)


def _text(exc: BaseException) -> str:
    """`str(exc)`, or its type name when even that fails."""
    try:
        return str(exc)
    except Exception:
        return f"{type(exc).__name__} (its message could not be read)"


def run_agent(
    client: Any,
    registry: ToolExecutor,
    messages_or_prompt: str | list[dict[str, Any]],
    *,
    model: str | None = None,
    max_steps: int = 8,
    on_event: Callable[[Event], Any] | None = None,
    tool_choice: Any = "auto",
    system: str | None = None,
    context: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Transcript:
    """`arun_agent` for synchronous code; also works in a Jupyter cell (a running event loop).

    The run happens in this thread (see `toolsys._sync`), so `on_event` is called from it.
    """
    return run_sync(
        arun_agent(
            client,
            registry,
            messages_or_prompt,
            model=model,
            max_steps=max_steps,
            on_event=on_event,
            tool_choice=tool_choice,
            system=system,
            context=context,
            deadline=deadline,
        )
    )
