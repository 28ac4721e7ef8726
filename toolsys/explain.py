"""`explain(tool)`: what exactly the model sees for a tool, in every format, as text.

Students (and developers debugging a model that will not call their tool) should never have to
guess what was sent. This prints it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from toolsys.export import StrictSchemaError, export_tool
from toolsys.namespaces import describe

if TYPE_CHECKING:
    from toolsys.tool import Tool


def _parameter_lines(tool: Tool) -> list[str]:
    properties = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", ()))
    if not properties:
        return ["  (none)"]
    lines = []
    for name, schema in properties.items():
        kind = schema.get("type", "any" if "anyOf" not in schema else "union")
        kind = " | ".join(kind) if isinstance(kind, list) else kind
        flags = "required" if name in required else "optional"
        if "enum" in schema:
            flags += ", one of " + ", ".join(json.dumps(v) for v in schema["enum"])
        if "default" in schema:
            flags += f", default {json.dumps(schema['default'])}"
        description = schema.get("description", "(no description)")
        lines.append(f"  {name}: {kind} ({flags}) - {description}")
    return lines


def explain(tool: Tool) -> str:
    namespace = describe(tool.name)
    lines = [
        f"Tool {tool.name!r} ({tool.category.value}, from {tool.source})",
        *([namespace] if namespace else []),
        "",
        "Description the model reads:",
        *(f"  {line}" for line in (tool.description or "(none)").splitlines()),
        "",
        "Parameters:",
        *_parameter_lines(tool),
    ]
    for target in ("openai", "anthropic", "mcp"):
        lines += ["", f"As sent to {target}:", json.dumps(export_tool(tool, target), indent=2)]
    try:
        strict = json.dumps(export_tool(tool, "openai", strict=True), indent=2)
    except StrictSchemaError as exc:
        strict = f"(cannot be made strict: {exc})"
    lines += ["", "As sent to openai with strict=True:", strict]
    lines += ["", "Diagnostics:", *(f"  - {d}" for d in tool.diagnostics or ["(none)"])]
    return "\n".join(lines)
