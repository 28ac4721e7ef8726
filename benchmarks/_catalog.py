"""A catalog of distinct docstring-annotated tools, for timing registration honestly.

Every tool has its own name, parameter names and docstring, so no cache keyed on a docstring or
a signature can answer for another: what is timed is what registering a new tool costs. Each
is a typical tool: a required string, an integer with a default, an enum (`Literal`) with a
default, each documented under `Args:`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

_SOURCE = '''
def {name}(
    {q}: str, limit_{i}: int = 5, sort_{i}: Literal["relevance", "date", "{name}"] = "relevance"
) -> list[str]:
    """Search catalog number {i} for documents about a topic.

    Args:
        {q}: Words to look for in catalog {i}.
        limit_{i}: How many results to return at most.
        sort_{i}: Order of the results: by relevance, by date or {name}'s own order.
    """
    return [{q}] * limit_{i}
'''


def make_catalog(size: int, prefix: str = "search") -> list[Callable[..., Any]]:
    """`size` new functions, `{prefix}_0`... each with its own parameter names and docstring."""
    tools: list[Callable[..., Any]] = []
    for i in range(size):
        name = f"{prefix}_{i}"
        namespace: dict[str, Any] = {"Literal": Literal}
        exec(_SOURCE.format(name=name, i=i, q=f"query_{i}"), namespace)
        tools.append(namespace[name])
    return tools
