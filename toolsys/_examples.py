"""A tool's declared examples: typical inputs, each checked against the tool's own schema.

Anthropic's Messages API takes them as a tool's `input_examples` (anthropic-sdk-python 0.121,
`types/tool_param.py`: `input_examples: Iterable[Dict[str, object]]`); its docs ask that each
example be valid against the tool's `input_schema`
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools, "Providing tool use
examples"). An example that is not is worse than none: it teaches the model a call the tool
refuses. So they are checked when the tool is registered, as sent (no repair, no coercion), and
a bad one is a `ToolDefinitionError` naming it and what is wrong.

    @registry.tool(examples=[{"city": "Paris"}, {"city": "Tokyo", "units": "imperial"}])
    def get_weather(city: str, units: Literal["metric", "imperial"] = "metric") -> dict: ...

An argument model may declare them in its JSON Schema instead
(`model_config = ConfigDict(json_schema_extra={"examples": [...]})`, the JSON Schema
`examples` keyword); they are checked the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from toolsys._readonly import freeze
from toolsys.errors import ToolDefinitionError

if TYPE_CHECKING:
    from toolsys._tool import Tool

MAX_EXAMPLES = 20  # a handful teach; dozens only cost tokens in every request


def checked_examples(tool: Tool, examples: Any) -> tuple[Mapping[str, Any], ...]:
    """`examples` as read-only dicts, valid against `tool`'s schema (or ToolDefinitionError)."""
    if isinstance(examples, Mapping):
        examples = (examples,)
    if isinstance(examples, str | bytes) or not isinstance(examples, list | tuple):
        raise ToolDefinitionError(
            f"Tool {tool.name!r}: examples={examples!r}; give a list of argument objects, e.g. "
            'examples=[{"city": "Paris"}].'
        )
    given = list(examples)
    if len(given) > MAX_EXAMPLES:
        raise ToolDefinitionError(
            f"Tool {tool.name!r}: {len(given)} examples; give at most {MAX_EXAMPLES} (two to "
            "four that show different shapes of a call teach the most)."
        )
    checked = []
    for i, example in enumerate(given):
        where = f"Tool {tool.name!r}: examples[{i}]"
        if not isinstance(example, Mapping):
            raise ToolDefinitionError(
                f"{where} is {type(example).__name__}, not an object of arguments; write each "
                'example as the arguments of one call, e.g. {"city": "Paris"}.'
            )
        try:
            text = json.dumps(dict(example), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(
                f"{where} is not JSON ({exc}); an example holds only what a model can send."
            ) from None
        try:
            tool.validator.validate_json(text, strict=True)
        except ValidationError as exc:
            problem = exc.errors()[0]
            at = ".".join(str(part) for part in problem["loc"]) or "(the object)"
            raise ToolDefinitionError(
                f"{where} = {text} is not valid against the tool's own schema: at {at}: "
                f"{problem['msg']}. Fix the example (it would teach the model a call the tool "
                "refuses)."
            ) from None
        checked.append(freeze(json.loads(text)))
    return tuple(checked)
