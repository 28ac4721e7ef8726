"""Provider formats for a tool, OpenAI's strict mode, and a lint for what providers reject.

The same schema goes out in three envelopes: OpenAI's `{"type": "function", "function": ...}`,
Anthropic's `{"name", "description", "input_schema"}` and MCP's `{"name", "description",
"inputSchema"}`. Strict mode (OpenAI) asks more of the schema; `make_strict` does the rewriting
and says exactly where and why when a schema cannot be made strict.

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
from typing import TYPE_CHECKING, Any, Literal

from toolsys._lines import fit
from toolsys._readonly import ReadOnlyDict, ReadOnlyList, freeze

if TYPE_CHECKING:
    from toolsys.tool import Tool

Target = Literal["openai", "anthropic", "mcp"]
TARGETS: tuple[str, ...] = ("openai", "anthropic", "mcp")

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
    schema = make_strict(tool.parameters, tool.name) if strict else tool.parameters
    parameters = freeze(schema)  # the tool's own schema is read-only already: shared, not copied
    if target == "openai":
        function = {"name": tool.name, "description": tool.description, "parameters": parameters}
        if strict:
            function["strict"] = True
        return ReadOnlyDict({"type": "function", "function": ReadOnlyDict(function)})
    if target == "anthropic":
        return ReadOnlyDict(
            {"name": tool.name, "description": tool.description, "input_schema": parameters}
        )
    if target == "mcp":
        return ReadOnlyDict(
            {"name": tool.name, "description": tool.description, "inputSchema": parameters}
        )
    raise ValueError(f"Unknown export target {target!r}; use one of: {', '.join(TARGETS)}.")


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
    if target == "openai" and len(tools) > 128:
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
    if target == "openai" and len(tool.description) > 1024:
        issues.append(
            LintIssue(
                tool.name, "description", "longer than 1024 characters; it will be cut.", "warning"
            )
        )
    if strict:
        try:
            make_strict(tool.parameters, tool.name)
        except StrictSchemaError as exc:
            issues.append(LintIssue(tool.name, exc.path, f"{exc.rule} {exc.fix}"))
    issues.extend(
        LintIssue(tool.name, "diagnostics", diagnostic, "warning")
        for diagnostic in tool.diagnostics
    )
    return issues
