"""get_weather: current conditions for a city, from bundled sample data (not live weather).

An unknown city is refused with CITY_NOT_FOUND and the closest known names, which is exactly the
kind of error a model can recover from ("Did you mean 'Paris'?").
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib.resources import files
from typing import Any, Literal

from toolsys import ToolError
from toolsys.tools import registry


@cache
def _cities() -> dict[str, dict[str, Any]]:
    return json.loads(files("toolsys").joinpath("data/weather.json").read_text())["cities"]


@registry.tool
def get_weather(city: str, units: Literal["metric", "imperial"] = "metric") -> dict[str, Any]:
    """Get the current weather (temperature, condition, humidity, wind) for a city.

    Use it when the user asks about weather, temperature outside, rain or wind in a place.
    Limits: about forty large cities from bundled sample data fixed at 2025-01-15, not a live
    forecast; one city per call.

    Args:
        city: City name in English, e.g. 'Paris' or 'New York'.
        units: 'metric' for °C and km/h, 'imperial' for °F and mph.
    """
    known = _cities()
    key = next((name for name in known if name.lower() == city.strip().lower()), None)
    if key is None:
        close = difflib.get_close_matches(city.strip().title(), list(known), n=3, cutoff=0.6)
        hint = f"Did you mean '{close[0]}'? " if close else ""
        raise ToolError(
            "CITY_NOT_FOUND",
            f"No weather data for '{city}'.",
            suggestion=f"{hint}Known cities include {', '.join(list(known)[:8])}, ...",
            details={"close_matches": close},
        )
    row = known[key]
    if units == "imperial":
        temperature, wind = round(row["temperature_c"] * 9 / 5 + 32), round(row["wind_kmh"] / 1.609)
        unit, speed = "°F", "mph"
    else:
        temperature, wind, unit, speed = row["temperature_c"], row["wind_kmh"], "°C", "km/h"
    return {
        "city": key,
        "temperature": temperature,
        "unit": unit,
        "condition": row["condition"],
        "humidity_pct": row["humidity_pct"],
        "wind": f"{wind} {speed}",
        "summary": f"{key}: {temperature}{unit}, {row['condition']}, wind {wind} {speed}",
    }
