"""The same `search` tool in toolsys and in each peer library, for `bench_peers.py`.

Each library gets one small adapter, written as its documentation shows: how a tool is
registered (schema + validator, and the schema the model is sent) and the path a tool call
takes when that library runs it. An adapter returns a `Peer`; a library that is not installed
raises ImportError, which `bench_peers.py` reports as a skipped peer. Nothing here talks to a
model or to the network: agents that need a model get a placeholder model object that is never
called, and tracing is switched off.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from _search_tool import make_search
from pydantic import BaseModel, create_model

SyncCall = Callable[[], object]
AsyncCall = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Path:
    """One way a library runs a tool call.

    `build(arguments)` prepares a call with those arguments (a JSON path gets them as a JSON
    string). A sync path's build returns the call; an async path's returns an async context
    manager that yields it (set-up such as opening a client session happens there, untimed).
    """

    label: str
    arguments: Literal["dict", "JSON"]
    build: Callable[[dict[str, Any]], Any]
    is_async: bool = False


@dataclass(frozen=True)
class Peer:
    """A library: its version, its call paths, and how it registers a batch of functions."""

    name: str
    version: str
    paths: list[Path]
    register: Callable[[list[Callable[..., Any]]], object]
    register_note: str
    notes: list[str] = field(default_factory=list)


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def _yielding(call: AsyncCall) -> contextlib.AbstractAsyncContextManager[AsyncCall]:
    @contextlib.asynccontextmanager
    async def context() -> AsyncIterator[AsyncCall]:
        yield call

    return context()


# -- the reference: bare pydantic ------------------------------------------------------------


class SearchArgs(BaseModel):
    query: str
    limit: int = 5
    sort: Literal["relevance", "date"] = "relevance"


def baseline() -> Peer:
    """`Model.model_validate(args)` (or `model_validate_json(raw)`) and then the call: the least
    any library can do. Registration: `create_model` + `model_json_schema`, no docstring."""
    search = make_search()

    def with_dict(arguments: dict[str, Any]) -> SyncCall:
        def call() -> object:
            model = SearchArgs.model_validate(arguments)
            return search(model.query, model.limit, model.sort)

        return call

    def with_json(arguments: dict[str, Any]) -> SyncCall:
        raw = json.dumps(arguments)

        def call() -> object:
            model = SearchArgs.model_validate_json(raw)
            return search(model.query, model.limit, model.sort)

        return call

    def register(functions: list[Callable[..., Any]]) -> object:
        sort = Literal["relevance", "date"]
        return [
            create_model(
                fn.__name__, query=(str, ...), limit=(int, 5), sort=(sort, "relevance")
            ).model_json_schema()
            for fn in functions
        ]

    return Peer(
        "pydantic",
        _version("pydantic"),
        [
            Path("pydantic model_validate + call", "dict", with_dict),
            Path("pydantic model_validate_json + call", "JSON", with_json),
        ],
        register,
        "create_model + model_json_schema (no docstring parsing)",
    )


# -- toolsys ----------------------------------------------------------------------------------


def toolsys() -> Peer:
    from toolsys import Registry

    def registry(is_async: bool = False) -> Any:
        built = Registry()
        built.register(make_search(is_async=is_async))
        return built

    def with_dict(arguments: dict[str, Any]) -> SyncCall:
        execute = registry().execute
        return lambda: execute("search", arguments)

    def with_json(arguments: dict[str, Any]) -> SyncCall:
        execute, raw = registry().execute, json.dumps(arguments)
        return lambda: execute("search", raw)

    def awaited(is_async: bool) -> Callable[[dict[str, Any]], Any]:
        def build(arguments: dict[str, Any]) -> contextlib.AbstractAsyncContextManager[AsyncCall]:
            aexecute = registry(is_async).aexecute
            return _yielding(lambda: aexecute("search", arguments))

        return build

    def register(functions: list[Callable[..., Any]]) -> object:
        built = Registry()
        for fn in functions:
            built.register(fn)
        return built.export("openai")

    return Peer(
        "toolsys",
        _version("toolsys"),
        [
            Path("toolsys Registry.execute", "dict", with_dict),
            Path("toolsys Registry.execute", "JSON", with_json),
            Path(
                "toolsys await Registry.aexecute (sync tool)", "dict", awaited(False), is_async=True
            ),
            Path(
                "toolsys await Registry.aexecute (async tool)", "dict", awaited(True), is_async=True
            ),
        ],
        register,
        "Registry.register + export('openai')",
        [
            "toolsys: strict validation (no '2' -> 2), unknown arguments rejected; a sync tool "
            "runs in the caller's thread; failures come back as a ToolResult, never raised.",
            "toolsys registration: a simple signature's schema is written directly; its argument "
            "model and validator are built on the tool's first call ('toolsys + first call').",
        ],
    )


def toolsys_first_call() -> Peer:
    """Registration as `toolsys()` times it, plus each tool's first call: a simple signature's
    model and validator are built on first use, so this row shows what registering costs once
    they are."""
    from toolsys import Registry

    def register(functions: list[Callable[..., Any]]) -> object:
        built = Registry()
        for fn in functions:
            built.register(fn)
        exported = built.export("openai")
        for fn in functions:
            built.execute(fn.__name__, {"query": "agents"})
        return exported

    return Peer(
        "toolsys + first call",
        _version("toolsys"),
        [],
        register,
        "the same + one execute per tool (builds its model and validator)",
    )


# -- smolagents -------------------------------------------------------------------------------


def smolagents() -> Peer:
    from smolagents import Model, ToolCallingAgent, tool
    from smolagents.models import get_tool_json_schema, parse_json_if_needed
    from smolagents.monitoring import LogLevel

    def agent() -> Any:
        # The model is a placeholder: execute_tool_call never asks it anything.
        return ToolCallingAgent(
            tools=[tool(make_search())],
            model=Model(model_id="unused"),
            verbosity_level=LogLevel.OFF,
        )

    def with_dict(arguments: dict[str, Any]) -> SyncCall:
        execute = agent().execute_tool_call
        return lambda: execute("search", arguments)

    def with_json(arguments: dict[str, Any]) -> SyncCall:
        execute, raw = agent().execute_tool_call, json.dumps(arguments)
        # What ToolCallingAgent does with a model's tool call: parse, then execute_tool_call.
        return lambda: execute("search", parse_json_if_needed(raw))

    def register(functions: list[Callable[..., Any]]) -> object:
        return [get_tool_json_schema(tool(fn)) for fn in functions]

    return Peer(
        "smolagents",
        _version("smolagents"),
        [
            Path("smolagents ToolCallingAgent.execute_tool_call", "dict", with_dict),
            Path("smolagents parse_json_if_needed + execute_tool_call", "JSON", with_json),
        ],
        register,
        "@tool + get_tool_json_schema",
        [
            "smolagents: checks argument names and JSON types (validate_tool_arguments), "
            "not enum values; the tool runs in the caller's thread (parallel calls use a pool)."
        ],
    )


# -- openai-agents ----------------------------------------------------------------------------


def openai_agents() -> Peer:
    from agents import function_tool, set_tracing_disabled
    from agents.tool_context import ToolContext

    set_tracing_disabled(True)  # offline: never export traces

    def invoked(is_async: bool) -> Callable[[dict[str, Any]], Any]:
        def build(arguments: dict[str, Any]) -> contextlib.AbstractAsyncContextManager[AsyncCall]:
            invoke, raw = (
                function_tool(make_search(is_async=is_async)).on_invoke_tool,
                json.dumps(arguments),
            )

            def call() -> Awaitable[object]:
                # The runner builds a ToolContext per call and passes the model's JSON string.
                context = ToolContext(
                    context=None, tool_name="search", tool_call_id="call_1", tool_arguments=raw
                )
                return invoke(context, raw)

            return _yielding(call)

        return build

    def register(functions: list[Callable[..., Any]]) -> object:
        return [function_tool(fn).params_json_schema for fn in functions]

    label = "openai-agents FunctionTool.on_invoke_tool"

    return Peer(
        "openai-agents",
        _version("openai-agents"),
        [
            Path(f"{label} (sync tool)", "JSON", invoked(False), is_async=True),
            Path(f"{label} (async tool)", "JSON", invoked(True), is_async=True),
        ],
        register,
        "function_tool (strict schema built eagerly)",
        [
            "openai-agents: takes only the model's JSON string; async; a sync tool hops to a "
            "worker thread (asyncio.to_thread); errors come back as a string for the model."
        ],
    )


# -- pydantic-ai ------------------------------------------------------------------------------


def pydantic_ai() -> Peer:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    def handled(arguments_as: Literal["dict", "JSON"], is_async: bool) -> Callable[..., Any]:
        @contextlib.asynccontextmanager
        async def build(arguments: dict[str, Any]) -> AsyncIterator[AsyncCall]:
            # TestModel is pydantic-ai's offline model; ToolManager never calls it.
            context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
            toolset = FunctionToolset([Tool(make_search(is_async=is_async), name="search")])
            manager = await ToolManager(toolset).for_run_step(context)
            args = arguments if arguments_as == "dict" else json.dumps(arguments)
            # handle_call = validate_tool_call + execute_tool_call, as in an agent run step.
            yield lambda: manager.handle_call(ToolCallPart("search", args))

        return build

    def register(functions: list[Callable[..., Any]]) -> object:
        return [Tool(fn).tool_def for fn in functions]

    label = "pydantic-ai ToolManager.handle_call"

    return Peer(
        "pydantic-ai",
        _version("pydantic-ai-slim"),
        [
            Path(f"{label} (sync tool)", "dict", handled("dict", False), is_async=True),
            Path(f"{label} (sync tool)", "JSON", handled("JSON", False), is_async=True),
            Path(f"{label} (async tool)", "dict", handled("dict", True), is_async=True),
        ],
        register,
        "Tool(fn).tool_def",
        [
            "pydantic-ai: validates with the function's pydantic schema (enum values too); async; "
            "a sync tool hops to a worker thread (anyio run_sync)."
        ],
    )


# -- mcp --------------------------------------------------------------------------------------


def mcp() -> Peer:
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    def server(is_async: bool = False) -> Any:
        built = MCPServer("bench")
        built.add_tool(make_search(is_async=is_async))
        return built

    def in_process(is_async: bool) -> Callable[[dict[str, Any]], Any]:
        def build(arguments: dict[str, Any]) -> contextlib.AbstractAsyncContextManager[AsyncCall]:
            call_tool = server(is_async).call_tool
            return _yielding(lambda: call_tool("search", arguments))

        return build

    @contextlib.asynccontextmanager
    async def through_client(arguments: dict[str, Any]) -> AsyncIterator[AsyncCall]:
        async with Client(server()) as client:
            yield lambda: client.call_tool("search", arguments)

    def register(functions: list[Callable[..., Any]]) -> object:
        built = MCPServer("bench")
        for fn in functions:
            built.add_tool(fn)  # builds the argument model and the input schema
        return built

    return Peer(
        "mcp",
        _version("mcp"),
        [
            Path(
                "mcp MCPServer.call_tool in-process (sync tool)",
                "dict",
                in_process(False),
                is_async=True,
            ),
            Path(
                "mcp MCPServer.call_tool in-process (async tool)",
                "dict",
                in_process(True),
                is_async=True,
            ),
            Path("mcp Client(server).call_tool (sync tool)", "dict", through_client, is_async=True),
        ],
        register,
        "MCPServer.add_tool (input schema built eagerly)",
        [
            "mcp: lax pydantic validation ('2' -> 2), unknown arguments ignored; async; a sync "
            "tool hops to a worker thread (anyio.to_thread); Client adds the JSON-RPC session "
            "over an in-memory transport."
        ],
    )


# -- langchain-core ---------------------------------------------------------------------------


def langchain() -> Peer:
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    def structured(fn: Callable[..., Any]) -> Any:
        return StructuredTool.from_function(fn, parse_docstring=True)

    def with_dict(arguments: dict[str, Any]) -> SyncCall:
        invoke = structured(make_search()).invoke
        return lambda: invoke(arguments)

    def with_json(arguments: dict[str, Any]) -> SyncCall:
        invoke, raw = structured(make_search()).invoke, json.dumps(arguments)
        # A chat model's tool call reaches the tool as parsed args (json.loads in the parser).
        return lambda: invoke(json.loads(raw))

    def register(functions: list[Callable[..., Any]]) -> object:
        return [convert_to_openai_tool(structured(fn)) for fn in functions]

    return Peer(
        "langchain-core",
        _version("langchain-core"),
        [
            Path("langchain-core StructuredTool.invoke", "dict", with_dict),
            Path("langchain-core json.loads + StructuredTool.invoke", "JSON", with_json),
        ],
        register,
        "StructuredTool.from_function(parse_docstring=True) + convert_to_openai_tool",
        [
            "langchain-core: lax pydantic validation ('2' -> 2), unknown arguments ignored; "
            "sync invoke runs in the caller's thread through the callback manager; errors raise."
        ],
    )


PEERS: tuple[Callable[[], Peer], ...] = (smolagents, openai_agents, pydantic_ai, mcp, langchain)
PEER_NAMES = ("smolagents", "openai-agents", "pydantic-ai", "mcp", "langchain-core")


def load(factories: Iterable[Callable[[], Peer]]) -> tuple[list[Peer], list[str]]:
    """The peers that import, and one line for each that does not."""
    loaded, skipped = [], []
    for factory, name in zip(factories, PEER_NAMES, strict=True):
        try:
            loaded.append(factory())
        except ImportError as error:
            skipped.append(f"skipped {name}: {error} (pip install -e '.[bench]')")
    return loaded, skipped
