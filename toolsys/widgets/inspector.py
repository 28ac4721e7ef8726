"""Inspector: what the registry holds, and exactly what each provider would be sent for a tool.

Chapter 02 and 03 need one look at the whole tool set (names, categories, parameters, how long the
descriptions are, what registration warned about) and at one tool's schema in every export format,
including why strict mode refuses it when it does.
"""

from __future__ import annotations

import ipywidgets as widgets

from toolsys.export import StrictSchemaError, export_tool
from toolsys.registry import Registry
from toolsys.tool import Tool
from toolsys.widgets._render import (
    ERROR_COLOR,
    SummaryBox,
    esc,
    plural,
    pre,
    pretty,
    table_html,
    text_lines,
)

FORMATS: tuple[tuple[str, str, bool], ...] = (
    ("openai", "openai", False),
    ("anthropic", "anthropic", False),
    ("mcp", "mcp", False),
    ("openai strict", "openai", True),
)
TABS: tuple[str, ...] = tuple(title for title, _, _ in FORMATS)
_HEADER = ["tool", "category", "parameters", "description chars", "diagnostics"]


def _parameters(tool: Tool) -> str:
    """Parameter names, required ones marked with *."""
    required = set(tool.parameters.get("required", ()))
    names = [f"{n}*" if n in required else n for n in tool.parameters.get("properties", {})]
    return ", ".join(names) or "(none)"


def _row(tool: Tool) -> list[str]:
    return [
        tool.name,
        str(tool.category),
        _parameters(tool),
        str(len(tool.description)),
        str(len(tool.diagnostics)),
    ]


def export_text(tool: Tool, target: str, strict: bool) -> tuple[str, bool]:
    """(pretty JSON of the export, True) or (why strict mode refuses it, False)."""
    try:
        return pretty(export_tool(tool, target, strict=strict)), True
    except StrictSchemaError as exc:
        return f"✗ {exc}", False


class Inspector(SummaryBox):
    """A table of the registered tools; for the selected one, its exports and diagnostics.

    >>> Inspector(registry)                       # display it in a cell
    >>> Inspector(registry, tool="tag_order", tab="openai strict")   # why strict mode refuses it

    The tab stays where the student put it when another tool is picked.
    """

    def __init__(self, registry: Registry, tool: str | None = None, tab: str = TABS[0]) -> None:
        if tab not in TABS:
            raise ValueError(f"Unknown tab {tab!r}; pick one of: {', '.join(TABS)}.")
        self.registry = registry
        self.table = widgets.HTML()
        self.tool = widgets.Dropdown(description="tool")
        self.exports = widgets.Tab()
        self.diagnostics = widgets.HTML()
        self.refresh_button = widgets.Button(description="refresh", icon="refresh")
        super().__init__(
            [
                self.table,
                widgets.HBox([self.tool, self.refresh_button]),
                self.exports,
                self.diagnostics,
            ]
        )
        self.add_class("toolsys-inspector")
        # One page per format, made once: pages get new text, never replaced, so the front end
        # keeps the selected tab when another tool is picked.
        self.pages = [widgets.HTML() for _ in FORMATS]
        self.exports.children = self.pages
        self.exports.titles = TABS
        self.exports.selected_index = TABS.index(tab)
        self.tool.observe(lambda _: self._show_tool(), names="value")
        self.refresh_button.on_click(lambda _: self.refresh())
        self.refresh(tool)

    @property
    def tab(self) -> str:
        """The title of the tab shown ("openai", "anthropic", "mcp" or "openai strict")."""
        return TABS[self.exports.selected_index or 0]

    def refresh(self, tool: str | None = None) -> None:
        """Re-read the registry (after tools were added or removed) and redraw."""
        if tool is not None:
            self.registry.get(tool)  # an unknown name: KeyError saying which names exist
        rows = [_row(t) for t in self.registry.list()]
        self.table.value = table_html(_HEADER, [[esc(c) for c in row] for row in rows])
        names = self.registry.names()
        keep = tool or (self.tool.value if self.tool.value in names else None)
        self.tool.options = names
        self.tool.value = keep or (names[0] if names else None)
        self._show_tool()

    def _show_tool(self) -> None:
        if self.tool.value is None:
            self.exports.layout.display = "none"
            self.diagnostics.value = "<i>No tools registered.</i>"
            return
        self.exports.layout.display = None
        tool = self.registry.get(self.tool.value)
        for page, (_, target, strict) in zip(self.pages, FORMATS, strict=True):
            text, ok = export_text(tool, target, strict)
            page.value = pre(text, None if ok else ERROR_COLOR)
        self.diagnostics.value = self._diagnostics_html(tool)

    @staticmethod
    def _diagnostics_html(tool: Tool) -> str:
        """Registration warnings, and strict mode's refusal if it refuses: "none ✓" only when
        there is nothing at all to fix (never under a red refusal in the strict tab)."""
        items = [esc(d) for d in tool.diagnostics]
        _, strict_ok = export_text(tool, "openai", True)
        if not strict_ok:
            items.append(
                f'<span style="color:{ERROR_COLOR}">✗ openai strict mode refuses this tool: '
                "its tab says why</span>"
            )
        if not items:
            return f"<b>diagnostics for {esc(tool.name)}</b>: none ✓"
        listed = "".join(f"<li>{item}</li>" for item in items)
        return f"<b>diagnostics for {esc(tool.name)}</b> ({len(items)}):<ul>{listed}</ul>"

    def _shown(self, tool: Tool) -> tuple[str, bool]:
        """The selected tab's text for `tool`, and whether the export worked."""
        _, target, strict = FORMATS[TABS.index(self.tab)]
        return export_text(tool, target, strict)

    def summary_text(self) -> str:
        rows = [_HEADER] + [_row(t) for t in self.registry.list()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
        table = [f"Inspector: {plural(len(self.registry), 'tool')}"]
        table += [
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        ]
        lines: list[str] = []  # below the table (whose rows stay whole), long lines wrap
        if self.tool.value is not None:
            tool = self.registry.get(self.tool.value)
            lines.append(f"selected: {tool.name}")
            lines += [f"  {d}" for d in tool.diagnostics]
            _, strict_ok = export_text(tool, "openai", True)
            lines.append(f"  openai strict: {'ok' if strict_ok else 'refused'}")
            if self.tab != TABS[0]:
                lines.append(f"shown: {self.tab}")
                lines += [f"  {line}" for line in self._shown(tool)[0].splitlines()]
        return "\n".join(table + ([text_lines(lines)] if lines else []))

    def summary_html(self) -> str:
        html = f"<b>Inspector: {plural(len(self.registry), 'tool')}</b>" + self.table.value
        if self.tool.value is not None:
            tool = self.registry.get(self.tool.value)
            text, ok = self._shown(tool)
            html += f"<b>{esc(tool.name)} ({esc(self.tab)})</b>" + pre(
                text, None if ok else ERROR_COLOR
            )
            html += self.diagnostics.value
        return html
