"""Checks for chapter 06, the agent loop: parallel calls answered in order, a result budget, a
step limit that still answers (graded over seeded runs of the imperfect model), a transcript's
numbers, and Anthropic's tool_result block.

Every check runs the student's code against the real `openai` client (scripted or offline), so
an answer that passes here speaks the protocol a real endpoint enforces.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_true,
)
from toolsys.checks._plain import text as _text

# -- 6.1 ------------------------------------------------------------------------------------------


async def agent_loop(client: Any, registry: Any, prompt: str, max_steps: int = 5) -> list[dict]:
    """Reference for 6.1: the package's loop, whose messages are the ones expected."""
    from toolsys.loop import arun_agent

    transcript = await arun_agent(client, registry, prompt, max_steps=max_steps)
    return transcript.messages


_WAIT = 2.0  # seconds a tool waits for its siblings before it gives up
_FINISH = {"alpha": 0.06, "beta": 0.0, "gamma": 0.03}  # after meeting: beta, gamma, alpha


def _parallel_registry() -> Any:
    """Three async tools that finish only if all three run at once, each at its own pace."""
    from toolsys import Registry

    registry = Registry()
    barrier: asyncio.Barrier | None = None

    def tool(name: str) -> Any:
        async def fetch(city: str) -> str:
            nonlocal barrier
            barrier = barrier or asyncio.Barrier(len(_FINISH))
            try:
                await asyncio.wait_for(barrier.wait(), _WAIT)
            except (TimeoutError, asyncio.BrokenBarrierError):
                raise TimeoutError(
                    f"{name} ran alone: its sibling calls of the same turn had not started"
                ) from None
            await asyncio.sleep(_FINISH[name])
            return f"{name} for {city}"

        return fetch

    for name in _FINISH:
        registry.register(tool(name), name=name, description=f"Fetch {name} data for a city.")

    @registry.tool
    def boom(city: str) -> str:
        """A tool that always fails.

        Args:
            city: Any city.
        """
        raise RuntimeError(f"the {city} service is down")

    @registry.tool
    def tick() -> str:
        """A tool that answers at once."""
        return "tick"

    return registry


def _canonical(messages: Any, what: str) -> list[tuple[Any, ...]]:
    """(role, content, calls, tool_call_id) per message: the parts the protocol cares about."""
    hint = (
        "Append plain dicts, not SDK objects: build the assistant message from message.content "
        "and [call.model_dump() for call in message.tool_calls]."
    )
    expect_plain(messages, what=what, shape="a list of plain dicts (messages)", hint=hint)
    expect_true(
        type(messages) is list and all(type(m) is dict for m in messages),
        f"{what} must be a list of plain dicts, one per message.",
        hint=hint,
    )
    shaped = []
    for message in messages:
        calls = [
            (
                c.get("id"),
                (c.get("function") or {}).get("name"),
                (c.get("function") or {}).get("arguments"),
            )
            for c in message.get("tool_calls") or []
            if type(c) is dict
        ]
        shaped.append(
            (message.get("role"), message.get("content"), calls, message.get("tool_call_id"))
        )
    return shaped


def _run_loop(student: Any, script: list[dict], prompt: str, max_steps: int) -> tuple[Any, Any]:
    """The student's messages and the scripted model (its requests), for one script."""
    from toolsys.models import ScriptedModel

    model = ScriptedModel(script)
    registry = _parallel_registry()
    what = f"agent_loop(client, registry, {prompt!r}, max_steps={max_steps})"
    coroutine = call_student(
        student,
        model.client(),
        registry,
        prompt,
        max_steps=max_steps,
        what=what,
        returns="a coroutine (agent_loop is an async def)",
    )
    if not inspect.iscoroutine(coroutine):
        raise CheckFailed(
            f"{what} returned {type(coroutine).__name__}, not a coroutine.",
            expected=Described("agent_loop defined with `async def`"),
            got=coroutine,
            hint="Write `async def agent_loop(...)`: the calls of a turn are awaited together.",
        )
    try:
        messages = asyncio.run(coroutine)
    except NotImplementedError:
        raise
    except Exception as exc:
        body = getattr(exc, "body", None)
        said = body.get("message") if isinstance(body, dict) else None
        raise CheckFailed(
            f"{what} raised {type(exc).__name__}: {said or _text(exc)}",
            expected=Described("the conversation, as a list of messages"),
            got=exc,
            hint="Answer every call of a turn with exactly one tool message, and stop after "
            "max_steps requests: the API refuses anything else.",
        ) from None
    return messages, model


def _expected(script: list[dict], prompt: str, max_steps: int) -> list[dict]:
    from toolsys.models import ScriptedModel

    return asyncio.run(
        agent_loop(ScriptedModel(script).client(), _parallel_registry(), prompt, max_steps)
    )


@exercise(
    "6.1",
    title="The loop by hand, with parallel calls",
    hints=[
        "Build the list of coroutines first, [registry.aexecute(c.function.name, "
        "c.function.arguments) for c in message.tool_calls], then `await asyncio.gather(*...)`.",
        "asyncio.gather returns the results in the order of its arguments: zip them with "
        "message.tool_calls to write the tool messages in call order.",
        "`for _ in range(max_steps)` makes exactly max_steps requests at most; break when the "
        "reply has no tool_calls.",
    ],
    reference=lambda: agent_loop,
    timeout=30,
)
def _check_agent_loop(student: Any) -> None:
    from toolsys.models import calls, text

    cities = {"city": "Lisbon"}
    cases = [
        ("a text answer at once", [text("Hello!")], 3),
        (
            "three calls in one turn",
            [calls(*[(name, cities) for name in _FINISH]), text("All three found.")],
            5,
        ),
        (
            "a failing call between two others",
            [calls(("tick", {}), ("boom", cities), ("tick", {})), text("One failed.")],
            5,
        ),
        ("a model that never stops calling", [calls(("tick", {}))] * 6 + [text("done")], 3),
    ]
    for label, script, max_steps in cases:
        prompt = f"Test: {label}"
        messages, model = _run_loop(student, script, prompt, max_steps)
        got = _canonical(messages, f"agent_loop(...) for {label}")
        expected = _canonical(_expected(script, prompt, max_steps), "the reference")
        requests = len(model.requests)
        expected_requests = min(max_steps, len(script))
        if requests != expected_requests:
            raise CheckFailed(
                f"For {label} with max_steps={max_steps}, agent_loop made {requests} requests.",
                expected=expected_requests,
                got=requests,
                hint="Stop after the first text answer, and never make more than max_steps "
                "requests: the loop's bound is what stops a model that never stops calling.",
            )
        _compare(got, expected, label)


def _compare(got: list[tuple[Any, ...]], expected: list[tuple[Any, ...]], label: str) -> None:
    roles = [m[0] for m in got]
    expect_equal(
        roles,
        [m[0] for m in expected],
        what=f"the roles of the messages for {label}",
        hint="user, then per step: the assistant's turn and one tool message per call.",
    )
    for index, (mine, theirs) in enumerate(zip(got, expected, strict=True)):
        if mine[0] == "assistant":
            expect_equal(
                mine[2],
                theirs[2],
                what=f"the tool_calls (id, name, arguments) of message {index} for {label}",
                hint="Append the model's calls exactly as they came: call.model_dump().",
            )
        if mine[0] == "tool" and mine[3] != theirs[3]:
            raise CheckFailed(
                f"For {label}, message {index} answers {mine[3]!r}; the calls were made in another "
                "order. Tool messages must follow the order of the calls, not the order in which "
                "they finished.",
                expected=theirs[3],
                got=mine[3],
                hint="asyncio.gather keeps the order of the calls; asyncio.as_completed does not.",
            )
        if mine[0] == "tool" and mine[1] != theirs[1]:
            waited = isinstance(mine[1], str) and "ran alone" in mine[1]
            raise CheckFailed(
                f"For {label}, the tool message for {mine[3]!r} differs"
                + (
                    ": the calls of the turn ran one after another, so each waited in vain "
                    "for its siblings."
                    if waited
                    else "."
                ),
                expected=theirs[1],
                got=mine[1],
                hint="Run the calls of a turn together: collect the coroutines of "
                "registry.aexecute(...) and await asyncio.gather(*coroutines)."
                if waited
                else "The content is result.to_message(), the envelope the model reads.",
            )
        if mine[0] == "assistant" and mine[1] != theirs[1]:
            expect_equal(mine[1], theirs[1], what=f"the content of message {index} for {label}")


# -- 6.2 ------------------------------------------------------------------------------------------


def _fit_result_reference() -> Any:
    from toolsys.layers import fit_result

    return fit_result


def _numbers(text: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", text)}


def _big_logs(n: int) -> list[str]:
    return [f'12:00:{i % 60:02d} node-{i} said "timeout"\tafter 30 s\n' for i in range(n)]


@exercise(
    "6.2",
    title="A result-size guard",
    hints=[
        "Measure len(result.to_message()): the text the model reads, escapes included.",
        "A message of exactly max_chars characters fits: compare with <=.",
        "Build the failure, measure its to_message(), and shorten the preview by what is over "
        "the budget until it fits.",
    ],
    reference=_fit_result_reference,
    timeout=30,
)
def _check_fit_result(student: Any) -> None:
    from toolsys import ToolResult

    def fit(result: ToolResult, budget: int, label: str) -> ToolResult:
        got = call_student(
            student,
            result,
            budget,
            what=f"fit_result({label}, {budget})",
            returns="a ToolResult",
        )
        if type(got) is not ToolResult:
            raise CheckFailed(
                f"fit_result({label}, {budget}) must return a ToolResult.",
                expected=Described("a ToolResult"),
                got=got,
                hint="Return `result` itself, or ToolResult.failure(ErrorInfo(...)).",
            )
        return got

    small = ToolResult.success({"lines": ["12:00 ok"]})
    filler = "x" * (1000 - len(ToolResult.success("").to_message()))
    exact = ToolResult.success(filler)
    for label, result in (("a small result", small), ("a result of exactly 1000", exact)):
        got = fit(result, 1000, label)
        expect_equal(
            got.to_message(),
            result.to_message(),
            what=f"fit_result({label}, 1000).to_message()",
            hint="A result whose message has at most max_chars characters is returned unchanged.",
        )
    escaped = ToolResult.success('"\n' * 600)  # 1,200 characters, ~2,400 once JSON-escaped
    over = ToolResult.success(filler + "yy")  # its message is 1,002 characters
    cases = [
        ("a result 2 characters over", over, 1000),
        ("a result full of quotes and newlines", escaped, 2000),
        ("200 kB of log lines", ToolResult.success(_big_logs(4000)), 8000),
    ]
    for label, result, budget in cases:
        _check_too_large(fit(result, budget, label), result, budget, label)
    _check_in_a_run(student)


def _check_too_large(got: Any, result: Any, budget: int, label: str) -> None:
    what = f"fit_result({label}, {budget})"
    size = len(result.to_message())
    expect_true(
        not got.ok and got.error is not None and got.error.code == "RESULT_TOO_LARGE",
        f"{what}: the message is {size:,} characters, over the budget of {budget:,}; the "
        "result must become a RESULT_TOO_LARGE failure.",
        hint="Measure len(result.to_message()), not the Python value: JSON escapes quotes, "
        "backslashes and newlines.",
    )
    message = got.to_message()
    if len(message) > budget:
        raise CheckFailed(
            f"{what}: the failure's own message is {len(message):,} characters, over the budget.",
            expected=Described(f"at most {budget:,} characters"),
            got=Described(f"{len(message):,} characters"),
            hint="Measure the failure's to_message() and shorten the preview until it fits.",
        )
    found = _numbers(got.error.message)
    expect_true(
        size in found and budget in found,
        f"{what}: the error message must give the size ({size:,}) and the budget ({budget:,}) "
        f"as numbers; it says: {got.error.message!r}",
        hint="The model decides what to ask for next from these numbers.",
    )
    preview = got.error.details.get("preview")
    original = result.to_message()
    if type(preview) is not str or not preview.rstrip("…").rstrip("."):
        raise CheckFailed(
            f"{what}: details['preview'] must hold the beginning of the original message.",
            expected=Described("a non-empty string"),
            got=preview,
        )
    if not original.startswith(preview.rstrip("…").rstrip(".")):
        raise CheckFailed(
            f"{what}: details['preview'] is not the beginning of the original message.",
            expected=original[:60] + "…",
            got=preview[:60],
            hint="Take text[:n] of result.to_message().",
        )
    room = len(json.dumps(preview, ensure_ascii=False))
    expect_true(
        room >= budget // 2,
        f"{what}: the preview fills {room:,} of the {budget:,} characters; use the room, at "
        "least half of the budget.",
        hint="Start from a preview as long as the budget and shorten it only by what is over.",
    )


def _check_in_a_run(student: Any) -> None:
    """The guard as an execution layer in `run_agent`: no tool message over the budget."""
    from toolsys import Registry, models
    from toolsys.loop import run_agent

    registry = Registry()

    @registry.tool
    def search_logs(query: str) -> list[str]:
        """Search the service logs for lines that contain a word.

        Args:
            query: The word to look for, e.g. "timeout".
        """
        return _big_logs(4000)

    async def guard(call: Any, call_next: Any) -> Any:
        return student(await call_next(call), 4000)

    registry.use(guard)
    transcript = run_agent(models.client(), registry, "Search the logs for timeout")
    sizes = [len(m["content"]) for m in transcript.messages if m["role"] == "tool"]
    expect_true(
        transcript.status == "completed" and sizes and max(sizes) <= 4000,
        f"Used as a layer in run_agent with a budget of 4,000, the tool messages were {sizes} "
        f"characters long and the run ended {transcript.status!r}.",
        hint="registry.use(layer) with `async def layer(call, call_next): return "
        "fit_result(await call_next(call), 4000)`: every tool message must fit.",
    )


# -- 6.3 ------------------------------------------------------------------------------------------


def answer_within(client: Any, registry: Any, prompt: str, max_steps: int) -> str:
    """Reference for 6.3: tools for max_steps - 1 requests, then a forced answer if needed."""
    from toolsys.loop import run_agent

    transcript = run_agent(client, registry, prompt, max_steps=max_steps - 1)
    if transcript.status == "completed" and transcript.answer is not None:
        return transcript.answer
    final = run_agent(client, registry, transcript.messages, max_steps=1, tool_choice="none")
    return f"Partial answer (the step limit was reached): {final.answer}"


_CITIES = {"Paris": "8 °C, cloudy", "Tokyo": "9 °C, clear", "Oslo": "-3 °C, snow"}
_PROMPT = "What's the weather in Paris, in Tokyo and in Oslo?"
_SEEDS = range(12)
_STEPS = (2, 3)


class _Counting:
    """A client that forwards to a real one and remembers each request and reply."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.toolsys_model = client.toolsys_model
        self.exchanges: list[tuple[dict[str, Any], Any]] = []
        self.chat = type("Chat", (), {})()
        self.chat.completions = type("Completions", (), {"create": self._create})()

    def _create(self, **request: Any) -> Any:
        reply = self._client.chat.completions.create(**request)
        self.exchanges.append((request, reply))
        return reply


def _weather_registry(seen: list[str]) -> Any:
    from toolsys import Registry, ToolError

    registry = Registry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: City name in English, e.g. "Paris".
        """
        if city not in _CITIES:
            raise ToolError("CITY_NOT_FOUND", f"No weather data for {city!r}.")
        return f"{city}: {_CITIES[city]}"

    async def record(call: Any, call_next: Any) -> Any:
        result = await call_next(call)
        if result.ok:
            seen.append(result.value)
        return result

    registry.use(record)
    return registry


@exercise(
    "6.3",
    title="A max-steps guard that still answers",
    hints=[
        "run_agent(client, registry, prompt, max_steps=max_steps - 1) leaves one request for "
        "the answer; check transcript.status.",
        "To make the model answer from what it has, run once more on transcript.messages with "
        "max_steps=1 and tool_choice='none'.",
        "Only a run that did not complete is partial: return a completed run's answer as it is.",
    ],
    reference=lambda: answer_within,
    timeout=90,
)
def _check_answer_within(student: Any) -> None:
    from toolsys import models

    for steps in _STEPS:
        for seed in _SEEDS:
            seen: list[str] = []
            client = _Counting(models.OfflineModel(imperfect=True, seed=seed).client())
            what = f"answer_within(client, registry, {_PROMPT!r}, {steps}) with seed {seed}"
            answer = call_student(
                student,
                client,
                _weather_registry(seen),
                _PROMPT,
                steps,
                what=what,
                returns="a string",
            )
            if type(answer) is not str or not answer.strip():
                raise CheckFailed(
                    f"{what} returned {type(answer).__name__}: the user is left without an answer.",
                    expected=Described("a non-empty string"),
                    got=answer,
                    hint="A run that hits max_steps has answer None: build a partial answer then.",
                )
            requests = len(client.exchanges)
            if requests > steps:
                raise CheckFailed(
                    f"{what} made {requests} requests to the model.",
                    expected=Described(f"at most {steps} requests (max_steps)"),
                    got=requests,
                    hint="Keep one of the max_steps requests for the final answer: give the tools "
                    "max_steps - 1.",
                )
            _judge(answer, client, seen, what)


def _judge(answer: str, client: _Counting, seen: list[str], what: str) -> None:
    request, reply = client.exchanges[-1]
    message = reply.choices[0].message
    natural = request.get("tool_choice") in (None, "auto") and not message.tool_calls
    if natural:
        if answer != message.content:
            raise CheckFailed(
                f"{what}: the model answered on its own, so its answer is complete.",
                expected=message.content,
                got=answer,
                hint="Return a completed run's answer unchanged; only a cut run is partial.",
            )
        return
    if not answer.startswith("Partial answer"):
        raise CheckFailed(
            f"{what}: the run ran out of steps, but the answer does not say it is partial.",
            expected=Described('a text that starts with "Partial answer"'),
            got=answer,
            hint="The user must be able to tell an incomplete answer from a complete one.",
        )
    missing = [value for value in seen if value not in answer]
    if missing:
        raise CheckFailed(
            f"{what}: the partial answer leaves out what the tools found.",
            expected=Described(f"a text that contains {missing[0]!r}"),
            got=answer,
            hint="Ask the model to answer from what it has (tool_choice='none'), or list the "
            "successful results yourself.",
        )


# -- 6.4 ------------------------------------------------------------------------------------------


def summarize(transcript: Any) -> dict[str, Any]:
    """Reference for 6.4: counts and sizes of a run, read from its messages and usage."""
    by_role: dict[str, int] = {}
    failed = 0
    for message in transcript.messages:
        by_role[message["role"]] = by_role.get(message["role"], 0) + 1
        if message["role"] == "tool":
            try:
                envelope = json.loads(message["content"])
            except (TypeError, json.JSONDecodeError):
                continue
            failed += isinstance(envelope, dict) and envelope.get("ok") is False
    return {
        "status": transcript.status,
        "steps": transcript.steps,
        "messages": len(transcript.messages),
        "by_role": by_role,
        "tool_calls": sum(len(m.get("tool_calls") or []) for m in transcript.messages),
        "failed_calls": failed,
        "tokens": transcript.usage["total_tokens"] if transcript.usage else None,
        "largest_message": max(len(m.get("content") or "") for m in transcript.messages),
    }


def _transcripts() -> list[tuple[str, Any]]:
    from toolsys import models
    from toolsys.loop import run_agent
    from toolsys.models import ScriptedModel, calls, text

    seen: list[str] = []
    registry = _weather_registry(seen)

    @registry.tool
    def read_status(service: str) -> dict:
        """Read a service's status page, as it returns it.

        Args:
            service: The service's name.
        """
        return {"ok": False, "error": "maintenance until 14:00", "service": service}

    imperfect = next(
        run
        for seed in range(40)
        for run in [
            run_agent(
                models.OfflineModel(imperfect=True, seed=seed).client(),
                registry,
                _PROMPT,
                system="Answer in one line.",
            )
        ]
        if any(not e.result.ok for e in run.results)
    )
    script = [
        calls(("read_status", {"service": "billing"}), ("get_weather", {"city": "Lima"})),
        text("Billing is in maintenance; Lima is unknown."),
    ]
    return [
        ("an imperfect run with a system prompt", imperfect),
        ("a scripted run", run_agent(ScriptedModel(script).client(), registry, "Billing? Lima?")),
        ("a run cut by max_steps", run_agent(models.client(), registry, _PROMPT, max_steps=1)),
        (
            "a run whose endpoint never answered",
            run_agent(ScriptedModel([]).client(), registry, "Anyone there?"),
        ),
    ]


@exercise(
    "6.4",
    title="What did the run cost? A transcript summary",
    hints=[
        "Loop over transcript.messages once: count roles, add up len(tool_calls), and json.loads "
        "each tool message's content to look at its 'ok'.",
        'A result can *mention* "ok": false in its text: decode the envelope, do not search '
        "the string.",
        "usage is None when the endpoint reported nothing: then tokens is None, not 0.",
    ],
    reference=lambda: summarize,
    timeout=30,
)
def _check_summarize(student: Any) -> None:
    for label, transcript in _transcripts():
        what = f"summarize(<{label}>)"
        got = call_student(student, transcript, what=what, returns="a dict")
        expect_plain(got, what=what, shape="a dict with the keys of the table")
        expected = summarize(transcript)
        expect_equal(
            sorted(got) if type(got) is dict else got,
            sorted(expected),
            what=f"the keys of {what}",
        )
        for key in expected:
            expect_equal(
                got[key],
                expected[key],
                what=f"{what}[{key!r}]",
                hint=_SUMMARY_HINTS.get(key),
            )


_SUMMARY_HINTS = {
    "messages": "Count the messages of the conversation, not the events of the run.",
    "tokens": "total_tokens of transcript.usage; None when usage is None.",
    "failed_calls": "json.loads the tool message's content and test envelope.get('ok') is False.",
    "largest_message": "len(message.get('content') or '') over all messages: characters of "
    "the content only.",
    "by_role": "Count every role that occurs, the system message too.",
}


# -- 6.5 ------------------------------------------------------------------------------------------


def _block_reference() -> Any:
    from toolsys.protocols import tool_result_block

    return tool_result_block


@exercise(
    "6.5",
    title="A result in Anthropic's shape",
    hints=[
        'Four keys: "type", "tool_use_id", "content" and "is_error".',
        "content is result.to_message(), a string, the same text an OpenAI tool message carries.",
        "is_error is `not result.ok`: True exactly when the call failed.",
    ],
    reference=_block_reference,
)
def _check_tool_result_block(student: Any) -> None:
    from toolsys import ErrorInfo, ToolResult

    results = [
        ("a success", ToolResult.success({"city": "Paris", "temperature_c": 8})),
        ("a success whose value is None", ToolResult.success(None)),
        ("a failure", ToolResult.failure(ErrorInfo("CITY_NOT_FOUND", "No data for 'Lima'."))),
    ]
    for index, (label, result) in enumerate(results, start=1):
        what = f"tool_result_block('toolu_0{index}', <{label}>)"
        got = call_student(student, f"toolu_0{index}", result, what=what, returns="a dict")
        expect_plain(got, what=what, shape='a dict {"type", "tool_use_id", "content", "is_error"}')
        expect_equal(
            got,
            {
                "type": "tool_result",
                "tool_use_id": f"toolu_0{index}",
                "content": result.to_message(),
                "is_error": not result.ok,
            },
            what=what,
            hint="content is result.to_message() (a string); is_error is not result.ok.",
        )
