"""How the offline model uses a `search_tools` tool (deferred export, see `toolsys.search`).

When the request offers `search_tools`, the model plans with the other tools first. A clause of
the user's message that no offered tool covers (see `_uncovered`) becomes a search:
`search_tools(query=<that clause>)`, all such clauses at once, before any other call (the whole
message, when no clause is covered). The next
request lists the tools the search loaded, and the model plans again with them, as usual.

It searches at most once per user message: if the tools found still do not cover the clause,
it says so in text instead of searching in circles. Search calls and their results are left out
of the replay, so the plan's tasks are matched only with the calls that serve them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolsys.models._messages import Turn
from toolsys.models.explanation import Step
from toolsys.search.bm25 import tokenize

SEARCH_TOOL = "search_tools"  # the name toolsys.search's deferred session gives it
_UNCOVERED = "no tool reaches the threshold"
_GLUED = "it does not complete"

Turns = list[Turn]
Plan = Callable[..., Any]


def offers_search(functions: list[dict[str, Any]]) -> bool:
    return any(f["name"] == SEARCH_TOOL for f in functions)


def split(
    functions: list[dict[str, Any]], turns: Turns
) -> tuple[list[dict[str, Any]], Turns, bool]:
    """(the other tools, the tool turns without search calls, whether a search was made)."""
    others = [f for f in functions if f["name"] != SEARCH_TOOL]
    kept: Turns = []
    searched = False
    for calls, results in turns:
        rest = [c for c in calls if c.name != SEARCH_TOOL]
        searched = searched or len(rest) < len(calls)
        if rest:
            kept.append((rest, {c.id: results[c.id] for c in rest if c.id in results}))
    return others, kept, searched


def search_calls(plan: Plan, text: str, functions: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One `search_tools` call per clause of `text` that none of `functions` covers."""
    trace: list[Step] = []
    tasks = plan(text, functions, "auto", trace) if functions else []
    clauses = [step.clause for step in trace if _uncovered(step)] if tasks else [text]
    unique = list(dict.fromkeys(c.strip() for c in clauses if c.strip()))
    return [{"name": SEARCH_TOOL, "arguments": json.dumps({"query": c})} for c in unique]


def _uncovered(step: Step) -> bool:
    """No tool fits the clause: none reached the threshold, or it was glued to the previous
    clause only for lack of a tool although it says something of its own (two or more words:
    "and what's the weather in Oslo", not "and 100")."""
    if step.outcome.startswith(_UNCOVERED):
        return True
    words = [term for term in tokenize(step.clause) if term.isalpha()]
    return _GLUED in step.outcome and len(words) >= 2
