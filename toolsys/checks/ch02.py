"""Checks for chapter 02 (the registry): duplicates, filtering by category, unknown names.

Each reference wraps `toolsys.Registry`, so the package itself passes the checks the student's
hand-built pieces must pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    exercise,
    expect_equal,
    expect_raises,
    expect_true,
)


def get_weather(city: str) -> dict:
    """Current weather for a city.

    Args:
        city: City name, e.g. "Paris".
    """
    return {"city": city, "temperature_c": 8, "condition": "cloudy"}


def get_time(timezone: str = "Europe/Paris") -> str:
    """Current time in a timezone.

    Args:
        timezone: IANA timezone name.
    """
    return "09:00"


def random_integer(low: int, high: int) -> int:
    """A random integer between low and high (here: always low).

    Args:
        low: Smallest value.
        high: Largest value.
    """
    return low


def convert_temperature(value: float, to_unit: str) -> float:
    """Convert a temperature.

    Args:
        value: The temperature.
        to_unit: celsius or fahrenheit.
    """
    return value


def search_docs(query: str) -> list:
    """Search the documentation.

    Args:
        query: Words to look for.
    """
    return []


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression.

    Args:
        expression: e.g. "17 * 38".
    """
    return 646.0


def _tools() -> dict[str, Callable[..., Any]]:
    return {
        fn.__name__: fn
        for fn in (
            get_weather,
            get_time,
            random_integer,
            convert_temperature,
            search_docs,
            calculator,
        )
    }


# -- 2.1 ------------------------------------------------------------------------------------------


class PackageRegistry:
    """Reference for 2.1: the exercise's interface over `toolsys.Registry`."""

    def __init__(self) -> None:
        from toolsys import Registry

        self._registry = Registry()

    def register(self, name: str, fn: Callable[..., Any]) -> None:
        self._registry.register(fn, name=name)

    def get(self, name: str) -> Callable[..., Any]:
        return self._registry.get(name).fn

    def names(self) -> list[str]:
        return self._registry.names()


_WHAT_TO_DO = ("rename", "another name", "different name", "unregister", "replace")


@exercise(
    "2.1",
    title="Reject duplicates helpfully",
    hints=[
        "Check before you store: if the name is taken, raise ValueError and leave the registry "
        "as it was.",
        "Compare a normalised form, name.lower().replace('-', '_'), so 'Get-Weather' collides "
        "with 'get_weather'; keep a dict from normalised form to the registered name.",
        "The message names the registered tool and the new name, and says what to do: choose "
        "another name, or unregister the old tool first.",
    ],
    reference=lambda: PackageRegistry,
)
def _check_registry(student: Any) -> None:
    registry = student()
    registry.register("get_weather", get_weather)
    registry.register("get_time", get_time)
    registry.register("get_weather_forecast", search_docs)
    expect_equal(
        list(registry.names()),
        ["get_weather", "get_time", "get_weather_forecast"],
        what="names() after registering three different tools",
        hint="Different names must all register, in order.",
    )
    for name in ("get_weather", "Get-Weather", "get-weather", "GET_WEATHER"):
        error = expect_raises(
            ValueError,
            registry.register,
            name,
            calculator,
            what=f"register({name!r}, ...) after 'get_weather'",
            hint="A duplicate (or a name differing only by case or -/_) must raise ValueError.",
        )
        text = str(error)
        missing = [n for n in dict.fromkeys(("get_weather", name)) if repr(n) not in text]
        expect_true(
            not missing,
            f"The error for {name!r} must name both tools, quoted ({', '.join(map(repr, missing))} "
            f"missing), so the developer sees which two collide; got {text!r}.",
            hint="Use {name!r} in an f-string for each of the two names.",
        )
        expect_true(
            any(word in text.lower() for word in _WHAT_TO_DO),
            f"The error must say what to do next (e.g. choose another name or unregister the "
            f"old tool); got {text!r}.",
        )
        expect_true(
            registry.get("get_weather") is get_weather,
            f"After the rejected register({name!r}, ...), get('get_weather') no longer returns "
            "the original function: the registry was changed before raising.",
            hint="Raise before you store anything.",
        )
    expect_equal(
        list(registry.names()),
        ["get_weather", "get_time", "get_weather_forecast"],
        what="names() after the rejected registrations",
        hint="A rejected registration must leave no trace.",
    )


# -- 2.2 ------------------------------------------------------------------------------------------


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
    for fn, category, tags in (
        (search_docs, Category.READ, ("orders",)),
        (calculator, Category.WRITE, ("email",)),
        (get_weather, Category.READ, ()),
        (convert_temperature, Category.WRITE, ("orders", "money")),
        (random_integer, Category.EXECUTE, ()),
    ):
        registry.register(fn, category=category, tags=tags)
    return registry


@exercise(
    "2.2",
    title="List by category",
    hints=[
        "Loop over registry.list() and keep tool.name when tool.category and tool.tags match.",
        "Category is a StrEnum whose values are lower case: Category('write') works, "
        "Category('WRITE') does not. Normalise the input with str(category).lower().",
        "Keep the registration order (it is the order the model sees), and raise ValueError "
        "listing read, write, execute for an unknown category instead of returning [].",
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
        (
            None,
            None,
            ["search_docs", "calculator", "get_weather", "convert_temperature", "random_integer"],
        ),
        ("read", "nothing", []),
    ]
    for category, tag, expected in cases:
        what = f"list_by_category(registry, {category!r}, tag={tag!r})"
        got = student(registry, category, tag=tag)
        if isinstance(got, list) and got and not all(isinstance(n, str) for n in got):
            raise CheckFailed(
                f"{what} must return tool names (str), not tool objects.",
                expected=expected,
                got=got,
                hint="Collect tool.name.",
            )
        expect_equal(
            got,
            expected,
            what=what,
            hint="Match the category in any letter case, filter by tag when given, and "
            "keep registration order.",
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
        all(word in str(error).lower() for word in ("read", "write", "execute")),
        f"The error for an unknown category must list the valid ones (read, write, execute); "
        f"got {str(error)!r}.",
    )


# -- 2.3 ------------------------------------------------------------------------------------------


def execute(tools: dict[str, Callable[..., Any]], name: str, arguments: dict) -> dict[str, Any]:
    """Reference for 2.3: `toolsys.Registry.execute` over the same tools, as a plain dict."""
    from toolsys import Registry

    registry = Registry()
    for key, fn in tools.items():
        registry.register(fn, name=key)
    return registry.execute(name, arguments).to_dict()


_SUGGESTIONS = [
    ("get_wether", "get_weather", ["random_integer", "search_docs", "calculator"]),
    ("GetWeather", "get_weather", ["random_integer", "calculator"]),
    ("Get-Weather", "get_weather", ["random_integer", "calculator"]),
    ("weather", "get_weather", ["random_integer", "calculator"]),
    ("calculate", "calculator", ["get_weather", "get_time"]),
    ("search", "search_docs", ["get_weather", "calculator"]),
]


def _unknown(student: Any, tools: dict[str, Any], name: str) -> dict[str, Any]:
    what = f"execute(tools, {name!r}, {{}})"
    try:
        result = student(tools, name, {})
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(
            f"{what} raised; an unknown tool name must come back as data.",
            expected=Described('{"ok": False, "error": {"code": "UNKNOWN_TOOL", ...}}'),
            got=exc,
            hint="Look the name up with `in` or .get(), never tools[name] unguarded.",
        ) from None
    expect_true(
        isinstance(result, dict) and result.get("ok") is False,
        f"{what} must return a dict with ok=False; got {result!r}.",
    )
    error = result.get("error")
    expect_true(isinstance(error, dict), f"{what}['error'] must be a dict; got {error!r}.")
    expect_equal(error.get("code"), "UNKNOWN_TOOL", what=f"{what}['error']['code']")
    expect_true(
        name in str(error.get("message", "")),
        f"{what}['error']['message'] must quote the unknown name {name!r}; "
        f"got {error.get('message')!r}.",
    )
    return error


@exercise(
    "2.3",
    title="Unknown names, with suggestions",
    hints=[
        "If the name is not in the dict, return {'ok': False, 'error': {...}} instead of raising.",
        "difflib.get_close_matches(word, candidates, n=3) ranks similar names; compare "
        "normalised forms (lower case, '-' -> '_') so 'Get-Weather' finds 'get_weather'.",
        "Put the close names, best first, in error['details']['did_you_mean'] and name the best "
        "one in the suggestion; with no close name, the suggestion lists every tool.",
    ],
    reference=lambda: execute,
)
def _check_execute(student: Any) -> None:
    tools = _tools()
    expect_equal(
        student(tools, "get_weather", {"city": "Paris"}),
        {"ok": True, "value": get_weather("Paris")},
        what="execute(tools, 'get_weather', {'city': 'Paris'})",
        hint="A known tool runs: {'ok': True, 'value': fn(**arguments)}.",
    )
    for name, best, unrelated in _SUGGESTIONS:
        error = _unknown(student, tools, name)
        details = error.get("details")
        close = details.get("did_you_mean") if isinstance(details, dict) else None
        where = f"execute(tools, {name!r}, {{}})['error']['details']['did_you_mean']"
        expect_true(
            isinstance(close, list) and close and close[0] == best,
            f"{where} must list the closest names, best first; expected {best!r} first, "
            f"got {close!r}.",
        )
        expect_true(len(close) <= 3, f"{where} lists {len(close)} names; at most 3 help.")
        wrong = [n for n in unrelated if n in close]
        expect_true(
            not wrong,
            f"{where} includes unrelated {wrong}; suggest only close names.",
            hint="Use a similarity cutoff (difflib's default 0.6 works).",
        )
        expect_true(
            repr(best) in error.get("suggestion", "") or best in error.get("suggestion", ""),
            f"The suggestion for {name!r} must name {best!r}; got {error.get('suggestion')!r}.",
        )
    error = _unknown(student, tools, "launch_rockets")
    details = error.get("details")
    close = details.get("did_you_mean") if isinstance(details, dict) else None
    expect_equal(
        close,
        [],
        what="did_you_mean for 'launch_rockets'",
        hint="Nothing is close: an empty list, and the suggestion lists every tool.",
    )
    missing = [n for n in tools if n not in error.get("suggestion", "")]
    expect_true(
        not missing,
        f"With nothing close, the suggestion must list the available tools; "
        f"{missing} missing from {error.get('suggestion')!r}.",
    )
    expect_equal(
        sorted(tools),
        sorted(_tools()),
        what="the tool names after execute",
        hint="execute must not change the tools dict.",
    )
