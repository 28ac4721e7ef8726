"""The agent loop: ask the model, run the tools it calls, feed back the results, repeat.

    transcript = run_agent(client, registry, "What is 17 times 38?")
    print(transcript)

The loop speaks chat completions, or with `api="responses"` the Responses API (toolsys/_wire.py
translates at the edge; the transcript, events and calls are the same on both). It knows the
registry through two methods only: `export("openai")` (what exists, asked
before every request) and `aexecute(name, raw_arguments)` (run it; never raises). Each model
turn's tool calls run concurrently (async tools overlap; sync tools run one after another, see
`Registry.aexecute`), and exactly one tool message per distinct `tool_call_id` goes back, in the
order of the calls, whether each succeeded or failed. The run stops when the model answers in text
("completed"; "length" when the endpoint cut that answer at its token limit; an answer the
endpoint's content filter cut, chat's `finish_reason` "content_filter" or the Responses API's
`incomplete_details.reason` "content_filter", is "completed" on both APIs, with the text the
filter let through: asking again for more tokens would not help), after
`max_steps` model requests ("max_steps"), when a request to the model
fails or its reply breaks the protocol ("model_error": reported, never raised; a Responses API
response that failed or never finished is one), or when its
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
import reprlib
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolsys._pause import AWAITING, resume_turn, settle
from toolsys._reply import BadReply, Turn
from toolsys._sync import run_sync
from toolsys._turn import Run, run_calls
from toolsys._wire import wire_for
from toolsys.execution import ToolExecutor
from toolsys.governance.approval import Approver
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
    "aresume_agent",
    "arun_agent",
    "resume_agent",
    "run_agent",
]

# --- the loop ----------------------------------------------------------------------------------


def _start_messages(
    messages_or_prompt: str | list[dict[str, Any]], system: str | None
) -> list[dict[str, Any]]:
    if isinstance(messages_or_prompt, str):
        messages = [{"role": "user", "content": messages_or_prompt}]
    elif isinstance(messages_or_prompt, list | tuple) and all(
        isinstance(m, Mapping) for m in messages_or_prompt
    ):
        messages = [dict(m) for m in messages_or_prompt]
    else:
        raise ValueError(
            f"messages_or_prompt={reprlib.repr(messages_or_prompt)}: give the request as a str, or "
            "the conversation as a list of message dicts, e.g. [{'role': 'user', 'content': 'hi'}]."
        )
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    if not messages:
        raise ValueError(
            "The conversation is empty ([]): give at least one message, or the user's request "
            "as a str."
        )
    return messages


async def _ask(run: Run, request: dict[str, Any], step: int) -> Turn | ModelErrorEvent:
    """The model's checked turn, or the event that ends the run: the request or its reply failed."""
    try:
        response = await run.wire.create(run.client, request)
    except Exception as exc:  # any failed request ends the run, reported: HTTP, JSON, encoding
        return ModelErrorEvent(step, type(exc).__name__, _api_message(exc))
    try:
        return run.wire.read(response, step)
    except BadReply as exc:
        return ModelErrorEvent(step, "BadReply", str(exc))


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
    approver: Approver | None = None,
    api: str = "chat",
) -> Transcript:
    """Run the agent loop with an `openai.OpenAI` or `openai.AsyncOpenAI` client.

    Each tool call reaches the registry with this run's id, the step and the model's
    tool_call_id, and `context` (the caller: user, roles...), for layers to use; the model is
    offered only the tools the policy lets this caller use (`export(..., context=context)`).

    `model` defaults to the name the `toolsys.models` client was made for. A forced
    `tool_choice` ("required" or a named function) applies to the first request only, then
    "auto", so the model can answer; "none" applies to every request, and so does an
    `allowed_tools` restriction (its mode "required" only to the first, then "auto").

    `deadline`: seconds for the whole run; calls still in flight then are answered CANCELLED
    and the run ends with status "deadline".

    A call that needs a person's approval (see `toolsys.governance`) is put to `approver(pending)`
    (True approves, a string denies with that reason; may be async); without an approver the
    run stops with status "awaiting_approval": continue it with `resume_agent`.

    `api`: "chat" (chat completions) or "responses" (the Responses API, OpenAI's recommended API
    for tool use; `client.responses`). The transcript, the events and the registry's calls are
    the same on both (toolsys/_wire.py); a run paused on one can be resumed on the other.
    """
    run = _prepare(client, registry, model, max_steps, on_event, tool_choice, context, deadline)
    run.approver, run.wire = approver, wire_for(api)
    run.transcript.messages.extend(_start_messages(messages_or_prompt, system))
    user = next((m for m in reversed(run.transcript.messages) if m["role"] == "user"), None)
    if user is not None:
        run.emit(UserMessage(str(user["content"])))
    return await _drive(run, 1, time.perf_counter())


def _prepare(
    client: Any,
    registry: ToolExecutor,
    model: str | None,
    max_steps: int,
    on_event: Callable[[Event], Any] | None,
    tool_choice: Any,
    context: Mapping[str, Any] | None,
    deadline: float | None,
    transcript: Transcript | None = None,
    run_id: str | None = None,
) -> Run:
    """The checked settings of a run (new, or resumed into `transcript`)."""
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
    transcript = transcript if transcript is not None else Transcript(model=model)

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

    return Run(
        client,
        registry,
        model,
        transcript,
        emit,
        run_id or uuid.uuid4().hex[:12],
        context,
        None if deadline is None else time.monotonic() + deadline,
        max_steps,
        tool_choice,
    )


def _exporter(
    registry: ToolExecutor, context: Mapping[str, Any] | None
) -> Callable[[], list[dict[str, Any]]]:
    """What this caller may use, asked before every request (a deferred session loads tools):
    `export(context=...)` with the caller's context, `{}` for a caller who gave none (tools
    only some callers may use are not offered to them). Whether the executor takes `context` is
    looked at once per run, not at every step."""
    export = registry.export
    try:
        takes = "context" in inspect.signature(export).parameters
    except (TypeError, ValueError):
        takes = True
    if not takes:
        return lambda: export("openai")
    caller = {} if context is None else context
    return lambda: export("openai", context=caller)  # type: ignore[call-arg]


def _later_choice(choice: Any) -> Any:
    """`tool_choice` after the first request: what restricts stays, what forces a call goes."""
    if choice == "none":
        return choice
    if isinstance(choice, Mapping) and choice.get("type") == "allowed_tools":
        if isinstance(choice.get("allowed_tools"), Mapping):  # chat completions' shape
            return {**choice, "allowed_tools": {**choice["allowed_tools"], "mode": "auto"}}
        return {**choice, "mode": "auto"}  # the Responses API's flat shape
    return "auto"


async def _drive(run: Run, first: int, started: float) -> Transcript:
    """Steps `first`..max_steps: ask the model, run its calls, answer them (or pause)."""
    transcript, messages, emit = run.transcript, run.transcript.messages, run.emit
    export = _exporter(run.registry, run.context)
    for step in range(first, run.max_steps + 1):
        transcript.steps = step
        tools = export()  # each step: a deferred session loads tools
        choice = run.tool_choice if step == 1 else _later_choice(run.tool_choice)
        emit(ModelRequest(step, len(messages), choice))
        request = run.wire.request(run.model, messages, tools, choice)
        try:
            remaining = None if run.ends is None else max(0.0, run.ends - time.monotonic())
            turn = await asyncio.wait_for(_ask(run, request, step), remaining)
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
        results, stopped = await run_calls(run, step, runs)
        if await settle(run, step, runs, results, shown=turn.calls):
            transcript.status = AWAITING
            break
        if stopped is not None:
            transcript.status = stopped
            break
    else:
        transcript.status = "max_steps"
    return _finish(run, started)


def _finish(run: Run, started: float) -> Transcript:
    transcript = run.transcript
    transcript.duration_s += time.perf_counter() - started
    run.emit(RunFinished(transcript.status, transcript.steps, transcript.usage))
    if transcript.status == "cancelled":
        raise asyncio.CancelledError
    return transcript


async def aresume_agent(
    client: Any,
    registry: ToolExecutor,
    transcript: Transcript,
    *,
    approve: Iterable[str] = (),
    deny: Mapping[str, str] | None = None,
    edit: Mapping[str, Mapping[str, Any]] | None = None,
    approver: Approver | None = None,
    approved_by: str | None = None,
    model: str | None = None,
    max_steps: int = 8,
    on_event: Callable[[Event], Any] | None = None,
    context: Mapping[str, Any] | None = None,
    deadline: float | None = None,
    api: str = "chat",
) -> Transcript:
    """Continue a run that is "awaiting_approval" (also one loaded with `Transcript.from_json`).

    `approve`: ids of pending calls to run; `deny`: {id: reason}, read by the model as
    APPROVAL_DENIED; `edit`: {id: {"arguments": {...}, "name": ...}}, validated and decided
    again (it may need approval again). Ids that are not pending are refused (ValueError);
    calls nobody decided on stay pending. `approved_by` names the person in the audit trail.
    `context` is the caller's again (never read back from the saved transcript); `max_steps`
    counts from the first step of the whole run. The transcript is continued in place. `api`
    is the API to continue on ("chat" or "responses"), whichever the run started on.
    """
    run = _prepare(
        client,
        registry,
        model or transcript.model,
        max_steps,
        on_event,
        "auto",
        context,
        deadline,
        transcript=transcript,
        run_id=str((transcript.paused or {}).get("run_id") or "") or None,
    )
    run.approver, run.wire = approver, wire_for(api)
    started = time.perf_counter()
    step, stop = await resume_turn(run, approve, deny or {}, edit or {}, approved_by)
    if stop is not None:
        transcript.status = stop
        return _finish(run, started)
    return await _drive(run, step + 1, started)


def resume_agent(
    client: Any,
    registry: ToolExecutor,
    transcript: Transcript,
    *,
    approve: Iterable[str] = (),
    deny: Mapping[str, str] | None = None,
    edit: Mapping[str, Mapping[str, Any]] | None = None,
    approver: Approver | None = None,
    approved_by: str | None = None,
    model: str | None = None,
    max_steps: int = 8,
    on_event: Callable[[Event], Any] | None = None,
    context: Mapping[str, Any] | None = None,
    deadline: float | None = None,
    api: str = "chat",
) -> Transcript:
    """`aresume_agent` for synchronous code (and Jupyter cells); the same options."""
    return run_sync(
        aresume_agent(
            client,
            registry,
            transcript,
            approve=approve,
            deny=deny,
            edit=edit,
            approver=approver,
            approved_by=approved_by,
            model=model,
            max_steps=max_steps,
            on_event=on_event,
            context=context,
            deadline=deadline,
            api=api,
        )
    )


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
    approver: Approver | None = None,
    api: str = "chat",
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
            approver=approver,
            api=api,
        )
    )
