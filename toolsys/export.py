"""Provider formats for a tool, both providers' strict modes, and a lint for what they reject.

The same schema goes out in four envelopes:

| target             | shape                                                                 |
|--------------------|-----------------------------------------------------------------------|
| `openai`           | chat completions: `{"type": "function", "function": {"name", ...}}`   |
| `openai-responses` | Responses API, flat: `{"type": "function", "name", "description",     |
|                    | "parameters", "strict"}`                                              |
| `anthropic`        | `{"name", "description", "input_schema"}`, plus `input_examples` when |
|                    | the tool declares examples, `strict: true` in strict mode             |
| `mcp`              | `{"name", "description", "inputSchema"}`                              |

`openai-responses` always says `strict`, true or false: left out, the Responses API tries to
make the schema strict itself and falls back only when it cannot (openai-python 3.57,
`types/responses/namespace_tool_param.py`, `strict`: "If omitted, Responses attempts to use
strict validation when the schema is compatible"; OpenAI's function-calling guide: "To opt out
of strict mode in Responses ... explicitly set strict: false"). Chat completions reads a
missing `strict` as false; so the same tool, omitted `strict`, behaves differently on the two.

Strict mode asks more of the schema, and each provider asks something else:

- OpenAI (`make_strict`): every object closed and every property required (nullable when it
  could be left out); no composition but `anyOf`. What cannot be made strict raises
  `StrictSchemaError` with the path and the rule.
- Anthropic (`make_anthropic_strict`, grammar-constrained sampling): every object closed
  (`additionalProperties: false`), but `required` stays as it is; `oneOf` is read as `anyOf`; no
  numeric, length or pattern constraints, `minItems` only 0 or 1, a fixed list of string
  formats. These rules are the ones anthropic-sdk-python 0.121 applies before it sends a strict
  schema (`lib/_parse/_transform.py`, `transform_schema`), and as it does, a constraint strict
  mode cannot enforce moves into the description, in words, where the model reads it; the tool
  still checks it (a call that breaks it is answered INVALID_ARGUMENTS). A free-form object, a
  tuple or a recursive schema cannot be made strict: `StrictSchemaError`.
  https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use

`lint(tools, target, strict=True)` reports, before any request, what a target's strict mode
refuses (errors) and what it would not enforce (warnings).

`deferred_export` gives the providers' own shapes for tool search: every tool but the core ones
with `defer_loading: true`, and the search tool's definition (Anthropic's
`tool_search_tool_bm25_20251119` / `_regex_`, anthropic-sdk-python 0.121
`types/tool_search_tool_*_param.py`; OpenAI's `{"type": "tool_search"}`, openai-python 3.57
`types/responses/tool_search_tool_param.py`). toolsys's own deferred export
(`registry.export(deferred=True)`, chapter 09) is a plain `search_tools` function instead, which
every provider and the offline model can run.

What this module hands out is read-only (toolsys/_readonly.py): an export shares the tool's
schema, so editing one would edit the tool and every other format. `copy.deepcopy` gives a copy
you may change.

Chapter 03 builds this by hand first: notebooks/03_schemas.ipynb.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from toolsys._lines import fit
from toolsys._readonly import ReadOnlyDict, ReadOnlyList, freeze

if TYPE_CHECKING:
    from toolsys.tool import Tool

Target = Literal["openai", "openai-responses", "anthropic", "mcp"]
TARGETS: tuple[str, ...] = ("openai", "openai-responses", "anthropic", "mcp")

# OpenAI's documented limits for strict schemas (checked 2026): no composition other than anyOf,
# no conditional or pattern-keyed objects, every object closed and fully required.
_STRICT_UNSUPPORTED = (
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "minProperties",
    "maxProperties",
)
_STRICT_MAX_DEPTH = 10
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class StrictSchemaError(ValueError):
    """A schema cannot be made strict: `path` says where, `rule` which rule it breaks."""

    def __init__(self, tool: str, path: str, rule: str, fix: str) -> None:
        super().__init__(
            f"Tool {tool!r} cannot be exported in strict mode: at {path}: {rule} {fix}"
        )
        self.tool, self.path, self.rule, self.fix = tool, path, rule, fix


@dataclass(frozen=True)
class LintIssue:
    """One thing a provider would reject (error) or handle badly (warning)."""

    tool: str
    path: str
    rule: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return fit(f"{self.severity}: {self.tool} {self.path}: {self.rule}")


def export_tool(tool: Tool, target: str, *, strict: bool = False) -> dict[str, Any]:
    """One tool in one provider's format, read-only (it shares the tool's own schema)."""
    if target == "anthropic":
        return _anthropic(tool, strict)
    schema = make_strict(tool.parameters, tool.name) if strict else tool.parameters
    parameters = freeze(schema)  # the tool's own schema is read-only already: shared, not copied
    if target == "openai":
        function = {"name": tool.name, "description": tool.description, "parameters": parameters}
        if strict:
            function["strict"] = True
        return ReadOnlyDict({"type": "function", "function": ReadOnlyDict(function)})
    if target == "openai-responses":
        return ReadOnlyDict(
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": parameters,
                "strict": strict,  # always said: omitted, the Responses API tries strict mode
            }
        )
    if target == "mcp":
        return ReadOnlyDict(
            {"name": tool.name, "description": tool.description, "inputSchema": parameters}
        )
    raise ValueError(f"Unknown export target {target!r}; use one of: {', '.join(TARGETS)}.")


def _anthropic(tool: Tool, strict: bool) -> dict[str, Any]:
    schema: Mapping[str, Any] = tool.parameters
    if "examples" in schema:  # they travel as input_examples, not twice
        schema = {k: v for k, v in schema.items() if k != "examples"}
    if strict:
        schema = make_anthropic_strict(dict(schema), tool.name)
    exported: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": freeze(schema),
    }
    if tool.examples:
        exported["input_examples"] = freeze([dict(e) for e in tool.examples])
    if strict:
        exported["strict"] = True
    return ReadOnlyDict(exported)


def export_tools(
    tools: Iterable[Tool], target: str, *, strict: bool = False
) -> list[dict[str, Any]]:
    """Several tools in one provider's format: a read-only list of read-only exports."""
    if target not in TARGETS:
        raise ValueError(f"Unknown export target {target!r}; use one of: {', '.join(TARGETS)}.")
    return ReadOnlyList(export_tool(tool, target, strict=strict) for tool in tools)


def make_strict(schema: dict[str, Any], tool: str = "tool") -> dict[str, Any]:
    """Rewrite a schema for OpenAI strict mode, or raise `StrictSchemaError` saying why not.

    Objects get `additionalProperties: false` and list every property as required; a property
    that could be left out becomes nullable instead (null then means "use the default"). One
    that was nullable already keeps null for None: if its default is something else, the
    default (which strict mode must drop) goes into its description, and a model that wants it
    sends it (`version: str | None = "latest"`: null means None, "latest" the default).
    """
    return _strict(copy.deepcopy(schema), tool, "$", 0)


def _strict(node: dict[str, Any], tool: str, path: str, depth: int) -> dict[str, Any]:
    if depth > _STRICT_MAX_DEPTH:
        raise StrictSchemaError(
            tool, path, f"nesting deeper than {_STRICT_MAX_DEPTH} levels.", "Flatten the arguments."
        )
    for key in _STRICT_UNSUPPORTED:
        if key in node:
            raise StrictSchemaError(
                tool,
                path,
                f"keyword {key!r} is not supported in strict mode.",
                "Use a simpler type (e.g. a list instead of a tuple, a model instead of a union).",
            )
    node.pop("default", None)
    if "$ref" in node and len(node) > 1:
        node = {"$ref": node["$ref"]}
    if node.get("type") == "object" or "properties" in node:
        extra = node.get("additionalProperties")
        if (
            isinstance(extra, dict)
            or (extra is True)
            or ("properties" not in node and extra is None)
        ):
            raise StrictSchemaError(
                tool,
                path,
                "a free-form object (a dict with arbitrary keys) is not allowed in strict mode.",
                "Describe it with a model or dataclass that has named fields.",
            )
        properties = node.get("properties", {})
        required = set(node.get("required", ()))
        for name, sub in list(properties.items()):
            default = sub.get("default")
            sub = _strict(sub, tool, f"{path}.{name}", depth + 1)
            if name in required:
                properties[name] = sub
            elif default is not None and _allows_null(sub):
                properties[name] = _say_default(sub, default)
            else:
                properties[name] = _make_nullable(sub)
        node["required"] = list(properties)
        node["additionalProperties"] = False
    if isinstance(node.get("items"), dict):
        node["items"] = _strict(node["items"], tool, f"{path}[]", depth + 1)
    if isinstance(node.get("anyOf"), list):
        if path == "$":
            raise StrictSchemaError(
                tool, path, "the root schema cannot be anyOf.", "Make the root an object."
            )
        node["anyOf"] = [
            _strict(sub, tool, f"{path}|{i}", depth + 1) for i, sub in enumerate(node["anyOf"])
        ]
    if "$defs" in node:
        node["$defs"] = {
            key: _strict(sub, tool, f"$defs.{key}", depth + 1) for key, sub in node["$defs"].items()
        }
    return node


# --- Anthropic's strict mode --------------------------------------------------------------------

ANTHROPIC_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
"""The string formats Anthropic's strict mode keeps (anthropic-sdk-python 0.121,
`SupportedStringFormats`); another format is described in words instead."""
_ANTHROPIC_KEPT = frozenset(
    {
        "type",
        "description",
        "title",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "allOf",
        "$ref",
        "$defs",
    }
)
_ANTHROPIC_REFUSED = {
    "prefixItems": "a tuple (fixed positions) cannot be written as strict-mode items.",
    "patternProperties": "an object keyed by a pattern cannot be closed for strict mode.",
}
_WORDS: Mapping[str, str] = {
    "minimum": "at least {}",
    "exclusiveMinimum": "more than {}",
    "maximum": "at most {}",
    "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "pattern": "matching the pattern {}",
    "format": "in the format {}",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "uniqueItems": "no item twice",
}
"""How a constraint strict mode does not enforce is written into the description."""


@dataclass(frozen=True)
class Moved:
    """A constraint Anthropic's strict mode cannot enforce, moved into the description at `path`."""

    path: str
    keywords: tuple[str, ...]


def make_anthropic_strict(
    schema: dict[str, Any], tool: str = "tool", moved: list[Moved] | None = None
) -> dict[str, Any]:
    """Rewrite a schema for Anthropic's strict mode, or raise `StrictSchemaError` saying why not.

    Every object is closed; `oneOf` becomes `anyOf` and `const` a one-value `enum`; a constraint
    strict mode does not enforce (bounds, lengths, patterns, other formats, `default`...) is
    written into the node's description and, when `moved` is given, listed there.
    """
    schema = copy.deepcopy(dict(schema))
    _no_recursion(schema, tool)
    return _anthropic_node(schema, tool, "$", moved if moved is not None else [], 0)


def _anthropic_node(
    node: dict[str, Any], tool: str, path: str, moved: list[Moved], depth: int
) -> dict[str, Any]:
    if depth > _STRICT_MAX_DEPTH:
        raise StrictSchemaError(
            tool, path, f"nesting deeper than {_STRICT_MAX_DEPTH} levels.", "Flatten the arguments."
        )
    for key, rule in _ANTHROPIC_REFUSED.items():
        if key in node:
            raise StrictSchemaError(tool, path, rule, "Use a list, or a model with named fields.")
    out: dict[str, Any] = {}
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "const" in node:
        node["enum"] = [node.pop("const")]
    extra = node.get("additionalProperties")
    if node.get("type") == "object" or "properties" in node:
        if isinstance(extra, dict) or extra is True or ("properties" not in node and extra is None):
            raise StrictSchemaError(
                tool,
                path,
                "a free-form object (a dict with arbitrary keys) is not allowed in strict mode: "
                "every object must be closed (additionalProperties: false).",
                "Describe it with a model or dataclass that has named fields.",
            )
        out["properties"] = {
            name: _anthropic_node(dict(sub), tool, f"{path}.{name}", moved, depth + 1)
            for name, sub in node.get("properties", {}).items()
        }
        out["additionalProperties"] = False
        if "required" in node:
            out["required"] = list(node["required"])
    if isinstance(node.get("items"), dict):
        out["items"] = _anthropic_node(dict(node["items"]), tool, f"{path}[]", moved, depth + 1)
    for key in ("anyOf", "allOf"):
        if isinstance(node.get(key), list):
            out[key] = [
                _anthropic_node(dict(sub), tool, f"{path}|{i}", moved, depth + 1)
                for i, sub in enumerate(node[key])
            ]
    if isinstance(node.get("$defs"), dict):
        out["$defs"] = {
            name: _anthropic_node(dict(sub), tool, f"$defs.{name}", moved, depth + 1)
            for name, sub in node["$defs"].items()
        }
    for key in ("type", "title", "enum", "$ref"):
        if key in node:
            out[key] = node[key]
    if node.get("format") in ANTHROPIC_FORMATS:
        out["format"] = node["format"]
    if node.get("minItems") in (0, 1):
        out["minItems"] = node["minItems"]
    done = set(out) | {"properties", "additionalProperties", "required", "items", "description"}
    skip = done | {"anyOf", "allOf", "$defs", "default"}
    rest = {k: v for k, v in node.items() if k not in skip}
    notes = []
    if rest:
        moved.append(Moved(path, tuple(rest)))
        known = [k for k in _WORDS if k in rest] + [k for k in rest if k not in _WORDS]
        words = ", ".join(_in_words(key, rest[key]) for key in known)
        notes.append(f"Checked by the tool, not by strict mode: {words}.")
    if "default" in node:
        notes.append(f"Default: {json.dumps(node['default'], ensure_ascii=False)}.")
    description = (node.get("description") or "").rstrip()
    if description and notes and description[-1] not in ".!?":
        description += "."
    description = " ".join([description, *notes]).strip()
    if description:
        out["description"] = description
    order = ["type", "title", "description"]
    return {k: out[k] for k in [*order, *(k for k in out if k not in order)] if k in out}


def _in_words(key: str, value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return _WORDS[key].format(shown) if key in _WORDS else f"{key} {shown}"


def _no_recursion(schema: Mapping[str, Any], tool: str) -> None:
    """Strict mode cannot sample a recursive schema: refuse a `$defs` entry that reaches itself."""
    defs = schema.get("$defs") or {}
    edges = {
        name: set(re.findall(r'"#/\$defs/([^"]+)"', json.dumps(sub))) for name, sub in defs.items()
    }

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in edges.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    for name in edges:
        if reaches(name, name, {name}):
            raise StrictSchemaError(
                tool,
                f"$defs.{name}",
                "a recursive schema (a type that contains itself) is not supported in strict mode.",
                "Give the nesting a fixed depth, or leave strict mode off for this tool.",
            )


# --- the providers' own deferred shapes ----------------------------------------------------------

SEARCH_TOOLS: Mapping[str, Mapping[str, str]] = {
    "anthropic": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "anthropic-regex": {
        "type": "tool_search_tool_regex_20251119",
        "name": "tool_search_tool_regex",
    },
    "openai-responses": {"type": "tool_search"},
}
"""Each provider's tool-search tool: Anthropic runs it on its servers (BM25 over natural
language, or a Python regex) and answers with `tool_reference` blocks; OpenAI's Responses API
runs `tool_search` itself."""


class _Lists(Protocol):
    """A registry or a view of one: lists its tools by the names it runs them by."""

    def export(
        self, target: str = ..., *, strict: bool = ..., context: Mapping[str, Any] | None = ...
    ) -> list[dict[str, Any]]: ...


def deferred_export(
    tools: Iterable[Tool] | _Lists,
    target: str,
    *,
    core: Iterable[str] = (),
    search: str | None = None,
    strict: bool = False,
    context: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The provider's own tool-search shape: its search tool, the `core` tools as they are, every
    other tool with `defer_loading: true` (loaded only when a search returns it).

    `tools`: a registry or a view of one (a namespace, a deferred session), whose listing is
    used as `export` gives it: the names it runs tools by, and with `context` only the tools
    this caller may use; or plain `Tool`s, listed by their own names (no `context`).
    `target`: "anthropic" or "openai-responses"; `search`: "bm25" (the default) or "regex" for
    Anthropic. Compare `registry.export(deferred=True)`, toolsys's own, provider-neutral shape.
    """
    if target not in ("anthropic", "openai-responses"):
        raise ValueError(
            f"deferred_export(target={target!r}): the providers' tool search is 'anthropic' "
            "(Messages API) or 'openai-responses' (Responses API); for chat completions and MCP "
            "use toolsys's own: registry.export(target, deferred=True)."
        )
    variant = "anthropic-regex" if target == "anthropic" and search == "regex" else target
    if search not in (None, "bm25", "regex") or (search == "regex" and target != "anthropic"):
        raise ValueError(
            f"deferred_export(search={search!r}): Anthropic offers 'bm25' and 'regex'; OpenAI's "
            "tool_search has no variants (leave search out)."
        )
    if callable(getattr(tools, "export", None)):
        listed = list(cast(_Lists, tools).export(target, strict=strict, context=context))
    elif context is not None:
        raise ValueError(
            "deferred_export(context=...): give the registry (or the view) rather than its "
            "tools, so that what this caller may use can be asked of it."
        )
    else:
        listed = [
            export_tool(tool, target, strict=strict) for tool in cast("Iterable[Tool]", tools)
        ]
    core = set(core)
    unknown = sorted(core - {t["name"] for t in listed})
    if unknown:
        raise ValueError(f"deferred_export(core=...): no tool named {unknown[0]!r} to keep loaded.")
    out: list[dict[str, Any]] = [ReadOnlyDict(SEARCH_TOOLS[variant])]
    for exported in listed:
        if exported["name"] not in core:
            exported = ReadOnlyDict({**exported, "defer_loading": True})
        out.append(exported)
    return ReadOnlyList(out)


def _allows_null(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(option.get("type") == "null" for option in node.get("anyOf", ()))


def _say_default(node: dict[str, Any], default: Any) -> dict[str, Any]:
    """Null means None here, so the dropped default is reachable only by sending it: say so."""
    value = json.dumps(default, ensure_ascii=False)
    note = f"Default: {value}; to get the default, send {value} (null means no value)."
    description = node.get("description", "").rstrip()
    if description and description[-1] not in ".!?":
        description += "."
    rest = {key: item for key, item in node.items() if key != "description"}
    first = {"type": rest.pop("type")} if "type" in rest else {}
    return {**first, "description": f"{description} {note}".strip(), **rest}


def _make_nullable(node: dict[str, Any]) -> dict[str, Any]:
    if _allows_null(node):
        return node
    kind = node.get("type")
    if isinstance(kind, str) and "enum" not in node:
        return {**node, "type": [kind, "null"]}
    if isinstance(kind, list):
        return {**node, "type": [*kind, "null"]}
    description = node.get("description")
    inner = {k: v for k, v in node.items() if k != "description"}
    nullable: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if description:
        nullable["description"] = description
    return nullable


def lint(tools: Iterable[Tool], target: str = "openai", *, strict: bool = False) -> list[LintIssue]:
    """What the provider would reject (or handle badly) before any request is sent."""
    if target not in TARGETS:
        raise ValueError(f"Unknown lint target {target!r}; use one of: {', '.join(TARGETS)}.")
    issues: list[LintIssue] = []
    tools = list(tools)
    if target in ("openai", "openai-responses") and len(tools) > 128:
        issues.append(LintIssue("*", "$", f"{len(tools)} tools; OpenAI accepts at most 128."))
    for tool in tools:
        issues.extend(_lint_tool(tool, target, strict))
    return issues


def _lint_tool(tool: Tool, target: str, strict: bool) -> list[LintIssue]:
    issues: list[LintIssue] = []
    if not _NAME.match(tool.name):
        issues.append(LintIssue(tool.name, "name", "must match ^[A-Za-z0-9_-]{1,64}$."))
    if tool.parameters.get("type") != "object":
        issues.append(LintIssue(tool.name, "$", "the parameters schema must be of type object."))
    if target in ("openai", "openai-responses") and len(tool.description) > 1024:
        issues.append(
            LintIssue(
                tool.name, "description", "longer than 1024 characters; it will be cut.", "warning"
            )
        )
    if strict and target == "anthropic":
        moved: list[Moved] = []
        try:
            make_anthropic_strict(dict(tool.parameters), tool.name, moved)
        except StrictSchemaError as exc:
            issues.append(LintIssue(tool.name, exc.path, f"{exc.rule} {exc.fix}"))
        issues.extend(
            LintIssue(
                tool.name,
                m.path,
                f"strict mode does not enforce {', '.join(m.keywords)}: written into the "
                "description instead (the tool still checks it).",
                "warning",
            )
            for m in moved
        )
    elif strict:
        try:
            make_strict(tool.parameters, tool.name)
        except StrictSchemaError as exc:
            issues.append(LintIssue(tool.name, exc.path, f"{exc.rule} {exc.fix}"))
    issues.extend(
        LintIssue(tool.name, "diagnostics", diagnostic, "warning")
        for diagnostic in tool.diagnostics
    )
    return issues
