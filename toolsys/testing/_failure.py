"""How a `toolsys.testing` helper fails: one AssertionError saying what was sent, what came
back and what was expected, raised from the helper the test called.

Every public helper and every function on its failure path sets `__tracebackhide__`, so pytest
shows the test's own line and this message, not our internals. `shown` keeps a sample short
and printable: the message is read by a person, often about a value thousands of characters long.
"""

from __future__ import annotations

import json
from typing import Any

_LIMIT = 300


class ToolTestFailure(AssertionError):
    """A toolsys.testing check failed; the message has sent / got / expected lines."""

    __module__ = "toolsys.testing"  # how pytest names it: the public home, not this file


def shown(value: Any, limit: int = _LIMIT) -> str:
    """`value` as JSON when it is JSON, else its repr; cut to `limit` characters."""
    if isinstance(value, str | bytes):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            try:
                text = repr(value)
            except Exception:
                text = f"<{type(value).__name__} with a broken repr>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fail(headline: str, *, sent: Any, got: Any, expected: Any, more: str = "") -> None:
    """Raise ToolTestFailure: the headline, then sent / got / expected (strings as they are)."""
    __tracebackhide__ = True
    lines = [headline]
    for label, value in (("sent", sent), ("got", got), ("expected", expected)):
        text = value if isinstance(value, str) else shown(value)
        lines.append(f"  {label + ':':<10}{text}")
    if more:
        lines.append(more)
    raise ToolTestFailure("\n".join(lines))
