"""Exercise 5.4, redesign a loose tool: the check and its reference, `book_table_registry`.

The redesigned tool is graded on what the imperfect offline model then achieves over seeded
episodes, compared with the loose tool, not on how its code looks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from toolsys.checks import CheckFailed, Described, call_student, exercise
from toolsys.checks._plain import as_plain, text
from toolsys.evals import Case, EvalReport, Variant, run_episode, run_eval
from toolsys.registry import Registry

TABLE_REQUESTS: tuple[tuple[str, str, str, int, str], ...] = (
    ("Book a table at Chez Marie tomorrow at 8pm for 4 people on the terrace",
     "Chez Marie", "2025-01-16 20:00", 4, "terrace"),
    ("Reserve a table for 2 at Luigi's on Friday at 19:30 at the bar",
     "Luigi's", "2025-01-17 19:30", 2, "bar"),
    ("Book a table for 6 people at Sakura next Monday at 12:30 inside",
     "Sakura", "2025-01-20 12:30", 6, "inside"),
    ("Get me a table at Chez Marie today at 9pm for 3 people on the terrace",
     "Chez Marie", "2025-01-15 21:00", 3, "terrace"),
    ("Reserve a table at Le Jardin in 2 days at 7pm for 5 people",
     "Le Jardin", "2025-01-17 19:00", 5, "inside"),
    ("Book a table for 8 people at Sakura on January 24 at 8:30pm at the bar",
     "Sakura", "2025-01-24 20:30", 8, "bar"),
    ("Reserve a terrace table at Luigi's the day after tomorrow at 1pm for 2 people",
     "Luigi's", "2025-01-17 13:00", 2, "terrace"),
    ("Book a table for 4 people at Le Jardin next Tuesday at 20:00",
     "Le Jardin", "2025-01-21 20:00", 4, "inside"),
    ("Reserve a table at Chez Marie on Thursday at 12:15 for 7 people inside",
     "Chez Marie", "2025-01-16 12:15", 7, "inside"),
    ("Book a bar table at Sakura tomorrow at 6pm for 3 people",
     "Sakura", "2025-01-16 18:00", 3, "bar"),
)  # fmt: skip
"""Exercise 5.4's requests: (prompt, restaurant, time, party_size, seating) the user meant."""

TABLE_SEEDS = range(10)
MIN_EFFECT, MIN_VALID_FIRST = 0.90, 0.60


def _same(got: Any, expected: Any) -> bool:
    return type(got) is type(expected) and got == expected


def _same_text(got: Any, expected: str) -> bool:
    """`got` is the string `expected`; a `str` enum member whose value it is counts too."""
    return isinstance(got, str) and str.__eq__(got, expected) is True


def _name(value: str) -> str:
    """A restaurant's name as the booking system files it: case, possessive and spacing aside."""
    return "".join(c for c in re.sub(r"['’]s\b", "", value).casefold() if c.isalnum())


def _same_restaurant(got: Any, expected: str) -> bool:
    """The restaurant the request named ("Luigi" for "Luigi's" too): not left blank."""
    return isinstance(got, str) and bool(_name(got)) and _name(got) == _name(expected)


def _booked(restaurant: str, time: str, party_size: int, seating: str) -> Callable[[Any], bool]:
    def effect(value: Any) -> bool:
        return (
            type(value) is dict
            and _same_restaurant(value.get("restaurant"), restaurant)
            and _same_text(value.get("time"), time)
            and _same(value.get("party_size"), party_size)
            and _same_text(value.get("seating"), seating)
        )

    return effect


def table_cases() -> list[Case]:
    """Exercise 5.4's requests as eval cases."""
    return [Case(p, "book_table", _booked(r, t, n, s)) for p, r, t, n, s in TABLE_REQUESTS]


def book_table_registry() -> Registry:
    """Reference for 5.4: a redesigned book_table."""
    registry = Registry()

    @registry.tool
    def book_table(
        restaurant: str,
        time: datetime,
        party_size: Annotated[int, Field(ge=1, le=20)],
        seating: Literal["inside", "terrace", "bar"] = "inside",
    ) -> dict:
        """Book a table at a restaurant.

        Args:
            restaurant: Restaurant name, e.g. "Chez Marie".
            time: Arrival in ISO 8601, e.g. "2025-01-16T20:00:00" (local time).
            party_size: Number of people, e.g. 4 (1 to 20).
            seating: Where to sit: inside (the default), terrace or bar.
        """
        return {
            "restaurant": restaurant,
            "time": time.strftime("%Y-%m-%d %H:%M"),
            "party_size": party_size,
            "seating": seating,
        }

    return registry


def _example(report: EvalReport, metric: str, registry: Registry) -> str:
    """What went wrong in the first episode that failed `metric`, in one or two sentences."""
    failed = report.failures("yours", metric)[0]
    cases = table_cases()
    prompt, restaurant, time, party_size, seating = TABLE_REQUESTS[failed.case]
    _, transcript = run_episode(cases, failed.case, Variant("yours", registry), failed.seed,
                                client="offline")  # fmt: skip
    wanted = f"restaurant {restaurant}, time {time}, party_size {party_size}, seating {seating}"
    calls = transcript.results
    if not calls:
        return (
            f"For {prompt!r} (seed {failed.seed}) the model called no tool and said: "
            f"{text(transcript.answer)[:160]} Is every required argument something each request "
            "gives?"
        )
    first, last = calls[0].result, calls[-1].result
    if metric == "valid_first" and first.error is not None:
        return (
            f"For {prompt!r} (seed {failed.seed}) the first call was refused: "
            f"{text(first.error.message)[:200]}"
        )
    if last.error is not None:
        return (
            f"For {prompt!r} (seed {failed.seed}) the last call failed: "
            f"{text(last.error.code)}: {text(last.error.message)[:200]}"
        )
    return (
        f"For {prompt!r} (seed {failed.seed}) book_table returned {text(last.value)[:200]}; "
        f"the request meant {wanted}."
    )


_SEATINGS = ("inside", "terrace", "bar")


def _expect_every_seating(registry: Registry) -> None:
    """A closed set of seatings offers all three: a request for the one left out fails."""
    properties = as_plain(registry.get("book_table").parameters).get("properties", {})
    for name, schema in properties.items():
        allowed = _allowed(schema)
        if allowed and set(allowed) & set(_SEATINGS) and not set(_SEATINGS) <= set(allowed):
            missing = [s for s in _SEATINGS if s not in allowed]
            raise CheckFailed(
                f"book_table's {name!r} allows {allowed}, which leaves out "
                f"{', '.join(map(repr, missing))}: a request for that seating cannot be booked.",
                expected=Described("the seatings 'inside', 'terrace' and 'bar'"),
                got=allowed,
                hint="The booking system stores inside, terrace or bar: offer all three, e.g. "
                "Literal['inside', 'terrace', 'bar'] = 'inside'.",
            )


def _allowed(schema: Any) -> list[Any]:
    """The values a property's schema allows (its enum, or those of its anyOf branches)."""
    if type(schema) is not dict:
        return []
    values = list(schema.get("enum") or [])
    for branch in schema.get("anyOf") or []:
        values += _allowed(branch)
    return values


@exercise(
    "5.4",
    title="Redesign a loose tool",
    hints=[
        "Type each parameter for what it holds: time: datetime, party_size: int, and seating "
        "as Literal['inside', 'terrace', 'bar'] with a default, since most requests do not say.",
        "Describe every parameter in the docstring (Args:), give the time's format and an "
        "example ('ISO 8601, e.g. \"2025-01-16T20:00:00\"'), and keep required only restaurant, "
        "time and party_size.",
        "Measure before you check: evals.mistake_rates(Variant('mine', book_table_registry())) "
        "shows each parameter's rates; evals.run_eval(toolsys.checks.ch05.table_cases(), ...) "
        "runs the check's episodes.",
    ],
    reference=lambda: book_table_registry,
    timeout=180,
)
def _check_redesign(student: Callable[[], Any]) -> None:
    registry = call_student(student, what="book_table_registry()", returns="a Registry")
    if type(registry) is not Registry:
        raise CheckFailed(
            "book_table_registry() should return a toolsys Registry.",
            expected=Described("Registry(1 tool: book_table)"),
            got=registry,
            hint="Build `registry = Registry()`, register your tool on it, `return registry`.",
        )
    if registry.names() != ["book_table"]:
        raise CheckFailed(
            "The registry should hold exactly one tool, named book_table.",
            expected=["book_table"],
            got=registry.names(),
            hint="Register only your redesigned tool, under the name book_table.",
        )
    _expect_every_seating(registry)
    report = run_eval(table_cases(), [Variant("yours", registry)], seeds=TABLE_SEEDS,
                      client="offline")  # fmt: skip
    n = len(report.episodes)
    effect, first = report.rate("yours", "effect"), report.rate("yours", "valid_first")
    if effect.rate < MIN_EFFECT:
        raise CheckFailed(
            f"The intended effect (right restaurant, time, party size and seating) was reached in "
            f"{effect} of {n} episodes; at least {MIN_EFFECT:.0%} is needed.",
            expected=Described(f">= {MIN_EFFECT:.0%}"),
            got=Described(str(effect)),
            hint=_example(report, "effect", registry),
        )
    if first.rate < MIN_VALID_FIRST:
        raise CheckFailed(
            f"The first call was valid in {first} of {n} episodes; at least "
            f"{MIN_VALID_FIRST:.0%} is needed. The effect is there ({effect}), after retries.",
            expected=Described(f">= {MIN_VALID_FIRST:.0%}"),
            got=Described(str(first)),
            hint=_example(report, "valid_first", registry)
            + " Describe every parameter: a described required argument is left out four "
            "times less often, a described number sent as a string half as often.",
        )
