"""The tools every chapter 02 check registers: small functions with Google docstrings.

One is registered as `Send-Email`, not in normalised form, so code that only works when names
are already lower-case snake_case shows itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def get_weather_fn(city: str) -> dict:
    """Current weather for a city.

    Args:
        city: City name, e.g. "Paris".
    """
    return {"city": city, "temperature_c": 8, "condition": "cloudy"}


def get_time_fn(timezone: str = "Europe/Paris") -> str:
    """Current time in a timezone.

    Args:
        timezone: IANA timezone name.
    """
    return "09:00"


def random_integer_fn(low: int, high: int) -> int:
    """A random integer between low and high (here: always low).

    Args:
        low: Smallest value.
        high: Largest value.
    """
    return low


def convert_temperature_fn(value: float, to_unit: str) -> float:
    """Convert a temperature.

    Args:
        value: The temperature.
        to_unit: celsius or fahrenheit.
    """
    return value


def search_docs_fn(query: str) -> list:
    """Search the documentation.

    Args:
        query: Words to look for.
    """
    return []


def calculator_fn(expression: str) -> float:
    """Evaluate an arithmetic expression.

    Args:
        expression: e.g. "17 * 38".
    """
    return 646.0


def send_email_fn(to: str) -> str:
    """Send an e-mail.

    Args:
        to: The address.
    """
    return "sent"


def tool_functions() -> dict[str, Callable[..., Any]]:
    return {
        "get_weather": get_weather_fn,
        "get_time": get_time_fn,
        "random_integer": random_integer_fn,
        "convert_temperature": convert_temperature_fn,
        "search_docs": search_docs_fn,
        "calculator": calculator_fn,
        "Send-Email": send_email_fn,
    }
