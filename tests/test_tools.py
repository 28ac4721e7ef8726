"""The built-in tools: deterministic, offline, and failing with errors a model can act on."""

from __future__ import annotations

import pytest

from toolsys.tools import registry


def run(name, **arguments):
    return registry.execute(name, arguments)


def test_every_file_in_the_folder_is_a_registered_tool():
    assert registry.names() == [
        "calculator",
        "convert_temperature",
        "get_time",
        "get_weather",
        "random_integer",
        "search_docs",
    ]
    for tool in registry.list():
        assert "Use it" in tool.description and "Limits" in tool.description


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("17 * 38", 646),
        ("(2 + 3) ** 2", 25),
        ("-5 // 2", -3),
        ("7 % 3", 1),
        ("1 / 4", 0.25),
        ("sqrt(16)", 4),
        ("round(2.567, 2)", 2.57),
        ("0.1 + 0.2", 0.3),
        ("-(2 - 5)", 3),
    ],
)
def test_calculator_evaluates_arithmetic(expression, value):
    assert run("calculator", expression=expression).value == value


@pytest.mark.parametrize(
    ("expression", "code", "shown"),
    [
        ("__import__('os').system('ls')", "INVALID_EXPRESSION", "__import__"),
        ("17 times 38", "INVALID_EXPRESSION", "times 38"),
        ("1 / 0", "DIVISION_BY_ZERO", "1 / 0"),
        ("2 ** 100000", "EXPONENT_TOO_LARGE", "100000"),
        ("(10 ** 900) ** 900", "EXPONENT_TOO_LARGE", "900"),
    ],
)
def test_calculator_refuses_what_is_not_plain_arithmetic(expression, code, shown):
    error = run("calculator", expression=expression).error
    assert error.code == code
    assert shown in error.message
    assert error.suggestion


def test_random_integer_is_reproducible_and_checks_its_range():
    assert (
        run("random_integer", min=1, max=6, seed=3).value
        == run("random_integer", min=1, max=6, seed=3).value
    )
    assert 1 <= run("random_integer", min=1, max=6).value <= 6
    error = run("random_integer", min=10, max=1).error
    assert error.code == "INVALID_RANGE" and "min=1, max=10" in error.suggestion


def test_get_time_reads_the_fixed_clock_in_any_zone():
    assert run("get_time", timezone="Asia/Tokyo").value == {
        "timezone": "Asia/Tokyo",
        "datetime": "2025-01-15T17:00+09:00",
        "weekday": "Wednesday",
    }
    error = run("get_time", timezone="Asia/Tokio").error
    assert error.code == "UNKNOWN_TIMEZONE" and "Did you mean 'Asia/Tokyo'?" in error.suggestion


@pytest.mark.parametrize(
    ("value", "from_unit", "to_unit", "expected"),
    [
        (30, "celsius", "fahrenheit", 86.0),
        (212, "fahrenheit", "celsius", 100.0),
        (0, "kelvin", "celsius", -273.15),
        (20, "celsius", "celsius", 20.0),
    ],
)
def test_convert_temperature_between_any_two_units(value, from_unit, to_unit, expected):
    assert (
        run("convert_temperature", value=value, from_unit=from_unit, to_unit=to_unit).value
        == expected
    )


def test_convert_temperature_refuses_below_absolute_zero_and_unknown_units():
    assert (
        run("convert_temperature", value=-300, from_unit="celsius", to_unit="kelvin").error.code
        == "BELOW_ABSOLUTE_ZERO"
    )
    assert (
        run("convert_temperature", value=1, from_unit="rankine", to_unit="kelvin").error.code
        == "INVALID_ARGUMENTS"
    )


def test_get_weather_from_bundled_data_with_close_matches_for_typos():
    paris = run("get_weather", city="paris").value
    assert (paris["city"], paris["temperature"], paris["unit"]) == ("Paris", 8, "°C")
    assert run("get_weather", city="New York", units="imperial").value["unit"] == "°F"
    error = run("get_weather", city="Pariss").error
    assert error.code == "CITY_NOT_FOUND"
    assert "Did you mean 'Paris'?" in error.suggestion
    assert error.details["close_matches"][0] == "Paris"


def test_search_docs_ranks_by_keyword_overlap():
    results = run("search_docs", query="retry backoff", limit=2).value
    assert results[0]["id"] == "retries"
    assert len(results) <= 2
    assert run("search_docs", query="the of and").error.code == "EMPTY_QUERY"
