"""Read a function's description and its parameters' descriptions from its docstring.

We use docstring-parser (Google, NumPy and reST styles) and work around its known failure: a
Google docstring with no summary line (it starts with `Args:`) is taken for reST and every
parameter description is lost (docstring_parser issue #115). Losing descriptions silently is
exactly what we must never do, so we give such docstrings a placeholder summary first.

Chapter 03 shows the failure this works around: notebooks/03_schemas.ipynb.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass, field

import docstring_parser
import docstring_parser.google

_PLACEHOLDER = "toolsys-placeholder-summary."
_SECTION_FIRST = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns|Raises)\s*:?\s*$"
)


@dataclass(frozen=True)
class Docstring:
    """What a tool definition needs from a docstring."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def _indent_sections(text: str) -> str:
    """After an opening `Args:`, cleandoc leaves the entries flush left; indent them again."""
    lines = text.splitlines()
    if any(line.startswith((" ", "\t")) for line in lines[1:] if line.strip()):
        return text
    return "\n".join(
        line if _SECTION_FIRST.match(line.strip()) or not line.strip() else f"    {line}"
        for line in lines
    )


def parse_docstring(text: str | None) -> Docstring:
    """Parse a docstring in any common style; never raises.

    Cached by text: a notebook that re-runs a cell registers the same docstrings again.
    """
    if not text or not text.strip():
        return Docstring()
    cached = _parse(text)
    return Docstring(cached.description, dict(cached.params))


# Lines that only a reST (`:param`), Epydoc (`@param`) or NumPy (`----` underline, `.. note::`)
# docstring has. Without any, those parsers find no sections.
_OTHER_STYLES = re.compile(r"^(?::|@|\.\.|-)", re.MULTILINE)


def parse_any_style(text: str) -> docstring_parser.Docstring:
    """`docstring_parser.parse(text)`, the automatic style, trying the Google style first.

    The automatic style runs all four parsers and keeps the one that found the most sections.
    When the text has no line only another style could read, those find none, so a Google parse
    that found one is the answer, at a quarter of the cost.
    """
    if not _OTHER_STYLES.search(text):
        try:
            parsed = docstring_parser.google.parse(text)
        except docstring_parser.ParseError:
            pass
        else:
            if parsed.meta:
                return parsed
    return docstring_parser.parse(text)


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> Docstring:
    text = inspect.cleandoc(text)
    first_line = text.splitlines()[0].strip()
    starts_with_section = bool(_SECTION_FIRST.match(first_line))
    if starts_with_section:
        text = f"{_PLACEHOLDER}\n\n{_indent_sections(text)}"
    try:
        parsed = parse_any_style(text)
    except docstring_parser.ParseError:
        return Docstring(description=text)
    parts = [parsed.short_description, parsed.long_description]
    description = "\n\n".join(p.strip() for p in parts if p and p.strip())
    if starts_with_section:
        description = description.removeprefix(_PLACEHOLDER).strip()
    params = {
        p.arg_name.lstrip("*"): " ".join((p.description or "").split())
        for p in parsed.params
        if p.args and p.args[0] in ("param", "parameter", "arg", "argument", "key", "keyword")
    }
    return Docstring(description=description, params=params)
