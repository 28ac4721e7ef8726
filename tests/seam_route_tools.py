"""The tools every route of tests/test_seam_routes.py runs: plain functions, also the code of
the lazy route (imported by `loader="tests.seam_route_tools:add"`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

Times = Annotated[int, Field(ge=0, le=3)]


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


def echo(text: str, times: Times = 1) -> str:
    """Repeat a text.

    Args:
        text: What to repeat.
        times: How often, 0 to 3.
    """
    return text * times


def explode(x: int) -> int:
    """Fail on purpose.

    Args:
        x: Anything.
    """
    raise ValueError(f"exploded on {x}")


def wipe_everything(confirm: str) -> str:
    """Wipe every customer's data (admins only).

    Args:
        confirm: The confirmation phrase.
    """
    return "wiped"


PLAIN = (add, echo, explode)
MANIFESTS = {
    "add": {"a": {"type": "number"}, "b": {"type": "number"}},
    "echo": {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 0, "maximum": 3}},
    "explode": {"x": {"type": "integer"}},
}
REQUIRED = {"add": ["a", "b"], "echo": ["text"], "explode": ["x"]}
