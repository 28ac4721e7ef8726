"""search_docs: keyword search over a small bundled set of documents about tool systems.

Scoring is deliberately simple (stemmed word overlap, title words count double), so a student
can predict the ranking by hand.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import Annotated, Any

from pydantic import Field

from toolsys import ToolError
from toolsys.tools import registry

_STOP = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "to",
    "in",
    "is",
    "it",
    "how",
    "do",
    "i",
    "what",
    "for",
    "on",
    "with",
    "does",
    "are",
    "my",
    "can",
    "be",
    "about",
}


def _terms(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if w not in _STOP}


@cache
def _documents() -> list[dict[str, str]]:
    return json.loads(files("toolsys").joinpath("data/docs.json").read_text())["documents"]


@registry.tool
def search_docs(query: str, limit: Annotated[int, Field(ge=1, le=10)] = 3) -> list[dict[str, Any]]:
    """Search the toolsys documentation and return the best-matching passages with their titles.

    Use it for questions about how toolsys or tool systems work: the registry, schemas, errors,
    the agent loop, retries, permissions, MCP, testing. Limits: a dozen short bundled documents,
    keyword matching only (no semantic search).

    Args:
        query: Keywords to look for, e.g. 'retry backoff'.
        limit: Maximum number of results, 1 to 10.
    """
    wanted = _terms(query)
    if not wanted:
        raise ToolError(
            "EMPTY_QUERY",
            f"The query {query!r} has no searchable words.",
            suggestion="Search with keywords such as 'registry' or 'retry backoff'.",
        )
    scored = []
    for doc in _documents():
        score = 2 * len(wanted & _terms(doc["title"])) + len(wanted & _terms(doc["text"]))
        if score:
            scored.append((score, doc))
    scored.sort(key=lambda pair: -pair[0])
    return [
        {"id": d["id"], "title": d["title"], "score": s, "text": d["text"]}
        for s, d in scored[:limit]
    ]
