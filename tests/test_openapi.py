"""Tools from an OpenAPI document: the real Petstore spec on a mock server, and hostile specs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

from toolsys import Category, Registry, ToolDefinitionError
from toolsys.openapi import _schema, load_spec, tools_from_spec

PETSTORE = Path(__file__).parent / "data" / "petstore-openapi.yaml"
BASE = "https://pets.test/api/v3"


class Server:
    """A mock API: records each request, answers with `respond` (a 200 with [] by default)."""

    def __init__(self, respond: Callable[[httpx2.Request], httpx2.Response] | None = None) -> None:
        self.requests: list[httpx2.Request] = []
        self.respond = respond or (lambda request: httpx2.Response(200, json=[]))

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.respond(request)

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self))


def petstore(server: Server, **options: Any) -> Registry:
    registry = Registry()
    tools_from_spec(PETSTORE, base_url=BASE, client=server.client(), registry=registry, **options)
    return registry


def minimal(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths, **extra}


# --- the Petstore document ---------------------------------------------------------------------


def test_every_petstore_operation_becomes_a_tool_named_by_its_operation_id() -> None:
    registry = petstore(Server())
    document = yaml.safe_load(PETSTORE.read_text())
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert registry.names() == ids and len(ids) == 19


def test_get_is_read_and_everything_else_write_with_put_and_delete_idempotent() -> None:
    registry = petstore(Server())
    assert registry.get("getPetById").category == Category.READ
    assert registry.get("addPet").category == Category.WRITE
    assert (registry.get("addPet").idempotent, registry.get("deletePet").idempotent) == (
        False,
        True,
    )
    assert registry.get("getPetById").description == "Find pet by ID."


def test_refs_enums_arrays_and_required_bodies_reach_the_schema() -> None:
    registry = petstore(Server())
    add = registry.get("addPet").parameters
    assert add["required"] == ["body"]
    pet = add["properties"]["body"]
    assert pet["required"] == ["name", "photoUrls"]
    assert pet["properties"]["status"]["enum"] == ["available", "pending", "sold"]
    assert pet["properties"]["photoUrls"] == {"type": "array", "items": {"type": "string"}}
    assert set(pet["properties"]["category"]["properties"]) == {"id", "name"}
    users = registry.get("createUsersWithListInput").parameters["properties"]["body"]
    assert users["type"] == "array" and "username" in users["items"]["properties"]
    status = registry.get("findPetsByStatus").parameters["properties"]["status"]
    assert status["default"] == "available" and "$ref" not in json.dumps(registry.export())


def test_json_yaml_and_a_mapping_give_the_same_tools() -> None:
    document = yaml.safe_load(PETSTORE.read_text())
    exports = []
    for spec in (PETSTORE, PETSTORE.read_text(), json.dumps(document), document):
        registry = Registry()
        tools_from_spec(spec, base_url=BASE, registry=registry)
        exports.append(registry.export("anthropic"))
    assert all(export == exports[0] for export in exports)


@pytest.mark.parametrize("target", ["openai", "anthropic"])
def test_the_generated_tools_pass_the_providers_lint(target: str) -> None:
    issues = petstore(Server()).lint(target)
    assert [issue for issue in issues if issue.severity == "error"] == []


def test_path_query_header_and_body_go_to_their_places() -> None:
    server = Server()
    registry = petstore(server)
    assert registry.execute("deletePet", {"petId": 7, "api_key": "k-1"}).ok
    assert registry.execute("findPetsByTags", {"tags": ["a b", "c"]}).ok
    body = {"name": "Rex", "photoUrls": [], "category": {"id": 1, "name": "dogs"}}
    assert registry.execute("addPet", {"body": body}).ok
    delete, tags, add = server.requests
    assert (delete.method, str(delete.url), delete.headers["api_key"]) == (
        "DELETE",
        f"{BASE}/pet/7",
        "k-1",
    )
    assert tags.url.params.get_list("tags") == ["a b", "c"]
    assert add.method == "POST" and json.loads(add.content) == body
    assert add.headers["content-type"] == "application/json"


def test_a_path_parameter_cannot_escape_its_segment() -> None:
    server = Server()
    petstore(server).execute("getUserByName", {"username": "../admin?x=1"})
    assert server.requests[0].url.raw_path == b"/api/v3/user/..%2Fadmin%3Fx%3D1"


def test_invalid_arguments_are_refused_before_any_request() -> None:
    server = Server()
    result = petstore(server).execute(
        "addPet", {"body": {"name": "Rex", "photoUrls": [], "status": "lost"}}
    )
    assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"
    assert server.requests == []


def test_a_successful_response_gives_its_json_text_or_a_note() -> None:
    answers = iter(
        [
            httpx2.Response(200, json={"id": 1, "name": "Rex"}),
            httpx2.Response(200, text="logged out"),
            httpx2.Response(204),
        ]
    )
    registry = petstore(Server(lambda request: next(answers)))
    assert registry.execute("getPetById", {"petId": 1}).value == {"id": 1, "name": "Rex"}
    assert registry.execute("logoutUser").value == "logged out"
    assert "204" in registry.execute("deleteOrder", {"orderId": 1}).value


# --- HTTP failures become envelopes ----------------------------------------------------------


def failing(status: int, headers: dict[str, str] | None = None, **body: Any) -> Registry:
    return petstore(Server(lambda request: httpx2.Response(status, headers=headers, **body)))


def test_a_404_says_the_status_the_apis_message_and_what_to_do() -> None:
    error = (
        failing(404, json={"code": 1, "message": "Pet not found"})
        .execute("getPetById", {"petId": 9})
        .error
    )
    assert error is not None and error.code == "HTTP_ERROR"
    assert "404" in error.message and "Pet not found" in error.message
    assert error.details == {"status": 404} and not error.retryable
    assert "identifiers" in error.suggestion


@pytest.mark.parametrize("status", [429, 503])
def test_429_and_503_are_retryable_after_the_header(status: int) -> None:
    error = failing(status, {"Retry-After": "3"}, text="busy").execute("getInventory").error
    assert error is not None and error.retryable and error.retry_after == 3.0
    assert "busy" in error.message


def test_retry_after_as_an_http_date_becomes_seconds() -> None:
    when = formatdate(time.time() + 120, usegmt=True)
    error = failing(503, {"Retry-After": when}).execute("getInventory").error
    assert error is not None and error.retry_after is not None and 100 < error.retry_after <= 120


@pytest.mark.parametrize("header", ["soon", "-5", "nan", ""])
def test_an_unreadable_retry_after_is_left_out(header: str) -> None:
    error = failing(429, {"Retry-After": header}).execute("getInventory").error
    assert error is not None and error.retryable
    assert error.retry_after in (None, 0.0)


@pytest.mark.parametrize("status", [400, 401, 403, 409, 500])
def test_other_errors_are_not_retryable(status: int) -> None:
    error = failing(status, json={"error": {"message": "nope"}}).execute("getInventory").error
    assert error is not None and not error.retryable and "nope" in error.message


def test_a_network_error_is_retryable_only_for_a_read() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    registry = petstore(Server(refuse))
    read = registry.execute("getInventory").error
    write = registry.execute("deleteOrder", {"orderId": 1}).error
    assert read is not None and read.code == "NETWORK_ERROR" and read.retryable
    assert write is not None and write.code == "NETWORK_ERROR" and not write.retryable
    assert "check whether it took effect" in write.suggestion


def test_an_async_client_makes_async_tools() -> None:
    server = Server(lambda request: httpx2.Response(200, json={"ok": True}))
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    registry = Registry()
    tools_from_spec(PETSTORE, base_url=BASE, client=client, registry=registry)
    assert registry.get("getInventory").is_async
    assert asyncio.run(registry.aexecute("getInventory")).value == {"ok": True}


# --- selection, prefix, group ----------------------------------------------------------------


def test_operations_select_and_prefix_names_and_the_group_unregisters() -> None:
    registry = Registry()
    registry.register(lambda: 1, name="other", description="Another tool.")
    kit = tools_from_spec(
        PETSTORE, base_url=BASE, operations=["getPetById", "addPet"], prefix="pets"
    )
    kit.register(registry)
    assert registry.names() == ["other", "pets__getPetById", "pets__addPet"]
    kit.unregister(registry)
    assert registry.names() == ["other"]


def test_an_unknown_operation_is_refused_with_a_suggestion() -> None:
    with pytest.raises(ToolDefinitionError, match="did you mean 'getPetById'"):
        tools_from_spec(PETSTORE, base_url=BASE, operations=["getPetByID"])


@pytest.mark.parametrize("prefix", ["pets.", "pets_", "x" * 70])
def test_a_prefix_that_is_not_wire_safe_is_refused(prefix: str) -> None:
    with pytest.raises(ToolDefinitionError):
        tools_from_spec(PETSTORE, base_url=BASE, prefix=prefix)


def test_the_base_url_comes_from_the_first_server_or_must_be_given() -> None:
    kit = tools_from_spec(PETSTORE)  # servers: https://petstore3.swagger.io/api/v3
    assert len(kit.build()) == 19
    relative = minimal({}, servers=[{"url": "/api"}])
    with pytest.raises(ToolDefinitionError, match="base_url="):
        tools_from_spec(relative)
    with pytest.raises(ToolDefinitionError, match="not an http"):
        tools_from_spec(PETSTORE, base_url="ftp://x")


# --- hostile documents -----------------------------------------------------------------------


def op(**fields: Any) -> dict[str, Any]:
    return {"responses": {"200": {"description": "ok"}}, **fields}


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("[1, 2]", "mapping"),
        ("{not: [valid", "neither JSON nor valid YAML"),
        (json.dumps({"swagger": "2.0", "paths": {}}), "Swagger 2.0"),
        (json.dumps({"openapi": "3.0.0"}), "no 'paths'"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply|neither JSON"),
        (42, "mapping"),
    ],
)
def test_a_document_that_is_not_openapi_3_is_one_clear_error(spec: Any, match: str) -> None:
    with pytest.raises(ToolDefinitionError, match=match):
        tools_from_spec(spec, base_url=BASE)


def test_a_missing_operation_id_gets_a_wire_safe_name_from_method_and_path() -> None:
    spec = minimal({"/items/{id}": {"get": op(), "delete": op(operationId="!!!")}})
    names = [tool.name for tool in tools_from_spec(spec, base_url=BASE).build()]
    assert names == ["get_items_id", "delete_items_id"]


def test_a_long_operation_id_is_cut_to_fit_with_the_prefix() -> None:
    spec = minimal({"/a": {"get": op(operationId="x" * 200)}})
    (tool,) = tools_from_spec(spec, base_url=BASE, prefix="api").build()
    assert tool.name == "api__" + "x" * 59 and len(tool.name) == 64


@pytest.mark.parametrize("second", ["getItem", "get_item", "GetItem"])
def test_operations_that_become_the_same_name_are_refused_naming_both(second: str) -> None:
    spec = minimal(
        {"/a": {"get": op(operationId="getItem")}, "/b": {"get": op(operationId=second)}}
    )
    with pytest.raises(ToolDefinitionError, match=r"GET /a and GET /b"):
        tools_from_spec(spec, base_url=BASE)


def test_a_recursive_schema_stays_finite_and_validates() -> None:
    node = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        },
    }
    spec = minimal(
        {
            "/tree": {
                "post": op(
                    operationId="plant",
                    requestBody={
                        "required": True,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
                        },
                    },
                )
            }
        },
        components={"schemas": {"Node": node}},
    )
    server = Server()
    registry = Registry()
    tools_from_spec(spec, base_url=BASE, client=server.client(), registry=registry)
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    assert registry.execute("plant", {"body": tree}).ok
    assert json.loads(server.requests[0].content) == tree


@pytest.mark.parametrize(
    ("parameter", "match"),
    [
        ({"$ref": "#/components/parameters/A"}, "refers back to itself"),
        ({"$ref": "#/components/parameters/Missing"}, "names nothing"),
        ({"$ref": "other.yaml#/Pet"}, "outside this document"),
        ({"in": "query"}, "needs a 'name'"),
        ({"name": "x", "in": "body"}, "needs a 'name' and 'in'"),
        ("just text", "not an object"),
    ],
)
def test_a_broken_parameter_is_one_clear_error(parameter: Any, match: str) -> None:
    spec = minimal(
        {"/a": {"get": op(operationId="a", parameters=[parameter])}},
        components={
            "parameters": {
                "A": {"$ref": "#/components/parameters/B"},
                "B": {"$ref": "#/components/parameters/A"},
            }
        },
    )
    with pytest.raises(ToolDefinitionError, match=match):
        tools_from_spec(spec, base_url=BASE)


def test_too_many_operations_are_refused_unless_selected() -> None:
    paths = {f"/r{i}": {"get": op(operationId=f"r{i}")} for i in range(400)}
    with pytest.raises(ToolDefinitionError, match="select some with operations"):
        tools_from_spec(minimal(paths), base_url=BASE)
    assert len(tools_from_spec(minimal(paths), base_url=BASE, operations=["r1", "r2"]).build()) == 2


def test_a_yaml_alias_bomb_is_refused_not_expanded() -> None:
    lines = ["a0: &a0 {type: object, properties: {x: {type: string}}}"]
    for i in range(1, 12):
        refs = ", ".join(f"p{j}: *a{i - 1}" for j in range(8))
        lines.append(f"a{i}: &a{i} {{type: object, properties: {{{refs}}}}}")
    bomb = "\n".join(
        [
            "openapi: 3.0.0",
            "x-defs:",
            *("  " + line for line in lines),
            "paths:",
            "  /boom:",
            "    post:",
            "      operationId: boom",
            "      requestBody: {content: {application/json: {schema: *a11}}}",
        ]
    )
    with pytest.raises(ToolDefinitionError, match="too large or nested too deeply"):
        tools_from_spec(bomb, base_url=BASE)


def test_an_oversized_document_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolsys.openapi

    monkeypatch.setattr(toolsys.openapi, "MAX_SPEC_CHARS", 1000)
    with pytest.raises(ToolDefinitionError, match="over the 1,000"):
        load_spec(PETSTORE.read_text())


def test_hostile_property_and_parameter_names_keep_their_wire_names() -> None:
    schema = {
        "type": "object",
        "properties": {n: {"type": "string"} for n in ("class", "_x", "json", "1st", "a-b")},
    }
    spec = minimal(
        {
            "/a/{id}": {
                "post": op(
                    operationId="a",
                    parameters=[
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer"},
                        },
                        {"name": "id", "in": "query", "schema": {"type": "string"}},
                        {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                        {"name": "Authorization", "in": "header", "schema": {"type": "string"}},
                        {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                    ],
                    requestBody={"content": {"application/json": {"schema": schema}}},
                )
            }
        }
    )
    server = Server()
    registry = Registry()
    tools_from_spec(spec, base_url=BASE, client=server.client(), registry=registry)
    properties = registry.get("a").parameters["properties"]
    assert list(properties) == ["id", "query_id", "X-Trace", "body"]
    body = {"class": "c", "_x": "x", "json": "j", "1st": "f", "a-b": "ab"}
    arguments = {"id": 3, "query_id": "q", "X-Trace": "t", "body": body}
    assert registry.execute("a", arguments).ok, registry.execute("a", arguments)
    sent = server.requests[0]
    assert str(sent.url) == f"{BASE}/a/3?id=q" and sent.headers["x-trace"] == "t"
    assert json.loads(sent.content) == body


def test_the_work_budget_is_what_stops_a_huge_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_schema, "MAX_WORK", 10)
    with pytest.raises(ToolDefinitionError, match="too large"):
        tools_from_spec(PETSTORE, base_url=BASE)


def test_import_toolsys_loads_neither_yaml_nor_httpx2_nor_this_module() -> None:
    code = (
        "import sys, toolsys; print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('yaml', 'httpx2', 'httpx') or m == 'toolsys.openapi'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_self_containing_yaml_schema_is_refused() -> None:
    spec = (
        "openapi: 3.0.0\npaths:\n  /loop:\n    post:\n      operationId: loop\n"
        "      requestBody: {content: {application/json: {schema: &s {type: object, "
        "properties: {again: *s}}}}}\n"
    )
    with pytest.raises(ToolDefinitionError, match="too large or nested too deeply"):
        tools_from_spec(spec, base_url=BASE)


# --- every parameter location keeps its argument in its place ----------------------------------

_CUSTOMERS = minimal(
    {
        "/customers/{customer_id}/orders": {
            "get": {
                "operationId": "listOrders",
                "parameters": [
                    {"name": "customer_id", "in": "path", "required": True,
                     "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                ],
            }
        },
        "/notes": {
            "post": {
                "operationId": "addNote",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
            }
        },
    }
)  # fmt: skip


def _customers(server: Server) -> Registry:
    registry = Registry()
    tools_from_spec(_CUSTOMERS, base_url=BASE, client=server.client(), registry=registry)
    return registry


@pytest.mark.parametrize("customer_id", ["..", ".", ""])
def test_a_dot_segment_or_an_empty_path_parameter_is_refused_before_any_request(
    customer_id: str,
) -> None:
    server = Server()
    result = _customers(server).execute("listOrders", {"customer_id": customer_id})
    assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"
    assert "customer_id" in result.error.message and server.requests == []


@pytest.mark.parametrize(
    "hostile", ["../x", "a/b", "?all=1", "#top", "%2e%2e", "..%2F", "a b", "\r\n", "\u2024\u2024"]
)
def test_a_hostile_path_or_query_value_stays_in_its_one_segment_or_value(hostile: str) -> None:
    server = Server()
    assert _customers(server).execute("listOrders", {"customer_id": hostile, "q": hostile}).ok
    (request,) = server.requests
    segments = request.url.raw_path.split(b"?")[0].split(b"/")
    assert segments[:4] == [b"", b"api", b"v3", b"customers"] and segments[5:] == [b"orders"]
    assert httpx2.URL("https://x/" + segments[4].decode()).path == "/" + hostile
    assert request.url.params.get_list("q") == [hostile]


@pytest.mark.parametrize("value", ["a\r\nX-Evil: 1", "a\nb", "\x00", "caf\u00e9", "\U0001f642"])
def test_a_header_value_with_a_line_break_control_or_non_ascii_is_refused(value: str) -> None:
    server = Server()
    result = _customers(server).execute("listOrders", {"customer_id": "C1", "X-Trace": value})
    assert result.error is not None and result.error.code == "INVALID_ARGUMENTS", result
    assert "X-Trace:" in result.error.message and value not in result.error.message
    assert server.requests == []


def test_a_hostile_body_arrives_as_the_json_it_was() -> None:
    server = Server()
    body = {"path": "../..", "header": "a\r\nX-Evil: 1", "nested": {"q": "&x=1#"}}
    assert _customers(server).execute("addNote", {"body": body}).ok
    assert json.loads(server.requests[0].content) == body
