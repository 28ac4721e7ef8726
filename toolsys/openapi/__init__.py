"""Tools from an OpenAPI 3.x document instead of written by hand.

    kit = tools_from_spec(Path("petstore.yaml"), base_url="https://api.example", client=client)
    kit.register(registry)          # ...and kit.unregister(registry) removes them together

One tool per operation (or the `operations=` you select), named after its `operationId`
(sanitised to the wire-safe `^[A-Za-z0-9_-]{1,64}$`; `method_path` when it has none), described
by its summary, READ for GET and HEAD and WRITE otherwise (PUT and DELETE marked idempotent, as
HTTP defines them). Path, query and header parameters and the request body become the fields of
one argument model (the body as `body`), and are kept apart to build the request again. Calls go
through the httpx2 client you inject (a `MockTransport` in tests); HTTP failures become envelopes
(see `toolsys.openapi._http`). Cookie parameters and Accept/Content-Type/Authorization headers
are not exposed to the model: set them on the client.

Every problem with the document is one ToolDefinitionError naming the operation and what to fix.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from toolsys.components import RegistryLike, Toolkit
from toolsys.errors import ToolDefinitionError
from toolsys.failures import did_you_mean
from toolsys.names import SEPARATOR, check_prefix
from toolsys.openapi._http import Route, Slot, is_network_error
from toolsys.openapi._schema import Converter, model_name, python_name
from toolsys.spec import Category
from toolsys.tool import Tool, normalize, tool_from_function

MAX_SPEC_CHARS = 10_000_000
"""A document longer than this is refused before it is parsed."""
MAX_OPERATIONS = 300
"""More operations than this in one toolkit are refused: select some with `operations=`."""

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_LOCATIONS = ("path", "query", "header")
_CLIENT_HEADERS = frozenset({"accept", "content-type", "authorization"})
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded")


def load_spec(spec: Mapping[str, Any] | str | bytes | os.PathLike[str]) -> Mapping[str, Any]:
    """An OpenAPI 3.x document from a mapping, JSON or YAML text, or a file path."""
    if isinstance(spec, os.PathLike):
        try:
            spec = Path(spec).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolDefinitionError(
                f"Cannot read the OpenAPI file {Path(spec).name!r}: {type(exc).__name__}."
            ) from None
    if isinstance(spec, bytes):
        spec = spec.decode("utf-8", errors="replace")
    document = _parse(spec) if isinstance(spec, str) else spec
    if not isinstance(document, Mapping):
        raise ToolDefinitionError(
            f"An OpenAPI document is a mapping (JSON object), not {type(document).__name__}."
        )
    version = document.get("openapi")
    if not (isinstance(version, str) and version.startswith("3.")):
        hint = " (Swagger 2.0: convert it to OpenAPI 3 first)" if "swagger" in document else ""
        raise ToolDefinitionError(
            f"openapi: {str(version)[:40]!r} is not an OpenAPI 3.x version{hint}; "
            "tools_from_spec reads OpenAPI 3.0 and 3.1 documents."
        )
    if not isinstance(document.get("paths"), Mapping):
        raise ToolDefinitionError("The OpenAPI document has no 'paths' mapping: no operations.")
    return document


def _parse(text: str) -> Any:
    if len(text) > MAX_SPEC_CHARS:
        raise ToolDefinitionError(
            f"The OpenAPI document has {len(text):,} characters, over the {MAX_SPEC_CHARS:,} "
            "limit; split it or pass only the paths you need."
        )
    try:
        return json.loads(text)
    except RecursionError:
        raise ToolDefinitionError("The OpenAPI document is nested too deeply to read.") from None
    except ValueError:
        pass
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        raise ToolDefinitionError(
            "The OpenAPI document is not JSON, and reading YAML needs PyYAML: pip install pyyaml."
        ) from None
    try:
        return yaml.safe_load(text)
    except RecursionError:
        raise ToolDefinitionError("The OpenAPI document is nested too deeply to read.") from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ToolDefinitionError(
            f"The OpenAPI document is neither JSON nor valid YAML: {first[:200]}."
        ) from None


class _Client:
    """The injected client, or a default httpx2.Client made at the first call (never at import)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def get(self) -> Any:
        if self._client is None:
            import httpx2

            self._client = httpx2.Client()
        return self._client


def tools_from_spec(
    spec: Mapping[str, Any] | str | bytes | os.PathLike[str],
    *,
    base_url: str | None = None,
    client: Any = None,
    operations: Iterable[str] | None = None,
    prefix: str = "",
    registry: RegistryLike | None = None,
) -> Toolkit:
    """A toolkit with one tool per operation of an OpenAPI 3.x document (see the module doc).

    `base_url` defaults to the document's first server; `client` is an `httpx2.Client` (or
    `AsyncClient`: the tools are then async); `operations` selects operationIds (or tool
    names); `prefix` qualifies every name (`pets__getPetById`, `toolsys.names`); with `registry`
    the toolkit is registered too.
    """
    document = load_spec(spec)
    if prefix:
        check_prefix(prefix)
    base = _base_url(document, base_url)
    found = _operations(document, prefix)
    if operations is not None:
        found = _select(found, operations)
    if len(found) > MAX_OPERATIONS:
        raise ToolDefinitionError(
            f"The document has {len(found)} operations, over the {MAX_OPERATIONS} one toolkit "
            "takes (and models choose badly among that many); select some with operations=[...]."
        )
    converter, holder = Converter(document), _Client(client)
    is_async = inspect.iscoroutinefunction(getattr(client, "request", None))
    tools = [_tool(converter, holder, base, is_async, *entry) for entry in found]
    kit = Toolkit(*tools, prefix=prefix)
    kit.build()  # the prefix and every full name checked now, not at registration
    if registry is not None:
        kit.register(registry)
    return kit


def _base_url(document: Mapping[str, Any], given: str | None) -> str:
    if given is not None:
        if not isinstance(given, str) or not re.match(r"^https?://", given):
            raise ToolDefinitionError(
                f"base_url={given!r} is not an http(s) URL; pass e.g. base_url='https://api.example'."
            )
        return given
    servers = document.get("servers")
    server = servers[0] if isinstance(servers, list) and servers else None
    url = server.get("url") if isinstance(server, Mapping) else None
    if isinstance(url, str) and isinstance(server, Mapping):
        for name, variable in (server.get("variables") or {}).items():
            if isinstance(variable, Mapping) and "default" in variable:
                url = url.replace("{" + str(name) + "}", str(variable["default"]))
    if isinstance(url, str) and re.match(r"^https?://[^{}\s]+$", url):
        return url
    raise ToolDefinitionError(
        f"The document's first server ({str(url)[:100]!r}) is not a full http(s) URL; pass "
        "base_url='https://...' to tools_from_spec."
    )


Entry = tuple[str, str, str, Mapping[str, Any], Mapping[str, Any]]


def _operations(document: Mapping[str, Any], prefix: str) -> list[Entry]:
    """(tool name, method, path, operation, path item) for every operation, names checked."""
    found: list[Entry] = []
    owners: dict[str, str] = {}
    for path, item in document["paths"].items():
        if not isinstance(path, str) or not isinstance(item, Mapping):
            continue
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, Mapping):
                continue
            room = 64 - (len(prefix) + len(SEPARATOR) if prefix else 0)
            name = _tool_name(operation.get("operationId"), method, path, room)
            where = f"{method.upper()} {path}"
            key = normalize(name)
            if key in owners:
                raise ToolDefinitionError(
                    f"Operations {owners[key]} and {where} both become the tool name {name!r}; "
                    "give them distinct operationIds, or select one with operations=[...]."
                )
            owners[key] = where
            found.append((name, method, path, operation, item))
    return found


def _tool_name(operation_id: Any, method: str, path: str, room: int) -> str:
    raw = operation_id if isinstance(operation_id, str) else ""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", raw).strip("_-")
    if not name:  # no usable operationId: the method and the words of the path
        name = "_".join([method, *re.findall(r"[A-Za-z0-9]+", path)])
    return name[: max(room, 1)]


def _select(found: list[Entry], wanted: Iterable[str]) -> list[Entry]:
    if isinstance(wanted, str):
        wanted = [wanted]
    by_id = {str(e[3].get("operationId")): e for e in found} | {e[0]: e for e in found}
    chosen: list[Entry] = []
    for name in wanted:
        if name not in by_id:
            close = did_you_mean(str(name), by_id)
            raise ToolDefinitionError(
                f"operations=: the document has no operation {name!r}"
                + (f"; did you mean {close[0]!r}?" if close else ".")
            )
        if by_id[name] not in chosen:
            chosen.append(by_id[name])
    return chosen


def _tool(
    converter: Converter,
    holder: _Client,
    base_url: str,
    is_async: bool,
    name: str,
    method: str,
    path: str,
    operation: Mapping[str, Any],
    item: Mapping[str, Any],
) -> Tool:
    where = f"{method.upper()} {path} ({name})"
    fields: dict[str, Any] = {}
    slots: list[Slot] = []
    taken: set[str] = set()
    exported: set[str] = set()
    for parameter in _parameters(converter, item, operation, where):
        location, wire = parameter["in"], parameter["name"]
        shown = wire if wire not in exported else f"{location}_{wire}"
        exported.add(shown)
        field = python_name(shown, taken)
        required = location == "path" or parameter.get("required") is True
        schema = parameter.get("schema")
        content = parameter.get("content")
        if schema is None and isinstance(content, Mapping) and content:
            media = next(iter(content.values()))
            schema = media.get("schema") if isinstance(media, Mapping) else None
        annotation, info = converter.field(
            schema, shown, required, where, description=parameter.get("description")
        )
        fields[field] = (annotation, info)
        slots.append(Slot(shown, wire, location))
    content_type = _body(converter, operation, where, fields, slots, taken, exported)
    model = _model(name, fields, where)
    category = Category.READ if method in ("get", "head") else Category.WRITE
    route = Route(name, method, path, base_url, tuple(slots), content_type, category)
    return tool_from_function(
        _caller(route, holder, is_async),
        name=name,
        description=_description(operation),
        category=category,
        args=model,
        idempotent=True if method in ("put", "delete") else None,
    )


def _parameters(
    converter: Converter, item: Mapping[str, Any], operation: Mapping[str, Any], where: str
) -> list[Mapping[str, Any]]:
    """The operation's parameters (path-level ones included, the operation's winning), checked."""
    merged: dict[tuple[str, str], Mapping[str, Any]] = {}
    for level in (item.get("parameters"), operation.get("parameters")):
        for raw in level if isinstance(level, list) else ():
            parameter = converter.deref(raw, where)
            if not isinstance(parameter, Mapping):
                raise ToolDefinitionError(f"{where}: a parameter is {parameter!r}, not an object.")
            name, location = parameter.get("name"), parameter.get("in")
            if not isinstance(name, str) or not name or location not in (*_LOCATIONS, "cookie"):
                raise ToolDefinitionError(
                    f"{where}: a parameter needs a 'name' and 'in' (path, query, header or "
                    f"cookie); got name={str(name)[:60]!r}, in={str(location)[:20]!r}."
                )
            if location == "cookie" or (location == "header" and name.lower() in _CLIENT_HEADERS):
                continue  # set on the client, not by the model
            merged[(location, name)] = parameter
    return list(merged.values())


def _body(
    converter: Converter,
    operation: Mapping[str, Any],
    where: str,
    fields: dict[str, Any],
    slots: list[Slot],
    taken: set[str],
    exported: set[str],
) -> str | None:
    """Add the request body as one field (`body`); its content type, or None without a body."""
    body = converter.deref(operation.get("requestBody"), where)
    content = body.get("content") if isinstance(body, Mapping) else None
    if not isinstance(content, Mapping) or not content:
        return None
    kinds = [k for k in content if isinstance(k, str)]
    kind = next((k for k in _BODY_TYPES if k in kinds), None) or next(
        (k for k in kinds if "json" in k), kinds[0] if kinds else None
    )
    media = content.get(kind) if kind is not None else None
    schema = media.get("schema") if isinstance(media, Mapping) else None
    shown = "body" if "body" not in exported else "request_body"
    assert isinstance(body, Mapping)
    required = body.get("required") is True
    annotation, info = converter.field(
        schema, shown, required, where, description=body.get("description")
    )
    fields[python_name(shown, taken)] = (annotation, info)
    slots.append(Slot(shown, shown, "body"))
    return kind


def _model(name: str, fields: dict[str, Any], where: str) -> type[BaseModel]:
    try:
        return create_model(
            f"{model_name(name)}Arguments",
            __config__=ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True),
            **fields,
        )
    except Exception as exc:
        raise ToolDefinitionError(
            f"{where}: its parameters cannot become an argument model: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0][:200] if str(exc) else ''}"
        ) from None


def _description(operation: Mapping[str, Any]) -> str:
    for key in ("summary", "description"):
        text = operation.get(key)
        if isinstance(text, str) and text.strip():
            return " ".join(text.split())[:1024]
    return ""


def _caller(route: Route, holder: _Client, is_async: bool) -> Any:
    """The implementation of one operation's tool: sync or async, like the client."""

    def call(arguments: BaseModel) -> Any:
        request = route.request(arguments)
        try:
            response = holder.get().request(**request)
        except Exception as exc:
            if is_network_error(exc):
                raise route.network_error(exc) from None
            raise
        return route.read(response)

    async def acall(arguments: BaseModel) -> Any:
        request = route.request(arguments)
        try:
            response = await holder.get().request(**request)
        except Exception as exc:
            if is_network_error(exc):
                raise route.network_error(exc) from None
            raise
        return route.read(response)

    return acall if is_async else call


__all__ = ["load_spec", "tools_from_spec"]
