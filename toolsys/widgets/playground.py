"""Playground: call one tool by hand, exactly as the model would, and read what comes back.

The form is built from the tool's JSON Schema (the same schema the model sees), so a student can
feel what the schema allows; the raw-JSON mode sends any text, so they can also send what it does
not allow and read the error envelope and the exact tool message the model would receive.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from toolsys.registry import Registry
from toolsys.result import ToolResult, to_json
from toolsys.widgets._cell import CellThread
from toolsys.widgets._render import (
    ERROR_COLOR,
    SummaryBox,
    call_text,
    esc,
    plural,
    pre,
    result_html,
    text_lines,
    wrapped,
)

_FORM, _RAW = "form", "raw JSON"
_LIMIT = 2**53  # JSON-safe integer bound for a one-sided range


def _kind(schema: dict[str, Any]) -> str:
    """The property's JSON type ("null" aside), "enum", or "json" when it could be several."""
    options = [schema]
    if isinstance(schema.get("anyOf"), list):
        options = schema["anyOf"]
    types: list[str] = []
    for option in options:
        kind = option.get("type")
        types.extend(kind if isinstance(kind, list) else [kind] if kind else [])
    concrete = [t for t in types if t != "null"]
    if "enum" in schema:
        return "enum"
    return concrete[0] if len(concrete) == 1 else "json"


class _Field:
    """One form row: the control for a property and, when optional, a "send" checkbox."""

    def __init__(self, name: str, schema: dict[str, Any], required: bool) -> None:
        self.name = name
        self.kind = _kind(schema)
        self.control = self._control(schema)
        self.send = widgets.Checkbox(
            value=required,
            description="send",
            disabled=required,
            indent=False,
            layout=widgets.Layout(width="60px"),
            tooltip="Optional: tick to include this argument in the call.",
        )
        kind = schema.get("type", self.kind)
        label = f"{name}{' *' if required else ''}: {kind}"
        help_text = wrapped(schema.get("description", ""))
        self.row = widgets.HBox(
            [
                self.send,
                widgets.HTML(f"<code>{esc(label)}</code>", layout=widgets.Layout(width="200px")),
                self.control,
                widgets.HTML(f'<span style="color:#666">{help_text}</span>'),
            ]
        )

    def _control(self, schema: dict[str, Any]) -> widgets.Widget:
        default = schema.get("default")
        if self.kind == "enum":
            options = [(to_json(v) if not isinstance(v, str) else v, v) for v in schema["enum"]]
            value = default if default in schema["enum"] else schema["enum"][0]
            return widgets.Dropdown(options=options, value=value)
        if self.kind == "boolean":
            return widgets.Checkbox(value=bool(default), indent=False)
        if self.kind in ("integer", "number"):
            return self._number(schema, default)
        if self.kind == "string":
            return widgets.Text(value=default if isinstance(default, str) else "")
        example = "[]" if self.kind == "array" else "{}"
        value = to_json(default) if default is not None else ""
        return widgets.Text(value=value, placeholder=f"JSON, e.g. {example}")

    def _number(self, schema: dict[str, Any], default: Any) -> widgets.Widget:
        integer = self.kind == "integer"
        low, high = schema.get("minimum"), schema.get("maximum")
        value = default if isinstance(default, int | float) else (low or 0)
        if low is None and high is None:
            return (widgets.IntText if integer else widgets.FloatText)(value=value)
        bounded = widgets.BoundedIntText if integer else widgets.BoundedFloatText
        low = -_LIMIT if low is None else low
        high = _LIMIT if high is None else high
        return bounded(value=min(max(value, low), high), min=low, max=high)

    @property
    def included(self) -> bool:
        return bool(self.send.value)

    def value(self) -> Any:
        """The argument's value; JSON fields are decoded (ValueError if they are not JSON)."""
        raw = self.control.value
        if self.kind in ("array", "object", "json"):
            try:
                return json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"field {self.name!r} is not valid JSON ({exc.msg}): {raw!r}"
                ) from None
        return raw


class Playground(SummaryBox):
    """Pick a tool, fill its schema-built form (or raw JSON), Run, read envelope and tool message.

    >>> Playground(registry)                      # display it in a cell
    """

    def __init__(self, registry: Registry, tool: str | None = None) -> None:
        self.registry = registry
        self.fields: dict[str, _Field] = {}
        self.last_result: ToolResult | None = None
        self.last_arguments: dict[str, Any] | str | None = None
        if tool is not None:
            registry.get(tool)  # an unknown name: KeyError saying which names exist
        names = registry.names()
        self.tool = widgets.Dropdown(options=names, value=tool or (names[0] if names else None))
        self.tool.description = "tool"
        self.mode = widgets.ToggleButtons(options=[_FORM, _RAW], value=_FORM)
        self.about = widgets.HTML()
        self.form = widgets.VBox()
        self.raw = widgets.Textarea(
            value="{}",
            placeholder='{"city": "Paris"}  (anything goes: invalid JSON, wrong types...)',
            layout=widgets.Layout(width="95%", height="90px", display="none"),
        )
        self.run_button = widgets.Button(description="Run", button_style="primary", icon="play")
        self.output = widgets.HTML()
        super().__init__(
            [
                widgets.HBox([self.tool, self.mode]),
                self.about,
                self.form,
                self.raw,
                self.run_button,
                self.output,
            ]
        )
        self.add_class("toolsys-playground")
        self.tool.observe(lambda _: self._build_form(), names="value")
        self.mode.observe(self._switch_mode, names="value")
        self._cell = CellThread()  # a click runs the tool where a cell would (see _cell)
        self.run_button.on_click(lambda _: self._cell.call(self.run))
        self._build_form()

    def _build_form(self) -> None:
        self.fields = {}
        self.output.value = ""
        if self.tool.value is None:
            self.about.value = "<i>The registry is empty: register a tool first.</i>"
            self.form.children = ()
            return
        spec = self.registry.get(self.tool.value)
        required = set(spec.parameters.get("required", ()))
        for name, schema in spec.parameters.get("properties", {}).items():
            self.fields[name] = _Field(name, schema, name in required)
        self.form.children = [f.row for f in self.fields.values()]
        self.about.value = f'<span style="color:#666">{wrapped(spec.description)}</span>'
        self.raw.value = self._form_json()

    def _form_json(self) -> str:
        try:
            return json.dumps(self.form_arguments(), ensure_ascii=False)
        except ValueError:
            return "{}"

    def _switch_mode(self, change: dict[str, Any]) -> None:
        raw = change["new"] == _RAW
        if raw:
            self.raw.value = self._form_json()
        self.raw.layout.display = None if raw else "none"
        self.form.layout.display = "none" if raw else None

    def form_arguments(self) -> dict[str, Any]:
        """The arguments the form currently describes (optional fields only when "send")."""
        return {name: f.value() for name, f in self.fields.items() if f.included}

    def run(self) -> ToolResult | None:
        """Call `registry.execute` with the form's or the raw text's arguments; show the result."""
        if self.tool.value is None:
            return None
        arguments: dict[str, Any] | str
        if self.mode.value == _RAW:
            arguments = self.raw.value
        else:
            try:
                arguments = self.form_arguments()
            except ValueError as exc:
                self.output.value = (
                    f'<div style="color:{ERROR_COLOR}">✗ The form cannot build the arguments: '
                    f"{wrapped(exc)}. Fix the field, or switch to raw JSON to send it as is.</div>"
                )
                return None
        self.last_arguments = arguments
        self.last_result = self.registry.execute(self.tool.value, arguments)
        self.output.value = self._result_html()
        return self.last_result

    def _call_line(self) -> str:
        if isinstance(self.last_arguments, str):
            return f"{self.tool.value} with raw arguments {self.last_arguments!r}"
        return call_text(self.tool.value, self.last_arguments)

    def _result_html(self) -> str:
        assert self.last_result is not None
        return (
            f'<div class="toolsys-result"><b>call</b> <code>{wrapped(self._call_line())}</code>'
            + result_html(self.last_result)
            + "<b>tool message the model receives</b>"
            + pre(self.last_result.to_message())
            + "</div>"
        )

    def summary_text(self) -> str:
        tools = plural(len(self.registry), "tool")
        lines = [f"Playground: {tools}; selected: {self.tool.value or 'none'}"]
        if self.last_result is not None:
            lines += [f"  call: {self._call_line()}", f"  → {self.last_result.to_message()}"]
        return text_lines(lines)

    def summary_html(self) -> str:
        head = pre(self.summary_text().splitlines()[0])
        return head + (self._result_html() if self.last_result is not None else "")
