"""Lazy tools: known by a manifest, exported without importing their code, loaded on first call.

Why: an agent with hundreds of tools should not import hundreds of modules (and their heavy
dependencies) to start, nor crash because one plugin is broken. A lazy tool is registered from
what the model needs to see (name, summary, parameters) and where its code lives
(`loader="myapp.reports:report_sales"`). Exporting, linting and explaining it import nothing;
invalid arguments are refused from the manifest, before any import. The first valid call
imports the module; later calls reuse what was loaded.

Decisions:
- The manifest is the contract. After the import the code's schema is compared with it (types,
  names, required; descriptions and defaults may differ): if they differ, the call fails with
  TOOL_LOAD_FAILED, because the model built its arguments from the manifest and the code would
  read them differently. Category too: a manifest that says READ for code that says WRITE would
  let a policy allow what it should not.
- Execution options (category, timeout, idempotent) come from the manifest: layers must decide
  before the module is imported. The import happens where the tool runs, after every layer has
  decided: a call a policy denies imports nothing. The loaded code then runs as the tool it is:
  a sync function on the Timeout's worker thread (so a deadline can leave it behind), with its
  injected `ctx` and dependencies.
- A failing import (module missing, attribute missing, the module raising while imported, the
  attribute not being a tool) is a TOOL_LOAD_FAILED envelope with no traceback and no path; the
  developer's exception is kept on `result.exception` (as the cause) and logged. It is not cached:
  the next call tries again, so a fixed environment needs no restart.

Lesson: `notebooks/09_composition.ipynb` shows a lazy tool exported with 0 imports, imported
by its first call, and a broken loader answered with TOOL_LOAD_FAILED.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from toolsys._schema_shape import shape
from toolsys.errors import ErrorCode, ToolDefinitionError, ToolError
from toolsys.spec import JSON_TYPES, Category, Param, ToolSpec
from toolsys.tool import Tool, tool_from_function, tool_from_spec

_log = logging.getLogger("toolsys")
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_LOADER = re.compile(rf"^({_DOTTED}):({_DOTTED})$")
_PARAM_KEYS = frozenset(
    {"type", "description", "enum", "items", "default", "minimum", "maximum", "title"}
)

Parameters = Sequence[Param] | Mapping[str, Any] | None


def lazy_tool(
    name: str,
    *,
    summary: str,
    loader: str,
    parameters: Parameters = None,
    category: Category | str = Category.READ,
    tags: tuple[str, ...] = (),
    timeout: float | None = None,
    idempotent: bool | None = None,
) -> Tool:
    """A tool whose code is imported on its first call, from `loader` ("module:attribute").

    `parameters` is a list of `Param`, a JSON Schema object (flat: each property a JSON type with
    optional description, enum, items, default, minimum, maximum), or None for no parameters.
    The attribute may be a function or a `Tool`.
    """
    match = _LOADER.match(loader) if isinstance(loader, str) else None
    if match is None:
        raise ToolDefinitionError(
            f"Lazy tool {name!r}: loader={loader!r} is not 'module:attribute'; write e.g. "
            "loader='myapp.reports:report_sales'."
        )
    params = _params(name, parameters)
    spec = ToolSpec(name, summary, params, Category(category), tuple(tags))
    manifest = tool_from_spec(spec, _accepts, timeout=timeout, idempotent=idempotent)
    state: dict[str, Tool] = {}

    def load() -> Tool:
        real = state.get("tool") or _load(manifest, match.group(1), match.group(2))
        state["tool"] = real
        return real

    given = {f.name: getattr(manifest, f.name) for f in dataclasses.fields(Tool) if f.init}
    given["model"] = manifest._model  # type: ignore[attr-defined]  # still pending: not created
    return LazyTool(**{**given, "fn": _run_loaded, "source": "lazy"}, load=load)


def _accepts(**arguments: Any) -> None:
    """The signature a manifest's parameters are checked against: it takes them all."""


def _run_loaded(
    real: Tool, arguments: BaseModel, context: Any, dependencies: Any
) -> Any:  # a module-level function: the Timeout layer wraps `fn` to follow its thread
    return real.call(arguments, context, dependencies)


def _unloaded() -> Tool:
    raise RuntimeError("a LazyTool needs its load function")


@dataclass(frozen=True, eq=False)
class LazyTool(Tool):
    """A tool known by its manifest: listed, linted, explained and validated from it without
    importing anything. Its code is loaded by the first call that reaches it (`load`), and the
    call's validated arguments are validated again by the loaded tool, which then runs as itself
    (`fn` runs it, so a Timeout layer follows it onto its worker thread)."""

    load: Callable[[], Tool] = field(default=_unloaded, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "by_keyword", False)  # `call` runs it, never `fn` directly
        object.__setattr__(self, "direct", False)

    def call(
        self,
        arguments: BaseModel,
        context: Mapping[str, Any] | None = None,
        dependencies: Mapping[str, Any] | None = None,
    ) -> Any:
        real = self.load()
        loaded = real.validate(arguments.model_dump(by_alias=True))
        return self.fn(real, loaded, context, dependencies)


def lazy_from_manifest(entry: Mapping[str, Any]) -> Tool:
    """A lazy tool from one manifest entry, e.g. loaded from JSON:

    {"name": "report_sales", "summary": "...", "loader": "myapp.reports:report_sales",
     "parameters": {"type": "object", "properties": {...}, "required": [...]},
     "category": "read"}
    """
    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
        raise ToolDefinitionError(
            f"Manifest entry {entry!r} needs at least 'name', 'summary' and 'loader'."
        )
    known = {"name", "summary", "loader", "parameters", "category", "tags", "timeout", "idempotent"}
    unknown = sorted(set(entry) - known)
    if unknown or "summary" not in entry or "loader" not in entry:
        raise ToolDefinitionError(
            f"Manifest entry {entry['name']!r}: "
            + (f"unknown keys {unknown}; " if unknown else "")
            + f"it needs 'summary' and 'loader' and may have: {', '.join(sorted(known))}."
        )
    options = {k: v for k, v in entry.items() if k != "name"}
    options["tags"] = tuple(options.get("tags", ()))
    return lazy_tool(entry["name"], **options)


def _params(name: str, parameters: Parameters) -> list[Param]:
    """The manifest's parameters as `Param`s; anything a flat manifest cannot say is refused."""
    if parameters is None:
        return []
    if not isinstance(parameters, Mapping):
        if isinstance(parameters, list | tuple) and all(isinstance(p, Param) for p in parameters):
            return list(parameters)
        raise ToolDefinitionError(
            f"Lazy tool {name!r}: parameters must be a list of Param or a JSON Schema object."
        )
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if (
        parameters.get("type", "object") != "object"
        or not isinstance(properties, Mapping)
        or not isinstance(required, list)
    ):
        raise ToolDefinitionError(
            f"Lazy tool {name!r}: parameters must be a JSON Schema object "
            '({"type": "object", "properties": {...}, "required": [...]}).'
        )
    return [_param(name, key, schema, key in required) for key, schema in properties.items()]


def _param(name: str, key: str, schema: Any, required: bool) -> Param:
    kind: Any = schema.get("type") if isinstance(schema, Mapping) else None
    nullable = isinstance(kind, list) and len(kind) == 2 and "null" in kind
    if nullable:
        kind = next(k for k in kind if k != "null")
    items = schema.get("items", {}) if isinstance(schema, Mapping) else None
    if (
        not isinstance(schema, Mapping)
        or set(schema) - _PARAM_KEYS
        or kind not in JSON_TYPES
        or not isinstance(items, Mapping)
    ):
        raise ToolDefinitionError(
            f"Lazy tool {name!r}: parameter {key!r} ({schema!r}) is more than a manifest can "
            "declare: give each parameter one JSON type and optionally description, enum, "
            "items, default, minimum, maximum."
        )
    return Param(
        key,
        kind,
        schema.get("description", ""),
        required=required,
        enum=schema.get("enum"),
        default=schema.get("default"),
        items=items.get("type"),
        nullable=nullable,
        minimum=schema.get("minimum"),
        maximum=schema.get("maximum"),
    )


def _load(placeholder: Tool, module_name: str, attribute: str) -> Tool:
    """Import the code and check it against the manifest, or raise TOOL_LOAD_FAILED."""
    where = f"{module_name}:{attribute}"
    try:
        target: Any = importlib.import_module(module_name)
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise
    except ModuleNotFoundError as exc:
        missing = exc.name or "?"
        own = module_name == missing or module_name.startswith(missing + ".")
        reason = (
            f"module {missing!r} was not found"
            if own
            else f"importing {module_name!r} needs module {missing!r}, which is not installed"
        )
        raise _unavailable(placeholder, reason, exc) from exc
    except BaseException as exc:
        raise _unavailable(
            placeholder, f"importing {module_name!r} raised {type(exc).__name__}", exc
        ) from exc
    try:
        for part in attribute.split("."):
            target = getattr(target, part)
    except AttributeError as exc:
        raise _unavailable(placeholder, f"{module_name!r} has no {attribute!r}", exc) from exc
    real = _as_tool(placeholder, target, where)
    problem = _mismatch(placeholder, real)
    if problem:
        raise _unavailable(placeholder, f"its code does not match its manifest: {problem}")
    return real


def _as_tool(placeholder: Tool, target: Any, where: str) -> Tool:
    if isinstance(target, Tool):
        return target
    if not callable(target) or isinstance(target, type):
        raise _unavailable(placeholder, f"{where!r} is a {type(target).__name__}, not a function")
    try:
        return tool_from_function(
            target,
            name=placeholder.name,
            description=placeholder.description,
            category=placeholder.category,
        )
    except ToolDefinitionError as exc:
        raise _unavailable(placeholder, f"{where!r} cannot be a tool", exc) from exc


def _mismatch(placeholder: Tool, real: Tool) -> str:
    """What differs between the manifest and the code, in a few words ("" when nothing)."""
    if real.category != placeholder.category:
        return f"category {real.category.value} in the code, {placeholder.category.value} in it"
    mine, theirs = shape(placeholder.parameters), shape(real.parameters)
    if mine == theirs:
        return ""
    ours, code = set(mine.get("properties", {})), set(theirs.get("properties", {}))
    if ours != code:
        return f"parameters {sorted(code)} in the code, {sorted(ours)} in the manifest"
    if set(mine.get("required", ())) != set(theirs.get("required", ())):
        return (
            f"required {sorted(theirs.get('required', ()))} in the code, "
            f"{sorted(mine.get('required', ()))} in the manifest"
        )
    differ = sorted(k for k in ours if mine["properties"][k] != theirs["properties"][k])
    return f"the types of {differ} differ" if differ else "the schemas differ"


def _unavailable(placeholder: Tool, reason: str, exc: BaseException | None = None) -> ToolError:
    _log.warning("lazy tool %r could not be loaded: %s", placeholder.name, reason, exc_info=exc)
    return ToolError(
        ErrorCode.TOOL_LOAD_FAILED,
        f"Tool {placeholder.name!r} is unavailable: its code could not be loaded ({reason}).",
        suggestion=(
            f"Answer without {placeholder.name} or use another tool; calling it again will fail "
            "the same way until its code is fixed."
        ),
        retryable=False,
    )


__all__ = ["LazyTool", "lazy_from_manifest", "lazy_tool"]
