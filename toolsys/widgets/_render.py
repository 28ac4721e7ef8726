"""Shared rendering: the HTML and plain text every widget uses for values, errors and results.

One place decides what an error looks like (red, ✗, code / message / suggestion) so the trace, the
playground and the inspector all say it the same way. `SummaryBox` gives each widget a static
representation: the live widget in JupyterLab, the same content as text and HTML everywhere else
(GitHub, nbval, a terminal), always deterministic.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import ipywidgets as widgets

from toolsys._lines import fit
from toolsys.errors import ErrorInfo
from toolsys.result import ToolResult, to_json

OK_COLOR = "#1b7f3b"
ERROR_COLOR = "#b00020"
MUTED_COLOR = "#666666"


def pretty(value: Any) -> str:
    """Indented JSON for a value (what the model sent or received), any value accepted."""
    return json.dumps(json.loads(to_json(value)), indent=2, ensure_ascii=False)


def compact(value: Any, limit: int = 80) -> str:
    """One-line JSON, cut at `limit` characters with an ellipsis."""
    text = value if isinstance(value, str) else to_json(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_text(name: str, arguments: Any) -> str:
    """`name(key=value, ...)`: a call the way a reader writes it; raw text if not an object."""
    if isinstance(arguments, dict):
        inner = ", ".join(f"{key}={to_json(value)}" for key, value in arguments.items())
        return f"{name}({inner})"
    return f"{name}({compact(arguments, 60)})"


def text_lines(lines: list[str]) -> str:
    """Lines for a text summary, each long one wrapped between words to fit a notebook's output
    area (JupyterLab would break it anywhere, mid-word), its continuation indented."""
    return "\n".join(fit(line) for text in lines for line in text.split("\n"))


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


# JupyterLab styles every `pre` in an output area with `word-break: break-all`, which splits
# "Amsterdam" wherever the line ends. Ours wrap at spaces and punctuation instead.
PRE_STYLE = (
    "margin:2px 0;white-space:pre-wrap;word-break:normal;overflow-wrap:break-word;"
    "overflow-x:auto;font-size:12px"
)
# A token longer than this (a base64 blob, a long URL) has no place to wrap. It gets a box of
# its own, the width of the text around it, that scrolls sideways; `width:0;min-width:100%`
# keeps it from widening the widget (its width is taken from the line, never from the token).
LONG_TOKEN = 60
_LONG = re.compile(rf"\S{{{LONG_TOKEN},}}")
_SCROLL_STYLE = (
    "display:inline-block;width:0;min-width:100%;overflow-x:auto;white-space:pre;"
    "overflow-wrap:normal;vertical-align:top"
)


def wrapped(text: Any) -> str:
    """Escaped text for HTML; each token too long to wrap sits in a box that scrolls sideways."""
    text = str(text)
    parts, end = [], 0
    for match in _LONG.finditer(text):
        parts.append(esc(text[end : match.start()]))
        parts.append(f'<span class="toolsys-long" style="{_SCROLL_STYLE}">{esc(match[0])}</span>')
        end = match.end()
    parts.append(esc(text[end:]))
    return "".join(parts)


def pre(text: str, color: str | None = None) -> str:
    style = PRE_STYLE
    if color:
        style += f";color:{color}"
    return f'<pre style="{style}">{wrapped(text)}</pre>'


def error_text(error: ErrorInfo) -> str:
    text = f"✗ {error.code}: {error.message}"
    if error.suggestion:
        text += f" → {error.suggestion}"
    return text


def error_html(error: ErrorInfo) -> str:
    retry = " (retryable)" if error.retryable else ""
    parts = [
        f'<div class="toolsys-error" style="color:{ERROR_COLOR}">',
        f"<b>✗ {esc(error.code)}</b>{retry}: {wrapped(error.message)}",
    ]
    if error.suggestion:
        parts.append(f"<br><i>suggestion:</i> {wrapped(error.suggestion)}")
    parts.append("</div>")
    return "".join(parts)


def result_text(result: ToolResult, limit: int = 80) -> str:
    """One line: `✓ value` or `✗ CODE: message → suggestion`."""
    if result.ok:
        return f"✓ {compact(result.value, limit)}"
    assert result.error is not None
    return compact(error_text(result.error), limit + 40)


def result_html(result: ToolResult) -> str:
    """The envelope as a reader wants it: the value in green, or the error in red."""
    if result.ok:
        return f'<div class="toolsys-ok" style="color:{OK_COLOR}"><b>✓ ok</b></div>' + pre(
            pretty(result.value)
        )
    assert result.error is not None
    return error_html(result.error)


def table_html(header: list[str], rows: list[list[str]]) -> str:
    """A plain HTML table; cells are already HTML."""
    cell = 'style="border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top"'
    head = "".join(f"<th {cell}>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {cell}>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table style="border-collapse:collapse;font-size:12px"><tr>{head}</tr>{body}</table>'


class SummaryBox(widgets.VBox):
    """A VBox whose text/plain and text/html say what the widget shows, without ids or timings.

    ipywidgets 8's own `_repr_mimebundle_` puts `repr(widget)` (its traits, cut at 110
    characters) in text/plain next to the widget view; we keep the view and replace the text.
    """

    def summary_text(self) -> str:
        raise NotImplementedError

    def summary_html(self) -> str:
        return pre(self.summary_text())

    def __repr__(self) -> str:
        return self.summary_text()

    def _repr_html_(self) -> str:
        return self.summary_html()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = self.summary_text()
        bundle["text/html"] = self.summary_html()
        return bundle
