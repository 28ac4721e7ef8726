"""The children of a composite, checked when it is built: what each step is, what it may do,
and the one input the composite shows the model.

Everything that can be wrong in a composition without running it is refused here, with a
`ToolDefinitionError` naming the composite, the child and the value: a child that is not a tool,
a mapping that cannot take `(previous, arguments)`, two parallel children with the same name,
a parameter two children declare with different types.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo

from toolsys._schema_shape import shape
from toolsys.errors import ToolDefinitionError
from toolsys.spec import Category
from toolsys.tool import Tool, check_name, tool_from_function

Inputs = Callable[[Any, dict[str, Any]], Mapping[str, Any]]
"""`inputs(previous_result, arguments) -> the next step's arguments` (a pipeline step's mapping)."""

_ORDER = (Category.READ, Category.WRITE, Category.EXECUTE)


@dataclass(frozen=True)
class Step:
    """One child of a composite: a tool, and (pipelines only) how its arguments are made.

    Without `inputs`, a pipeline step receives, by parameter name, the values of the pipeline's
    own arguments overlaid with every earlier step's result that is a JSON object (the latest
    wins). With `inputs`, it receives `inputs(previous_result, arguments)`, where `arguments`
    are the pipeline's own (defaults filled in).
    """

    tool: Tool
    inputs: Inputs | None = None


def step(tool: Tool | Callable[..., Any], inputs: Inputs | None = None) -> Step:
    """A pipeline step whose arguments come from `inputs(previous_result, arguments)`.

    >>> step(refund, inputs=lambda order, args: {"order_id": order["id"], "amount": order["total"]})
    """
    built = as_tool(tool, "step()")
    if inputs is not None:
        _check_inputs(built.name, inputs)
    return Step(built, inputs)


def as_tool(child: Any, composite: str) -> Tool:
    """A child as a `Tool`: a Tool as it is, a plain function registered from its hints."""
    if isinstance(child, Step):
        return child.tool
    if isinstance(child, Tool):
        return child
    if callable(child) and not isinstance(child, type):
        return tool_from_function(child)
    raise ToolDefinitionError(
        f"Composite {composite!r}: step {child!r} is not a tool; pass a Tool (e.g. from "
        "registry.get(name) or tool_from_function(fn)), a plain function, or step(tool, ...)."
    )


def as_steps(composite: str, children: Any, *, at_least: int = 1) -> list[Step]:
    """The children as `Step`s; a bad list or child is refused now, naming the composite."""
    check_name(composite)
    if isinstance(children, str | bytes | Mapping) or not isinstance(children, Iterable):
        raise ToolDefinitionError(
            f"Composite {composite!r}: steps must be a list of tools, got {children!r}."
        )
    steps = [c if isinstance(c, Step) else Step(as_tool(c, composite)) for c in children]
    if len(steps) < at_least:
        raise ToolDefinitionError(
            f"Composite {composite!r} needs at least {at_least} step(s), got {len(steps)}."
        )
    return steps


def _check_inputs(name: str, inputs: Any) -> None:
    try:
        inspect.signature(inputs).bind(None, {})
    except TypeError as exc:
        raise ToolDefinitionError(
            f"Step {name!r}: inputs={inputs!r} must be callable as inputs(previous_result, "
            f"arguments) and return the step's arguments as a dict ({exc})."
        ) from None
    except ValueError:  # a builtin without a signature: trust it
        return


def highest_category(tools: Iterable[Tool]) -> Category:
    """The most powerful category among `tools`: READ < WRITE < EXECUTE."""
    return max((Category(t.category) for t in tools), key=_ORDER.index, default=Category.READ)


def all_idempotent(tools: Iterable[Tool]) -> bool:
    """A composite can be repeated safely only if every child can."""
    return all(t.idempotent for t in tools)


Access = Any
"""Something with `roles` and `available`, as a tool has (a composite's own limits)."""


def own_access(name: str, roles: Any, available: Any) -> Access:
    """A composite's own `roles=`/`available=`, checked as a tool's are (None when neither)."""
    if roles is None and available is None:
        return None
    return tool_from_function(lambda: None, name=name, roles=roles, available=available)


def who_may_use(tools: Iterable[Access]) -> tuple[frozenset[str] | None, Any]:
    """The `roles` and `available` of a composite: a caller may use it only when they may use
    every child, so it is never listed to someone its steps would refuse."""
    roles: frozenset[str] | None = None
    checks = []
    for tool in tools:
        if tool.roles is not None:
            roles = tool.roles if roles is None else roles & tool.roles
        if tool.available is not None:
            checks.append(tool.available)
    if not checks:
        return roles, None

    def available(context: Mapping[str, Any]) -> bool:
        return all(check(context) is True for check in checks)

    return roles, available


def unique_names(composite: str, tools: Sequence[Tool]) -> None:
    """Parallel results are keyed by child name: two children may not share one."""
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise ToolDefinitionError(
                f"Composite {composite!r}: two children are named {tool.name!r}; their results "
                "would overwrite each other. Rename one (e.g. dataclasses.replace(tool, name=...))."
            )
        seen.add(tool.name)


def merged_model(
    composite: str, always: Sequence[Tool], either: Sequence[Tool] = ()
) -> type[BaseModel]:
    """One argument model for children that all receive the same arguments.

    `always` are the children that run on every call (every parallel child, a `when`'s condition
    tool): a parameter is required when one of them requires it. `either` are alternatives (a
    `when`'s branches): a parameter is required when every one of them requires it. A parameter
    declared by several children must have the same type in each (the model sends one value for
    all of them); otherwise the composite is refused, naming both children and both types.
    """
    tools = [*always, *either]
    fields: dict[str, tuple[str, Any, FieldInfo]] = {}
    owners: dict[str, Tool] = {}
    for tool in tools:
        properties = tool.parameters.get("properties", {})
        for field, info in tool.model.model_fields.items():
            key = info.alias or field
            if key not in properties:
                continue
            first = owners.get(key)
            if first is None:
                owners[key], fields[key] = tool, (field, info.annotation, info)
                continue
            mine, theirs = properties[key], first.parameters["properties"][key]
            if shape(_not_null(mine)) != shape(_not_null(theirs)):
                raise ToolDefinitionError(
                    f"Composite {composite!r}: parameter {key!r} is {_type_of(theirs)} in "
                    f"{first.name!r} but {_type_of(mine)} in {tool.name!r}; the model can send "
                    "only one value. Rename the parameter in one child, or use a pipeline with "
                    "a mapping."
                )
            stricter = shape(mine) != shape(theirs) and shape(mine) == shape(_not_null(mine))
            if stricter or (info.is_required() and not fields[key][2].is_required()):
                owners[key], fields[key] = tool, (field, info.annotation, info)
    definitions: dict[str, Any] = {}
    for key, (field, annotation, info) in fields.items():
        must = any(_requires(t, key) for t in always) or (
            bool(either) and all(_requires(t, key) for t in either)
        )
        if info.is_required() and not must:
            extra = info.json_schema_extra if info.json_schema_extra else _no_null_default
            info = FieldInfo.merge_field_infos(info, default=None, json_schema_extra=extra)
        definitions[field] = (annotation, info)
    return create_model(
        f"{composite}_arguments",
        __config__=ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True),
        **definitions,
    )


def _no_null_default(schema: dict[str, Any]) -> None:
    # Optional only because another branch does not need it: leaving it out means "not sent",
    # not null, so the schema must not promise a null default.
    if schema.get("default", 0) is None:
        del schema["default"]


def _requires(tool: Tool, key: str) -> bool:
    return key in tool.parameters.get("required", ())


def _not_null(schema: Mapping[str, Any]) -> Any:
    """The schema with `null` taken out: `number | null` and `number` carry the same values, and
    the composite then asks for the stricter one, which every child accepts."""
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        rest = [k for k in kind if k != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}
    options = schema.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [o for o in options if o != {"type": "null"}]
        others = {k: v for k, v in schema.items() if k != "anyOf"}
        return {**others, **rest[0]} if len(rest) == 1 else {**others, "anyOf": rest}
    return schema


def _type_of(schema: Mapping[str, Any]) -> str:
    """A parameter's type in a few words: `string`, `number | null`, or its shape as JSON."""
    kind = schema.get("type")
    if isinstance(kind, str) and kind not in ("object", "array"):
        return kind
    if isinstance(kind, list):
        return " | ".join(map(str, kind))
    text = json.dumps(shape(schema), sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."
