"""Deferred export: the model starts with a few core tools and `search_tools`, and loads the rest.

With hundreds of tools, listing every one in every request costs tens of thousands of tokens and
makes the model choose worse. A `Deferred` session shows the model only the core tools plus
`search_tools(query, k)`; each search adds the tools it finds to the session, and the next
request lists them too. The session is one run's state, held by the loop in place of the
registry: it has the two methods the loop uses (`export`, `aexecute`), and the loop asks for
the export again before every request.

    session = registry.deferred(core=["get_time"])
    transcript = run_agent(client, session, "Cancel the subscription of customer 42")

A call to a tool that exists but was not found yet gets TOOL_NOT_LOADED (retryable, with a
suggestion to search), never UNKNOWN_TOOL: the name is right, only the order of steps is not.
The session is an executor over the registry's own path (`registry.path(scope)`): every call,
`search_tools` and TOOL_NOT_LOADED answers included, meets every layer (the audit log records
each one), and unknown names and bad arguments are answered as the registry answers them.

With the caller's `context` (the loop passes its own), the session lists, and a search finds,
only the tools the registry would show that caller (roles, availability, the policy): search
never reveals a tool the caller may not see, and a call to one is refused as hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from toolsys import failures
from toolsys.execution import View, running
from toolsys.result import ToolResult
from toolsys.search.bm25 import Hit
from toolsys.search.index import query_text
from toolsys.spec import Param, ToolSpec
from toolsys.stages import failure
from toolsys.tool import Tool, tool_from_spec

if TYPE_CHECKING:
    from toolsys.execution import ExecutePath, Scope

SEARCH_TOOL = "search_tools"
MAX_FOUND = 10
Core = Sequence[str] | Callable[[Tool], bool] | None
_EMPTY: Mapping[str, Any] = MappingProxyType({})


class Searchable(Protocol):
    """What a session needs of a registry: its tools, search, lookup, and its execute path."""

    def __iter__(self) -> Iterator[Tool]: ...
    def __contains__(self, name: object) -> bool: ...
    def get(self, name: str) -> Tool: ...
    def lookup(self, name: str) -> Tool | None: ...
    def search(self, query: Any, k: int = 5) -> list[Hit]: ...
    def path(self, scope: Scope | None = None) -> ExecutePath: ...


class _Session:
    """A session's scope: the registry's tools (so a hidden one is refused as hidden) and
    `search_tools`; listed, the core and found ones; callable, only those (TOOL_NOT_LOADED)."""

    def __init__(self, session: Deferred) -> None:
        self.session = session

    def lookup(self, name: str) -> Tool | None:
        session = self.session
        return session.search_tool if name == SEARCH_TOOL else session.registry.lookup(name)

    def entries(self) -> list[tuple[str, Tool]]:
        session = self.session
        shown = {*session.core, *session.loaded}
        found = [(tool.name, tool) for tool in session.registry if tool.name in shown]
        return [*found, (SEARCH_TOOL, session.search_tool)]

    def known(self) -> list[tuple[str, Tool]]:
        """What an UNKNOWN_TOOL answer may suggest: the registry's tools, loaded or not (a
        suggested one not loaded yet answers TOOL_NOT_LOADED, which says to search)."""
        return [(tool.name, tool) for tool in self.session.registry]

    def gate(self, tool: Tool) -> ToolResult | None:
        session = self.session
        if tool is session.search_tool or tool.name in session.core or tool.name in session.loaded:
            return None
        return failure(failures.tool_not_loaded, tool.name, SEARCH_TOOL)


class Deferred(View):
    """One run's view of a registry, an executor of its own: core tools + `search_tools` +
    every tool found so far, through the registry's own path and layers. It exports what the
    model sees now (the tools shown to this caller, then `search_tools`); `execute` runs
    `search_tools`, a loaded tool, or says TOOL_NOT_LOADED for one not found yet, all through
    the registry's layers (a tool hidden from this caller is refused as hidden).

    `core`: names of tools always listed, or a rule (`lambda tool: tool.category == "read"`),
    or None for none. `k`: how many tools a search returns when the model does not say.
    """

    def __init__(self, registry: Searchable, core: Core = None, *, k: int = 5) -> None:
        if SEARCH_TOOL in registry:
            raise ValueError(
                f"The registry already has a tool named {SEARCH_TOOL!r}, which deferred export "
                "adds itself; rename that tool or export without deferred=True."
            )
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_FOUND:
            raise ValueError(f"k={k!r}: give how many tools a search returns, 1 to {MAX_FOUND}.")
        self.registry = registry
        self.core = _core_names(registry, core)
        self.loaded: list[str] = []  # found by search, in the order found
        self.search_tool = _search_tool(self, k)
        self._scope = _Session(self)

    @property
    def visible(self) -> list[str]:
        """The registry's tools the model can see now (core and found), in registry order."""
        shown = set(self.core) | set(self.loaded)
        return [tool.name for tool in self.registry if tool.name in shown]

    @property
    def path(self) -> ExecutePath:
        """The registry's path (its layers) around this session's tools."""
        return self.registry.path(self._scope)

    def allowed(self, context: Mapping[str, Any]) -> frozenset[str]:
        """The names of the registry's tools this caller may see and use."""
        path = self.path
        return frozenset(tool.name for tool in self.registry if path.visible(tool, context))

    async def search_tools(self, query: str, k: int) -> dict[str, Any]:
        """Run a search for the model and load what it found (the body of `search_tools`).

        Only tools the caller may see are found: the call's own context (`running()`)."""
        current = running()
        context = current[1].context if current is not None else _EMPTY
        path, registry = self.path, self.registry
        hits = registry.search(query_text(query), MAX_FOUND)
        hits = [hit for hit in hits if path.visible(registry.get(hit.name), context)][:k]
        for hit in hits:
            if hit.name not in self.core and hit.name not in self.loaded:
                self.loaded.append(hit.name)
        found = [
            {"name": hit.name, "description": _first_sentence(registry.get(hit.name))}
            for hit in hits
        ]
        note = (
            "These tools can be called from your next turn on."
            if found
            else "No tool matches these words; try other words for the same task."
        )
        return {"query": query, "found": found, "note": note}

    def __repr__(self) -> str:
        return f"Deferred(core={self.core}, loaded={self.loaded})"


def _core_names(registry: Searchable, core: Core) -> list[str]:
    if core is None:
        return []
    if callable(core):
        return [tool.name for tool in registry if core(tool)]
    if isinstance(core, str) or not isinstance(core, Sequence):
        raise ValueError(
            f"core={core!r}: give a list of tool names, a rule (a function of a Tool that "
            "returns True for core tools), or None."
        )
    unknown = [name for name in core if name not in registry]
    if unknown:
        raise ValueError(
            f"core names {unknown[0]!r}, which is not a registered tool; core lists tools the "
            "model always sees, so each must be registered first."
        )
    return list(dict.fromkeys(core))


def _first_sentence(tool: Tool) -> str:
    text = tool.description.strip()
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _search_tool(session: Deferred, k: int) -> Tool:
    spec = ToolSpec(
        SEARCH_TOOL,
        "Find more tools by keywords. Only some tools are listed; when none of them fits the "
        "task, search with a few words describing it. The tools found can be called from the "
        "next turn on.",
        [
            Param("query", "string", "What you want to do, in a few words, e.g. 'refund order'."),
            Param(
                "k",
                "integer",
                f"How many tools to return (1 to {MAX_FOUND}).",
                required=False,
                default=k,
                minimum=1,
                maximum=MAX_FOUND,
            ),
        ],
    )
    return tool_from_spec(spec, session.search_tools)
