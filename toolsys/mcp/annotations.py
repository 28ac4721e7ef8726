"""Tool annotations ↔ categories, both ways, and the trust rule that decides which way is safe.

MCP describes what a tool does with four hints (readOnlyHint, destructiveHint, idempotentHint,
openWorldHint); toolsys with a `Category` and `Tool.idempotent`. Serving, we tell the truth we
know, and leave out what we do not; importing, we believe a server's hints only when we trust it,
because the spec says they are hints and that a client must never base a decision on them when
the server is untrusted (mcp 2.3 `ToolAnnotations`; spec revision 2026-07-28, server/tools).

    category   readOnlyHint  destructiveHint         idempotentHint   openWorldHint
    READ       true          false                   true             (left out)
    WRITE      false         "destructive" in tags   tool.idempotent  false
    EXECUTE    false         true                    tool.idempotent  true

`openWorldHint` says whether a tool "may interact with an open world of external entities"; the
spec's own examples are a web search (open) and a memory tool (closed). A category does not say
which a READ tool is: the weather from a public API is open, a lookup in the tool's own table is
closed. So a READ tool carries the hint only when it declares it, with the tag "open-world" or
"closed-world", and otherwise leaves it out (a client then reads the spec's default, true: the
cautious reading). For WRITE and EXECUTE the hint is what tells an importing toolsys the two
apart (below): EXECUTE runs things whose effects reach outside, WRITE changes what its own system
holds. A WRITE tool that reaches outside (sends mail, posts to another service) should be tagged
"open-world"; it is then served with openWorldHint true and imported back as EXECUTE.

Importing from a trusted server reads the table backwards, with the spec's defaults for a hint
that is missing (readOnly false, destructive true, idempotent false, openWorld true), so a tool
that says nothing is treated as the most dangerous kind, never the least (fail closed):
readOnlyHint → READ; otherwise openWorldHint → EXECUTE; otherwise WRITE. An untrusted server's
tools are EXECUTE and not idempotent whatever they claim: every approval policy (chapter 08) asks
before an EXECUTE tool runs.

Chapter 10 builds this table by hand first: notebooks/10_mcp.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolsys.spec import Category
from toolsys.tool import Tool

__all__ = [
    "CLOSED_WORLD",
    "HINTS",
    "OPEN_WORLD",
    "SPEC_DEFAULTS",
    "Imported",
    "Trust",
    "annotations_for",
    "category_for",
]

OPEN_WORLD, CLOSED_WORLD = "open-world", "closed-world"
"""Tags by which a tool says whether it reaches outside its own system (`openWorldHint`)."""

Trust = Literal["trusted", "untrusted"]
TRUST_LEVELS: tuple[str, ...] = ("trusted", "untrusted")

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
SPEC_DEFAULTS: Mapping[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
"""What the MCP spec says a missing hint means."""


def annotations_for(tool: Tool) -> dict[str, bool]:
    """The hints a served tool carries, from its category and tags (see the table above); a
    hint nothing tells us is left out."""
    declared = True if OPEN_WORLD in tool.tags else False if CLOSED_WORLD in tool.tags else None
    if tool.category == Category.READ:
        hints = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}
        return hints if declared is None else {**hints, "openWorldHint": declared}
    execute = tool.category == Category.EXECUTE
    return {
        "readOnlyHint": False,
        "destructiveHint": execute or "destructive" in tool.tags,
        "idempotentHint": bool(tool.idempotent),
        "openWorldHint": execute or declared is True,
    }


@dataclass(frozen=True)
class Imported:
    """How an imported tool is registered: its category, whether a repeat is safe, its tags."""

    category: Category
    idempotent: bool
    tags: tuple[str, ...]


def category_for(hints: Mapping[str, Any] | None, trust: Trust) -> Imported:
    """The category an imported tool gets from its server's hints, under `trust`.

    Only a hint that is exactly `true` or `false` counts; anything else (missing, null, "yes")
    takes the spec's default, which is the cautious one.
    """
    if trust not in TRUST_LEVELS:
        raise ValueError(
            f"trust={trust!r} is not a trust level; use 'trusted' (believe the server's "
            "annotations) or 'untrusted' (every tool needs approval, whatever it claims)."
        )
    if trust == "untrusted":
        return Imported(Category.EXECUTE, False, ("mcp", "untrusted"))
    given = hints or {}

    def hint(name: str) -> bool:
        value = given.get(name)
        return value if isinstance(value, bool) else SPEC_DEFAULTS[name]

    if hint("readOnlyHint"):
        return Imported(Category.READ, True, ("mcp", "trusted"))
    destructive = ("destructive",) if hint("destructiveHint") else ()
    category = Category.EXECUTE if hint("openWorldHint") else Category.WRITE
    return Imported(category, hint("idempotentHint"), ("mcp", "trusted", *destructive))
