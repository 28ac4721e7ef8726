"""The caller's context and provided dependencies reach a tool; the model never sees or sets
them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from toolsys import (
    BaseTool,
    Call,
    Category,
    Context,
    Depends,
    Registry,
    ToolDefinitionError,
    ToolResult,
)
from toolsys.execution import Next
from toolsys.export import TARGETS

ORDERS = {"ada": ["A-1", "A-2"], "bob": ["B-1"]}


def my_orders(status: str, ctx: Context) -> list[str]:
    """List the caller's own orders.

    Args:
        status: Only orders with this status.
    """
    return list(ORDERS.get(str(ctx.user), []))


def orders_from_db(
    status: str, ctx: Context, db: Annotated[dict[str, list[str]], Depends("db")]
) -> list[str]:
    """List the caller's orders from the database.

    Args:
        status: Only orders with this status.
    """
    return db.get(str(ctx.user), [])


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    registry.register(my_orders)
    registry.register(orders_from_db)
    return registry


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("target", TARGETS)
def test_injected_parameters_are_in_no_export_format(
    registry: Registry, target: str, strict: bool
) -> None:
    text = json.dumps(registry.export(target, strict=strict))
    assert "ctx" not in text and '"db"' not in text
    assert "status" in text


def test_injected_parameters_are_not_fields_of_the_validator(registry: Registry) -> None:
    for name in ("my_orders", "orders_from_db"):
        tool = registry.get(name)
        assert set(tool.model.model_fields) == {"status"}
        assert set(tool.parameters["properties"]) == {"status"}


def test_the_tool_reads_the_callers_identity(registry: Registry) -> None:
    result = registry.execute("my_orders", {"status": "open"}, context={"user": "bob"})
    assert result.value == ["B-1"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"status": "open", "ctx": {"user": "ada"}},
        '{"status": "open", "ctx": {"user": "ada"}}',
        {"status": "open", "ctx": None},
    ],
)
def test_a_model_sending_ctx_is_refused_and_the_tool_does_not_run(
    registry: Registry, arguments: Any
) -> None:
    result = registry.execute("my_orders", arguments, context={"user": "bob"})
    assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"
    assert "ctx" in result.error.message and "remove ctx" in result.error.suggestion


def test_a_model_sending_a_dependency_name_is_refused(registry: Registry) -> None:
    registry.provide(db={"ada": ["A-9"]})
    result = registry.execute("orders_from_db", {"status": "x", "db": {"bob": []}})
    assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"


def test_an_args_model_that_allows_extras_still_cannot_set_ctx() -> None:
    class Loose(BaseModel):
        model_config = ConfigDict(extra="allow")
        status: str = Field(description="Status.")

    seen: list[Any] = []

    def loose(args: Loose, ctx: Context) -> str:
        """List orders."""
        seen.append(ctx.user)
        return "ok"

    registry = Registry()
    registry.register(loose, args=Loose)
    assert "ctx" not in json.dumps(registry.export())
    registry.execute("loose", {"status": "x", "ctx": {"user": "ada"}}, context={"user": "bob"})
    assert seen == ["bob"]


def test_a_provided_dependency_reaches_the_tool_even_when_provided_later(
    registry: Registry,
) -> None:
    registry.provide(db={"ada": ["A-9"]})
    assert registry.execute("orders_from_db", {"status": "x"}, context={"user": "ada"}).value == [
        "A-9"
    ]


def test_a_missing_dependency_is_an_envelope_naming_it(registry: Registry) -> None:
    result = registry.execute("orders_from_db", {"status": "x"}, context={"user": "ada"})
    assert result.error is not None and result.error.code == "MISSING_DEPENDENCY"
    assert "'db'" in result.error.message and "provide(db=" in result.error.suggestion


def test_depends_without_a_name_uses_the_parameter_name() -> None:
    def count(mailer: Annotated[list[str], Depends()]) -> int:
        """Count sent mails."""
        return len(mailer)

    registry = Registry()
    registry.register(count)
    registry.provide(mailer=["a", "b"])
    assert registry.execute("count").value == 2


def test_no_context_gives_an_empty_identity(registry: Registry) -> None:
    assert registry.execute("my_orders", {"status": "x"}).value == []


class Sneaky(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("boom")

    def __len__(self) -> int:
        return 1


HOSTILE: list[Any] = [
    5,
    "ada",
    ["user", "ada"],
    object(),
    Sneaky(),
    {1: "ada"},
    {"user": ["ada"], "roles": 7, "tenant": 1.5},
    {"user": True, "roles": [1, None, "admin"]},
    {f"k{i}": "x" * 100 for i in range(100_000)},
    {"user": "a" * 1_000_000},
]


@pytest.mark.parametrize("context", HOSTILE, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("with_layer", [False, True])
def test_a_hostile_context_never_makes_execute_raise(context: Any, with_layer: bool) -> None:
    async def passthrough(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call)

    registry = Registry(layers=[passthrough] if with_layer else [])
    registry.register(my_orders)
    registry.register(lambda: "plain", name="plain", description="No context needed.")
    result = registry.execute("my_orders", {"status": "x"}, context=context)
    assert result.ok or (result.error is not None and result.error.code == "INVALID_CONTEXT")
    assert registry.execute("plain", {}, context=context).value == "plain"


@pytest.mark.parametrize(
    "context", [5, "ada", Sneaky(), {1: "ada"}], ids=["int", "str", "unreadable", "int-keys"]
)
def test_a_context_that_is_not_a_mapping_of_text_is_invalid_context(context: Any) -> None:
    registry = Registry()
    registry.register(my_orders)
    result = registry.execute("my_orders", {"status": "x"}, context=context)
    assert result.error is not None and result.error.code == "INVALID_CONTEXT"
    assert "mapping" in result.error.message


def test_odd_values_inside_a_context_read_as_no_identity() -> None:
    ctx = Context.of({"user": ["ada"], "roles": 7, "tenant": True, "plan": "pro"})
    assert (ctx.user, ctx.roles, ctx.tenant, dict(ctx.extra)) == (
        None,
        frozenset(),
        None,
        {"plan": "pro"},
    )
    assert Context.of({"user": 7, "roles": ["admin", 3], "tenant": "t1"}).has_role("admin")


def test_the_context_a_tool_receives_is_read_only() -> None:
    seen: list[Context] = []

    def peek(ctx: Context) -> None:
        """Look."""
        seen.append(ctx)

    registry = Registry()
    registry.register(peek)
    original = {"user": "ada", "roles": ["support"], "plan": "pro"}
    registry.execute("peek", {}, context=original)
    ctx = seen[0]
    with pytest.raises(AttributeError):
        ctx.user = "bob"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ctx.extra["plan"] = "free"  # type: ignore[index]
    original["user"] = "bob"
    assert ctx.user == "ada"


def test_context_reaches_async_class_and_offloaded_tools() -> None:
    class Whoami(BaseTool):
        """Who is asking."""

        category = Category.READ

        async def run(self, ctx: Context) -> Any:
            await asyncio.sleep(0)
            return ctx.user

    def sync_whoami(ctx: Context) -> Any:
        """Who is asking."""
        return ctx.user

    async def offload(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call.replace(offload=True))

    offload.stage = "validated"  # type: ignore[attr-defined]
    registry = Registry(layers=[offload])
    registry.add(Whoami())
    registry.register(sync_whoami)
    assert registry.execute("whoami", {}, context={"user": "ada"}).value == "ada"
    assert registry.execute("sync_whoami", {}, context={"user": "eve"}).value == "eve"
    assert asyncio.run(registry.aexecute("whoami", {}, context={"user": 3})).value == 3


def test_a_layer_that_changes_the_context_changes_what_the_tool_sees() -> None:
    async def impersonate(call: Call, call_next: Next) -> ToolResult:
        return await call_next(call.replace(context={"user": "bob"}))

    registry = Registry(layers=[impersonate])
    registry.register(my_orders)
    assert registry.execute("my_orders", {"status": "x"}, context={"user": "ada"}).value == ["B-1"]


def test_an_injected_positional_only_parameter_is_refused() -> None:
    def bad(ctx: Context, /, status: str) -> None:
        """Bad."""

    with pytest.raises(ToolDefinitionError, match="injected"):
        Registry().register(bad)


def test_a_call_binds_injected_values_without_building_a_new_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolsys._tool

    registry = Registry()
    registry.provide(db={"rows": 3})

    @registry.tool
    def count(ctx: Context, db: Annotated[dict, Depends()]) -> int:
        """Count the rows."""
        return db["rows"]

    built: list[str] = []
    real = toolsys._tool.accepts_anything
    monkeypatch.setattr(toolsys._tool, "accepts_anything", lambda s: built.append("x") or real(s))
    results = [registry.execute("count", {}, context={"user": "ada"}) for _ in range(3)]
    assert [r.value for r in results] == [3, 3, 3]
    assert built == []  # a new Tool per call re-checked the whole schema each time
