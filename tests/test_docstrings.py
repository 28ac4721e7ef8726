"""Docstring parsing: every common style, and the known ways descriptions get lost."""

from __future__ import annotations

import docstring_parser
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsys.docstrings import Docstring, parse_any_style, parse_docstring

EXPECTED = Docstring("Add two numbers.", {"a": "First addend.", "b": "Second addend."})

STYLES = {
    "google": """Add two numbers.

        Args:
            a: First addend.
            b (int): Second addend.
        """,
    "google_blank_line_after_args": """Add two numbers.

        Args:

            a: First addend.
            b: Second addend.
        """,
    "google_returns_first": """Add two numbers.

        Returns:
            The sum.

        Args:
            a: First addend.
            b: Second addend.
        """,
    "numpy": """Add two numbers.

        Parameters
        ----------
        a : float
            First addend.
        b : float
            Second addend.
        """,
    "rest": """Add two numbers.

        :param a: First addend.
        :param float b: Second addend.
        :returns: The sum.
        """,
}


@pytest.mark.parametrize("style", STYLES)
def test_every_style_yields_description_and_parameters(style: str) -> None:
    assert parse_docstring(STYLES[style]) == EXPECTED


def test_multiline_parameter_descriptions_are_joined() -> None:
    doc = parse_docstring("""Do it.

        Args:
            a: A long description
                that continues here.
        """)
    assert doc.params == {"a": "A long description that continues here."}


@pytest.mark.parametrize(
    "text",
    [
        "Args:\n    a: First addend.\n    b: Second addend.\n",
        "Args:\na: First addend.\nb: Second addend.\n",  # as inspect.getdoc leaves it
    ],
)
def test_google_docstring_without_summary_keeps_its_parameters(text: str) -> None:
    assert parse_docstring(text) == Docstring("", {"a": "First addend.", "b": "Second addend."})


def test_long_description_is_kept_and_sections_are_not() -> None:
    doc = parse_docstring("""Search the docs.

        Use it for questions about toolsys itself.

        Args:
            q: Keywords.

        Returns:
            Matching titles.
        """)
    assert doc.description == "Search the docs.\n\nUse it for questions about toolsys itself."


@pytest.mark.parametrize("text", [None, "", "   \n  "])
def test_missing_docstring_is_empty_not_an_error(text) -> None:
    assert parse_docstring(text) == Docstring()


_LINES = st.sampled_from(
    [
        "Add two numbers.",
        "",
        "Args:",
        "Arguments:",
        "Returns:",
        "Raises:",
        "Parameters",
        "----------",
        "    a: First addend.",
        "    b (int): Second addend.",
        "    ValueError: when it fails.",
        "a : float",
        "    First addend.",
        ":param a: First addend.",
        ":returns: The sum.",
        "@param a: First addend.",
        ".. deprecated:: 1.0",
        "- a bullet",
        "Example: call it twice.",
        "    continued text",
        "Note:",
    ]
)


def _shape(parsed: docstring_parser.Docstring) -> tuple[object, ...]:
    return (
        parsed.short_description,
        parsed.long_description,
        [(type(m).__name__, m.args, m.description) for m in parsed.meta],
    )


@given(st.lists(_LINES, min_size=1, max_size=12).map("\n".join))
def test_the_google_first_shortcut_parses_as_the_automatic_style(text: str) -> None:
    try:
        expected: object = _shape(docstring_parser.parse(text))
    except docstring_parser.ParseError:
        expected = "ParseError"
    try:
        got: object = _shape(parse_any_style(text))
    except docstring_parser.ParseError:
        got = "ParseError"
    assert got == expected


def test_a_cached_parse_hands_out_its_own_parameters() -> None:
    first = parse_docstring(STYLES["google"])
    first.params["a"] = "changed"
    assert parse_docstring(STYLES["google"]) == EXPECTED
