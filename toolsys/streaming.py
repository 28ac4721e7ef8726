"""Streaming: watch the model's words and tool calls arrive while the agent loop runs.

    for event in stream_agent(client, registry, "What's the weather in Paris?"):
        if isinstance(event, TextDelta):
            print(event.text, end="")          # the answer, word by word
        elif isinstance(event, ToolCallDelta):
            ...                                # a call's name first, then its arguments in pieces
        else:
            ...                                # the loop's own events (ToolResultEvent, ...)

Both APIs stream: `stream_agent(..., api="responses")` reads the Responses API's typed events
through the SDK's own stream helper (`_Responses`), and reports the same deltas.

With `stream=True` the chat completions endpoint answers with server-sent events: a
`chat.completion.chunk` per piece, each holding a `delta` (some text, or a piece of one tool
call, addressed by its `index`), then a chunk with the `finish_reason`, then one with `usage`
(when asked for with `stream_options={"include_usage": True}`). `Assembler` folds the chunks
back into the `chat.completion` they stream, so the loop itself does not change: it is given a
client whose `create` streams, reports each piece, and returns the assembled completion.

`stream_agent` runs `run_agent` in a worker thread and yields, in order, every loop event and
every delta; its `transcript` is set when the run ends. The run goes on only while the consumer
asks for the next event, as a generator would: closing the stream early (`close()`, or leaving
the `for` loop and dropping it) stops the run at its next model request or chunk.

Chapter 06 builds this by hand first: notebooks/06_agent_loop.ipynb.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolsys import _platform
from toolsys.loop import Event, Transcript, run_agent

__all__ = ["AgentStream", "Assembler", "TextDelta", "ToolCallDelta", "stream_agent"]


@dataclass(frozen=True)
class TextDelta:
    """A piece of the model's text in request `step`, as it arrived."""

    step: int
    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of tool call `index` in request `step`: id and name first, then arguments."""

    step: int
    index: int
    id: str | None
    name: str | None
    arguments: str


Delta = TextDelta | ToolCallDelta


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


@dataclass
class Assembler:
    """Folds `chat.completion.chunk`s (SDK objects or dicts) into one `chat.completion` dict."""

    step: int = 0
    model: str = ""
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Any = None

    def add(self, chunk: Any) -> list[Delta]:
        """Take in one chunk; return the deltas it carried, for a UI to show."""
        self.model = _get(chunk, "model") or self.model
        usage = _get(chunk, "usage")
        if usage is not None:
            self.usage = usage.model_dump() if hasattr(usage, "model_dump") else usage
        deltas: list[Delta] = []
        for choice in _get(chunk, "choices") or []:
            delta = _get(choice, "delta") or {}
            text = _get(delta, "content")
            if text:
                self.text.append(text)
                deltas.append(TextDelta(self.step, text))
            for piece in _get(delta, "tool_calls") or []:
                deltas.append(self._add_call(piece))
            self.finish_reason = _get(choice, "finish_reason") or self.finish_reason
        return deltas

    def _add_call(self, piece: Any) -> ToolCallDelta:
        index = _get(piece, "index") or 0
        call = self.calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
        function = _get(piece, "function") or {}
        call_id, name = _get(piece, "id"), _get(function, "name")
        arguments = _get(function, "arguments") or ""
        call["id"] = call_id or call["id"]
        call["name"] += name or ""
        call["arguments"] += arguments
        return ToolCallDelta(self.step, index, call_id, name, arguments)

    def completion(self) -> dict[str, Any]:
        """The `chat.completion` the chunks added so far make up."""
        calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for _, c in sorted(self.calls.items())
        ]
        text = "".join(self.text)
        message: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "finish_reason": self.finish_reason}
        return {"model": self.model, "choices": [choice], "usage": self.usage}


class StreamClosed(Exception):
    """The consumer closed the stream: the run stops at its next model request or chunk."""


class _Completions:
    """`client.chat.completions` whose `create` streams, reports deltas, returns the whole."""

    def __init__(self, client: Any, report: Callable[[Delta], None], closed: threading.Event):
        self._create = client.chat.completions.create
        self._report, self._closed = report, closed
        self._steps = 0
        if inspect.iscoroutinefunction(inspect.unwrap(self._create)):
            self.create = self._acreate  # type: ignore[method-assign,assignment]  # async client

    def _start(self, request: dict[str, Any]) -> tuple[Assembler, dict[str, Any]]:
        if self._closed.is_set():
            raise StreamClosed("The stream was closed by its consumer; the run stops here.")
        self._steps += 1
        options = {**request, "stream": True}
        options.setdefault("stream_options", {"include_usage": True})
        return Assembler(step=self._steps), options

    def _take(self, assembler: Assembler, chunk: Any) -> None:
        if self._closed.is_set():
            raise StreamClosed("The stream was closed by its consumer; the run stops here.")
        for delta in assembler.add(chunk):
            self._report(delta)

    def create(self, **request: Any) -> dict[str, Any]:
        assembler, options = self._start(request)
        stream = self._create(**options)
        try:
            for chunk in stream:
                self._take(assembler, chunk)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # release the connection, also when stopped early
        return assembler.completion()

    async def _acreate(self, **request: Any) -> dict[str, Any]:
        assembler, options = self._start(request)
        stream = await self._create(**options)
        try:
            async for chunk in stream:
                self._take(assembler, chunk)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                await close()
            # The SDK leaves an inner async generator unfinished after "[DONE]"; its clean-up is
            # scheduled on this loop when it is collected: let it run before the loop may stop.
            for _ in range(3):
                await asyncio.sleep(0)
        return assembler.completion()


class _Responses:
    """`client.responses` whose `create` streams through the SDK's own helper
    (`client.responses.stream`), reports deltas, and returns the final response.

    The events it reads (openai-python 3.57, `lib/streaming/responses/`): `response.output_item
    .added` (a function call's `call_id` and `name` first), `response.function_call_arguments
    .delta` (its arguments in pieces), `response.output_text.delta` (the answer's words), and the
    last one, `response.completed` or `response.incomplete` (cut at max_output_tokens), whose
    response is the whole.
    """

    def __init__(self, client: Any, report: Callable[[Delta], None], closed: threading.Event):
        self._stream = client.responses.stream
        self._report, self._closed = report, closed
        self._steps = 0
        if inspect.iscoroutinefunction(inspect.unwrap(client.responses.create)):
            self.create = self._acreate  # type: ignore[method-assign]  # async client

    def _start(self) -> tuple[int, dict[int, int]]:
        if self._closed.is_set():
            raise StreamClosed("The stream was closed by its consumer; the run stops here.")
        self._steps += 1
        return self._steps, {}

    def _take(self, step: int, calls: dict[int, int], event: Any) -> Any:
        """Report the event's delta; the response when it is the last event, else None."""
        if self._closed.is_set():
            raise StreamClosed("The stream was closed by its consumer; the run stops here.")
        kind = getattr(event, "type", None)
        if kind == "response.output_text.delta":
            self._report(TextDelta(step, event.delta))
        elif kind == "response.output_item.added" and event.item.type == "function_call":
            calls[event.output_index] = len(calls)
            item = event.item
            self._report(
                ToolCallDelta(step, calls[event.output_index], item.call_id, item.name, "")
            )
        elif kind == "response.function_call_arguments.delta" and event.output_index in calls:
            self._report(ToolCallDelta(step, calls[event.output_index], None, None, event.delta))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            return event.response
        return None

    def create(self, **request: Any) -> Any:
        step, calls = self._start()
        final = None
        with self._stream(**request) as stream:
            for event in stream:
                final = self._take(step, calls, event) or final
        return final

    async def _acreate(self, **request: Any) -> Any:
        step, calls = self._start()
        final = None
        async with self._stream(**request) as stream:
            async for event in stream:
                final = self._take(step, calls, event) or final
        for _ in range(3):  # as for chat: let the SDK's inner generator finish on this loop
            await asyncio.sleep(0)
        return final


class _StreamingClient:
    """A client the loop can use as any other, on either API; its requests stream."""

    def __init__(self, client: Any, report: Callable[[Delta], None], closed: threading.Event):
        self.chat = type("Chat", (), {})()
        self.chat.completions = _Completions(client, report, closed)
        if hasattr(client, "responses"):
            self.responses = _Responses(client, report, closed)
        self.toolsys_model = getattr(client, "toolsys_model", None)


_END = object()


class _Handoff:
    """Events from the run's thread to the consumer, one at a time, as a generator hands them.

    The run waits at each event until the consumer has dealt with it and asks for the next one
    (or closes the stream), so it is never further ahead than what the consumer has seen:
    closing the stream after an event stops the run at its next piece, however slow the
    consumer or busy the machine. (A queue the run filled freely let it finish several more
    steps before a `close()` after the first piece was seen.) The run's thread holds only this
    object, not the stream, so a stream dropped unfinished is collected, and closes this.
    """

    def __init__(self, waits: bool = True) -> None:
        self.closed = threading.Event()
        self._items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._dealt_with = threading.Semaphore(0)
        self._waits = waits  # False where the run and the consumer share one thread (browser)

    def put(self, item: Any) -> None:
        """On the run's thread: hand over one item and wait until the consumer is done with it."""
        self._items.put(item)
        if self._waits and not self.closed.is_set():
            self._dealt_with.acquire()

    def end(self, transcript: Transcript | None, error: BaseException | None) -> None:
        self._items.put((_END, transcript, error))

    def take(self, first: bool) -> Any:
        """On the consumer's thread: the next item (the one before it has been dealt with)."""
        if not first:
            self._dealt_with.release()
        return self._items.get()

    def close(self) -> None:
        self.closed.set()
        self._dealt_with.release()  # a run waiting for the consumer goes on, to its next piece


class AgentStream(Iterator["Event | Delta"]):
    """The events of one streamed run, in order; `transcript` once the run has ended."""

    def __init__(self, start: Callable[[Callable[[Any], None], threading.Event], Transcript]):
        self.transcript: Transcript | None = None
        self._handoff = handoff = _Handoff(waits=_platform.THREADS)
        self._done = False
        self._started = False

        def work() -> None:
            try:
                transcript = start(handoff.put, handoff.closed)
            except BaseException as exc:  # handed to the consumer's thread, raised there
                handoff.end(None, exc)
            else:
                handoff.end(transcript, None)

        if not _platform.THREADS:  # in the browser: the whole run now, its events as they came
            work()
            return
        self._thread = threading.Thread(target=work, name="toolsys-stream", daemon=True)
        self._thread.start()

    def __next__(self) -> Event | Delta:
        if self._done:
            raise StopIteration
        item = self._handoff.take(first=not self._started)
        self._started = True
        if isinstance(item, tuple) and len(item) == 3 and item[0] is _END:
            self._done = True
            _, self.transcript, error = item
            if error is not None:
                raise error
            raise StopIteration
        return item

    def close(self) -> None:
        """Stop early: the run ends at its next model request or chunk (a model_error)."""
        self._handoff.close()

    def __del__(self) -> None:
        self._handoff.close()


def stream_agent(
    client: Any, registry: Any, messages_or_prompt: str | list[dict[str, Any]], **options: Any
) -> AgentStream:
    """`run_agent` with streamed requests: iterate to get each event and delta as it happens.

    `options` are `run_agent`'s (model, max_steps, tool_choice, system, context...); the loop's
    events are what `on_event` would receive, so there is no `on_event` here.
    """
    if "on_event" in options:
        raise TypeError(
            "stream_agent() yields every event itself; iterate over it instead of passing on_event."
        )

    def start(put: Callable[[Any], None], closed: threading.Event) -> Transcript:
        streaming = _StreamingClient(client, put, closed)
        return run_agent(streaming, registry, messages_or_prompt, on_event=put, **options)

    return AgentStream(start)
