"""Hidden cases for exercise 2.1 (an instructor's example; students never see this file)."""

from toolsys.checks import expect_equal, expect_raises
from toolsys.grading.hidden import case

VISIBLE_POINTS = 2


def _tool() -> str:
    return "ok"


@case("a refused name leaves the registry as it was", points=2)
def _(SafeRegistry):
    registry = SafeRegistry()
    registry.register("get_weather", _tool)
    expect_raises(
        ValueError, registry.register, "GET-WEATHER", _tool, what="register('GET-WEATHER')"
    )
    expect_equal(registry.names(), ["get_weather"], what="names() after the refusal")


@case("names that differ by more than case and '-' all register")
def _(SafeRegistry):
    registry = SafeRegistry()
    for name in ("get_weather", "get_weather_2", "weather"):
        registry.register(name, _tool)
    expect_equal(registry.names(), ["get_weather", "get_weather_2", "weather"], what="names()")
