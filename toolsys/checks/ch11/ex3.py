"""Exercise 11.3, a fuzz target that finds planted bugs: the check and its reference,
`fuzz_arguments`.

The fuzz target is run against tools with planted bugs at the edges: a fuzzer that only sends polite
values finds none of them.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any, Literal

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
)
from toolsys.checks._plain import difference
from toolsys.registry import Registry


def fuzz_arguments(schema: dict[str, Any], rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Reference for 11.3: the schema-guided arguments of `toolsys.fuzz`."""
    from toolsys.fuzz import plausible_arguments

    return [plausible_arguments(rng, schema) for _ in range(count)]


def _bugged() -> Registry:
    registry = Registry()

    @registry.tool
    def initials(name: str) -> str:
        """The initials of a name."""
        return "".join(part[0] for part in name.split(" ")).upper()

    @registry.tool
    def average(total: float, count: int) -> float:
        """The average of `count` numbers that add up to `total`."""
        return total / count

    @registry.tool
    def side(area: float) -> float:
        """The side of a square with this area."""
        import math

        return math.sqrt(area)

    @registry.tool
    def pages(items: int, size: int = 10) -> int:
        """How many pages of `size` items the `items` fill."""
        return -(-items // size)

    @registry.tool
    def share(unit: Literal["cm", "inch"], parts: int) -> float:
        """One unit's length in centimetres, shared into `parts` pieces."""
        return {"cm": 1.0, "inch": 2.54}[unit] / parts

    return registry


_ONE_INTEGER = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
_PLANTED = {
    "initials": ("IndexError", "an empty string, or two spaces in a row"),
    "average": ("ZeroDivisionError", "count 0"),
    "side": ("ValueError", "a negative area"),
    "pages": ("ZeroDivisionError", "size 0: an optional property, sent now and then"),
    "share": ("ZeroDivisionError", "parts 0, with a unit from the enum"),
}


@exercise(
    "11.3",
    title="A fuzz target that finds planted bugs",
    hints=[
        "Bugs live at the edges: for a string try '', ' ', '  ', a very long one; for a number "
        "0, -1, a huge one; pick among them with rng.choice.",
        "Fill every required property of schema['properties'] by its 'type', and from its "
        "'enum' when there is one (no other value is accepted), so the call gets past "
        "validation and reaches the function.",
        "Draw only from `rng` (rng.choice, rng.random): the same seed must give the same list, "
        "or a bug found once cannot be found again.",
    ],
    reference=lambda: fuzz_arguments,
)
def _check_fuzz_arguments(student: Callable[..., Any]) -> None:
    for count, schema in ((0, _ONE_INTEGER), (7, _ONE_INTEGER), (3, {"type": "object"})):
        what = f"fuzz_arguments({schema}, random.Random(11), {count})"
        made = call_student(
            student, schema, random.Random(11), count, what=what, returns="a list of dicts"
        )
        expect_plain(made, what=what, shape=f"a list of {count} dicts of arguments")
        if type(made) is not list or len(made) != count or any(type(a) is not dict for a in made):
            raise CheckFailed(
                f"{what} must return a list of exactly {count} argument dicts.",
                expected=Described(f"a list of {count} dicts"),
                got=made,
                hint="Make one dict per call asked for: `count` of them (none for 0; a schema "
                "without properties gets {} each time).",
            )
    registry = _bugged()
    for name, (exception, where) in _PLANTED.items():
        schema = copy.deepcopy(dict(registry.get(name).parameters))
        what = f"fuzz_arguments({name}'s schema, random.Random(11), 300)"
        made = call_student(
            student, schema, random.Random(11), 300, what=what, returns="a list of argument dicts"
        )
        expect_plain(made, what=what, shape="a list of 300 dicts of arguments")
        if type(made) is not list or len(made) != 300:
            raise CheckFailed(
                f"{what} must return a list of exactly 300 argument dicts.",
                expected=Described("a list of 300 dicts"),
                got=made,
            )
        again = call_student(
            student, schema, random.Random(11), 300, what=what, returns="a list of argument dicts"
        )
        expect_equal(
            again,
            made,
            what=f"a second {what}",
            hint="Draw only from rng, never from the random module: the same seed "
            "must give the same arguments.",
        )
        found, refused = False, 0
        for arguments in made:
            result = registry.execute(name, arguments)
            details = result.error.details if result.error is not None else {}
            refused += result.error is not None and result.error.code == "INVALID_ARGUMENTS"
            found = found or details.get("exception") == exception
        if not found:
            polite = f" ({refused} of 300 never got past validation)" if refused else ""
            raise CheckFailed(
                f"{what}: none of the 300 calls found the planted bug in {name}{polite}.",
                expected=Described(f"a call that raises {exception}: {where}"),
                got=Described("every call returned normally or was refused"),
                hint="Send edge values of the right type: empty and blank strings, 0 and "
                "negative numbers; for a property with an 'enum', one of its values.",
            )
        other = call_student(
            student, schema, random.Random(12), 300, what=what, returns="a list of argument dicts"
        )
        if difference(other, made) is None and len({repr(arguments) for arguments in made}) > 1:
            raise CheckFailed(
                f"fuzz_arguments({name}'s schema, random.Random(12), 300) gave the very same 300 "
                "arguments as random.Random(11): the rng you are given is not used.",
                expected=Described("other arguments for another seed"),
                got=Described("the same list"),
                hint="Draw from the `rng` argument (rng.choice, rng.random), not from a "
                "random.Random of your own or a fixed list: another seed must explore elsewhere.",
            )
