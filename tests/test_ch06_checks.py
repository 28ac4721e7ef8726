"""Chapter 06 checks reject the plausible wrong answers a student is likely to write."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.solution_code import answer, verdict
from toolsys import ToolResult, models
from toolsys.checks import Status
from toolsys.loop import run_agent

IDS = ["6.1", "6.2", "6.3", "6.4", "6.5"]


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_stub_is_not_done(exercise_id: str) -> None:
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def async_stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    verdict(exercise_id, async_stub if exercise_id == "6.1" else stub, Status.NOT_DONE)


# -- 6.1 ------------------------------------------------------------------------------------------


async def _one_after_another(client, registry, prompt, max_steps=5):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_steps):
        reply = client.chat.completions.create(
            model=models.default_model(), messages=messages, tools=registry.export()
        )
        message = reply.choices[0].message
        assistant = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            assistant["tool_calls"] = [c.model_dump() for c in message.tool_calls]
        messages.append(assistant)
        if not message.tool_calls:
            break
        for call in message.tool_calls:  # awaited one after another
            result = await registry.aexecute(call.function.name, call.function.arguments)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": result.to_message()}
            )
    return messages


async def _in_finishing_order(client, registry, prompt, max_steps=5):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_steps):
        reply = client.chat.completions.create(
            model=models.default_model(), messages=messages, tools=registry.export()
        )
        message = reply.choices[0].message
        assistant = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            assistant["tool_calls"] = [c.model_dump() for c in message.tool_calls]
        messages.append(assistant)
        if not message.tool_calls:
            break

        async def run(call):
            return call, await registry.aexecute(call.function.name, call.function.arguments)

        for finished in asyncio.as_completed([run(c) for c in message.tool_calls]):
            call, result = await finished
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": result.to_message()}
            )
    return messages


def _not_async(client, registry, prompt, max_steps=5):
    return [{"role": "user", "content": prompt}]


async def _sdk_objects(client, registry, prompt, max_steps=5):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_steps):
        reply = client.chat.completions.create(
            model=models.default_model(), messages=messages, tools=registry.export()
        )
        message = reply.choices[0].message
        messages.append(message)  # the SDK's object: the API accepts it, but it is not data
        if not message.tool_calls:
            break
        results = await asyncio.gather(
            *(registry.aexecute(c.function.name, c.function.arguments) for c in message.tool_calls)
        )
        for call, result in zip(message.tool_calls, results, strict=True):
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": result.to_message()}
            )
    return messages


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (_one_after_another, "ran one after another"),
        (_in_finishing_order, "order of the calls"),
        (_not_async, "not a coroutine"),
        (_sdk_objects, "plain dicts"),
        (
            answer(
                "6.1",
                (
                    "zip(message.tool_calls, results, strict=True)",
                    "zip(message.tool_calls[:1], results)",
                ),
            ),
            "did not have response messages",
        ),
        (
            answer("6.1", ('assistant["tool_calls"] =', 'assistant["calls"] =')),
            "must be a response to a preceeding message with 'tool_calls'",
        ),
        (answer("6.1", ("range(max_steps)", "range(max_steps + 1)")), "made 4 requests"),
        (answer("6.1", ("            break\n", "            continue\n")), "ran out of script"),
    ],
)
def test_careless_loops_fail(wrong, words) -> None:
    result = verdict("6.1", wrong)
    assert words in result.text(), result.text()


# -- 6.2 ------------------------------------------------------------------------------------------


def _truncated_success(result: ToolResult, max_chars: int) -> ToolResult:
    text = result.to_message()
    return result if len(text) <= max_chars else ToolResult.success(text[: max_chars - 40])


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (answer("6.2", ("if len(text) <= max_chars:", "if len(text) < max_chars:")), "unchanged"),
        (
            answer(
                "6.2",
                ("if len(text) <= max_chars:", "if len(json.dumps(result.value)) <= max_chars:"),
            ),
            "2 characters over",
        ),
        (
            answer(
                "6.2",
                ("while keep > 0 and len(too_large(keep).to_message()) > max_chars:", "while 0:"),
            ),
            "over the budget",
        ),
        (answer("6.2", ("keep -= max(1, over // 2)", "keep -= over")), "at least half"),
        (
            answer(
                "6.2",
                (
                    'f"The result is {len(text):,} characters; the budget is {max_chars:,}."',
                    '"The result is too large for the budget."',
                ),
            ),
            "as numbers",
        ),
        (
            answer("6.2", ('details={"preview": text[:keep] + "…"}', 'details={"preview": ""}')),
            "beginning of the original message",
        ),
        (_truncated_success, "RESULT_TOO_LARGE failure"),
    ],
)
def test_careless_guards_fail(wrong, words) -> None:
    result = verdict("6.2", wrong)
    assert words in result.text(), result.text()


# -- 6.3 ------------------------------------------------------------------------------------------


def _plain_answer(client, registry, prompt, max_steps):
    return run_agent(client, registry, prompt, max_steps=max_steps).answer


def _always_partial(client, registry, prompt, max_steps):
    transcript = run_agent(client, registry, prompt, max_steps=max_steps)
    found = "; ".join(e.result.value for e in transcript.results if e.result.ok)
    return f"Partial answer: {transcript.answer or found}"


def _partial_after_all_steps_unlabelled(client, registry, prompt, max_steps):
    transcript = run_agent(client, registry, prompt, max_steps=max_steps)
    if transcript.answer is not None:
        return transcript.answer
    return "; ".join(e.result.value for e in transcript.results if e.result.ok)


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (_plain_answer, "left without an answer"),
        (answer("6.3", ("max_steps=max_steps - 1", "max_steps=max_steps")), "requests"),
        (
            answer(
                "6.3",
                (
                    'return f"Partial answer (the step limit was reached): {final.answer}"',
                    "return final.answer",
                ),
            ),
            "does not say it is partial",
        ),
        (
            answer(
                "6.3",
                (
                    'return f"Partial answer (the step limit was reached): {final.answer}"',
                    'return "Partial answer: the step limit was reached."',
                ),
            ),
            "leaves out what the tools found",
        ),
        (_always_partial, "answered on its own"),
        (_partial_after_all_steps_unlabelled, "does not say it is partial"),
    ],
)
def test_careless_step_guards_fail_over_the_seeded_runs(wrong, words) -> None:
    result = verdict("6.3", wrong)
    assert words in result.text(), result.text()


# -- 6.4 ------------------------------------------------------------------------------------------


def _failures_by_substring(transcript):
    summary = answer("6.4")(transcript)
    summary["failed_calls"] = sum(
        '"ok": false' in m["content"] for m in transcript.messages if m["role"] == "tool"
    )
    return summary


def _no_system(transcript):
    summary = answer("6.4")(transcript)
    summary["by_role"].pop("system", None)
    return summary


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (
            answer(
                "6.4", ('transcript.usage["total_tokens"]', 'transcript.usage["prompt_tokens"]')
            ),
            "['tokens']",
        ),
        (answer("6.4", ("if transcript.usage else None", "if transcript.usage else 0")), "None"),
        (
            answer(
                "6.4",
                ('"messages": len(transcript.messages)', '"messages": len(transcript.events)'),
            ),
            "['messages']",
        ),
        (
            answer(
                "6.4",
                ('max(len(m.get("content") or "")', "max(len(json.dumps(m))"),
            ),
            "['largest_message']",
        ),
        (_failures_by_substring, "['failed_calls']"),
        (_no_system, "['by_role']"),
    ],
)
def test_careless_summaries_fail(wrong, words) -> None:
    result = verdict("6.4", wrong)
    assert words in result.text(), result.text()


# -- 6.5 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        ('"content": result.to_message()', '"content": result.to_dict()'),
        ('"content": result.to_message()', '"content": str(result)'),
        ('"is_error": not result.ok', '"is_error": result.ok'),
        ('"tool_use_id": tool_use_id', '"tool_call_id": tool_use_id'),
        ('"is_error": not result.ok', '"is_error": not result.ok or None'),
    ],
)
def test_careless_blocks_fail(change) -> None:
    verdict("6.5", answer("6.5", change))
