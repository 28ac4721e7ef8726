"""`parallel`: children run at once on the same arguments; partial success is a success."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from toolsys.compose._children import Step, as_steps, merged_model, own_access, unique_names
from toolsys.compose._pipeline import composite, given
from toolsys.compose._run import Inner, envelope, guarded
from toolsys.errors import ErrorCode, ToolError
from toolsys.tool import Tool


def parallel(
    name: str,
    children: Sequence[Tool | Step | Callable[..., Any]],
    *,
    description: str | None = None,
    roles: Any = None,
    available: Callable[[Any], Any] | None = None,
) -> Tool:
    """A tool that runs every child on the same arguments, at once (async children overlap).

    Its schema is the children's inputs merged: a parameter is required when any child requires
    it, and a parameter two children declare with different types is refused now. Each child
    receives the parameters it declares. The value is always the same shape:

        {"complete": bool, "results": {child: value}, "errors": {child: envelope}}

    `complete` is False when some children failed (partial success is still a success, so the
    model sees both). When every child fails, the call fails: the children's common code (or
    EXECUTION_ERROR), with each envelope in `details.errors`. Only a caller who may use every
    child may use it (`roles` and `available` limit it further).
    """
    tools = [s.tool for s in as_steps(name, children)]
    unique_names(name, tools)
    model = merged_model(name, tools)

    async def run(arguments: BaseModel) -> dict[str, Any]:
        return await guarded(name, run, lambda: _run(name, tools, arguments))

    text = description or f"Runs {', '.join(t.name for t in tools)} at once on the same arguments."
    access = own_access(name, roles, available)
    return composite(name, text, model, run, tools, "parallel", access)


async def _run(name: str, tools: list[Tool], arguments: BaseModel) -> dict[str, Any]:
    inner = Inner(name)
    sent = given(arguments)

    def own(tool: Tool) -> dict[str, Any]:
        properties = tool.parameters.get("properties", {})
        return {key: value for key, value in sent.items() if key in properties}

    results = await asyncio.gather(*(inner.call(t.name, t, own(t)) for t in tools))
    values = {t.name: r.value for t, r in zip(tools, results, strict=True) if r.ok}
    errors = {
        t.name: envelope(r).to_dict() for t, r in zip(tools, results, strict=True) if not r.ok
    }
    if values:
        return {"complete": not errors, "results": values, "errors": errors}
    codes = Counter(error["code"] for error in errors.values())
    code = next(iter(codes)) if len(codes) == 1 else ErrorCode.EXECUTION_ERROR
    raise ToolError(
        code,
        f"Every child of {name!r} failed: "
        + ", ".join(
            f"{child} ({error['code']}: {error['message']})" for child, error in errors.items()
        ),
        suggestion="Read each child's error in details.errors; "
        + "; ".join(
            f"{child}: {error['suggestion']}"
            for child, error in errors.items()
            if error["suggestion"]
        ),
        retryable=all(error["retryable"] for error in errors.values()),
        details={"errors": errors},
    )
