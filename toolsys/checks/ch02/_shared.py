"""The tools every chapter 02 check registers: small functions with Google docstrings.

One is registered as `Send-Email`, not in normalised form, so code that only works when names
are already lower-case snake_case shows itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _get_weather(city: str) -> dict:
    """Current weather for a city.

    Args:
        city: City name, e.g. "Paris".
    """
    return {"city": city, "temperature_c": 8, "condition": "cloudy"}


def _get_time(timezone: str = "Europe/Paris") -> str:
    """Current time in a timezone.

    Args:
        timezone: IANA timezone name.
    """
    return "09:00"


def _random_integer(low: int, high: int) -> int:
    """A random integer between low and high (here: always low).

    Args:
        low: Smallest value.
        high: Largest value.
    """
    return low


def _convert_temperature(value: float, to_unit: str) -> float:
    """Convert a temperature.

    Args:
        value: The temperature.
        to_unit: celsius or fahrenheit.
    """
    return value


def _search_docs(query: str) -> list:
    """Search the documentation.

    Args:
        query: Words to look for.
    """
    return []


def _calculator(expression: str) -> float:
    """Evaluate an arithmetic expression.

    Args:
        expression: e.g. "17 * 38".
    """
    return 646.0


def _send_email(to: str) -> str:
    """Send an e-mail.

    Args:
        to: The address.
    """
    return "sent"


def _tools() -> dict[str, Callable[..., Any]]:
    return {
        "get_weather": _get_weather,
        "get_time": _get_time,
        "random_integer": _random_integer,
        "convert_temperature": _convert_temperature,
        "search_docs": _search_docs,
        "calculator": _calculator,
        "Send-Email": _send_email,
    }
