"""`selection_eval`: does the model pick the right tool, with the right arguments, in few calls?

A tool set is only as good as the model's choices among it. A selection eval sends each case's
prompt through the real agent loop and reads three numbers from the transcript:

    top-1      the first tool call went to the expected tool
    arguments  that call's arguments include the expected ones (when the case names any)
    calls      how many tool calls the task took

Cases are JSON lines, one object per line: `{"prompt": ..., "tool": ..., "arguments": {...}}`
(`arguments` optional, a subset as in `assert_calls`). The package ships a set for its built-in
tools (`toolsys/data/selection.jsonl`, `SHIPPED`). Each episode runs through
`toolsys.evals.run_episode`, the harness of chapter 05; the report holds no timings, so the same
model and cases give the same report, byte for byte (`sha256()`).

    report = selection_eval(models.client(), registry, SHIPPED)
    print(report)                 # rates, then every miss: prompt, chosen, expected
    report.require(top1=0.95)     # fail the test below 95 %, naming the misses

Chapter 11 uses it, and its exercises build it by hand: notebooks/11_testing.ipynb.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from toolsys._lines import fit
from toolsys.evals import Case, Variant, run_episode
from toolsys.evals.harness import Client
from toolsys.registry import Registry
from toolsys.testing._failure import ToolTestFailure, shown
from toolsys.testing.trajectory import decoded_arguments, matches_subset

__all__ = ["SHIPPED", "SelectionCase", "SelectionReport", "load_cases", "selection_eval"]

SHIPPED = "toolsys:selection.jsonl"
"""Names the selection set shipped for the built-in tools (`toolsys/data/selection.jsonl`)."""

_FORMAT = "toolsys-selection/1"


@dataclass(frozen=True)
class SelectionCase:
    """One prompt, the tool it should go to, and arguments the call should include."""

    prompt: str
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SelectionRow:
    """What the model did with one case."""

    prompt: str
    expected: str
    chosen: str
    top1: bool
    arguments: bool | None
    calls: int
    sent: str


@dataclass(frozen=True)
class SelectionReport:
    """Every case's row, and the rates over them. Prints as a summary and the misses."""

    model: str
    rows: tuple[SelectionRow, ...]

    @property
    def top1(self) -> float:
        return sum(row.top1 for row in self.rows) / len(self.rows)

    @property
    def arguments(self) -> float | None:
        judged = [row.arguments for row in self.rows if row.arguments is not None]
        return sum(judged) / len(judged) if judged else None

    @property
    def calls_per_task(self) -> float:
        return sum(row.calls for row in self.rows) / len(self.rows)

    def misses(self) -> list[SelectionRow]:
        return [row for row in self.rows if not row.top1 or row.arguments is False]

    def __str__(self) -> str:
        judged = [row.arguments for row in self.rows if row.arguments is not None]
        lines = [
            f"selection eval: {len(self.rows)} cases, model {self.model}",
            f"  top-1 tool   {sum(r.top1 for r in self.rows)}/{len(self.rows)} = {self.top1:.1%}",
        ]
        if judged:
            lines.append(
                f"  arguments    {sum(judged)}/{len(judged)} = {sum(judged) / len(judged):.1%}"
            )
        lines.append(f"  calls/task   {self.calls_per_task:.2f}")
        for row in self.misses():
            what = "wrong tool" if not row.top1 else "wrong arguments"
            line = f"  ✗ {what}: {row.prompt!r} -> {row.chosen} {row.sent}; expected {row.expected}"
            lines.append(fit(line))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": _FORMAT,
            "model": self.model,
            "top1": self.top1,
            "arguments": self.arguments,
            "calls_per_task": self.calls_per_task,
            "rows": [asdict(row) for row in self.rows],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True, ensure_ascii=False)

    def sha256(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()

    def require(self, top1: float = 1.0, arguments: float | None = None) -> None:
        """Fail (prompt / chosen / expected for each miss) below the given rates."""
        __tracebackhide__ = True
        low = self.top1 < top1 or (arguments is not None and (self.arguments or 0.0) < arguments)
        if not low:
            return
        misses = self.misses()
        lines = [
            f"selection_eval: top-1 {self.top1:.1%} (required {top1:.0%})"
            + (
                f", arguments {self.arguments or 0:.1%} (required {arguments:.0%})"
                if arguments
                else ""
            )
            + f"; {len(misses)} of {len(self.rows)} cases missed"
        ]
        for row in misses[:10]:
            lines.append(f"  sent:     {row.prompt!r}")
            lines.append(f"  got:      {row.chosen} {row.sent}")
            lines.append(f"  expected: {row.expected}")
        raise ToolTestFailure("\n".join(lines))


def load_cases(source: str | Path | Sequence[Any]) -> list[SelectionCase]:
    """Cases from a JSON-lines file, `SHIPPED`, or a list of dicts / SelectionCase."""
    __tracebackhide__ = True
    if isinstance(source, str) and source == SHIPPED:
        text = files("toolsys").joinpath("data/selection.jsonl").read_text(encoding="utf-8")
        return _parse(text.splitlines(), "toolsys/data/selection.jsonl")
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"selection_eval: no cases file {path.name!r}; give a .jsonl path.")
        return _parse(path.read_text(encoding="utf-8").splitlines(), path.name)
    items = list(source)
    return [
        item if isinstance(item, SelectionCase) else _case(item, f"case {i + 1}")
        for i, item in enumerate(items)
    ]


def _parse(lines: list[str], where: str) -> list[SelectionCase]:
    cases = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where} line {number}: not JSON ({exc.msg}).") from None
        cases.append(_case(item, f"{where} line {number}"))
    return cases


def _case(item: Any, where: str) -> SelectionCase:
    ok = (
        isinstance(item, Mapping)
        and isinstance(item.get("prompt"), str)
        and item["prompt"].strip()
        and isinstance(item.get("tool"), str)
        and isinstance(item.get("arguments", {}), Mapping)
        and set(item) <= {"prompt", "tool", "arguments"}
    )
    if not ok:
        raise ValueError(
            f"{where}: {shown(item, 120)} is not a case; write "
            '{"prompt": "...", "tool": "tool_name", "arguments": {...}} (arguments optional).'
        )
    return SelectionCase(item["prompt"], item["tool"], dict(item.get("arguments", {})))


def _row(
    case: SelectionCase, registry: Registry, client: Any, max_steps: int
) -> tuple[SelectionRow, str]:
    episode, transcript = run_episode(
        [Case(case.prompt, case.tool)],
        0,
        Variant("tools", registry),
        0,
        client=client,
        max_steps=max_steps,
    )
    made = transcript.tool_calls
    first = made[0] if made else None
    aimed = next((call for call in made if call.name == case.tool), None)
    arguments = None
    if case.arguments:
        arguments = aimed is not None and matches_subset(
            decoded_arguments(aimed.arguments), case.arguments
        )
    sent = shown(decoded_arguments(first.arguments), 120) if first is not None else ""
    row = SelectionRow(
        prompt=case.prompt,
        expected=f"{case.tool}({shown(dict(case.arguments), 120)})"
        if case.arguments
        else case.tool,
        chosen=first.name if first is not None else "(no tool call)",
        top1=first is not None and first.name == case.tool,
        arguments=arguments,
        calls=episode.calls,
        sent=sent,
    )
    return row, transcript.model


def selection_eval(
    client: Client,
    registry: Registry,
    cases: str | Path | Sequence[Any],
    *,
    max_steps: int = 4,
) -> SelectionReport:
    """Run every case through the agent loop with `client` and report top-1, arguments, calls.

    `client`: an `openai.OpenAI`/`AsyncOpenAI`, `"offline"` (the offline model in imperfect
    mode, seeded per case) or a function `seed -> client`, as for `toolsys.evals.run_eval`.
    """
    __tracebackhide__ = True
    loaded = load_cases(cases)
    if not loaded:
        raise ValueError("selection_eval: no cases; give at least one.")
    rows, models = [], []
    for case in loaded:
        row, model = _row(case, registry, client, max_steps)
        rows.append(row)
        models.append(model)
    return SelectionReport(model=Counter(models).most_common(1)[0][0], rows=tuple(rows))
