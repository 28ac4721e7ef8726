"""Exercise 9.4, a deferred-export round trip: the check and its reference, `dispatch`.

The rules of `toolsys.search.Deferred`, driven by the offline model; the cases include
TOOL_NOT_LOADED for a name that does not exist at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_true,
)
from toolsys.checks.ch09._shared import Recorder
from toolsys.errors import ToolError
from toolsys.execution import Call, Next
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.spec import Param, ToolSpec
from toolsys.tool import tool_from_spec

SEARCH = "search_tools"


def dispatch(
    registry: Registry, core: list[str], loaded: list[str], name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """Reference for 9.4: the rules of `toolsys.search.Deferred`, as plain envelopes."""
    from toolsys.search import Deferred

    session = Deferred(registry, core)
    session.loaded = loaded
    result = session.execute(name, arguments)
    if name == SEARCH and result.ok:
        return {"ok": True, "value": {"found": [found["name"] for found in result.value["found"]]}}
    return result.to_dict()


_TRACK = "track my package 1Z999AA10123456784"


class _Ran(Recorder):
    """Notes the calls that run a catalog tool: validated ones (a TOOL_NOT_LOADED answer never
    is), and not `search_tools`, which a session also sends through the registry's layers."""

    stage = "validated"

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        if call.name != SEARCH:
            self.seen.append(call.name)
        return await call_next(call)


def _catalog() -> tuple[Registry, list[str]]:
    """The 356-tool catalog, behind a layer that notes every call that runs one of its tools."""
    from toolsys.search import catalog_registry

    recorder = _Ran()
    registry = catalog_registry(Registry(layers=[recorder]))
    return registry, recorder.seen


def _dispatch(
    student: Callable[..., Any],
    registry: Registry,
    core: list[str],
    loaded: list[str],
    name: str,
    arguments: dict[str, Any],
) -> dict[str, Any]:
    what = f"dispatch(registry, {core}, {loaded}, {name!r}, {arguments})"
    got = call_student(
        student, registry, core, loaded, name, arguments, what=what, returns="an envelope dict"
    )
    expect_plain(
        got,
        what=what,
        shape="an envelope: {'ok': True, 'value': ...} or {'ok': False, 'error': {...}}",
    )
    if type(got) is not dict or type(got.get("ok")) is not bool:
        raise CheckFailed(
            f"{what} should return an envelope.",
            expected=Described("{'ok': True, 'value': ...} or {'ok': False, 'error': {...}}"),
            got=got,
            hint="Return registry.execute(name, arguments).to_dict() for a tool that may run.",
        )
    return got


class _Session:
    """What the loop needs of a session (export, aexecute), over the student's dispatch."""

    def __init__(self, student: Callable[..., Any], registry: Registry, core: list[str]) -> None:
        self.student, self.registry, self.core = student, registry, core
        self.loaded: list[str] = []
        spec = ToolSpec(
            SEARCH,
            "Find more tools by keywords; the tools found can be called from the next turn on.",
            [Param("query", "string", "What you want to do, in a few words.")],
        )
        self.search = tool_from_spec(spec, lambda query: None)

    def export(self, target: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]:
        from toolsys.export import export_tools

        shown = [tool for tool in self.registry if tool.name in {*self.core, *self.loaded}]
        return export_tools([*shown, self.search], target, strict=strict)

    async def aexecute(self, name: str, arguments: Any = None, **ids: Any) -> ToolResult:
        if isinstance(arguments, str):  # the loop passes the model's JSON text as it came
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {}
        if not isinstance(arguments, dict):
            arguments = {}
        got = _dispatch(self.student, self.registry, self.core, self.loaded, name, arguments)
        if got["ok"]:
            return ToolResult.success(got.get("value"), tool=name)
        error = got.get("error") or {}
        return ToolResult.failure(
            ToolError(
                str(error.get("code", "ERROR")),
                str(error.get("message", "")),
                suggestion=str(error.get("suggestion", "")),
                retryable=error.get("retryable") is True,
            ).to_info(),
            tool=name,
        )


@exercise(
    "9.4",
    title="A deferred-export round trip",
    hints=[
        "Three cases, in this order: search_tools; a registered tool the model cannot see yet; "
        "everything else (registry.execute(name, arguments).to_dict()).",
        "search_tools: hits = registry.search(arguments['query'], arguments.get('k', 5)); append "
        "each hit's name to `loaded` unless it is in core or loaded already.",
        "Not loaded yet means: name in registry, and in neither core nor loaded. Answer "
        "TOOL_NOT_LOADED, retryable True, with a suggestion to call search_tools. An unknown "
        "name is the registry's business: UNKNOWN_TOOL.",
    ],
    reference=lambda: dispatch,
    timeout=60,
)
def _check_dispatch(student: Callable[..., Any]) -> None:
    registry, ran = _catalog()
    core, loaded = ["math_calculate"], list[str]()
    query = {"query": "refund a payment", "k": 3}
    got = _dispatch(student, registry, core, loaded, SEARCH, query)
    expected = [hit.name for hit in registry.search("refund a payment", 3)]
    expect_equal(got, {"ok": True, "value": {"found": expected}}, what="the search_tools envelope")
    expect_equal(loaded, expected, what="`loaded` after the search", hint="Append each name found.")
    got = _dispatch(student, registry, core, loaded, SEARCH, {"query": "calculate refund payment"})
    again = [hit.name for hit in registry.search("calculate refund payment", 5)]
    expect_equal(
        got,
        {"ok": True, "value": {"found": again}},
        what="the search_tools envelope of a second search, which finds a core tool and some "
        "tools already loaded",
        hint="'found' is every name the search returned, best first, loaded or core ones "
        "included: only `loaded` skips them. The default k is 5.",
    )
    expect_equal(
        loaded,
        [*expected, *[n for n in again if n not in expected and n not in core]],
        what="`loaded` after a second search that finds some of the same tools and a core tool",
        hint="A name already in core or loaded is not appended again; the default k is 5.",
    )
    ran.clear()
    got = _dispatch(
        student, registry, core, loaded, "shipping_track_package", {"tracking_number": "1Z"}
    )
    error = got.get("error") if got.get("ok") is False else None
    expect_equal(
        [
            got.get("ok"),
            type(error) is dict and error.get("code"),
            type(error) is dict and error.get("retryable"),
        ],
        [False, "TOOL_NOT_LOADED", True],
        what="[ok, code, retryable] for a registered tool that was not loaded yet",
        hint="The tool exists but is not loaded yet: answer {'ok': False, 'error': {'code': "
        "'TOOL_NOT_LOADED', 'retryable': True, ...}}. retryable is True because the same call "
        "works once search_tools has loaded it (not an unknown tool: the name is right).",
    )
    expect_true(
        SEARCH in str(error.get("suggestion", "")) if type(error) is dict else False,
        "The TOOL_NOT_LOADED error should suggest calling search_tools.",
        hint="Say what to do next: 'Call search_tools with a few words ... first'.",
    )
    message = error.get("message") if type(error) is dict else None
    expect_true(
        type(message) is str and message.strip() != "",
        "The TOOL_NOT_LOADED error should have a message (a non-empty str) saying what happened.",
        hint="E.g. 'Tool 'shipping_track_package' exists but is not loaded in this conversation "
        "yet.'",
    )
    expect_equal(ran, [], what="the tools that ran for a call that was not loaded yet")
    for name, arguments, kind in (
        ("no_such_tool", {}, "a name that is not registered at all"),
        ("math_calculate", {"expression": "2+2"}, "a core tool"),
        (expected[0], {}, "a tool loaded by the first search"),
    ):
        got = _dispatch(student, registry, core, loaded, name, arguments)
        wanted = registry.execute(name, arguments).to_dict()
        what = f"dispatch(..., {name!r}, {arguments}), {kind},"
        _expect_same_outcome(got, wanted, what)
        expect_equal(
            got,
            wanted,
            what=what,
            hint="A core tool, a loaded one and an unknown name all go to registry.execute(name, "
            "arguments).to_dict(): return its envelope as it is.",
        )
    _round_trip(student)


def _outcome(envelope: dict[str, Any]) -> str:
    """An envelope in a word: "ok", or its error code."""
    error = envelope.get("error")
    code = error.get("code") if type(error) is dict else None
    return "ok" if envelope.get("ok") is True else str(code)


def _expect_same_outcome(got: dict[str, Any], wanted: dict[str, Any], what: str) -> None:
    """What matters first: the outcome (ok or which error), before the envelope's details."""
    mine, theirs = _outcome(got), _outcome(wanted)
    if mine == theirs:
        return
    if mine == "TOOL_NOT_LOADED" and theirs == "UNKNOWN_TOOL":
        why = (
            "No search can load a name that is not registered: TOOL_NOT_LOADED would send the "
            "model searching for a tool that does not exist. Refuse as not loaded only a name "
            "that is in the registry; leave an unknown one to registry.execute (UNKNOWN_TOOL)."
        )
    elif mine == "TOOL_NOT_LOADED":
        why = (
            "This tool may run now (it is in core or loaded): only a registered tool in neither "
            "is TOOL_NOT_LOADED."
        )
    else:
        why = "Hand this call to registry.execute(name, arguments) and return .to_dict()."
    raise CheckFailed(
        f"{what} returned {mine}; the registry answers {theirs}.",
        expected=Described(theirs),
        got=Described(mine),
        hint=why,
    )


def _round_trip(student: Callable[..., Any]) -> None:
    from toolsys.loop import ToolCallEvent, run_agent
    from toolsys.models import client

    registry, ran = _catalog()
    session = _Session(student, registry, ["math_calculate"])
    transcript = run_agent(client(), session, _TRACK)
    called = [event.name for event in transcript.events if isinstance(event, ToolCallEvent)]
    expect_equal(
        [called, ran],
        [[SEARCH, "shipping_track_package"], ["shipping_track_package"]],
        what=f"[the calls, the tools that ran] when the offline model is asked {_TRACK!r}",
        hint="The model searches first, then calls what it found: the search must load it.",
    )
