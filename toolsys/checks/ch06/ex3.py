"""Exercise 6.3, a max-steps guard that still answers: the check and its reference, `answer_within`.

A step limit must still end with an answer: graded over seeded runs of the imperfect model, so a
loop that stops silently at the limit fails.
"""

from __future__ import annotations

from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise
from toolsys.checks.ch06._shared import PROMPT, weather_registry


def answer_within(client: Any, registry: Any, prompt: str, max_steps: int) -> str:
    """Reference for 6.3: tools for max_steps - 1 requests, then a forced answer if needed."""
    from toolsys.loop import run_agent

    transcript = run_agent(client, registry, prompt, max_steps=max_steps - 1)
    if transcript.status == "completed" and transcript.answer is not None:
        return transcript.answer
    final = run_agent(client, registry, transcript.messages, max_steps=1, tool_choice="none")
    return f"Partial answer (the step limit was reached): {final.answer}"


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
            what = f"answer_within(client, registry, {PROMPT!r}, {steps}) with seed {seed}"
            answer = call_student(
                student,
                client,
                weather_registry(seen),
                PROMPT,
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
    natural = _first_own_answer(client)
    if natural is not None:
        if answer != natural:
            late = client.exchanges[-1][0].get("tool_choice") not in (None, "auto")
            raise CheckFailed(
                f"{what}: the model answered on its own, so its answer is complete"
                + (
                    ", yet another request forced a second answer and it was returned as partial."
                    if late
                    else "."
                ),
                expected=natural,
                got=answer,
                hint="Check transcript.status first: a completed run's answer is returned as it "
                "is; only a run cut by the limit needs the last request and the label.",
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
        request = client.exchanges[-1][0]
        sent = " ".join(str(m.get("content")) for m in request.get("messages") or [])
        blind = request.get("tool_choice") == "none" and missing[0] not in sent
        raise CheckFailed(
            f"{what}: the partial answer leaves out what the tools found"
            + (
                ": the last request (tool_choice='none') did not carry the tool results, so the "
                "model answered without them."
                if blind
                else "."
            ),
            expected=Described(f"a text that contains {missing[0]!r}"),
            got=answer,
            hint="Make the last request on the cut run's conversation: run_agent(client, "
            "registry, transcript.messages, max_steps=1, tool_choice='none'), not the prompt "
            "again."
            if blind
            else "Ask the model to answer from what it has (tool_choice='none'), or list the "
            "successful results yourself.",
        )


def _first_own_answer(client: _Counting) -> str | None:
    """The text of the first reply in which the model answered on its own (tools offered, no
    call made), or None if it never did: then every answer it gave was forced or cut."""
    for request, reply in client.exchanges:
        message = reply.choices[0].message
        if request.get("tool_choice") in (None, "auto") and not message.tool_calls:
            return message.content
    return None
