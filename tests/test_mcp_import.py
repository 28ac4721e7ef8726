"""Importing an MCP server's tools: real registry tools, errors mapped, trust applied."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from tests.mcp_servers import liar, listing, shop
from toolsys import Category, Registry, ToolDefinitionError
from toolsys.layers import Retry, Timeout
from toolsys.mcp import ImportedTools, import_server, to_server
from toolsys.tools import registry as builtin


def _imported(
    source: Any, use: Callable[[Registry, ImportedTools], Awaitable[Any]], **options: Any
) -> Any:
    async def main() -> Any:
        registry = Registry()
        async with await import_server(registry, source, **options) as tools:
            return await use(registry, tools)

    return asyncio.run(main())


def _categories(trust: str) -> dict[str, tuple[Category, bool, tuple[str, ...]]]:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return {tool.name: (tool.category, tool.idempotent, tool.tags) for tool in tools}

    return _imported(liar(), use, trust=trust)


def test_imported_tools_are_registered_under_the_prefix_with_the_schema_unchanged() -> None:
    server = to_server(builtin)

    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return registry.names(), {tool.name: tool.parameters for tool in tools}

    names, schemas = _imported(server, use, prefix="b")
    assert names == [f"b__{name}" for name in builtin.names()]
    for tool in builtin:
        assert schemas[f"b__{tool.name}"] == tool.parameters


def test_calls_go_through_the_registrys_layers_with_validated_values() -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    async def record(call: Any, call_next: Any) -> Any:
        seen.append((call.name, call.tool.category, call.values))
        return await call_next(call)

    record.stage = "validated"  # type: ignore[attr-defined]

    async def use(registry: Registry, tools: ImportedTools) -> Any:
        registry.use(record)
        return await registry.aexecute("s__get_order", {"order_id": "ORD-42"})

    result = _imported(to_server(shop), use, prefix="s", trust="trusted")
    assert result.ok and result.value == {"id": "ORD-42", "status": "shipped"}
    assert seen == [("s__get_order", "read", {"order_id": "ORD-42"})]


def test_invalid_arguments_are_refused_here_with_our_message_before_the_server() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return [
            await registry.aexecute("get_order", arguments)
            for arguments in ({"order_id": 7}, {}, {"order_id": "ORD-42", "extra": 1})
        ]

    wrong_type, missing, extra = _imported(to_server(shop), use)
    assert wrong_type.error.code == "INVALID_ARGUMENTS"
    assert "order_id: got 7, expected a string" in wrong_type.error.message
    assert missing.error.suggestion.startswith("Fix these arguments and call get_order again")
    assert "add order_id" in missing.error.suggestion
    assert "remove extra" in extra.error.suggestion


def test_stringified_json_arguments_are_decoded_first() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        whole = await registry.aexecute("write_note", '{"text": "hi"}')
        nested = await registry.aexecute("write_note", {"text": "hi", "meta": '{"a": 1}'})
        not_json = await registry.aexecute("write_note", {"text": "hi", "meta": "{a: 1}"})
        return whole, nested, not_json

    whole, nested, not_json = _imported(liar(), use, trust="trusted")
    assert whole.value == "noted hi None"
    assert nested.value == "noted hi {'a': 1}"
    assert not_json.error.code == "INVALID_ARGUMENTS"


def test_is_error_becomes_mcp_tool_error_with_the_servers_text() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return await registry.aexecute("fails_politely", {"x": 12})

    result = _imported(liar(), use)
    assert not result.ok
    assert result.error.code == "MCP_TOOL_ERROR"
    assert "x=12 is out of range; use 0-9" in result.error.message
    assert result.error.retryable is False


def test_a_protocol_error_also_reaches_the_model_as_an_envelope() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return await registry.aexecute("fails_rudely", {"x": 1})

    result = _imported(liar(), use)
    assert result.error.code == "MCP_TOOL_ERROR"
    assert "internal failure" in result.error.message


def test_a_trusted_toolsys_server_keeps_its_error_codes_an_untrusted_one_does_not() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return await registry.aexecute("get_order", {"order_id": "ORD-9"})

    trusted = _imported(to_server(shop), use, trust="trusted")
    untrusted = _imported(to_server(shop), use, trust="untrusted")
    assert trusted.error.code == "ORDER_NOT_FOUND"
    assert trusted.error.suggestion == "Ask for the receipt id."
    assert untrusted.error.code == "MCP_TOOL_ERROR"
    assert "No order 'ORD-9'." in untrusted.error.message


def test_untrusted_tools_are_execute_whatever_they_claim() -> None:
    for category, idempotent, tags in _categories("untrusted").values():
        assert (category, idempotent) == (Category.EXECUTE, False)
        assert "untrusted" in tags


def test_trusted_annotations_map_to_categories_with_the_specs_defaults() -> None:
    found = _categories("trusted")
    assert found["delete_everything"][0] == Category.READ  # trusted means believed
    assert found["unannotated"][:2] == (Category.EXECUTE, False)  # missing: the cautious default
    assert found["write_note"][0] == Category.WRITE
    assert "destructive" in found["write_note"][2]  # destructiveHint defaults to true


def test_an_unreachable_server_is_mcp_unavailable_retryable_only_when_safe() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        await tools.aclose()
        read = await registry.aexecute("get_order", {"order_id": "ORD-42"})
        write = await registry.aexecute("cancel_order", {"order_id": "ORD-42"})
        idempotent = await registry.aexecute("tag_order", {"order_id": "ORD-42", "tag": "x"})
        return read, write, idempotent

    read, write, idempotent = _imported(to_server(shop), use, trust="trusted")
    assert {read.error.code, write.error.code, idempotent.error.code} == {"MCP_UNAVAILABLE"}
    assert (read.error.retryable, write.error.retryable, idempotent.error.retryable) == (
        True,
        False,
        True,
    )
    assert "check whether cancel_order took effect" in write.error.suggestion


def test_a_transport_that_breaks_is_reported_and_the_next_call_reconnects() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        connection = tools._connection

        async def broken(client: Client) -> Any:
            raise OSError("pipe closed")

        with pytest.raises(Exception, match="pipe closed"):
            await connection.run(broken)
        return await registry.aexecute("get_order", {"order_id": "ORD-42"})

    assert _imported(to_server(shop), use, trust="trusted").ok


def test_the_timeout_layer_cancels_a_hanging_server_call_and_the_session_survives() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        registry.use(Timeout(seconds=1))
        hung = await registry.aexecute("slow", {"x": 1})
        after = await registry.aexecute("unannotated", {"x": 5})
        return hung, after

    hung, after = _imported(liar(), use, trust="trusted")
    assert hung.error.code == "TIMEOUT"
    assert after.ok and after.value == 5


def test_retry_repeats_an_unavailable_read_but_never_an_unsafe_write() -> None:
    attempts: list[str] = []

    async def use(registry: Registry, tools: ImportedTools) -> Any:
        await tools.aclose()

        async def count(call: Any, call_next: Any) -> Any:
            attempts.append(call.name)
            return await call_next(call)

        count.stage = "validated"  # type: ignore[attr-defined]
        registry.use(Retry(max_attempts=3, base_delay=0, max_delay=0))
        registry.use(count)
        await registry.aexecute("get_order", {"order_id": "ORD-42"})
        await registry.aexecute("cancel_order", {"order_id": "ORD-42"})

    _imported(to_server(shop), use, trust="trusted")
    assert attempts == ["get_order"] * 3 + ["cancel_order"]


def test_sync_execute_works_inside_a_running_loop_like_a_notebook_cell() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return registry.execute("get_order", '{"order_id": "ORD-42"}')  # blocks this loop

    assert _imported(to_server(shop), use).value == {"id": "ORD-42", "status": "shipped"}


def test_a_name_clash_imports_nothing_and_says_use_a_prefix() -> None:
    async def main() -> Any:
        registry = Registry()
        registry.register(lambda order_id: order_id, name="get_order", description="Mine.")
        with pytest.raises(ToolDefinitionError, match="prefix"):
            await import_server(registry, to_server(shop))
        return registry.names()

    assert asyncio.run(main()) == ["get_order"]


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"trust": "mostly"}, ValueError, "trust"),
        ({"prefix": "f s"}, ValueError, "prefix"),
        ({"prefix": ""}, ValueError, "prefix"),
    ],
)
def test_bad_options_are_refused_before_connecting(
    options: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        asyncio.run(import_server(Registry(), to_server(shop), **options))


def test_a_source_that_is_not_a_server_is_refused() -> None:
    with pytest.raises(TypeError, match="MCPServer"):
        asyncio.run(import_server(Registry(), 42))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty list"):
        asyncio.run(import_server(Registry(), []))


def test_a_server_that_cannot_start_is_one_connection_error() -> None:
    with pytest.raises(ConnectionError, match="Could not list the tools"):
        asyncio.run(import_server(Registry(), ["/nonexistent/mcp-server"], timeout=20))


def test_a_given_client_is_used_as_is() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        return await registry.aexecute("get_order", {"order_id": "ORD-42"})

    assert _imported(Client(to_server(shop)), use).ok


def test_round_trip_preserves_names_schemas_categories_and_error_codes() -> None:
    """registry -> server -> import, for every built-in tool: what the model sees is the same."""
    calls = {
        "calculator": [{"expression": "6*7"}, {"expression": "1/0"}, {"expression": 5}],
        "convert_temperature": [
            {"value": 100, "from_unit": "celsius", "to_unit": "fahrenheit"},
            {"value": 1, "from_unit": "celsius", "to_unit": "rankine"},
        ],
        "get_time": [{}, {"timezone": "Mars/Base"}],
        "get_weather": [{"city": "Paris"}, {"city": "Atlantis"}, {"town": "Paris"}],
        "random_integer": [{"min": 1, "max": 6}, {"min": 6, "max": 1}],
        "search_docs": [{"query": "retry"}, {"query": "retry", "limit": 0}],
    }
    assert set(calls) == set(builtin.names()), "add the new built-in tool to this table"

    async def use(registry: Registry, tools: ImportedTools) -> Any:
        results = {}
        for name, argument_list in calls.items():
            results[name] = [await registry.aexecute(name, args) for args in argument_list]
        return {t.name: (t.parameters, t.category, t.idempotent) for t in tools}, results

    imported, results = _imported(to_server(builtin), use, trust="trusted")
    assert list(imported) == builtin.names()
    for tool in builtin:
        assert imported[tool.name] == (tool.parameters, tool.category, tool.idempotent)
        for arguments, result in zip(calls[tool.name], results[tool.name], strict=True):
            local = builtin.execute(tool.name, arguments)
            assert result.ok == local.ok, (tool.name, arguments)
            if local.ok:
                assert json.dumps(result.value) == json.dumps(local.value)
            else:
                assert result.error.code == local.error.code, (tool.name, arguments)
    codes = {r.error.code for rs in results.values() for r in rs if not r.ok}
    assert {"INVALID_ARGUMENTS", "DIVISION_BY_ZERO", "UNKNOWN_TIMEZONE"} <= codes


def _schema(**properties: str) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in properties.items()}}


def test_a_tool_whose_schema_a_provider_would_refuse_is_skipped_and_named() -> None:
    tools = [
        {"name": "good", "inputSchema": _schema(x="integer")},
        {"name": "broken", "inputSchema": {"type": "object", "properties": {"x": {"type": 12}}}},
    ]

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return registry.names(), imported.skipped, repr(imported)

    names, skipped, shown = _imported(listing(tools, lambda name, args: "ok"), use)
    assert names == ["good"]
    assert list(skipped) == ["broken"]
    assert "not valid JSON Schema" in skipped["broken"]
    assert "skipped: broken" in shown


def test_a_name_providers_refuse_is_renamed_with_a_diagnostic() -> None:
    tools = [{"name": "files.read", "inputSchema": _schema(path="string")}]

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        result = await registry.aexecute("fs__files_read", {"path": "a"})
        return registry.names(), registry.diagnostics, result

    seen: list[str] = []
    server = listing(tools, lambda name, args: seen.append(name) or "content")
    names, diagnostics, result = _imported(server, use, prefix="fs")
    assert names == ["fs__files_read"]
    assert diagnostics == ["fs__files_read: renamed from 'fs__files.read'."]
    assert (result.value, seen) == ("content", ["files.read"])


def test_several_text_blocks_arrive_as_one_text() -> None:
    from mcp_types import CallToolResult, TextContent

    blocks = CallToolResult(
        content=[TextContent(type="text", text="line 1"), TextContent(type="text", text="line 2")]
    )
    tools = [{"name": "two", "inputSchema": _schema()}]

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return await registry.aexecute("two", {})

    assert _imported(listing(tools, lambda name, args: blocks), use).value == "line 1\nline 2"


def test_calls_that_arrive_together_after_a_failure_share_one_new_session() -> None:
    async def use(registry: Registry, tools: ImportedTools) -> Any:
        connection = tools._connection
        opened: list[int] = []
        original = connection._open_client

        def counting() -> Any:
            opened.append(1)
            return original()

        connection._open_client = counting

        async def broken(client: Client) -> Any:
            raise OSError("pipe closed")

        with pytest.raises(Exception, match="pipe closed"):
            await connection.run(broken)
        calls = [registry.aexecute("get_order", {"order_id": "ORD-42"}) for _ in range(5)]
        results = await asyncio.gather(*calls)
        return opened, results

    opened, results = _imported(to_server(shop), use)
    assert opened == [1]
    assert all(result.ok for result in results)


# --- an untrusted server's schema, checked in bounded time ------------------------------------


def _pattern_tool(pattern: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": "match",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "pattern": pattern}},
            "required": ["text"],
        },
        **extra,
    }


@pytest.mark.timeout(60)
def test_a_catastrophic_pattern_from_an_untrusted_server_cannot_hang_the_host() -> None:
    # With Python's backtracking `re`, 30 characters take minutes; RE2 answers at once.
    sent: list[dict[str, Any]] = []

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        bad = await registry.aexecute("match", {"text": "a" * 30 + "!"})
        good = await registry.aexecute("match", {"text": "a" * 100_000})
        return bad, good

    server = listing([_pattern_tool("^(a+)+$")], lambda name, args: sent.append(args) or "ok")
    bad, good = _imported(server, use)
    assert bad.error.code == "INVALID_ARGUMENTS" and "matching '^(a+)+$'" in bad.error.message
    assert good.ok and len(sent) == 1


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"^(a)\1$", "RE2"),  # a back-reference
        (r"^(?=a)a$", "RE2"),  # a lookahead
        ("(a{1000}){1000}", "RE2"),
        ("a" * 1001, "longer than 1000"),
    ],
)
def test_an_untrusted_pattern_re2_cannot_run_skips_the_tool(pattern: str, why: str) -> None:
    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return registry.names(), imported.skipped

    names, skipped = _imported(listing([_pattern_tool(pattern)], lambda n, a: "ok"), use)
    assert names == [] and why in skipped["match"]


def test_a_trusted_server_keeps_python_patterns_and_ecma_escapes_work_untrusted() -> None:
    tools = [_pattern_tool(r"^(?=a)\u0061+$")]

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return registry.names(), await registry.aexecute("match", {"text": "aa"})

    names, result = _imported(listing(tools, lambda n, a: "ok"), use, trust="trusted")
    assert names == ["match"] and result.ok
    escaped = [_pattern_tool(r"^\u0061+\d$")]

    async def untrusted(registry: Registry, imported: ImportedTools) -> Any:
        return [await registry.aexecute("match", {"text": t}) for t in ("aa1", "aa\u0663", "b1")]

    ascii_digit, arabic_digit, wrong = _imported(listing(escaped, lambda n, a: "ok"), untrusted)
    assert ascii_digit.ok  # \uXXXX works, and \d is ASCII digits as in ECMA-262 ...
    assert arabic_digit.error.code == wrong.error.code == "INVALID_ARGUMENTS"  # ... not Unicode


@pytest.mark.timeout(60)
def test_pattern_properties_and_additional_properties_run_on_re2_too() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {
                "type": "object",
                "patternProperties": {"^(a+)+$": {"type": "integer"}},
                "additionalProperties": False,
            }
        },
    }
    tools = [{"name": "tag", "inputSchema": schema}]

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return [
            await registry.aexecute("tag", {"tags": tags})
            for tags in ({"aaa": 1}, {"a" * 30 + "!": 1}, {"aaa": "x"})
        ]

    ok, extra, wrong = _imported(listing(tools, lambda n, a: "ok"), use)
    assert ok.ok
    assert extra.error.code == wrong.error.code == "INVALID_ARGUMENTS"


def test_an_oversized_or_deep_untrusted_schema_or_a_patterned_output_schema_is_skipped() -> None:
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5000)}}
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"x": deep}}
    output = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^(a+)+$"}}}
    tools = [
        {"name": "wide", "inputSchema": wide},
        {"name": "deep", "inputSchema": deep},
        {"name": "shaped", "inputSchema": _schema(x="string"), "outputSchema": output},
    ]

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return registry.names(), imported.skipped

    names, skipped = _imported(listing(tools, lambda n, a: "ok"), use)
    assert names == []
    assert "too large" in skipped["wide"] and "levels deep" in skipped["deep"]
    assert "output schema" in skipped["shaped"]
    trusted_names, _ = _imported(listing(tools, lambda n, a: "ok"), use, trust="trusted")
    assert trusted_names == ["wide", "deep", "shaped"]


def test_a_validation_that_runs_past_its_time_is_refused_as_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolsys.mcp import _patterns

    monkeypatch.setattr(_patterns, "VALIDATION_SECONDS", 0.0)
    sent: list[Any] = []

    async def use(registry: Registry, imported: ImportedTools) -> Any:
        return await registry.aexecute("match", {"text": "abc"})

    result = _imported(listing([_pattern_tool("^a")], lambda n, a: sent.append(a) or "ok"), use)
    assert result.error.code == "INVALID_ARGUMENTS" and sent == []
    assert "checkable in 0 s" in result.error.message
