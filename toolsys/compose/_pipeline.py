"""`pipeline`: steps run one after the other, each fed by the ones before; a tool itself."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from toolsys.compose._children import (
    Access,
    Step,
    all_idempotent,
    as_steps,
    highest_category,
    own_access,
    who_may_use,
)
from toolsys.compose._run import Inner, guarded, own_failure, step_failed
from toolsys.tool import Tool, tool_from_function


def given(arguments: BaseModel) -> dict[str, Any]:
    """The arguments the model actually sent, by wire name, as validated values (a child then
    applies its own defaults to what was left out)."""
    fields = type(arguments).model_fields
    return {
        (fields[f].alias or f): getattr(arguments, f)
        for f in arguments.model_fields_set
        if f in fields
    }


def composite(
    name: str,
    description: str,
    model: type[BaseModel],
    runner: Callable[[BaseModel], Any],
    children: Sequence[Tool],
    source: str,
    access: Access = None,
) -> Tool:
    """The composite as a `Tool`: its children's highest category, idempotent only if all are,
    and usable only by a caller who may use every child (and `access`: its own roles and
    available)."""
    roles, available = who_may_use([*children, *([] if access is None else [access])])
    tool = tool_from_function(
        runner,
        name=name,
        description=description,
        category=highest_category(children),
        args=model,
        idempotent=all_idempotent(children),
        roles=roles,
        available=available,
    )
    return dataclasses.replace(tool, source=source)


def pipeline(
    name: str,
    steps: Sequence[Tool | Step | Callable[..., Any]],
    *,
    description: str | None = None,
    roles: Any = None,
    available: Callable[[Any], Any] | None = None,
) -> Tool:
    """A tool that runs `steps` in order; its schema is the first step's, its value the last's.

    Each step after the first gets its arguments by parameter name from the pipeline's own
    arguments and every earlier result that is a JSON object (the latest wins), or from its
    mapping: `step(refund, inputs=lambda previous, args: {...})`. A failure at step k ends the
    run with an envelope naming step k, carrying step k's own envelope (`details.failed_step`)
    and what steps 1..k-1 returned (`details.completed`). `roles` and `available` limit who
    may use it, beyond its steps' own (which it always keeps).

    >>> registry.add(pipeline("lookup_then_refund", [find_order, refund]))
    """
    chain = as_steps(name, steps)
    tools = [s.tool for s in chain]
    first = tools[0]

    async def run(arguments: BaseModel) -> Any:
        return await guarded(name, run, lambda: _run(name, chain, arguments))

    text = description or (
        f"Runs {', then '.join(t.name for t in tools)}. {first.description}".strip()
    )
    access = own_access(name, roles, available)
    return composite(name, text, first.model, run, tools, "pipeline", access)


async def _run(name: str, chain: list[Step], arguments: BaseModel) -> Any:
    inner = Inner(name)
    pool = given(arguments)
    completed: list[tuple[Tool, Any]] = []
    previous: Any = None
    for index, current in enumerate(chain, 1):
        tool = current.tool
        if current.inputs is None:
            properties = tool.parameters.get("properties", {})
            made = {key: value for key, value in pool.items() if key in properties}
            result = await inner.call(str(index), tool, made)
        else:
            made_or_failed = _mapped(name, current, previous, arguments)
            result = (
                await inner.call(str(index), tool, made_or_failed)
                if isinstance(made_or_failed, dict)
                else made_or_failed
            )
        if not result.ok:
            raise step_failed(
                name,
                f"Step {index}",
                str(index),
                tool,
                result,
                completed,
                made_by_us=index > 1 or current.inputs is not None,
            )
        previous = result.value
        completed.append((tool, previous))
        if isinstance(previous, dict):
            pool.update((k, v) for k, v in dict.items(previous) if isinstance(k, str))
    return previous


def _mapped(name: str, current: Step, previous: Any, arguments: BaseModel) -> Any:
    """The step's arguments from its mapping, or a failure result saying what the mapping did."""
    assert current.inputs is not None
    tool = current.tool
    try:
        made = current.inputs(previous, arguments.model_dump(mode="json", by_alias=True))
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise
    except BaseException as exc:
        return own_failure(name, f"Making the arguments for {tool.name!r} raised", exc)
    if not isinstance(made, dict):
        return own_failure(
            name,
            f"Making the arguments for {tool.name!r} gave {type(made).__name__}, "
            "not a dict of arguments",
        )
    return made
