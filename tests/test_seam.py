"""The executor seam keeps its promises on every route (issue 25; issue 34 items 1 and 4).

Each test is one defect the review reproduced against the public API before the seam: every one
failed then and passes now. The differential property test over every route is
tests/test_seam_routes.py.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, ClassVar, Literal, Optional

import pytest
from pydantic import BaseModel

from toolsys import (
    BaseTool,
    Call,
    Category,
    Context,
    Executor,
    Layer,
    Next,
    Param,
    Registry,
    Toolkit,
    ToolResult,
    ToolSpec,
)
from toolsys.compose import pipeline
from toolsys.errors import ToolDefinitionError
from toolsys.governance import Allow, AuditLog, Deny, Hooks, NeedsApproval, Policy
from toolsys.governance.approval import sign_paused
from toolsys.layers import Timeout
from toolsys.loop import resume_agent, run_agent
from toolsys.models import ScriptedModel, calls, text
from toolsys.transcript import Transcript


def _lines(log: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.getvalue().splitlines()]


def _code(result: ToolResult) -> str | None:
    return None if result.error is None else str(result.error.code)


# -- layers bypassed ------------------------------------------------------------------------------


def test_a_deferred_sessions_search_and_its_tool_not_loaded_answers_meet_every_layer() -> None:
    log = io.StringIO()
    registry = Registry(layers=[AuditLog(log)])

    @registry.tool
    def get_time() -> str:
        """Tell the current time."""
        return "12:00"

    @registry.tool
    def track_order(order_id: str) -> str:
        """Track where an order is on its way."""
        return order_id

    session = registry.deferred(core=["get_time"])
    assert _code(session.execute("track_order", {"order_id": "A"}, call_id="c1")) == (
        "TOOL_NOT_LOADED"
    )
    found = session.execute("search_tools", {"query": "track order"}, call_id="c2")
    assert found.ok and session.loaded == ["track_order"]
    assert session.execute("track_order", {"order_id": "A"}, call_id="c3").value == "A"
    records = _lines(log)
    assert [(r["call_id"], r["tool"], r["outcome"]) for r in records] == [
        ("c1", "track_order", "TOOL_NOT_LOADED"),
        ("c2", "search_tools", "ok"),
        ("c3", "track_order", "ok"),
    ]


def test_a_lazy_tools_blocking_code_is_bounded_by_timeout_and_gets_its_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "seam_slow_tools.py").write_text(
        textwrap.dedent(
            '''
            import time
            from toolsys import Context

            def nap(seconds: float, ctx: Context) -> str:
                """Sleep."""
                time.sleep(seconds)
                return f"{ctx.user} slept"
            '''
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "seam_slow_tools", raising=False)
    registry = Registry(layers=[Timeout(0.6)])
    registry.lazy(
        "nap",
        summary="Sleep.",
        loader="seam_slow_tools:nap",
        parameters={
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
    )
    assert registry.execute("nap", {"seconds": 0}, context={"user": "ana"}).value == "ana slept"
    started = time.monotonic()
    late = registry.execute("nap", {"seconds": 3}, context={"user": "ana"})
    assert _code(late) == "TIMEOUT" and time.monotonic() - started < 2.5


def test_a_lazy_tool_a_policy_denies_is_never_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "seam_never_imported.py").write_text("raise SystemExit('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(layers=[Policy()])  # EXECUTE waits for a person: it does not run
    registry.lazy("wipe", summary="Wipe.", loader="seam_never_imported:wipe", category="execute")
    assert _code(registry.execute("wipe", {})) == "APPROVAL_REQUIRED"
    assert "seam_never_imported" not in sys.modules


def test_a_namespace_never_reaches_a_tool_outside_it_whatever_the_name_length() -> None:
    registry = Registry()
    ran: list[str] = []
    long_name = "x" * 60

    @registry.tool(name=long_name)
    def root() -> str:
        """A root tool with a long name."""
        ran.append("root")
        return "root"

    space = registry.namespace("billing")
    result = space.execute(long_name, {})
    assert _code(result) == "UNKNOWN_TOOL" and ran == []
    assert result.error.details["available"] == []  # type: ignore[union-attr]  # nor offered


# -- validated means validated --------------------------------------------------------------------


def _adding() -> Registry:
    registry = Registry()

    @registry.tool
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    return registry


def test_arguments_a_layer_builds_without_validation_are_validated_again() -> None:
    registry = _adding()

    async def sneak(call: Call, call_next: Next) -> ToolResult:
        assert call.tool is not None
        forged = call.tool.model.model_construct(a="1", b="2")
        return await call_next(call.replace(arguments=forged))

    sneak.stage = "validated"  # type: ignore[attr-defined]
    registry.use(sneak)
    result = registry.execute("add", {"a": 1, "b": 2})
    assert _code(result) == "INVALID_ARGUMENTS" and result.value != "12"


def test_a_layer_that_swaps_the_tool_never_runs_it_with_the_first_tools_arguments() -> None:
    registry = Registry()
    seen: list[Any] = []

    @registry.tool
    def first(a: int) -> int:
        """First."""
        return a

    @registry.tool
    def other(a: str) -> str:
        """Other."""
        seen.append(a)
        return a

    async def swap(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call.replace(tool=registry.get("other")))

    swap.stage = "validated"  # type: ignore[attr-defined]
    registry.use(swap)
    result = registry.execute("first", {"a": 1})  # 1 is valid for `first`, never for `other`
    assert _code(result) == "INVALID_ARGUMENTS" and "other" in result.error.message  # type: ignore[union-attr]
    assert seen == []


def test_validated_arguments_cannot_be_changed_after_the_policy_decided() -> None:
    log = io.StringIO()
    ran: list[float] = []
    registry = Registry(layers=[AuditLog(log), Policy(grants={"support": {Category.WRITE}})])

    def bump(call: Call) -> None:
        call.arguments.amount = 5000  # type: ignore[union-attr]

    registry.use(Hooks(before=[bump]))

    @registry.tool(category=Category.WRITE)
    def refund(amount: float) -> float:
        """Refund."""
        ran.append(amount)
        return amount

    result = registry.execute("refund", {"amount": 20}, context={"roles": ["support"]})
    assert not result.ok and ran == []  # the hook failed: frozen arguments cannot be assigned
    assert _lines(log)[-1]["arguments"] == {"amount": 20.0}


class Order(BaseModel):
    amount: float
    items: list[str] = []


def test_a_tool_that_changes_what_it_received_changes_no_record() -> None:
    log = io.StringIO()
    registry = Registry(layers=[AuditLog(log)])

    def model_mutator(args: Order) -> float:
        args.amount = 99999
        args.items.append("extra")
        return 1

    def list_mutator(items: list[str]) -> int:
        """Append."""
        items.append("extra")
        return len(items)

    registry.register(model_mutator, args=Order)
    registry.register(list_mutator)
    assert registry.execute("model_mutator", {"amount": 1, "items": ["a"]}).ok
    assert registry.execute("list_mutator", {"items": ["a"]}).value == 2
    first, second = _lines(log)
    assert first["arguments"] == {"amount": 1.0, "items": ["a"]}
    assert second["arguments"] == {"items": ["a"]}


def test_the_approver_sees_the_default_the_tool_will_really_receive() -> None:
    got: list[int] = []
    shown: list[dict[str, Any]] = []

    def pay(amount: int = 1000) -> int:
        got.append(amount)
        return amount

    registry = Registry(layers=[Policy()])
    spec = ToolSpec(
        "pay", "Pay.", [Param("amount", "integer", "Amount.", required=False)], Category.WRITE
    )
    registry.register(spec, pay)
    asked = registry.execute("pay", {})
    assert asked.meta["approval"]["arguments"] == {"amount": 1000}

    def approver(pending: Any) -> bool:
        shown.append(pending.arguments)
        return True

    script = [calls(("pay", {})), text("paid")]
    t = run_agent(ScriptedModel(script).client(), registry, "pay", approver=approver)
    assert t.status == "completed" and shown == [{"amount": 1000}] and got == [1000]


# -- shared mutable state -------------------------------------------------------------------------


def test_concurrent_callers_never_share_a_result_a_caching_layer_kept() -> None:
    kept: list[ToolResult] = []

    async def cache(call: Call, call_next: Next) -> ToolResult:
        if not kept:
            kept.append(await call_next(call))
        return kept[0]

    registry = _adding()
    registry.use(cache)

    async def both() -> tuple[ToolResult, ToolResult]:
        first = await registry.aexecute("add", {"a": 1, "b": 2})
        b, c = await asyncio.gather(
            registry.aexecute("add", {"a": 1, "b": 2}), registry.aexecute("add", {"a": 1, "b": 2})
        )
        assert first is not kept[0]
        return b, c

    b, c = asyncio.run(both())
    b.meta["edited"] = True
    assert b is not kept[0] and c is not kept[0] and b is not c
    assert "edited" not in c.meta and "edited" not in kept[0].meta and kept[0].meta == {}


# -- who may see what -----------------------------------------------------------------------------


def _staff() -> Registry:
    registry = Registry(layers=[Policy()])

    @registry.tool(roles={"admin"})
    def wipe_all_customer_data() -> str:
        """Wipe every customer's data."""
        return "wiped"

    @registry.tool
    def wipe_cache() -> str:
        """Wipe the cache."""
        return "cache wiped"

    return registry


def test_an_unknown_tool_answer_never_names_a_tool_hidden_from_the_caller() -> None:
    for registry in (_staff(), Registry()):
        if not len(registry):
            registry.register(lambda: "x", name="wipe_all_customer_data", roles={"admin"})
        viewer = registry.execute("wipe_all_customer_dat", {}, context={"roles": ["viewer"]})
        assert _code(viewer) == "UNKNOWN_TOOL"
        assert "wipe_all_customer_data" not in viewer.to_message()
        admin = registry.execute("wipe_all_customer_dat", {}, context={"roles": ["admin"]})
        assert "wipe_all_customer_data" in admin.to_message()


def test_a_hidden_tool_called_with_bad_arguments_is_refused_without_describing_it() -> None:
    registry = Registry()

    @registry.tool(roles={"admin"})
    def secret(confirm_phrase: str) -> str:
        """Secret."""
        return confirm_phrase

    result = registry.execute("secret", {"wrong": 1}, context={"roles": ["viewer"]})
    assert _code(result) == "PERMISSION_DENIED" and "confirm_phrase" not in result.to_message()
    assert result.meta["decision"] == "deny"


def test_an_mcp_server_lists_and_runs_only_what_its_caller_may_use() -> None:
    from mcp import Client

    from toolsys.mcp.server import to_server

    registry = _staff()

    async def listing(context: Any) -> tuple[list[str], bool]:
        async with Client(to_server(registry, context=context)) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            called = await client.call_tool("wipe_all_customer_data", {})
            return names, called.is_error

    assert asyncio.run(listing(None)) == (["wipe_cache"], True)
    names, failed = asyncio.run(listing({"roles": ["admin"]}))
    assert names == ["wipe_all_customer_data", "wipe_cache"] and not failed


class Secret(BaseTool):
    """A secret."""

    roles: ClassVar[Any] = {"admin"}

    def run(self) -> str:
        return "secret"


class Flagged(BaseTool):
    """Behind a flag."""

    available = staticmethod(lambda context: context.get("beta") is True)

    def run(self) -> str:
        return "beta"


def test_a_class_tools_roles_and_available_are_honoured() -> None:
    registry = Registry()
    registry.add(Secret())
    registry.add(Flagged())
    assert _code(registry.execute("secret", {}, context={"roles": ["viewer"]})) == (
        "PERMISSION_DENIED"
    )
    assert registry.execute("secret", {}, context={"roles": ["admin"]}).value == "secret"
    assert registry.export(context={"beta": True, "roles": ["admin"]})
    assert [t["function"]["name"] for t in registry.export(context={})] == []
    assert registry.execute("flagged", {}, context={"beta": True}).value == "beta"


def test_a_composite_is_only_for_callers_who_may_use_every_step() -> None:
    registry = Registry()

    @registry.tool(roles={"manager"})
    def approve_refund(order_id: str) -> dict[str, str]:
        """Approve."""
        return {"order_id": order_id}

    @registry.tool
    def notify(order_id: str) -> str:
        """Notify."""
        return order_id

    steps = [registry.get("approve_refund"), registry.get("notify")]
    both = registry.add(pipeline("approve_and_notify", steps))
    assert both.roles == frozenset({"manager"})
    customer = {"roles": ["customer"]}
    assert "approve_and_notify" not in [
        t["function"]["name"] for t in registry.export(context=customer)
    ]
    assert _code(registry.execute("approve_and_notify", {"order_id": "A"}, context=customer)) == (
        "PERMISSION_DENIED"
    )
    manager = {"roles": ["manager"]}
    assert registry.execute("approve_and_notify", {"order_id": "A"}, context=manager).value == "A"


def test_imported_mcp_tools_take_roles_and_available() -> None:
    from toolsys.mcp import import_server
    from toolsys.mcp.server import to_server

    source = _adding()
    local = Registry()

    async def imported() -> tuple[list[str], str | None]:
        tools = await import_server(local, to_server(source), prefix="m", roles={"ops"})
        async with tools:
            names = [t["function"]["name"] for t in local.export(context={"roles": ["x"]})]
            result = await local.aexecute("m__add", {"a": 1, "b": 2}, context={"roles": ["x"]})
            return names, _code(result)

    assert asyncio.run(imported()) == ([], "PERMISSION_DENIED")


@pytest.mark.parametrize("annotation", ["Context | None", "Optional[Context]"])
def test_an_optional_context_is_injected_never_taken_from_the_model(annotation: str) -> None:
    namespace: dict[str, Any] = {"Context": Context, "Optional": Optional}
    exec(
        f"def whoami(ctx: {annotation} = None) -> str:\n"
        "    '''Who is asking.'''\n"
        "    return f'{ctx.user}:{sorted(ctx.roles)}'\n",
        namespace,
    )
    registry = Registry()
    registry.register(namespace["whoami"])
    assert registry.get("whoami").parameters["properties"] == {}
    forged = registry.execute("whoami", {"ctx": {"user": "admin", "roles": ["admin"]}})
    assert _code(forged) == "INVALID_ARGUMENTS"
    assert registry.execute("whoami", {}, context={"user": "ana"}).value == "ana:[]"


def test_a_context_mixed_with_other_types_is_refused_at_registration() -> None:
    def odd(ctx: Context | int) -> str:
        """Odd."""
        return ""

    with pytest.raises(ToolDefinitionError, match="mixes the injected Context"):
        Registry().register(odd)


# -- approvals ------------------------------------------------------------------------------------


def test_a_write_composite_of_write_tools_runs_on_one_approval() -> None:
    log = io.StringIO()
    registry = Registry(layers=[AuditLog(log), Policy()])
    ran: list[str] = []

    @registry.tool(category=Category.WRITE)
    def reserve(order_id: str) -> dict[str, str]:
        """Reserve."""
        ran.append("reserve")
        return {"order_id": order_id}

    @registry.tool(category=Category.WRITE)
    def ship(order_id: str) -> str:
        """Ship."""
        ran.append("ship")
        return f"shipped {order_id}"

    registry.add(pipeline("reserve_and_ship", [registry.get("reserve"), registry.get("ship")]))
    asked: list[str] = []

    def approver(pending: Any) -> bool:
        asked.append(pending.tool)
        return True

    script = [calls(("reserve_and_ship", {"order_id": "A"})), text("done")]
    t = run_agent(ScriptedModel(script).client(), registry, "ship A", approver=approver)
    assert t.status == "completed" and ran == ["reserve", "ship"] and asked == ["reserve_and_ship"]
    records = _lines(log)
    decisions = [(r["tool"], r["decision"], r["outcome"]) for r in records]
    assert ("reserve_and_ship", "approved", "ok") in decisions
    assert ("reserve", "approved", "ok") in decisions and ("ship", "approved", "ok") in decisions


def test_a_step_the_policy_denies_is_denied_inside_an_approved_composite() -> None:
    registry = Registry(layers=[Policy(rules={"ship": Deny("Shipping is stopped today.")})])
    ran: list[str] = []

    @registry.tool(category=Category.WRITE)
    def reserve(order_id: str) -> dict[str, str]:
        """Reserve."""
        ran.append("reserve")
        return {"order_id": order_id}

    @registry.tool(category=Category.WRITE)
    def ship(order_id: str) -> str:
        """Ship."""
        ran.append("ship")
        return order_id

    registry.add(pipeline("reserve_and_ship", [registry.get("reserve"), registry.get("ship")]))
    script = [calls(("reserve_and_ship", {"order_id": "A"})), text("done")]
    t = run_agent(ScriptedModel(script).client(), registry, "ship", approver=lambda p: True)
    assert ran == ["reserve"]
    assert "PERMISSION_DENIED" in t.messages[-2]["content"]


def test_a_composite_allowed_by_a_grant_does_not_cover_a_step_whose_rule_asks() -> None:
    # the capstone's case: a customer is granted WRITE tools, a refund over the limit asks; the
    # composite is allowed by the grant, but nobody approved the refund inside it
    limit = Policy(
        rules={"refund": lambda tool, arguments, context: NeedsApproval("over the limit")},
        grants={"customer": {Category.WRITE}},
    )
    registry = Registry(layers=[limit])
    ran: list[str] = []

    @registry.tool(category=Category.WRITE)
    def note(order_id: str) -> dict[str, str]:
        """Note."""
        ran.append("note")
        return {"order_id": order_id}

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str) -> str:
        """Refund."""
        ran.append("refund")
        return order_id

    registry.add(pipeline("note_and_refund", [registry.get("note"), registry.get("refund")]))
    result = registry.execute("note_and_refund", {"order_id": "A"}, context={"roles": ["customer"]})
    assert _code(result) == "APPROVAL_REQUIRED" and ran == ["note"]


def test_a_saved_paused_run_that_lists_a_call_twice_is_not_resumed() -> None:
    ran: list[str] = []
    registry = Registry(layers=[Policy()])

    @registry.tool(category=Category.WRITE)
    def refund(amount: float) -> float:
        """Refund."""
        ran.append("refund")
        return amount

    client = ScriptedModel([calls(("refund", {"amount": 12.5})), text("done")]).client()
    paused = run_agent(client, registry, "refund")
    assert paused.status == "awaiting_approval"
    data = json.loads(paused.to_json())
    state = {k: v for k, v in data["paused"].items() if k != "signature"}
    state["calls"] = state["calls"] * 2
    # signed again, as an application holding the key would save it: the signature is not what
    # refuses it, the duplicated id is
    data["paused"] = sign_paused(state)
    tampered = Transcript.from_json(json.dumps(data))
    (pending,) = tampered.pending
    with pytest.raises(ValueError, match="more than once"):
        resume_agent(client, registry, tampered, approve=[pending.id])
    assert ran == []


def test_resume_agent_has_an_explicit_signature() -> None:
    parameters = inspect.signature(resume_agent).parameters
    assert {"approve", "deny", "edit", "approver", "context", "deadline"} <= set(parameters)
    assert not any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    # the same options as the async one it runs (a new option, e.g. `api`, cannot be forgotten)
    from toolsys.loop import aresume_agent

    assert list(parameters) == list(inspect.signature(aresume_agent).parameters)


def test_the_loop_does_not_inspect_the_registry_at_every_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolsys.loop

    looked: list[Any] = []
    real = inspect.signature

    def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(fn, "__name__", "") == "export":
            looked.append(fn)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(toolsys.loop.inspect, "signature", counting)
    registry = _adding()
    script = [calls(("add", {"a": 1, "b": 2})), calls(("add", {"a": 3, "b": 4})), text("7")]
    t = run_agent(ScriptedModel(script).client(), registry, "add", context={"user": "ana"})
    assert t.status == "completed" and t.steps == 3 and len(looked) <= 1


# -- order and names ------------------------------------------------------------------------------


def test_registry_layers_lists_the_order_calls_meet_them() -> None:
    order: list[str] = []

    def layer(label: str, stage: str) -> Any:
        async def run(call: Call, call_next: Next) -> ToolResult:
            order.append(label)
            return await call_next(call)

        run.stage, run.name = stage, label  # type: ignore[attr-defined]
        return run

    registry = _adding()
    registry.use(layer("v1", "validated"))
    registry.use(layer("r1", "received"))
    registry.use(layer("v2", "validated"))
    registry.use(layer("r0", "received"), before="r1")
    registry.execute("add", {"a": 1, "b": 2})
    assert registry.layers == order == ["r0", "r1", "v1", "v2"]
    with pytest.raises(ValueError, match="every 'received' layer meets a call before"):
        registry.use(layer("r9", "received"), after="v2")


def test_prefix_means_one_thing_everywhere() -> None:
    from toolsys.names import qualified
    from toolsys.openapi import tools_from_spec

    def read() -> str:
        """Read."""
        return "r"

    registry = Registry()
    Toolkit(read, prefix="fs").register(registry)
    other = Registry()
    other.register(read, name="read")
    registry.include(other, prefix="disk")
    spec = {
        "openapi": "3.1.0",
        "servers": [{"url": "https://api.example"}],
        "paths": {"/read": {"get": {"operationId": "read", "summary": "Read."}}},
    }
    tools_from_spec(spec, prefix="api", registry=registry)
    assert registry.names() == [qualified(p, "read") for p in ("fs", "disk", "api")]
    assert registry.names() == ["fs__read", "disk__read", "api__read"]
    assert [t.name for t in registry.list(prefix="fs")] == ["fs__read"]
    for bad in ("fs_", "fs.", "_fs"):
        with pytest.raises(ToolDefinitionError, match="Namespace prefix"):
            Toolkit(read, prefix=bad).build()
    with pytest.raises(ToolDefinitionError, match="characters"):
        Toolkit(read, prefix="p" * 60).build()


def test_the_layer_protocol_is_public_and_typed() -> None:
    async def passthrough(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call)

    layer: Layer = passthrough
    executor: Executor = Registry(layers=[layer])
    assert "stage" in (Layer.__doc__ or "") and "visible" in (Layer.__doc__ or "")
    assert executor.execute("nothing").error is not None


# -- issue 34: listing fails closed; literals -----------------------------------------------------


def test_a_decision_that_raises_hides_the_tool_from_every_listing_and_refuses_the_call() -> None:
    from mcp import Client

    from toolsys.mcp.server import to_server

    registry = Registry(layers=[Policy(rules={"lookup": lambda tool, arguments, context: 1 / 0})])

    @registry.tool
    def lookup(q: str) -> str:
        """Look something up."""
        return q

    @registry.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    def names(listing: list[dict[str, Any]]) -> list[str]:
        return [t["function"]["name"] for t in listing]

    assert names(registry.export("openai", context={})) == ["ping"]
    assert names(registry.deferred(core=["lookup", "ping"]).export(context={})) == [
        "ping",
        "search_tools",
    ]
    assert [t.name for t in registry.list(context={})] == ["ping"]

    async def served() -> list[str]:
        async with Client(to_server(registry)) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    assert asyncio.run(served()) == ["ping"]
    assert _code(registry.execute("lookup", {"q": "x"}, context={})) == "PERMISSION_DENIED"


def test_a_rule_reading_its_arguments_is_asked_with_none_when_the_tools_are_listed() -> None:
    asked: list[Any] = []

    def rule(tool: Any, arguments: Any, context: Any) -> Any:
        asked.append(arguments)
        if arguments is None:
            return Allow()
        return Allow() if arguments["q"] != "no" else Deny("Not that.")

    registry = Registry(layers=[Policy(rules={"lookup": rule})])

    @registry.tool
    def lookup(q: str) -> str:
        """Look something up."""
        return q

    assert [t["function"]["name"] for t in registry.export(context={})] == ["lookup"]
    assert registry.execute("lookup", {"q": "yes"}).ok
    assert _code(registry.execute("lookup", {"q": "no"})) == "PERMISSION_DENIED"
    assert asked == [None, {"q": "yes"}, {"q": "no"}]


def test_literal_one_two_three_refuses_true_on_every_route() -> None:
    registry = Registry()

    @registry.tool
    def paint(coats: Literal[1, 2, 3] = 1, glossy: Literal[True] = True) -> int:
        """Paint."""
        return coats

    for sent in ({"coats": True}, '{"coats": true}', {"glossy": 1}, '{"glossy": 1}'):
        assert _code(registry.execute("paint", sent)) == "INVALID_ARGUMENTS", sent
    assert registry.execute("paint", '{"coats": 2.0}').value == 2
