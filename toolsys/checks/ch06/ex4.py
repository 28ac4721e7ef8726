"""Exercise 6.4, what did the run cost? A transcript summary: the check and its reference,
`summarize`.

The numbers of a run come from its transcript, read once: roles counted, tool calls added up, and
each tool message's `ok` read from its JSON content.
"""

from __future__ import annotations

import json
import random
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal, expect_plain
from toolsys.checks._differential import Call, agree, calls, plain, text
from toolsys.checks.ch06._shared import PROMPT, weather_registry


def summarize(transcript: Any) -> dict[str, Any]:
    """Reference for 6.4: counts and sizes of a run, read from its messages and usage."""
    by_role: dict[str, int] = {}
    failed = 0
    for message in transcript.messages:
        by_role[message["role"]] = by_role.get(message["role"], 0) + 1
        if message["role"] == "tool":
            try:
                envelope = json.loads(message["content"])
            except (TypeError, json.JSONDecodeError):  # not JSON text, so no envelope
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
    registry = weather_registry(seen)

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
                PROMPT,
                system="Answer in one line.",
            )
        ]
        if any(not e.result.ok for e in run.results)
    )
    script = [
        calls(("read_status", {"service": "billing"}), ("get_weather", {"city": "Lima"})),
        text("Billing is in maintenance; Lima is unknown."),
    ]
    # A conversation continued from messages written by hand (as in exercise 0.1): one tool
    # message is plain text, one is JSON that is not an object, one a failure after both, one a
    # JSON object that is no envelope, and one whose "ok" is 0, not false.
    earlier: list[dict[str, Any]] = [
        {"role": "user", "content": "Weather in Paris, a number, and Lima?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(
                    [
                        ("get_weather", '{"city": "Paris"}'),
                        ("read_status", '{"service": "count"}'),
                        ("get_weather", '{"city": "Lima"}'),
                        ("get_weather", '{"city": "Oslo"}'),
                        ("read_status", '{"service": "legacy"}'),
                    ]
                )
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "18 °C and sunny"},
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": '{"ok": false, "error": {"code": "CITY_NOT_FOUND", "message": "No Lima."}}',
        },
        # an object without "ok" (nor ok: false): no failure, though "ok" is missing
        {"role": "tool", "tool_call_id": "call_3", "content": '{"temperature": 8, "error": null}'},
        # "ok": 0 is a number, not JSON's false (an older service's convention): no failure
        {"role": "tool", "tool_call_id": "call_4", "content": '{"ok": 0, "queued": 3}'},
    ]
    continued = run_agent(ScriptedModel([text("Sunny in Paris.")]).client(), registry, earlier)
    return [
        ("a run paused for approval", _paused()),
        ("an imperfect run with a system prompt", imperfect),
        ("a conversation continued from hand-written messages", continued),
        ("a scripted run", run_agent(ScriptedModel(script).client(), registry, "Billing? Lima?")),
        ("a run cut by max_steps", run_agent(models.client(), registry, PROMPT, max_steps=1)),
        (
            "a run whose endpoint never answered",
            run_agent(ScriptedModel([]).client(), registry, "Anyone there?"),
        ),
    ]


def _paused() -> Any:
    """A run stopped before its turn's tool messages: two calls carried, none answered yet (the
    one that ran waits in `transcript.paused`), and every content shorter than "None"."""
    from toolsys import Registry
    from toolsys.governance import Policy
    from toolsys.loop import run_agent
    from toolsys.models import ScriptedModel, calls
    from toolsys.spec import Category

    registry = Registry(layers=[Policy()])

    @registry.tool
    def lookup(order_id: str) -> dict:
        """Look an order up.

        Args:
            order_id: The order's id.
        """
        return {"order_id": order_id, "total": 40}

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order.

        Args:
            order_id: The order's id.
            amount: How much to refund.
        """
        return {"refunded": amount}

    script = [calls(("lookup", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 20}))]
    transcript = run_agent(ScriptedModel(script).client(), registry, "?")
    assert transcript.status == "awaiting_approval", transcript.status
    return transcript


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
    agree(
        _of_transcript(student),
        _of_transcript(summarize),
        _GENERATED,
        name="summarize(Transcript(messages=..., status=..., steps=..., usage=...)) for {args}",
        hint="One pass over the messages: count roles, add up len(tool_calls), json.loads each "
        'tool message\'s content and count the objects whose "ok" is False (the boolean); '
        "tokens from usage (None without); the longest content (None or missing counts 0).",
    )


_SUMMARY_HINTS = {
    "messages": "Count the messages of the conversation, not the events of the run.",
    "tokens": "total_tokens of transcript.usage; None when usage is None.",
    "failed_calls": "json.loads the tool message's content and test envelope.get('ok') is False; "
    'a content that is not JSON, JSON that is not an object, or an object without "ok": false '
    '(the boolean: "ok": 0 is a number, and 0 == False in Python) is no failure: skip it and go '
    "on with the next message.",
    "largest_message": "len(message.get('content') or '') over all messages: characters of "
    "the content only; a None content counts 0, not len(str(None)).",
    "tool_calls": "Add up len(message['tool_calls']) over the assistant messages: a run can "
    "stop before every call has its tool message (here: paused for approval).",
    "by_role": "Count every role that occurs, the system message too.",
}


def _tool_content(rng: random.Random, size: int) -> str:
    """What a tool message says: an envelope (ok or not, any JSON spelling), plain text (one
    that mentions "ok": false too), JSON that is not an object, or an object whose "ok" is no
    boolean false (0, "false", null, missing) or is false only deeper down."""
    pick = rng.randrange(8)
    if pick == 0:
        return text(rng, size)
    if pick == 1:
        return rng.choice(['the answer says "ok": false', "ok: false", '{"ok": false', "false"])
    if pick == 2:
        return json.dumps(rng.choice([[False], 0, None, "ok", [{"ok": False}]]))
    if pick == 3:
        envelope: Any = {rng.choice(["result", "data"]): {"ok": False}}
    elif pick == 4:
        envelope = {"ok": rng.choice([0, "false", None, [], True]), "value": plain(rng, size)}
    elif pick == 5:
        envelope = {"ok": True, "value": plain(rng, size)}
    else:
        envelope = {"ok": False, "error": {"code": "X", "message": text(rng, size)}}
    return json.dumps(envelope, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))


def _transcript_call(rng: random.Random, size: int) -> Call:
    """A conversation (a system message or not, turns of tool calls answered all, some or none,
    a final answer or not, contents that are text, None or missing), a status, a step count and
    a usage (None when the endpoint reported none).

    Left out, where the package's reference and the exercise text part ways or the text is
    silent: no messages at all (no largest message to give), a tool message whose content is
    None or missing (a tool message's content is required text in the Chat Completions format,
    openai 3.57's `ChatCompletionToolMessageParam`), usage {} (no
    total_tokens, yet not None), and content that is a list of parts."""
    messages: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        messages.append({"role": "system", "content": text(rng, size)})
    messages.append({"role": "user", "content": text(rng, size, least=1)})
    for turn in range(rng.randint(0, min(3, 1 + size // 3))):
        ids = [f"call_{turn}_{i}" for i in range(rng.randint(1, 3))]
        assistant: dict[str, Any] = {"role": "assistant"}
        pick = rng.randrange(3)
        if pick:  # the content None or text; else no content key at all
            assistant["content"] = None if pick == 1 else text(rng, size)
        assistant["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": "tool", "arguments": "{}"}}
            for i in ids
        ]
        messages.append(assistant)
        answered = ids if rng.random() < 0.8 else ids[: rng.randint(0, len(ids))]
        messages += [
            {"role": "tool", "tool_call_id": i, "content": _tool_content(rng, size)}
            for i in answered
        ]
    if rng.random() < 0.7:
        final: dict[str, Any] = {"role": "assistant", "content": text(rng, 2 * size)}
        if rng.random() < 0.3:
            final["tool_calls"] = rng.choice([None, []])
        messages.append(final)
    status = rng.choice(
        ["completed", "length", "max_steps", "model_error", "deadline", "awaiting_approval"]
    )
    prompt, completion = rng.randint(0, 10**size), rng.randint(0, 500)
    usage = (
        None
        if rng.random() < 0.3
        else {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    )
    return Call((messages, status, rng.randint(0, 6), usage))


_GENERATED = calls(_transcript_call, seed=64, count=150)


def _of_transcript(func: Any) -> Any:
    """`func` on a toolsys Transcript made of the generated parts (no events: the text says to
    read the messages)."""

    def run(messages: list[dict[str, Any]], status: str, steps: int, usage: Any) -> Any:
        from toolsys.transcript import Transcript

        return func(Transcript(messages=messages, status=status, steps=steps, usage=usage))

    return run
