"""Scoring one episode: what the model did with one request, read from its transcript.

Why this module exists: the five numbers an eval reports are easy to define loosely and get
wrong. Here each is one rule over the transcript of `run_agent`, so any client (the offline model
or a real endpoint) is scored the same way:

    right_tool    it aimed at the intended tool, and at no other tool it was offered
    valid_first   the very first call was to the intended tool, and the tool accepted it
    valid_final   some call to the intended tool was accepted (after error-as-data round trips)
    effect        the case's predicate holds on what the last accepted call returned
    calls         how many tool calls the episode made

A variant that splits the job into steps names several intended tools: a call to any of them is
a call to "the intended tool", and the effect is judged on the last one accepted.

"Accepted" means the call came back ok: neither validation nor the tool refused it. A misspelled
tool name is not a wrong choice of tool: a call aims at the tool its name is closest to (the
registry's "did you mean"), so `get_wether` fails `valid_first`, not `right_tool`.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass
from typing import Any

from toolsys.evals.cases import Effect
from toolsys.failures import did_you_mean
from toolsys.transcript import Transcript

__all__ = ["METRICS", "Episode", "score"]

METRICS: dict[str, str] = {
    "right_tool": "right tool",
    "valid_first": "valid first try",
    "valid_final": "valid after retry",
    "effect": "intended effect",
}
"""The yes/no metrics of an episode, with the label a report and a plot give them."""


@dataclass(frozen=True)
class Episode:
    """The score of one run of one case against one variant, with what identifies the run."""

    variant: str
    case: int
    seed: int
    right_tool: bool
    valid_first: bool
    valid_final: bool
    effect: bool
    calls: int
    result_chars: int
    status: str
    first_error: str = ""
    mistakes: tuple[str, ...] = ()
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["mistakes"] = list(self.mistakes)
        return data


def score(
    transcript: Transcript,
    intended: str | Collection[str],
    offered: set[str],
    effect: Effect | None,
) -> dict[str, Any]:
    """The metrics of one transcript (see the module docstring) as keyword arguments of Episode.

    `intended`: the tool's name in this variant, or the names of the steps that do its job;
    `offered`: every tool name the model was given. An `effect` that raises counts as not
    achieved, and the exception is kept in `note`.
    """
    wanted = {intended} if isinstance(intended, str) else set(intended)
    calls = transcript.results
    aimed = {_aimed_at(event.name, offered) for event in calls}
    accepted = [event for event in calls if event.name in wanted and event.result.ok]
    first_error = next((_code(event.result) for event in calls if not event.result.ok), "")
    achieved, note = bool(accepted), ""
    if accepted and effect is not None:
        achieved, note = _judge(effect, accepted[-1].result.value)
    return {
        "right_tool": bool(aimed & wanted) and not (aimed & offered) - wanted,
        "valid_first": bool(calls) and calls[0].name in wanted and calls[0].result.ok,
        "valid_final": bool(accepted),
        "effect": achieved,
        "calls": len(calls),
        "result_chars": sum(len(event.result.to_message()) for event in calls),
        "status": transcript.status,
        "first_error": first_error,
        "note": note,
    }


def _aimed_at(name: str, offered: set[str]) -> str:
    """The offered tool a call meant: its own name, else the closest offered name, else itself."""
    if name in offered:
        return name
    closest = did_you_mean(name, sorted(offered))
    return closest[0] if closest else name


def _code(result: Any) -> str:
    error = result.error
    return str(error.code) if error is not None else ""


def _judge(effect: Effect, value: Any) -> tuple[bool, str]:
    """(achieved, note): the predicate's verdict, which must be a plain bool."""
    try:
        verdict = effect(value)
    except Exception as exc:
        return False, f"effect raised {type(exc).__name__}: {exc}"[:200]
    if type(verdict) is not bool:
        return False, f"effect returned {type(verdict).__name__}, not True or False"
    return verdict, ""
