"""The tool every library registers in `bench_peers.py`: `search(query, limit, sort)`.

A docstring-documented function with a default and an enum (`Literal`), so each library parses a
docstring, builds a schema with an enum and validates it. `make_search` compiles a fresh copy on
each call: registration is timed on new function objects, each with its own name and docstring,
so no library can reuse a cache keyed on the function, its name or its docstring. The tool
records what it received and on which thread (`SEEN`), which is how the benchmark sees what
each path checks and where it runs the tool.
"""

from __future__ import annotations

import linecache
import threading
from collections.abc import Callable
from typing import Any, Literal

# What the tool saw on its last run: (thread id, limit, sort). Probes read it; timing ignores it.
SEEN: dict[str, tuple[int, object, object]] = {}

_SOURCE = '''
{prefix}def {name}(
    query: str, limit: int = 5, sort: Literal["relevance", "date"] = "relevance"
) -> list[str]:
    """Search the catalog for documents ({name}).

    Args:
        query: Words to look for.
        limit: How many results to return at most.
        sort: Order of the results: by relevance or by date.
    """
    SEEN["call"] = (threading.get_ident(), limit, sort)
    return [f"{{query}} #{{i}}" for i in range(limit)]
'''


def make_search(name: str = "search", *, is_async: bool = False) -> Callable[..., Any]:
    """A fresh `search` function (sync or async); its source goes into `linecache` because some
    libraries read it (smolagents)."""
    source = _SOURCE.format(prefix="async " if is_async else "", name=name)
    filename = f"<bench_peers {'async ' if is_async else ''}{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {
        "__name__": "bench_tools",
        "Literal": Literal,
        "SEEN": SEEN,
        "threading": threading,
    }
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]
