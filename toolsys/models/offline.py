"""The offline teaching model: a deterministic, rule-based stand-in for an LLM.

It is served through the real `openai` client (see `transport`), so notebook code is exactly
what a student writes against a real API, and it runs with no key, no network and no GPU.
It is a *simulation* and says so: its name is "toolsys-offline-1" and every plain-text answer
ends with "(offline teaching model)".

How it decides, each request, from the messages and tools alone (it keeps no memory):

1. **Plan.** The last user message is split into clauses ("weather in Paris and in Tokyo"). Each
   clause picks the tool whose name, description and parameters share most words with it,
   everyday synonyms and a few question frames included ("spin" -> play, "what does X mean" ->
   define; `_text.score_tools`), plus points for values of the right shape: a tracking number
   a parameter's `pattern` accepts, '10 km' for a parameter whose values are units, a place
   after 'from' for an origin (`_shapes`). A clause that matches no tool but completes the
   previous clause's tool ("... and in Tokyo") repeats that tool; one that completes nothing,
   only adds a value (", high priority") or continues a list ("'A-1' and 'A-2'") is glued back;
   a leading clause with no tool that holds arguments ("I need to get from Rotterdam to Delft,
   what leaves next?") is read with the first call. Arguments are filled from the clause by the
   schema (`_arguments.fill`): numbers of the parameter's type, within its bounds and in its
   unit ("2 hours" for `minutes` is 120), quoted text, dates and ISO 8601 date-times, e-mails,
   what a `pattern` accepts, names and places up to their natural end ("the next bus from
   Leiden" -> "Leiden"), and enum values named outright or by meaning ("urgent" -> "high",
   "miles" -> "mi" by the description's gloss). No tool fits -> a plain-text answer saying so.
   A required argument the text does not give -> it asks (it never guesses one). This step is
   `_plan.plan`.
2. **Replay.** The assistant turns and tool results since that user message are matched to the
   plan, task by task, in the order the model itself would have sent them.
3. **Act.** A failed result whose text says how to fix the call (`_repair`) is retried with the
   corrected arguments, at most `max_retries` times per task; tasks not started yet are called
   (all at once, or one per turn when `parallel_tool_calls` is false); when nothing is left, it
   answers with a short sentence per task: the value it returned, what happened to a failed
   call in the words of its code (an EXECUTION_ERROR "ran and failed", an APPROVAL_DENIED was
   "declined by a person"), which items of a partial success failed (`_answers`).

The decision knows no wire shape: `decide(Conversation)` (`_messages`) takes the user's text,
the tool turns and the tools; `reply(request)` reads a chat completions request into one.

`tool_choice`: "none" -> text; "required" -> a call even when no tool matches well; a named
function -> that function. As with real models, a forced choice forces a call on *every*
request; `run_agent` therefore forces only its first request.

`explain(request, tools)` runs the same plan and returns what it saw and decided: the scores and
their evidence, each argument's evidence, and the calls sent (see `explanation`).

Imperfect mode (`imperfect=True`) makes, on first attempts, the mistakes real models make, at
rates that depend on the schema (see `_imperfect`). Perfect mode: the same request always gets
the same response. Imperfect mode: the same seed gives the same sequence of responses.
"""

from __future__ import annotations

import json
import random
import threading
from typing import TYPE_CHECKING, Any

from toolsys.models import _answers, _imperfect, _search, transport
from toolsys.models._arguments import missing_required
from toolsys.models._messages import (
    Call,
    Conversation,
    Turn,
    by_name,
    from_chat,
    functions_of,
    request_text,
)
from toolsys.models._plan import Task, plan
from toolsys.models._repair import failure, read_result, repair
from toolsys.models.config import OFFLINE_MARK, OFFLINE_MODEL
from toolsys.models.explanation import Explanation, Step, planned_call

if TYPE_CHECKING:
    import openai


class OfflineModel:
    """The offline teaching model. `OfflineModel().client()` is a real `openai.OpenAI`."""

    name = OFFLINE_MODEL

    def __init__(
        self,
        *,
        imperfect: bool = False,
        seed: int = 0,
        rates: dict[str, float] | None = None,
        max_retries: int = 2,
    ) -> None:
        unknown = set(rates or {}) - set(_imperfect.BASE_RATES)
        if unknown:
            raise ValueError(
                f"Unknown mistake {sorted(unknown)[0]!r} in rates; known: "
                f"{', '.join(_imperfect.BASE_RATES)}."
            )
        for mistake, rate in (rates or {}).items():
            if isinstance(rate, bool) or not isinstance(rate, int | float) or rate < 0:
                raise ValueError(
                    f"rates[{mistake!r}] is {rate!r}; give a base rate >= 0 (the schema's "
                    "multipliers apply, the result is capped at 1), "
                    f"e.g. {_imperfect.BASE_RATES[mistake]}."
                )
        self.imperfect, self.seed, self.max_retries = imperfect, seed, max_retries
        self.rates = {**_imperfect.BASE_RATES, **(rates or {})}
        self.mistakes: list[str] = []  # every mistake imperfect mode made, in order
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def client(self) -> openai.OpenAI:
        return transport.make_client(self)

    def async_client(self) -> openai.AsyncOpenAI:
        return transport.make_async_client(self)

    # --- 1. plan -------------------------------------------------------------------------

    def plan(
        self,
        text: str,
        functions: list[dict[str, Any]],
        tool_choice: Any = "auto",
        trace: list[Step] | None = None,
    ) -> list[Task]:
        """The calls this request asks for, before any mistake: one Task per sub-request.

        With a `trace` list, each clause's scores and what was made of it are appended to it
        (the planning itself is `_plan.plan`).
        """
        return plan(text, functions, tool_choice, trace)

    # --- 2. replay -----------------------------------------------------------------------

    def _expected(self, tasks: list[Task], parallel: bool) -> list[Task]:
        """The tasks the model sends next, in order: retries first, then new ones."""
        due = [t for t in tasks if t.status == "retry"]
        due += [t for t in tasks if t.status == "pending"]
        return due if parallel else due[:1]

    def _replay(
        self,
        tasks: list[Task],
        turns: list[Turn],
        functions: list[dict[str, Any]],
        user_text: str,
        parallel: bool,
    ) -> None:
        for calls, results in turns:
            expected = _matched(self._expected(tasks, parallel), calls)
            for i, call in enumerate(calls):
                if i < len(expected):
                    task = expected[i]
                else:  # a call the model would not have made (e.g. scripted history)
                    task = Task(call.name, {})
                    tasks.append(task)
                task.attempts += 1
                task.sent = (call.name, call.arguments)
                content = results.get(call.id, "")
                ok, value, error = read_result(content)
                if ok:
                    task.status, task.value = "done", value
                    continue
                task.error = error
                task.code, task.message = failure(content)
                fixed = repair(call.name, call.arguments, error, functions, user_text)
                if fixed is None:
                    task.status = "failed"
                    task.notes.append(
                        "I did not retry: I could not work out a corrected call from the error"
                    )
                elif task.attempts > self.max_retries:
                    task.status = "failed"
                    tries = "attempt" if task.attempts == 1 else "attempts"
                    task.notes.append(f"I gave up after {task.attempts} {tries}")
                else:
                    task.status, task.next_call = "retry", (fixed[0], json.dumps(fixed[1]))

    # --- 3. act --------------------------------------------------------------------------

    def _first_call(self, task: Task, function: dict[str, Any]) -> dict[str, str]:
        if not self.imperfect:
            return {"name": task.tool, "arguments": json.dumps(task.args)}
        with self._lock:
            name, raw, made = _imperfect.corrupt(function, task.args, self._rng, self.rates)
            self.mistakes.extend(made)
        return {"name": name, "arguments": raw}

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        """Decide the next assistant message for a chat completions request."""
        return self.decide(from_chat(request))

    def decide(self, conversation: Conversation) -> dict[str, Any]:
        """The next assistant message for a conversation, in no wire shape:
        `{"content": str | None, "tool_calls": [{"name": ..., "arguments": ...}]}`."""
        user_text, functions = conversation.text, conversation.functions
        turns, choice = conversation.turns, conversation.tool_choice
        if _search.offers_search(functions):  # deferred export: search for what is missing
            functions, turns, searched = _search.split(functions, turns)
            found = [] if searched else _search.search_calls(self.plan, user_text, functions)
            if found and choice == "auto":
                return {"content": None, "tool_calls": found}
        if not functions or choice == "none":
            return _answers.text(
                _answers.without_tools(self.plan(user_text, functions) if functions else [], turns)
            )
        parallel = conversation.parallel
        tasks = self.plan(user_text, functions, choice)
        self._replay(tasks, turns, functions, user_text, parallel)
        _ask_for_missing(tasks, functions, choice)
        due = self._expected(tasks, parallel)
        if due:
            return {
                "content": None,
                "tool_calls": [
                    _retry_call(t)
                    if t.status == "retry"
                    else self._first_call(t, by_name(functions, t.tool))
                    for t in due
                ],
            }
        if choice != "auto" and tasks:  # forced: like real models, it calls again
            return {
                "content": None,
                "tool_calls": [{"name": tasks[0].tool, "arguments": json.dumps(tasks[0].args)}],
            }
        if not tasks:
            names = ", ".join(f["name"] for f in functions)
            return _answers.text(
                f"None of the available tools ({names}) fits this request, and I can only "
                f"answer by calling tools. {OFFLINE_MARK}"
            )
        return _answers.text(_answers.answer(tasks))

    # --- why ------------------------------------------------------------------------------

    def explain(
        self,
        request: str | list[dict[str, Any]],
        tools: Any,
        *,
        tool_choice: Any = "auto",
        parallel_tool_calls: bool = True,
    ) -> Explanation:
        """Why this model answers `request` (a prompt or messages) with `tools` as it does.

        `tools`: a `Registry`, or tool definitions in the OpenAI format (or their "function"
        parts). The explanation covers the last user message: every tool's score and evidence
        per clause, each planned call's arguments and their evidence, and the calls sent first
        (`.calls`, the same as through the client) or the values asked for (`.asks`).
        Imperfect mode makes its mistakes after this plan, on first attempts.
        """
        text, later = request_text(request)
        functions = functions_of(tools)
        choice = tool_choice or "auto"
        names = [f["name"] for f in functions]
        if isinstance(choice, dict) and choice.get("function", {}).get("name") not in names:
            raise ValueError(
                f"tool_choice names {choice.get('function', {}).get('name')!r}, which is not "
                f"among the tools ({', '.join(names) or 'none'}); name one of them."
            )
        trace: list[Step] = []
        plan_choice = "auto" if choice == "none" else choice
        tasks = self.plan(text, functions, plan_choice, trace) if functions else []
        planned = {
            id(t): planned_call(t.tool, t.source, t.args, by_name(functions, t.tool), text)
            for t in tasks
        }
        sent: list[Task] = []
        if functions and choice != "none":
            _ask_for_missing(tasks, functions, choice)
            sent = self._expected(tasks, parallel_tool_calls)
        notes = []
        if later:
            notes.append(
                f"(The conversation goes on after this message with {later} tool turn(s); the "
                "next reply first replays them, retrying what failed.)"
            )
        if self.imperfect:
            notes.append("(Imperfect mode: first attempts may then carry the mistakes it makes.)")
        return Explanation(
            request=text,
            tools=tuple(names),
            tool_choice=choice,
            steps=tuple(trace),
            planned=tuple(planned.values()),
            calls=tuple((t.tool, dict(t.args)) for t in sent),
            asks=tuple(planned[id(t)] for t in tasks if t.status == "failed"),
            notes=tuple(notes),
        )


def _matched(expected: list[Task], calls: list[Call]) -> list[Task]:
    """The expected tasks in the order of a turn's calls: by position when the turn has every
    call the model would send (its own turns, mistakes included); when it has fewer (a history
    written elsewhere: the calls of one turn sent as two, one left out), each call is the task
    that would send exactly it, else the first with its tool's name, else the next one."""
    if len(calls) >= len(expected):
        return expected
    left, ordered = list(expected), []
    for call in calls:
        sends = [t.next_call or (t.tool, json.dumps(t.args)) for t in left]
        same = [t for t, sent in zip(left, sends, strict=True) if sent == tuple(call[1:])]
        named = [t for t, sent in zip(left, sends, strict=True) if sent[0] == call.name]
        task = (same or named or left)[0]
        left.remove(task)
        ordered.append(task)
    return ordered + left


def _retry_call(task: Task) -> dict[str, str]:
    """The corrected call `_replay` prepared for a task to retry."""
    name, raw = task.next_call or (task.tool, json.dumps(task.args))
    return {"name": name, "arguments": raw}


def _ask_for_missing(tasks: list[Task], functions: list[dict[str, Any]], choice: Any) -> None:
    """With tool_choice "auto", a task missing a required value asks for it: no invented value."""
    if choice != "auto":
        return
    for task in (t for t in tasks if t.status == "pending"):
        needed = missing_required(by_name(functions, task.tool), task.args)
        if needed:
            task.status = "failed"
            task.error = (
                f"I need {', '.join(needed)} to use {task.tool}, and your message does not say"
            )
