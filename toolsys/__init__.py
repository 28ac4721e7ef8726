"""toolsys: the tool layer of an LLM agent, built chapter by chapter in the workbook.

Layers, lowest first (imports only point down): spec / schema / errors / result -> tool ->
the execute path (`Executor`, `Layer`, `Next`: one seam every call goes through) -> registry
and its views (namespaces, deferred sessions) -> execution layers -> loop -> models, tools,
widgets, checks, cli.
`import toolsys` stays light: openai, ipywidgets, matplotlib and mcp load only when used.
"""

from toolsys import _platform  # noqa: F401  # first: in the browser it makes httpx2 importable
from toolsys._redact import add_secret, add_secret_name, add_secret_pattern, redact, redact_secrets
from toolsys.components import BaseTool, Toolkit
from toolsys.discovery import discover
from toolsys.errors import ErrorCode, ErrorInfo, ToolDefinitionError, ToolError
from toolsys.execution import Call, Executor, Layer, Next, ToolExecutor
from toolsys.export import LintIssue, StrictSchemaError
from toolsys.injection import Context, Depends
from toolsys.isolate import Subprocess
from toolsys.partial import Partial
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.spec import Category, Param, ToolSpec
from toolsys.tool import Tool

__all__ = [
    "BaseTool",
    "Call",
    "Category",
    "Context",
    "Depends",
    "ErrorCode",
    "ErrorInfo",
    "Executor",
    "Layer",
    "LintIssue",
    "Next",
    "Param",
    "Partial",
    "Registry",
    "StrictSchemaError",
    "Subprocess",
    "Tool",
    "ToolDefinitionError",
    "ToolError",
    "ToolExecutor",
    "ToolResult",
    "ToolSpec",
    "Toolkit",
    "add_secret",
    "add_secret_name",
    "add_secret_pattern",
    "discover",
    "redact",
    "redact_secrets",
]
