"""Docstring parsing: every common style, and the known ways descriptions get lost."""

from __future__ import annotations

import pytest

from toolsys.docstrings import Docstring, parse_docstring

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
