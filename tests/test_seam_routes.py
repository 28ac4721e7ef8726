"""Every route a call can take keeps the promises of the plain one: a differential test.

The same tools (tests/seam_route_tools.py) are reached by every route there is: the plain
registry (the reference), a registry with layers at each stage, a namespace view, `include`, a
deferred session (its `search_tools` and TOOL_NOT_LOADED answers too), lazy tools, a composite's
inner call, tools imported from an MCP server over the in-process `mcp.Client`, `BaseTool`
classes, and an OpenAPI document on a mock server. Each is driven with the same hostile calls
(strange names, text that is not JSON, NaN, deep nesting, wrong types, booleans for numbers...)
by a caller who may not see one of the tools, and for every call:

- the outcome is the plain route's (the same envelope where the route names tools alike, the same
  stage of failure where its tools are another kind: an imported tool's failure is the server's);
- every received layer saw the call once; the validated layer saw it exactly when it validated;
- the audit log has one line for it (a composite's inner calls have their own, derived ids);
- the hidden tool is never named, neither in an answer nor in any listing (unless the caller
  named it first).

Hypothesis runs derandomized (tests/conftest.py); `HYPOTHESIS_PROFILE=explore` searches further.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx2
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import seam_route_tools as route_tools
from toolsys import BaseTool, Call, Next, Registry, ToolResult
from toolsys.compose import pipeline
from toolsys.governance import AuditLog, Policy
from toolsys.mcp import import_server
from toolsys.mcp.server import to_server
from toolsys.openapi import tools_from_spec

HIDDEN = "wipe_everything"
CALLER = {"user": "ana", "roles": ["viewer"]}
TOOLS = ("add", "echo", "explode")
BEFORE_VALIDATION = {"UNKNOWN_TOOL", "INVALID_JSON", "INVALID_ARGUMENTS", "PERMISSION_DENIED"}
TOOL_FAILED = {"EXECUTION_ERROR", "HTTP_ERROR", "MCP_TOOL_ERROR"}


# -- what every layered route carries: recorders at both stages and an audit log ----------------


@dataclass
class Recorder:
    """A pass-through layer that remembers the call ids it saw."""

    name: str
    stage: str
    seen: list[str | None] = field(default_factory=list)

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.seen.append(call.call_id)
        return await call_next(call)


@dataclass
class Watch:
    """The layers of one route, and what they saw."""

    received: Recorder
    validated: Recorder
    log: io.StringIO

    def layers(self) -> list[Any]:
        return [AuditLog(self.log), self.received, Policy(), self.validated]

    def lines(self, call_id: str) -> list[dict[str, Any]]:
        records = [json.loads(line) for line in self.log.getvalue().splitlines()]
        return [r for r in records if r["call_id"] == call_id]


def watched() -> Watch:
    return Watch(Recorder("seen", "received"), Recorder("checked", "validated"), io.StringIO())


def _plain_tools(registry: Any) -> None:
    for fn in route_tools.PLAIN:
        registry.register(fn)
    registry.register(route_tools.wipe_everything, roles={"admin"})


# -- the routes ------------------------------------------------------------------------------------


@dataclass
class Route:
    """One way in: `run(name, arguments, call_id)`, how names are spelled there, its listing."""

    label: str
    run: Callable[..., Any]
    spell: Callable[[Any], Any]
    listing: Callable[[], Any]
    watch: Watch | None = None
    exact: bool = True  # same envelope as the plain route, not only the same outcome
    wire: bool = False  # its tools run across a wire (MCP, HTTP), which carries only UTF-8
    named: Callable[[str], str] = str  # a tool's name as the route's answers say it


def _classes() -> list[BaseTool]:
    class Add(BaseTool):
        """Add two numbers."""

        name = "add"

        def run(self, a: float, b: float) -> float:
            """Add two numbers.

            Args:
                a: First addend.
                b: Second addend.
            """
            return route_tools.add(a, b)

    class Echo(BaseTool):
        """Repeat a text."""

        name = "echo"

        def run(self, text: str, times: route_tools.Times = 1) -> str:
            """Repeat a text.

            Args:
                text: What to repeat.
                times: How often, 0 to 3.
            """
            return route_tools.echo(text, times)

    class Explode(BaseTool):
        """Fail on purpose."""

        name = "explode"

        def run(self, x: int) -> int:
            """Fail on purpose.

            Args:
                x: Anything.
            """
            return route_tools.explode(x)

    class Wipe(BaseTool):
        """Wipe every customer's data (admins only)."""

        name = HIDDEN
        roles = {"admin"}  # noqa: RUF012  # read by as_tool like any class attribute

        def run(self, confirm: str) -> str:
            """Wipe.

            Args:
                confirm: The confirmation phrase.
            """
            return "wiped"

    return [Add(), Echo(), Explode(), Wipe()]


SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "route tools", "version": "1"},
    "servers": [{"url": "https://tools.test"}],
    "paths": {
        f"/{name}": {
            "get": {
                "operationId": name,
                "summary": getattr(route_tools, name).__doc__.splitlines()[0],
                "parameters": [
                    {"name": key, "in": "query", "required": key in route_tools.REQUIRED[name]}
                    | {"schema": schema | ({"default": 1} if key == "times" else {})}
                    for key, schema in route_tools.MANIFESTS[name].items()
                ],
            }
        }
        for name in TOOLS
    },
}


def _api(request: httpx2.Request) -> httpx2.Response:
    """The mock server behind the OpenAPI route: the same tools, over HTTP."""
    name = request.url.path.strip("/")
    query = {k: v[0] for k, v in parse_qs(request.url.query.decode()).items()}
    if name == "add":
        return httpx2.Response(200, json=float(query["a"]) + float(query["b"]))
    if name == "echo":
        return httpx2.Response(200, json=query["text"] * int(query.get("times", 1)))
    return httpx2.Response(500, json={"message": f"exploded on {query.get('x')}"})


async def build_routes() -> tuple[dict[str, Route], list[Any]]:
    """Every route, and what to close afterwards."""
    routes: dict[str, Route] = {}
    plain = Registry()
    _plain_tools(plain)

    def via(registry: Any, label: str, **options: Any) -> Route:
        return Route(
            label,
            lambda name, arguments, call_id: registry.aexecute(
                name, arguments, context=CALLER, call_id=call_id
            ),
            options.pop("spell", lambda name: name),
            lambda: registry.export(context=CALLER),
            **options,
        )

    routes["plain"] = via(plain, "plain")

    watch = watched()
    layered = Registry(layers=watch.layers())
    _plain_tools(layered)
    routes["layered"] = via(layered, "layered", watch=watch)

    watch = watched()
    spaced = Registry(layers=watch.layers())
    _plain_tools(spaced.namespace("ns"))
    routes["namespace"] = via(spaced.namespace("ns"), "namespace", watch=watch)
    routes["namespace"].named = lambda name: f"ns__{name}"

    watch = watched()
    including = Registry(layers=watch.layers())
    including.include(plain, prefix="inc")
    spell = _prefixed("inc")
    # not `exact`: a did-you-mean over longer names (inc__...) may find another close one
    routes["include"] = via(including, "include", watch=watch, spell=spell, exact=False)

    watch = watched()
    deferring = Registry(layers=watch.layers())
    _plain_tools(deferring)
    session = deferring.deferred(core=[*TOOLS, HIDDEN])
    routes["deferred"] = via(session, "deferred", watch=watch)

    watch = watched()
    lazy = Registry(layers=watch.layers())
    for name in TOOLS:
        lazy.lazy(
            name,
            summary=getattr(route_tools, name).__doc__.splitlines()[0],
            loader=f"tests.seam_route_tools:{name}",
            parameters={
                "type": "object",
                "properties": route_tools.MANIFESTS[name],
                "required": route_tools.REQUIRED[name],
            },
        )
    lazy.register(route_tools.wipe_everything, roles={"admin"})
    routes["lazy"] = via(lazy, "lazy", watch=watch, exact=False)

    watch = watched()
    composed = Registry(layers=watch.layers())
    _plain_tools(composed)
    for name in (*TOOLS, HIDDEN):
        composed.add(pipeline(f"via_{name}", [composed.get(name)]))
    spell = _prefixed("via", "_")
    routes["composite"] = via(
        composed, "composite", watch=watch, spell=spell, exact=False, named=spell
    )

    watch = watched()
    importing = Registry(layers=watch.layers())
    served = Registry()
    _plain_tools(served)
    imported = await import_server(importing, to_server(served), prefix="m", trust="trusted")
    importing.register(route_tools.wipe_everything, name=f"m__{HIDDEN}", roles={"admin"})
    spell = _prefixed("m")
    routes["mcp"] = via(
        importing, "mcp", watch=watch, spell=spell, exact=False, named=spell, wire=True
    )

    watch = watched()
    classes = Registry(layers=watch.layers())
    for tool in _classes():
        classes.add(tool)
    routes["basetool"] = via(classes, "basetool", watch=watch)

    watch = watched()
    api = Registry(layers=watch.layers())
    client = httpx2.Client(transport=httpx2.MockTransport(_api))
    tools_from_spec(SPEC, client=client, registry=api)
    api.register(route_tools.wipe_everything, roles={"admin"})
    routes["openapi"] = via(api, "openapi", watch=watch, exact=False, wire=True)
    return routes, [imported]


def _prefixed(prefix: str, separator: str = "__") -> Callable[[Any], Any]:
    return lambda name: f"{prefix}{separator}{name}" if isinstance(name, str) else name


# -- hostile calls -----------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "text", "times", "x", "confirm", "zzz", ""])
VALUES = (
    st.none()
    | st.booleans()
    | st.integers(-3, 5)
    | st.sampled_from([2.0, 1.5, -0.0, 1e20, float("nan"), float("inf"), 10**30])
    | st.text(max_size=4)
    | st.lists(st.integers(0, 2), max_size=2)
)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=4)
VALID = st.sampled_from(
    [{"a": 1, "b": 2.5}, {"text": "hi", "times": 2}, {"text": "hi"}, {"x": 3}, {"confirm": "yes"}]
)
TEXTS = st.sampled_from(
    [
        '{"a": 1, "b": 2}',
        '{"a": 1',
        '{"a": NaN, "b": 1}',
        '{"a": 1, "b": Infinity}',
        "[1, 2]",
        "",
        '"x"',
        '{"text": "' + "\\ud800" + '"}',
        '{"a": ' + "[" * 70 + "]" * 70 + ', "b": 1}',
        '{"x": ' + "9" * 1200 + "}",
        '{"a": true, "b": 1}',
        '{"times": 2.0, "text": "ok"}',
    ]
)
ARGUMENTS = VALID | OBJECTS | (VALID | OBJECTS).map(json.dumps) | TEXTS | st.none()
NAMES = st.sampled_from([*TOOLS, HIDDEN, "ad", "Add", "wipe_everythin", "wipe-everything", "nope"])


def outcome(result: ToolResult) -> tuple[Any, ...]:
    """What a route must agree on with the plain one, whatever kind its tools are."""
    if result.ok:
        return ("ok", json.dumps(result.value, sort_keys=True))
    code = str(result.error.code) if result.error is not None else "?"
    return ("failed", "tool failed" if code in TOOL_FAILED else code)


def envelope(result: ToolResult, route: Route, sent: Any) -> Any:
    """The whole answer, the route's spelling of tool names taken back to the plain one's."""
    text = json.dumps(result.to_dict(), sort_keys=True)
    spelled = {route.named(name): name for name in (*TOOLS, HIDDEN)}
    if isinstance(sent, str):
        spelled[route.spell(sent)] = sent
    for wire in sorted(spelled, key=len, reverse=True):
        text = text.replace(wire, spelled[wire])
    return text


def _hidden_named(text: str) -> bool:
    return HIDDEN in text or HIDDEN.replace("_", "-") in text


@settings(max_examples=40, deadline=None)
@given(calls=st.lists(st.tuples(NAMES, ARGUMENTS), min_size=1, max_size=4))
def test_every_route_keeps_the_plain_routes_promises(calls: list[tuple[Any, Any]]) -> None:
    asyncio.run(_every_route(calls))


async def _every_route(calls: list[tuple[Any, Any]]) -> None:
    routes, close = await build_routes()
    try:
        for route in routes.values():
            listed = json.dumps(route.listing())
            assert not _hidden_named(listed), f"{route.label} lists the hidden tool"
        for index, (name, arguments) in enumerate(calls):
            call_id = f"c{index}"
            reference = await routes["plain"].run(name, arguments, call_id)
            for route in routes.values():
                if route.label == "composite" and name not in (*TOOLS, HIDDEN):
                    continue  # a composite exists only for a real tool
                sent = route.spell(name)
                result = await route.run(sent, arguments, call_id)
                where = f"{route.label}: {sent!r}({arguments!r})"
                lossy = route.wire and reference.ok and "\\ud8" in json.dumps(arguments)
                if not lossy:  # a lone surrogate cannot cross UTF-8: replaced or refused there
                    assert outcome(result) == outcome(reference), where
                if route.exact:
                    plain = envelope(reference, routes["plain"], name)
                    assert envelope(result, route, name) == plain, where
                if name != HIDDEN and not (isinstance(name, str) and _hidden_named(name)):
                    assert not _hidden_named(result.to_message()), f"{where} names {HIDDEN}"
                _layers_saw(route, call_id, reference, result, where)
    finally:
        for imported in close:
            await imported.aclose()


def _layers_saw(
    route: Route, call_id: str, reference: ToolResult, result: ToolResult, where: str
) -> None:
    watch = route.watch
    if watch is None:
        return
    assert watch.received.seen.count(call_id) == 1, f"{where}: the received layer"
    validated = reference.error is None or reference.error.code not in BEFORE_VALIDATION
    assert watch.validated.seen.count(call_id) == int(validated), f"{where}: the validated layer"
    (line,) = watch.lines(call_id)  # one line per model call
    assert line["ok"] is result.ok and line["tool"] != "", where


def test_a_deferred_sessions_own_answers_meet_every_layer_and_name_nothing_hidden() -> None:
    watch = watched()
    registry = Registry(layers=watch.layers())
    _plain_tools(registry)
    session = registry.deferred()
    answers = {
        "c0": session.execute("add", {"a": 1, "b": 2}, context=CALLER, call_id="c0"),
        "c1": session.execute(HIDDEN, {"confirm": "x"}, context=CALLER, call_id="c1"),
        "c2": session.execute("search_tools", {"query": "wipe data"}, context=CALLER, call_id="c2"),
        "c3": session.execute("search_tools", {"query": "add"}, context=CALLER, call_id="c3"),
        "c4": session.execute("add", {"a": 1, "b": 2}, context=CALLER, call_id="c4"),
    }
    codes = {k: None if r.ok else str(r.error.code) for k, r in answers.items()}  # type: ignore[union-attr]
    assert codes == {
        "c0": "TOOL_NOT_LOADED",
        "c1": "PERMISSION_DENIED",
        "c2": None,
        "c3": None,
        "c4": None,
    }
    assert not _hidden_named(answers["c2"].to_message()) and HIDDEN not in session.loaded
    for call_id in answers:
        assert watch.received.seen.count(call_id) == 1 and len(watch.lines(call_id)) == 1
    assert watch.validated.seen == ["c2", "c3", "c4"]
    assert not _hidden_named(json.dumps(session.export(context=CALLER)))
