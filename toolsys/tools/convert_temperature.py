"""convert_temperature: between Celsius, Fahrenheit and Kelvin, refusing impossible values."""

from __future__ import annotations

from typing import Literal

from toolsys import ToolError
from toolsys.tools import registry

Unit = Literal["celsius", "fahrenheit", "kelvin"]
_TO_KELVIN = {
    "celsius": lambda v: v + 273.15,
    "fahrenheit": lambda v: (v - 32) * 5 / 9 + 273.15,
    "kelvin": lambda v: v,
}
_FROM_KELVIN = {
    "celsius": lambda k: k - 273.15,
    "fahrenheit": lambda k: (k - 273.15) * 9 / 5 + 32,
    "kelvin": lambda k: k,
}


@registry.tool
def convert_temperature(value: float, from_unit: Unit, to_unit: Unit) -> float:
    """Convert a temperature from one unit to another (Celsius, Fahrenheit, Kelvin).

    Use it for "30 C in F" or "what is 100 fahrenheit in celsius". Limits: temperatures below
    absolute zero are refused; the result is rounded to 2 decimals.

    Args:
        value: The temperature to convert, in from_unit.
        from_unit: Unit of value.
        to_unit: Unit to convert to.
    """
    kelvin = _TO_KELVIN[from_unit](value)
    if kelvin < 0:
        raise ToolError(
            "BELOW_ABSOLUTE_ZERO",
            f"{value} {from_unit} is below absolute zero.",
            suggestion="Check the value and its unit; nothing is colder than 0 kelvin.",
        )
    return round(_FROM_KELVIN[to_unit](kelvin), 2)
