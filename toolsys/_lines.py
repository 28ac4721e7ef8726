"""Printed lines that fit a notebook's output area: wrapped between words, never inside one.

Why: JupyterLab shows printed text with `word-break: break-all`, so a line wider than the output
area (about 120 characters at 1400 px with the file browser open) is cut wherever it meets the
edge, in the middle of "teaching". Our printers (a transcript, lint issues, reports) wrap their
own long lines at `WIDTH`, between words, with the continuation indented; a line that fits is
left exactly as it is.
"""

from __future__ import annotations

import textwrap

WIDTH = 100
"""The widest line our printers print (a narrower window than 1400 px still shows it whole)."""


def fit(line: str, indent: str = "    ", width: int = WIDTH) -> str:
    """`line` as it is when it fits, else wrapped at spaces; continuation lines get the line's
    own leading spaces plus `indent`. A word longer than a line (a URL, a hash) is never split:
    it sits on a line of its own."""
    if len(line) <= width:
        return line
    lead = line[: len(line) - len(line.lstrip(" "))]
    wrapper = textwrap.TextWrapper(
        width=width,
        initial_indent=lead,
        subsequent_indent=lead + indent,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return "\n".join(wrapper.wrap(line[len(lead) :]))
