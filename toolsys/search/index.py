"""Search a registry's tools: each tool becomes a document of four weighted fields.

A tool is found by what the model would read of it: its name (weight 3: `refund_order` says the
most), its description (1), its parameter names (1.5: `tracking_number` is a strong clue) and its
parameter descriptions (0.5: long, and full of generic words like "ID" or "optional"). Names are
split into words by the tokenizer, so `billing_cancel_subscription` matches "cancel".

The index is built on the first search and kept until the tool set changes: each search compares
the registry's current tools, by identity, with those the index was built from (a few
microseconds for hundreds of tools), so every way of changing the registry invalidates it, with
no hook in the registry itself.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from toolsys.search.bm25 import BM25, Hit, overlap_rank
from toolsys.tool import Tool

WEIGHTS: Mapping[str, float] = {
    "name": 3.0,
    "description": 1.0,
    "parameters": 1.5,
    "parameter_descriptions": 0.5,
}
MAX_K = 50


class ToolSource(Protocol):
    """What search reads of a registry: its tools, in order."""

    def __iter__(self) -> Any: ...


def fields(tool: Tool) -> dict[str, str]:
    """The four texts a tool is indexed by."""
    properties = tool.parameters.get("properties") or {}
    described = [
        prop.get("description", "") for prop in properties.values() if isinstance(prop, Mapping)
    ]
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": " ".join(str(name) for name in properties),
        "parameter_descriptions": " ".join(d for d in described if isinstance(d, str)),
    }


class ToolIndex:
    """A BM25 index over some tools; `search(query, k)` ranks them."""

    def __init__(self, tools: Iterable[Tool], weights: Mapping[str, float] = WEIGHTS) -> None:
        self.tools = tuple(tools)
        self._bm25 = BM25({tool.name: fields(tool) for tool in self.tools}, weights)

    def search(self, query: Any, k: int = 5) -> list[Hit]:
        """The `k` best tools for `query`, best first; a query with no known word gives []."""
        return self._bm25.rank(query_text(query), _check_k(k))


def query_text(query: Any) -> str:
    """A query as text: a string as is, a list of strings joined (what a model may send);
    anything else is no query at all."""
    if isinstance(query, str):
        return query
    if isinstance(query, list | tuple) and all(isinstance(part, str) for part in query):
        return " ".join(query)
    return ""


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k={k!r}: give how many tools to return as an integer >= 1, e.g. k=5.")
    return min(k, MAX_K)


_INDEXES: weakref.WeakKeyDictionary[Any, ToolIndex] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def index_for(registry: ToolSource) -> ToolIndex:
    """The registry's index, rebuilt only when its tools changed since the last search."""
    tools = tuple(registry)
    with _LOCK:
        index = _INDEXES.get(registry)
        if index is None or not _same(index.tools, tools):
            index = ToolIndex(tools)
            _INDEXES[registry] = index
        return index


def _same(old: tuple[Tool, ...], new: tuple[Tool, ...]) -> bool:
    return len(old) == len(new) and all(a is b for a, b in zip(old, new, strict=True))


def search(registry: ToolSource, query: Any, k: int = 5) -> list[Hit]:
    """`registry.search(query, k)`: ranked (name, score) hits; never raises on the query."""
    return index_for(registry).search(query, k)


def keyword_overlap(tools: Iterable[Tool], query: Any, k: int = 5) -> list[Hit]:
    """The baseline to beat: unweighted keyword overlap with name, description and parameters."""
    documents = {tool.name: " ".join(fields(tool).values()) for tool in tools}
    return overlap_rank(query_text(query), documents, _check_k(k))
