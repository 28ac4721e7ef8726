"""Exercise 2.2, list by category: the check and its reference, `list_by_category`.

Filtering reads what the registry knows (category and tags): the cases ask in another letter case,
by tag, and for a category that does not exist (an error, not an empty list).
"""

from __future__ import annotations

import random
from typing import Any

from toolsys.checks import (
    CheckFailed,
    exercise,
    expect_equal,
    expect_plain,
    expect_raises,
    expect_true,
)
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import text
from toolsys.checks.ch02._shared import tool_functions


def list_by_category(registry: Any, category: Any = None, tag: str | None = None) -> list[str]:
    """Reference for 2.2: names of the tools in a category (any case) and/or with a tag."""
    from toolsys import Category

    wanted = None
    if category is not None:
        try:
            wanted = Category(str(category).lower())
        except ValueError:
            raise ValueError(
                f"Unknown category {category!r}; use one of: "
                f"{', '.join(c.value for c in Category)}."
            ) from None
    return [tool.name for tool in registry.list(category=wanted) if tag is None or tag in tool.tags]


def _categorised() -> Any:
    from toolsys import Category, Registry

    registry = Registry()
    for name, category, tags in (
        ("search_docs", Category.READ, ("orders",)),
        ("calculator", Category.WRITE, ("email",)),
        ("get_weather", Category.READ, ()),
        ("convert_temperature", Category.WRITE, ("orders", "money")),
        ("random_integer", Category.EXECUTE, ()),
    ):
        registry.register(tool_functions()[name], name=name, category=category, tags=tags)
    return registry


def _categories_call(rng: random.Random, size: int) -> Call:
    """A category (a Category, a value in any letter case, None, or an unknown word) and a tag
    (None, "", one the tools have, one they do not, non-ASCII)."""
    from toolsys import Category

    category = rng.choice(
        [None, None, Category.READ, Category.WRITE, Category.EXECUTE, "read", "WRITE", "Execute",
         "wRiTe", "delete", "", "reads", " read"]
    )  # fmt: skip
    tag = rng.choice([None, None, "", "orders", "money", "email", "Orders", "argent", "ordres"])
    return Call((category, tag))


_GENERATED = calls(_categories_call, seed=22, count=120)


def _listed(func: Any) -> Any:
    """`func` on the check's registry (one for the answer, one for the reference)."""
    registry = _categorised()

    def run(category: Any, tag: Any) -> Any:
        return func(registry, category, tag)

    return run


@exercise(
    "2.2",
    title="List by category",
    hints=[
        "Loop over registry.list() and keep tool.name when tool.category and tool.tags match.",
        "Category is a StrEnum whose values are lower case: Category('write') works, "
        "Category('WRITE') does not. Normalise the input with str(category).lower().",
        "A tag matches when it is one of tool.tags (not part of one). Keep the registration "
        "order, and raise ValueError listing read, write, execute for an unknown category.",
    ],
    reference=lambda: list_by_category,
)
def _check_list_by_category(student: Any) -> None:
    from toolsys import Category

    registry = _categorised()
    cases: list[tuple[Any, str | None, list[str]]] = [
        (Category.READ, None, ["search_docs", "get_weather"]),
        ("write", None, ["calculator", "convert_temperature"]),
        ("WRITE", None, ["calculator", "convert_temperature"]),
        ("Execute", None, ["random_integer"]),
        (Category.WRITE, "orders", ["convert_temperature"]),
        (None, "orders", ["search_docs", "convert_temperature"]),
        (None, "order", []),
        (
            None,
            None,
            ["search_docs", "calculator", "get_weather", "convert_temperature", "random_integer"],
        ),
        ("read", "nothing", []),
        (None, "Orders", []),  # a tag is one of tool.tags as it is: 'orders' is another tag
        (None, "", []),  # given, so it filters: no tool has the tag '' (only None means any)
    ]
    for category, tag, expected in cases:
        what = f"list_by_category(registry, {category!r}, tag={tag!r})"
        try:
            got = student(registry, category, tag=tag)
        except ValueError as exc:
            raise CheckFailed(
                f"{what} raised ValueError ({text(exc)}), but {category!r} is a category.",
                expected=expected,
                got=exc,
                hint="Category values are lower case: compare str(category).lower() with them.",
            ) from None
        expect_plain(got, what=what, shape="a list of tool names (str)", hint="Collect tool.name.")
        expect_equal(
            got,
            expected,
            what=what,
            hint="Only tag=None means any tag: '' is a tag no tool has (test `tag is None`, not "
            "`not tag`)."
            if tag == ""
            else "Match the category in any letter case, keep the tools that have the tag among "
            "their tags, and keep registration order.",
        )
    error = expect_raises(
        ValueError,
        student,
        registry,
        "delete",
        what="list_by_category(registry, 'delete')",
        hint="An unknown category is a mistake to report, not an empty list.",
    )
    expect_true(
        all(word in text(error).lower() for word in ("read", "write", "execute")),
        f"The error for an unknown category must list the valid ones (read, write, execute); "
        f"got {text(error)!r}.",
    )
    expect_raises(
        ValueError,
        student,
        registry,
        "",
        what="list_by_category(registry, '')",
        hint="Only None means any category: '' is no category name, a mistake to report (test "
        "`category is None`, not `not category`).",
    )
    agree(
        _listed(student),
        _listed(list_by_category),
        _GENERATED,
        name="list_by_category(registry, {args})",
        hint="Names in registration order; category None is any, else Category(str(category)"
        ".lower()) (an unknown one raises ValueError); tag None is any, else it must be in "
        'tool.tags ("" too).',
    )
