"""random_integer: a random whole number in a range, reproducible with a seed."""

from __future__ import annotations

import random
from typing import Annotated

from pydantic import Field

from toolsys import ToolError
from toolsys.tools import registry

DEFAULT_SEED = 7
"""Offline runs use this seed when none is given, so lessons print the same number every time."""


@registry.tool
def random_integer(
    min: Annotated[int, Field(ge=-1_000_000_000, le=1_000_000_000)] = 1,
    max: Annotated[int, Field(ge=-1_000_000_000, le=1_000_000_000)] = 100,
    seed: int | None = None,
) -> int:
    """Pick a random integer between min and max, both included (e.g. a dice roll: 1 to 6).

    Use it when the user asks for a random number, a dice roll or a random pick by number.
    Limits: integers only, bounds within ±1e9; the same seed always gives the same number.

    Args:
        min: Lowest possible value, included.
        max: Highest possible value, included; must be at least min.
        seed: Seed for a reproducible result; without one a fixed default seed is used.
    """
    if min > max:
        raise ToolError(
            "INVALID_RANGE",
            f"min ({min}) is greater than max ({max}).",
            suggestion=f"Swap them: min={max}, max={min}.",
        )
    return random.Random(DEFAULT_SEED if seed is None else seed).randint(min, max)
