"""What exercises 6.3 and 6.4 share: the prompt their seeded runs ask, and the weather tool."""

from __future__ import annotations

from typing import Any

CITIES = {"Paris": "8 °C, cloudy", "Tokyo": "9 °C, clear", "Oslo": "-3 °C, snow"}
PROMPT = "What's the weather in Paris, in Tokyo and in Oslo?"


def weather_registry(seen: list[str]) -> Any:
    """A registry with `get_weather` for CITIES; each successful result is appended to `seen`."""
    from toolsys import Registry, ToolError

    registry = Registry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: City name in English, e.g. "Paris".
        """
        if city not in CITIES:
            raise ToolError("CITY_NOT_FOUND", f"No weather data for {city!r}.")
        return f"{city}: {CITIES[city]}"

    async def record(call: Any, call_next: Any) -> Any:
        result = await call_next(call)
        if result.ok:
            seen.append(result.value)
        return result

    registry.use(record)
    return registry
