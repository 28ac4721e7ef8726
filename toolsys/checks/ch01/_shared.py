"""The tools exercises 1.1 and 1.3 dispatch to, the calls made of them, and how to decode them.

The names are ones no if/else chain written for the lesson knows, and the tools return every
kind of JSON value (text, numbers, a dict, a bool, None) and fail in the ways the exercises name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _shout(text: str) -> str:
    return text.upper() + "!"


def _count_words(text: str) -> int:
    return len(text.split())


def _word_stats(text: str) -> dict[str, Any]:
    words = text.split()
    return {"words": len(words), "longest": max(words, key=len)}


def _is_palindrome(text: str) -> bool:
    return text == text[::-1]


def _forget(note: str) -> None:
    return None


def _today() -> str:
    return "2025-01-15"


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ValueError("b must not be 0")
    return a / b


def _colour_code(colour: str) -> str:
    return {"red": "#ff0000", "green": "#00ff00"}[colour]


def tool_table() -> dict[str, Callable[..., Any]]:
    return {
        "shout": _shout,
        "count_words": _count_words,
        "word_stats": _word_stats,
        "is_palindrome": _is_palindrome,
        "forget": _forget,
        "today": _today,
        "divide": _divide,
        "colour_code": _colour_code,
    }


def noting_table() -> tuple[dict[str, Callable[..., Any]], list[str]]:
    """A table with one tool that acts (it files a note), and the notes it has filed.

    Dispatching one call must run the tool once: a tool books a table or sends a mail, and a
    dispatcher that calls it twice does it twice.
    """
    notes: list[str] = []

    def file_note(text: str) -> str:
        notes.append(text)
        return f"note {len(notes)} filed"

    return {**tool_table(), "file_note": file_note}, notes


# name, arguments, what the tool returns
CALLS: list[tuple[str, Any, Any]] = [
    ("shout", {"text": "hello"}, "HELLO!"),
    ("shout", {"text": "  hello there "}, "  HELLO THERE !"),  # the arguments as they came
    ("count_words", '{"text": "one two three"}', 3),
    ("word_stats", {"text": "a bb ccc"}, {"words": 3, "longest": "ccc"}),
    ("is_palindrome", '{"text": "level"}', True),
    ("forget", {"note": "x"}, None),
    ("forget", {"note": None}, None),  # None is a value: passed on, not dropped
    ("today", None, "2025-01-15"),
    ("today", "", "2025-01-15"),
    ("today", "{}", "2025-01-15"),
    ("divide", {"a": 1, "b": 4}, 0.25),
    ("divide", '{"b": 4, "a": 1}', 0.25),  # keys in another order than the parameters
]


def decode_arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        return json.loads(arguments)
    return dict(arguments)
