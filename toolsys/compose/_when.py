"""`when`: a conditional composite; one of two branches runs, chosen per call."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from toolsys.compose._children import as_tool, merged_model, own_access
from toolsys.compose._pipeline import composite, given
from toolsys.compose._run import Inner, guarded, own_failure, step_failed
from toolsys.errors import ToolDefinitionError
from toolsys.tool import Tool, check_name

Predicate = Callable[[dict[str, Any]], bool]


def when(
    name: str,
    condition: Tool | Predicate,
    then: Tool | Callable[..., Any],
    otherwise: Tool | Callable[..., Any],
    *,
    description: str | None = None,
    roles: Any = None,
    available: Callable[[Any], Any] | None = None,
) -> Tool:
    """A tool that runs `then` if `condition` holds for this call, else `otherwise`.

    `condition` is either a predicate over the call's arguments, `lambda args: args["amount"] >
    100` (it receives them as JSON data, defaults filled in), or a `Tool`, run as the inner call
    `condition` on the same arguments: its result must be True or False. Either way an answer
    that is not a bool is an error, never a truthy guess. The schema merges the branches' inputs
    (and the condition tool's): a parameter is required when the condition tool requires it or
    both branches do. The value is the chosen branch's; the envelope of a failure names the branch.
    Only a caller who may use the condition tool and both branches may use it (`roles` and
    `available` limit it further).

    >>> when("refund_or_escalate", lambda a: a["amount"] <= 100, then=refund, otherwise=escalate)
    """
    check_name(name)
    if not isinstance(condition, Tool) and not callable(condition):
        raise ToolDefinitionError(
            f"Composite {name!r}: condition={condition!r} is neither a Tool nor a predicate; pass "
            "e.g. lambda args: args['amount'] > 100, or a tool that returns True or False."
        )
    test = condition if isinstance(condition, Tool) else None
    branches = {"then": as_tool(then, name), "otherwise": as_tool(otherwise, name)}
    model = merged_model(name, [test] if test else [], list(branches.values()))

    async def run(arguments: BaseModel) -> Any:
        return await guarded(name, run, lambda: _run(name, condition, branches, arguments))

    text = description or (
        f"Runs {branches['then'].name} when {_said(condition)}, else {branches['otherwise'].name}."
    )
    children = [*([test] if test else []), *branches.values()]
    access = own_access(name, roles, available)
    return composite(name, text, model, run, children, "when", access)


def _said(condition: Any) -> str:
    if isinstance(condition, Tool):
        return f"{condition.name} says so"
    doc = (getattr(condition, "__doc__", None) or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else "its condition holds"


async def _run(name: str, condition: Any, branches: dict[str, Tool], arguments: BaseModel) -> Any:
    inner = Inner(name)
    sent = given(arguments)

    def own(tool: Tool) -> dict[str, Any]:
        properties = tool.parameters.get("properties", {})
        return {key: value for key, value in sent.items() if key in properties}

    completed: list[tuple[Tool, Any]] = []
    judge: Tool | None = None
    if isinstance(condition, Tool):
        judge = condition
        result = await inner.call("condition", judge, own(judge))
        if not result.ok:
            raise step_failed(
                name, "The condition", "condition", judge, result, [], made_by_us=False
            )
        decided: Any = result.value
        completed.append((judge, decided))
    else:
        try:
            decided = condition(arguments.model_dump(mode="json", by_alias=True))
        except (KeyboardInterrupt, asyncio.CancelledError):
            raise
        except BaseException as exc:
            failed = own_failure(name, "The predicate raised", exc)
            raise step_failed(
                name, "The condition", "condition", None, failed, [], made_by_us=True
            ) from None
    if type(decided) is not bool:
        failed = own_failure(name, f"It gave {type(decided).__name__}, not True or False")
        raise step_failed(
            name, "The condition", "condition", judge, failed, completed, made_by_us=True
        )
    label = "then" if decided else "otherwise"
    chosen = branches[label]
    result = await inner.call(label, chosen, own(chosen))
    if not result.ok:
        raise step_failed(
            name, f"The {label!r} branch", label, chosen, result, completed, made_by_us=False
        )
    return result.value
