"""Signatures whose generated schemas are pinned by golden files (tests/golden/schemas/)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, Field


class Unit(Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Priority(int, Enum):
    LOW = 1
    HIGH = 2


@dataclass
class Point:
    """A point on a plane."""

    x: float
    y: float


class LineItem(BaseModel):
    sku: str = Field(description="Stock keeping unit, e.g. SKU-12.")
    quantity: Annotated[int, Field(ge=1, le=99)] = 1


class Address(BaseModel):
    street: str
    city: str
    country: Literal["FR", "DE", "JP"] = "FR"


class Customer(BaseModel):
    name: str
    address: Address


class TreeNode(BaseModel):
    label: str
    children: list[TreeNode] = []


def no_params() -> str:
    """Return the current time."""
    return ""


def google_style(a: float, b: float) -> float:
    """Add two numbers and return the sum.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


def blank_line_after_args(query: str, limit: int = 10) -> list[str]:
    """Search the documents.

    Args:

        query: Search keywords.
        limit: Maximum number of results.
    """
    return []


def no_summary_line(city: str, days: int = 1) -> str:
    """Args:
    city: City name, e.g. Paris.
    days: How many days of forecast.
    """
    return ""


def returns_before_args(path: str) -> str:
    """Read a file from the workspace.

    Returns:
        The file's text.

    Args:
        path: Path relative to the workspace.
    """
    return ""


def numpy_style(value: float, unit: Literal["celsius", "fahrenheit"]) -> float:
    """Convert a temperature.

    Parameters
    ----------
    value : float
        The temperature to convert.
    unit : {"celsius", "fahrenheit"}
        The unit to convert to.
    """
    return value


def rest_style(order_id: str, reason: str | None = None) -> str:
    """Cancel an order.

    :param order_id: The order to cancel, like ORD-123.
    :param reason: Why, in the customer's words.
    """
    return ""


def optional_versus_default(
    required_nullable: Optional[int],  # noqa: UP045 - the spelling under test
    omittable: int = 5,
    omittable_nullable: int | None = None,
    omittable_nullable_with_value: int | None = 3,
) -> None:
    """Four different contracts that look alike.

    Args:
        required_nullable: Must be sent; may be null.
        omittable: May be left out; never null.
        omittable_nullable: May be left out or null.
        omittable_nullable_with_value: May be left out (means 3) or null.
    """


def literal_enum(mode: Literal["fast", "safe"] = "safe", level: Literal[1, 2, 3] = 1) -> None:
    """Choose a mode.

    Args:
        mode: Speed or safety.
        level: Effort level.
    """


def enum_classes(unit: Unit, priority: Priority = Priority.LOW) -> None:
    """Enum classes become enum lists.

    Args:
        unit: Temperature unit.
        priority: How urgent.
    """


def containers(
    tags: list[str], scores: dict[str, float], pair: tuple[int, str], fixed: tuple[int, ...] = ()
) -> None:
    """Lists, dicts and tuples.

    Args:
        tags: Labels to attach.
        scores: Score per name.
        pair: An id and a label.
        fixed: Any number of integers.
    """


def nested_model(items: list[LineItem], customer: Customer) -> None:
    """Place an order.

    Args:
        items: What to buy.
        customer: Who buys it.
    """


def dataclass_param(origin: Point, target: Point | None = None) -> float:
    """Distance between points.

    Args:
        origin: Where to start.
        target: Where to go; the origin of the plane when left out.
    """
    return 0.0


def annotated_constraints(
    name: Annotated[str, Field(min_length=1, max_length=40, description="Display name.")],
    age: Annotated[int, Field(ge=0, le=150)],
    ratio: Annotated[float, Field(gt=0, lt=1)] = 0.5,
) -> None:
    """Constraints from Annotated Field.

    Args:
        age: Age in whole years.
        ratio: A fraction between 0 and 1.
    """


def dates(day: dt.date, at: dt.datetime | None = None) -> None:
    """Dates are strings with a format.

    Args:
        day: The day, YYYY-MM-DD.
        at: An exact moment, ISO 8601.
    """


def recursive_model(tree: TreeNode) -> int:
    """Count the nodes of a tree.

    Args:
        tree: The root node.
    """
    return 0


def shadowing_names(json: str, copy: bool = False, schema: str = "v1") -> None:
    """Parameter names that Pydantic models use themselves.

    Args:
        json: A JSON document.
        copy: Whether to copy.
        schema: Schema version.
    """


def union_types(target: int | str, value: float | bool | None = None) -> None:
    """Unions become anyOf.

    Args:
        target: An id or a name.
        value: A number, a flag, or nothing.
    """


def undocumented(a: int, b) -> None:  # type: ignore[no-untyped-def]
    """A tool whose author forgot things.

    Args:
        a: Documented.
        c: Not a parameter at all.
    """


def any_and_bool(payload: Any, dry_run: bool = True) -> None:
    """Any means no constraint.

    Args:
        payload: Whatever to send.
        dry_run: Only pretend.
    """


CASES = [
    no_params,
    google_style,
    blank_line_after_args,
    no_summary_line,
    returns_before_args,
    numpy_style,
    rest_style,
    optional_versus_default,
    literal_enum,
    enum_classes,
    containers,
    nested_model,
    dataclass_param,
    annotated_constraints,
    dates,
    recursive_model,
    shadowing_names,
    union_types,
    undocumented,
    any_and_bool,
]
