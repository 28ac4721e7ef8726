"""Tool annotations ↔ categories, both ways, and the trust rule that decides which way is safe.

MCP describes what a tool does with four hints (readOnlyHint, destructiveHint, idempotentHint,
openWorldHint); toolsys with a `Category` and `Tool.idempotent`. Serving, we tell the truth we
know; importing, we believe a server's hints only when we trust it, because the spec says they
are hints and that a client must never base a decision on them when the server is untrusted.

    category   readOnlyHint  destructiveHint         idempotentHint   openWorldHint
    READ       true          false                   true             false
    WRITE      false         "destructive" in tags   tool.idempotent  false
    EXECUTE    false         true                    tool.idempotent  true

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

__all__ = ["HINTS", "SPEC_DEFAULTS", "Imported", "Trust", "annotations_for", "category_for"]

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
    """The four hints a served tool carries, from its category (see the table above)."""
    if tool.category == Category.READ:
        return {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
    execute = tool.category == Category.EXECUTE
    return {
        "readOnlyHint": False,
        "destructiveHint": execute or "destructive" in tool.tags,
        "idempotentHint": bool(tool.idempotent),
        "openWorldHint": execute,
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
