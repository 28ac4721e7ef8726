"""Exercise 6.1, the loop by hand, with parallel calls: the check and its reference, `agent_loop`.

Parallel calls must each be answered, in the order they came, by id; the check runs the student's
loop against the real `openai` client with scripted replies.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from toolsys._sync import run_sync
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


async def agent_loop(client: Any, registry: Any, prompt: str, max_steps: int = 5) -> list[dict]:
    """Reference for 6.1: the package's loop, whose messages are the ones expected."""
    from toolsys.loop import arun_agent

    transcript = await arun_agent(client, registry, prompt, max_steps=max_steps)
    return transcript.messages


_WAIT = 2.0  # seconds a tool waits for its siblings before it gives up
_FINISH = {"alpha": 0.06, "beta": 0.0, "gamma": 0.03}  # after meeting: beta, gamma, alpha


def _parallel_registry(ran: list[str] | None = None) -> Any:
    """Three async tools that finish only if all three run at once, each at its own pace.

    Every tool that runs appends its name to `ran`: each call must run once.
    """
    from toolsys import Registry

    ran = [] if ran is None else ran

    registry = Registry()
    barrier: asyncio.Barrier | None = None

    def tool(name: str) -> Any:
        async def fetch(city: str) -> str:
            nonlocal barrier
            ran.append(name)
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
        ran.append("boom")
        raise RuntimeError(f"the {city} service is down")

    @registry.tool
    def tick() -> str:
        """A tool that answers at once."""
        ran.append("tick")
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
    for index, message in enumerate(messages):
        if message.get("role") == "assistant" and message.get("tool_calls", None) == []:
            raise CheckFailed(
                f'{what}: message {index} is an assistant turn with "tool_calls": [], an '
                "empty array, which the API refuses when the conversation is sent again "
                "(tool_calls needs at least one call).",
                expected=Described("no tool_calls key on a turn without calls"),
                got=message,
                hint="Add tool_calls only when the turn has calls: `if message.tool_calls: "
                "assistant['tool_calls'] = [call.model_dump() for call in message.tool_calls]`.",
            )
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


def _run_loop(
    student: Any, script: list[dict], prompt: str, max_steps: int, ran: list[str]
) -> tuple[Any, Any, Any]:
    """The student's messages, the scripted model (its requests) and the registry, for one
    script; the tools that ran are appended to `ran`."""
    from toolsys.models import ScriptedModel

    model = ScriptedModel(script)
    registry = _parallel_registry(ran)
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
        messages = run_sync(coroutine)
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
    return messages, model, registry


def _expected(script: list[dict], prompt: str, max_steps: int, ran: list[str]) -> list[dict]:
    from toolsys.models import ScriptedModel

    return run_sync(
        agent_loop(ScriptedModel(script).client(), _parallel_registry(ran), prompt, max_steps)
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
        (
            "a turn with text and a call",
            [{**calls(("tick", {})), "content": "Let me check the clock."}, text("It ticked.")],
            5,
        ),
    ]
    for label, script, max_steps in cases:
        prompt = f"Test: {label}"
        ran: list[str] = []
        messages, model, registry = _run_loop(student, script, prompt, max_steps, ran)
        got = _canonical(messages, f"agent_loop(...) for {label}")
        should_run: list[str] = []
        expected = _canonical(_expected(script, prompt, max_steps, should_run), "the reference")
        requests = len(model.requests)
        expected_requests = min(max_steps, len(script))
        if requests != expected_requests:
            # stopped at a turn that had text and calls: the calls were the turn, not the text
            early = 0 < requests < expected_requests and bool(script[requests - 1]["tool_calls"])
            raise CheckFailed(
                f"For {label} with max_steps={max_steps}, agent_loop made {requests} requests.",
                expected=expected_requests,
                got=requests,
                hint="A turn with tool_calls is not an answer, even when it has text too: run "
                "its calls and ask again. Stop only when the reply has no tool_calls."
                if early
                else "Stop after the first text answer, and never make more than max_steps "
                "requests: the loop's bound is what stops a model that never stops calling.",
            )
        _expect_requests(model.requests, registry, prompt, label, model.name)
        expect_equal(
            sorted(ran),
            sorted(should_run),
            what=f"the tools that ran for {label}",
            hint="Run each call of a turn exactly once: gather the calls once, then write one "
            "tool message per result.",
        )
        _compare(got, expected, label)


def _expect_requests(
    requests: list[dict], registry: Any, prompt: str, label: str, own: str
) -> None:
    """Each request names the configured model (or the client's `own`, which run_agent sends)
    and sends the conversation from the prompt on, and the tools."""
    from toolsys import models

    names = registry.names()
    for number, request in enumerate(requests, start=1):
        where = f"request {number} for {label}"
        model = request.get("model")
        if model not in (models.default_model(), own):
            raise CheckFailed(
                f"{where.capitalize()} asked for the model {model!r}, not the one the course is "
                "configured for.",
                expected=models.default_model(),
                got=model,
                hint="Send model=models.default_model() (offline, or the endpoint's own): a "
                "name written in the code sends the request to another model, or to one the "
                "endpoint does not have.",
            )
        sent = [t.get("function", {}).get("name") for t in request.get("tools") or []]
        expect_equal(
            sent,
            names,
            what=f"the tools sent with {where}",
            hint="Send tools=registry.export() with every request: without them the model "
            "cannot call any tool.",
        )
        expect_equal(
            (request.get("messages") or [None])[0],
            {"role": "user", "content": prompt},
            what=f"the first message of {where}",
            hint='Start the conversation with {"role": "user", "content": prompt}.',
        )


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
        # a turn of calls without text: None as the model sent it, or "" (the API takes both)
        silent = mine[2] and theirs[1] is None and type(mine[1]) is str and not mine[1]
        if mine[0] == "assistant" and mine[1] != theirs[1] and not silent:
            expect_equal(mine[1], theirs[1], what=f"the content of message {index} for {label}")
