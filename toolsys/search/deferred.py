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
Everything else (unknown names, bad arguments, the layers) is the registry's, unchanged.

With the caller's `context` (the loop passes its own), the session lists, and a search finds,
only the tools the registry would export to that caller (`registry.export(context=...)`: roles,
availability, the policy): search never reveals a tool the caller may not see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from toolsys import failures
from toolsys.export import export_tools
from toolsys.invoke import Arguments, invoke
from toolsys.result import ToolResult
from toolsys.search.bm25 import Hit
from toolsys.search.index import query_text
from toolsys.spec import Param, ToolSpec
from toolsys.stages import failure, validate
from toolsys.tool import Tool, tool_from_spec

SEARCH_TOOL = "search_tools"
MAX_FOUND = 10
Core = Sequence[str] | Callable[[Tool], bool] | None


class Searchable(Protocol):
    """What a session needs of a registry: its tools, search, lookup and execution."""

    def __iter__(self) -> Any: ...
    def __contains__(self, name: object) -> bool: ...
    def export(
        self, target: str = "openai", *, context: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]: ...
    def get(self, name: str) -> Tool: ...
    def search(self, query: Any, k: int = 5) -> list[Hit]: ...
    async def aexecute(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        step: int | None = None,
        call_id: str | None = None,
    ) -> ToolResult: ...


class Deferred:
    """One run's view of a registry: core tools + `search_tools` + every tool found so far.

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
        self._search = _search_tool(self, k)
        self._exports: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        self._allowed: frozenset[str] | None = None  # the caller's tools during a search

    @property
    def visible(self) -> list[str]:
        """The registry's tools the model can see now (core and found), in registry order."""
        shown = set(self.core) | set(self.loaded)
        return [tool.name for tool in self.registry if tool.name in shown]

    def export(
        self,
        target: str = "openai",
        *,
        strict: bool = False,
        context: Mapping[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """What the model sees now: the visible tools (those this caller may use, with
        `context`), then `search_tools`. Cached per tool set."""
        shown = set(self.core) | set(self.loaded)
        if context is not None:
            shown &= self.allowed(context)
        tools = [tool for tool in self.registry if tool.name in shown]
        key = (target, strict, *(id(tool) for tool in tools))
        cached = self._exports.get(key)
        if cached is None:
            cached = export_tools([*tools, self._search], target, strict=strict)
            self._exports = {key: cached}
        return cached

    def allowed(self, context: Mapping[str, Any]) -> frozenset[str]:
        """The names of the tools the registry exports to this caller."""
        listed = self.registry.export("openai", context=context)
        return frozenset(tool["function"]["name"] for tool in listed)

    def search_tools(self, query: str, k: int) -> dict[str, Any]:
        """Run a search for the model and load what it found (the body of `search_tools`)."""
        hits = self.registry.search(
            query_text(query), MAX_FOUND if self._allowed is not None else k
        )
        if self._allowed is not None:
            hits = [hit for hit in hits if hit.name in self._allowed][:k]
        for hit in hits:
            if hit.name not in self.core and hit.name not in self.loaded:
                self.loaded.append(hit.name)
        found = [
            {"name": hit.name, "description": _first_sentence(self.registry.get(hit.name))}
            for hit in hits
        ]
        note = (
            "These tools can be called from your next turn on."
            if found
            else "No tool matches these words; try other words for the same task."
        )
        return {"query": query, "found": found, "note": note}

    async def aexecute(self, name: str, arguments: Arguments = None, **ids: Any) -> ToolResult:
        """Run `search_tools` here, refuse a known tool not loaded yet, pass the rest on (a tool
        hidden from this caller too: the registry's layers answer for it, as without search)."""
        context = ids.get("context")
        if name == SEARCH_TOOL:
            validated = validate(self._search, arguments)
            self._allowed = None if context is None else self.allowed(context)
            try:
                result = (
                    validated
                    if isinstance(validated, ToolResult)
                    else invoke(self._search, validated)
                )
            finally:
                self._allowed = None
            result.meta["tool"] = SEARCH_TOOL
            return result
        hidden = context is not None and type(name) is str and name not in self.allowed(context)
        if type(name) is str and name in self.registry and name not in self.visible and not hidden:
            refused = failure(failures.tool_not_loaded, name, SEARCH_TOOL)
            refused.meta["tool"] = name
            return refused
        return await self.registry.aexecute(name, arguments, **ids)

    def execute(self, name: str, arguments: Arguments = None, **ids: Any) -> ToolResult:
        """`aexecute` for synchronous code (and Jupyter cells)."""
        from toolsys._sync import run_sync

        return run_sync(self.aexecute(name, arguments, **ids))

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
