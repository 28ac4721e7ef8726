"""Run the capstone's scenarios: a fresh shop each, every layer on, the invariants after every call.

`run_scenario` gives one `Outcome`: what the conversation changed, whether that is exactly what
the scenario expects, how many calls and approvals it took, and any invariant broken after any
call (`InvariantWatch`, the innermost layer). `run_all` runs the list and `report` prints the
table a lesson shows. A scenario passes only when every check holds; each failed check is a line
in `problems` that says what was expected and what happened. Lesson: notebooks/12_capstone.ipynb.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolsys.execution import Call, Next
from toolsys.governance import PendingCall
from toolsys.governance.audit import verify
from toolsys.loop import resume_agent, run_agent
from toolsys.models.offline import OfflineModel
from toolsys.models.scripted import ScriptedModel
from toolsys.result import ToolResult
from toolsys.shop.agent import build
from toolsys.shop.db import Shop, create
from toolsys.shop.invariants import invariants
from toolsys.shop.scenarios import SCENARIOS, Scenario
from toolsys.shop.state import changes, snapshot
from toolsys.transcript import ToolResultEvent, Transcript


class InvariantWatch:
    """Innermost layer: after every tool call, check every invariant of the shop."""

    stage = "validated"
    name = "invariants"

    def __init__(self, shop: Shop) -> None:
        self.shop, self.calls, self.violations = shop, 0, list[str]()

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        result = await call_next(call)
        self.calls += 1
        self.violations += [f"after {call.name}: {line}" for line in invariants(self.shop)]
        return result


class TimeoutAfterWrite:
    """Fault: the first refund is written, then its answer never comes back in time."""

    stage = "validated"
    name = "fault"

    def __init__(self) -> None:
        self.fired = False

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        result = await call_next(call)
        if call.name == "refund_order" and not self.fired:
            self.fired = True
            await asyncio.sleep(30)
        return result


@dataclass
class Outcome:
    scenario: str
    passed: bool = False
    problems: list[str] = field(default_factory=list)
    calls: int = 0
    approvals: int = 0
    tasks: int = 1
    violations: list[str] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    transcripts: list[Transcript] = field(default_factory=list)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60]


def _plain(value: Any) -> Any:
    """Tuples as lists, so an expectation written with tuples compares with stored rows."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def run_scenario(
    scenario: Scenario, workdir: Path, *, seed: int = 0, builder: Callable[..., Any] = build
) -> Outcome:
    """Run one scenario on a fresh shop in `workdir` and check everything it promises.

    `builder` makes the agent's registry (`toolsys.shop.agent.build` and its keywords): pass
    one with a planted bug to see which scenarios catch it.
    """
    outcome = Outcome(scenario.name, tasks=len(scenario.prompts))
    slug = _slug(scenario.name)
    shop = create(workdir / f"{slug}.db")
    audit = workdir / f"{slug}.audit.jsonl"
    before = snapshot(shop)
    watch = InvariantWatch(shop)

    def registry() -> Any:
        faults = [TimeoutAfterWrite()] if scenario.fault == "timeout_after_write" else []
        return builder(shop, audit=audit, layers=[*faults, watch], timeout=0.3 if faults else 2.0)

    def approver(pending: PendingCall) -> bool | str:
        outcome.approvals += 1
        return True if scenario.human == "approve" else "No customer asked for this refund."

    def model() -> Any:
        if scenario.script is not None:
            return ScriptedModel(list(scenario.script)).client()
        return OfflineModel(imperfect=True, seed=seed).client()

    tools = registry()
    for prompt in scenario.prompts:
        context = dict(scenario.caller)
        if scenario.fault == "crash_while_pending":
            outcome.transcripts += _crash_and_resume(model, registry, prompt, context, outcome)
            continue
        chosen = approver if scenario.human is not None else None
        run = run_agent(model(), tools, prompt, context=context, approver=chosen)
        outcome.transcripts.append(run)
        if run.status == "awaiting_approval":
            outcome.approvals += len(run.pending)
    outcome.calls, outcome.violations = watch.calls, watch.violations
    outcome.changes = changes(before, snapshot(shop))
    offered = {tool["function"]["name"] for tool in tools.export(context=scenario.caller)}
    outcome.problems = _problems(scenario, outcome, audit)
    outcome.problems += [
        f"offered {name} to this caller" for name in scenario.hidden if name in offered
    ]
    outcome.passed = not outcome.problems
    return outcome


def _crash_and_resume(
    model: Any, registry: Any, prompt: str, context: dict[str, Any], outcome: Outcome
) -> list[Transcript]:
    """Pause for approval, save the run, "die"; resume twice from the saved JSON in new objects.

    The second resume stands for a process that had already finished the refund before it
    crashed: resuming the same saved run again must not refund a second time.
    """
    paused = run_agent(model(), registry(), prompt, context=context)
    if paused.status != "awaiting_approval":
        return [paused]
    saved = paused.to_json()
    outcome.approvals += len(paused.pending)
    approve = [pending.id for pending in paused.pending]
    runs = [paused]
    for _ in range(2):
        resumed = Transcript.from_json(saved)
        # The caller again: a saved run never carries its permissions (resumed without them,
        # the refund is ORDER_NOT_FOUND for a caller who is nobody).
        runs.append(
            resume_agent(
                model(),
                registry(),
                resumed,
                approve=approve,
                context=context,
                approved_by="manager on duty",
            )
        )
    return runs


def _problems(scenario: Scenario, outcome: Outcome, audit: Path) -> list[str]:
    problems: list[str] = []
    if _plain(outcome.changes) != _plain(dict(scenario.changes)):
        problems.append(
            f"changes: expected {_plain(dict(scenario.changes))}, got {_plain(outcome.changes)}"
        )
    if outcome.approvals != scenario.asks:
        problems.append(f"approvals asked: expected {scenario.asks}, got {outcome.approvals}")
    names = [call.name for run in outcome.transcripts for call in run.tool_calls]
    if not _in_order(scenario.called, names):
        problems.append(f"tools called: expected {list(scenario.called)} in order, got {names}")
    seen = {
        event.result.error.code
        for run in outcome.transcripts
        for event in run.events
        if isinstance(event, ToolResultEvent) and event.result.error is not None
    }
    if not scenario.codes <= seen:
        problems.append(f"error codes: expected {sorted(scenario.codes)} among {sorted(seen)}")
    read = "\n".join(
        str(message.get("content") or "") for run in outcome.transcripts for message in run.messages
    )
    problems += [f"the model read {text!r}" for text in scenario.absent if text in read]
    problems += [f"invariant broken {line}" for line in outcome.violations]
    ended = {run.status for run in outcome.transcripts} - {"completed", "awaiting_approval"}
    if ended:
        problems.append(f"a run ended {sorted(ended)}, not completed")
    checked = verify(audit) if audit.exists() else None
    if checked is not None and not checked.ok:
        problems.append(f"audit log: {checked}")
    return problems


def _in_order(wanted: tuple[str, ...], names: list[str]) -> bool:
    remaining = iter(names)
    return all(any(name == want for name in remaining) for want in wanted)


def run_all(
    scenarios: Iterable[Scenario] = SCENARIOS, *, workdir: Path | None = None, seed: int = 0
) -> list[Outcome]:
    """Every scenario, each on its own fresh shop (in a temporary folder unless `workdir`)."""
    if workdir is not None:
        return [run_scenario(s, workdir, seed=seed) for s in scenarios]
    with tempfile.TemporaryDirectory(prefix="toolsys-shop-") as tmp:
        return [run_scenario(s, Path(tmp), seed=seed) for s in scenarios]


def report(outcomes: list[Outcome]) -> str:
    """The table a lesson prints: one line per scenario, then the totals.

    The numbers come first and the name last, so a line stays within 100 characters: result,
    calls per task, approvals asked, invariant violations, scenario.
    """
    lines = ["result  calls/task  asked  broken  scenario"]
    for o in outcomes:
        lines.append(
            f"{'pass' if o.passed else 'FAIL':<6}  {o.calls / o.tasks:>10.1f}  "
            f"{o.approvals:>5}  {len(o.violations):>6}  {o.scenario}"
        )
        lines += [f"    - {problem}" for problem in o.problems]
    passed = sum(o.passed for o in outcomes)
    violations = sum(len(o.violations) for o in outcomes)
    lines.append(f"{passed}/{len(outcomes)} scenarios pass; {violations} invariant violations.")
    return "\n".join(lines)
