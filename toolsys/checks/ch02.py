"""Checks for chapter 02 (the registry): duplicates, filtering by category, unknown names.

Each reference wraps `toolsys.Registry`, so the package itself passes the checks the student's
hand-built pieces must pass. One tool is registered as `Send-Email`, not in normalised form, so
code that only works when names are already lower-case snake_case shows itself.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_raises,
    expect_true,
)
from toolsys.checks._plain import text


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


def _normalize(name: str) -> str:
    """The exercises' normal form: `Get-Weather` and `get_weather` are the same name."""
    return name.lower().replace("-", "_")


# -- 2.1 ------------------------------------------------------------------------------------------


class SafeRegistry:
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
# the names registered first, in order: different names, one of them not in normal form
_REGISTERED = {
    "get_weather": _get_weather,
    "Send-Email": _send_email,
    "get_time": _get_time,
    "get_weather_forecast": _search_docs,
    "weather": _calculator,
}
# a name to refuse, and the registered name it collides with
_COLLISIONS = [
    ("get_weather", "get_weather"),
    ("Get-Weather", "get_weather"),
    ("get-weather", "get_weather"),
    ("GET_WEATHER", "get_weather"),
    ("send_email", "Send-Email"),
    ("SEND-EMAIL", "Send-Email"),
    ("Send-Email", "Send-Email"),
]


def _expect_unchanged(registry: Any, after: str) -> None:
    """The registry still holds exactly `_REGISTERED`: a refused registration left no trace."""
    names = registry.names()
    expect_plain(names, what="names()", shape="a list of the registered names")
    if type(names) is not list or names != list(_REGISTERED):
        raise CheckFailed(
            f"After {after}, names() changed: a registration that raises must leave the "
            "registry as it was.",
            expected=list(_REGISTERED),
            got=names,
            hint="Check for a collision first, and raise before you store anything.",
        )
    for name, fn in _REGISTERED.items():
        if registry.get(name) is not fn:
            raise CheckFailed(
                f"After {after}, get({name!r}) no longer returns the function registered under "
                "that name: the registry was changed before raising.",
                hint="Check for a collision first, and raise before you store anything.",
            )


@exercise(
    "2.1",
    title="Reject duplicates helpfully",
    hints=[
        "Check before you store: if the name is taken, raise ValueError and leave the registry "
        "(both dicts) as it was.",
        "Compare normalised forms, self.normalize(name), with the dict from normalised form to "
        "the registered name: 'Get-Weather' collides with 'get_weather', 'send_email' with "
        "'Send-Email'.",
        "The message names the registered tool (as it was registered, not normalised) and the "
        "new name, and says what to do: choose another name, or unregister the old tool first.",
    ],
    reference=lambda: SafeRegistry,
)
def _check_safe_registry(student: Any) -> None:
    registry = student()
    for name, fn in _REGISTERED.items():
        try:
            registry.register(name, fn)
        except ValueError as exc:
            raise CheckFailed(
                f"register({name!r}, ...) raised ValueError ({text(exc)}), but no registered "
                "name has the same normalised form: different names must register.",
                expected=Described("no error"),
                got=exc,
                hint="Only names equal after normalize() collide: compare them with ==, not `in`.",
            ) from None
    _expect_unchanged(registry, f"registering {', '.join(map(repr, _REGISTERED))}")
    refused: list[str] = []
    for name, taken in _COLLISIONS:
        what = f"register({name!r}, ...) after {taken!r}"
        error = expect_raises(
            ValueError,
            registry.register,
            name,
            _calculator,
            what=what,
            hint="A duplicate (or a name differing only by case or -/_) must raise ValueError; "
            "compare normalised forms on both sides.",
        )
        _expect_unchanged(registry, f"the refused register({name!r}, ...)")
        message = text(error)
        ghost = next((r for r in refused if repr(r) in message and r != name), None)
        if ghost is not None and repr(taken) not in message:
            raise CheckFailed(
                f"The error for {name!r} names {ghost!r}, a name refused earlier, instead of "
                f"the registered {taken!r}: the refused registration changed the registry "
                "before raising.",
                got=message,
                hint="Raise before you update anything, the normalised-name dict included.",
            )
        missing = [n for n in dict.fromkeys((taken, name)) if repr(n) not in message]
        expect_true(
            not missing,
            f"The error for {what} must name both tools, quoted, as they were written "
            f"({', '.join(map(repr, missing))} missing), so the developer sees which two "
            f"collide; got {message!r}.",
            hint="Use {name!r} in an f-string for each of the two names; the registered one as "
            "it was registered.",
        )
        expect_true(
            any(word in message.lower() for word in _WHAT_TO_DO),
            f"The error must say what to do next (e.g. choose another name or unregister the "
            f"old tool); got {message!r}.",
        )
        refused.append(name)


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
    for name, category, tags in (
        ("search_docs", Category.READ, ("orders",)),
        ("calculator", Category.WRITE, ("email",)),
        ("get_weather", Category.READ, ()),
        ("convert_temperature", Category.WRITE, ("orders", "money")),
        ("random_integer", Category.EXECUTE, ()),
    ):
        registry.register(_tools()[name], name=name, category=category, tags=tags)
    return registry


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
            hint="Match the category in any letter case, keep the tools that have the tag among "
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


# -- 2.3 ------------------------------------------------------------------------------------------


def execute(tools: dict[str, Callable[..., Any]], name: str, arguments: dict) -> dict[str, Any]:
    """Reference for 2.3: `toolsys.Registry.execute` over the same tools, as a plain dict."""
    from toolsys import Registry

    registry = Registry()
    for key, fn in tools.items():
        registry.register(fn, name=key)
    return registry.execute(name, arguments).to_dict()


def _close(name: str, tools: dict[str, Any]) -> list[str]:
    """The exercise's definition of close: difflib on normalised names, registered names back."""
    by_normal = {_normalize(n): n for n in tools}
    close = difflib.get_close_matches(_normalize(name), list(by_normal), n=3)
    return [by_normal[c] for c in close]


# an unknown name; whether the whole did_you_mean is pinned (camelCase is left to the package's
# own normalisation, so only its best name is); names that must not be suggested
_UNKNOWN = [
    ("get_wether", True, ["random_integer", "search_docs", "calculator"]),
    ("Get-Weather", True, ["random_integer", "calculator"]),
    ("GetWeather", False, ["random_integer", "calculator"]),
    ("weather", True, ["random_integer", "calculator"]),
    ("calculate", True, ["get_weather", "get_time"]),
    ("search", True, ["get_weather", "calculator"]),
    ("send_email", True, ["search_docs", "get_weather"]),
    ("SEND-EMAIL", True, ["search_docs", "get_weather"]),
    ("get", True, []),
    ("launch_rockets", True, []),
]
_ENVELOPE = '{"ok": False, "error": {"code", "message", "suggestion", "details": {...}}}'


def _field(container: dict[str, Any], key: str, kind: type, what: str, shape: str) -> Any:
    value = container.get(key)
    if type(value) is not kind:
        raise CheckFailed(
            f"{what}[{key!r}] must be {shape}, got {value!r}.",
            expected=Described(_ENVELOPE),
            got=container,
            hint="Every unknown name gets the same envelope: fill each field, even when "
            "nothing is close.",
        )
    return value


def _unknown(student: Any, tools: dict[str, Any], name: str) -> dict[str, Any]:
    """The student's error for an unknown name, checked field by field for its shape."""
    what = f"execute(tools, {name!r}, {{}})"
    result = call_student(
        student,
        tools,
        name,
        {},
        what=what,
        returns="an error envelope",
        hint="Look the name up with `in` or .get(), never tools[name] unguarded.",
    )
    expect_plain(result, what=what, shape=_ENVELOPE)
    expect_true(
        type(result) is dict and result.get("ok") is False,
        f"{what} must return a dict with ok=False; got {result!r}.",
    )
    error = _field(result, "error", dict, what, "a dict")
    where = f"{what}['error']"
    expect_equal(error.get("code"), "UNKNOWN_TOOL", what=f"{where}['code']")
    message = _field(error, "message", str, where, "a str that quotes the unknown name")
    expect_true(
        repr(name) in message or f'"{name}"' in message,
        f"{where}['message'] must quote the unknown name ({name!r}); got {message!r}.",
        hint="Quote it with {name!r} in an f-string, so a typo or stray space is visible.",
    )
    _field(error, "suggestion", str, where, "a str: the best name, or every tool")
    details = _field(error, "details", dict, where, "a dict with 'did_you_mean'")
    _field(details, "did_you_mean", list, f"{where}['details']", "a list of tool names")
    return error


def _expect_suggestion(suggestion: str, name: str, best: list[str], tools: dict) -> None:
    """With a close name, the suggestion names it before any other tool; with none, all."""
    if not best:
        missing = [n for n in tools if n not in suggestion]
        expect_true(
            not missing,
            f"With nothing close to {name!r}, the suggestion must list the available tools; "
            f"{missing} missing from {suggestion!r}.",
            hint="With no close name, list them all so the model can pick one.",
        )
        return
    named = sorted((suggestion.find(n), n) for n in tools if n in suggestion)
    expect_true(
        bool(named) and named[0][1] == best[0],
        f"The suggestion for {name!r} must name the best match {best[0]!r} first, so the model "
        f"reads it as the answer; got {suggestion!r}.",
        hint="Say it first, e.g. \"Did you mean 'get_weather'?\", then list the others if you "
        "like.",
    )


@exercise(
    "2.3",
    title="Unknown names, with suggestions",
    hints=[
        "If the name is not in the dict, return {'ok': False, 'error': {...}} instead of raising.",
        "difflib.get_close_matches(word, candidates, n=3) ranks similar names; compare "
        "normalised forms (normalize(name)) and map each match back to the registered name, so "
        "'send_email' finds 'Send-Email'.",
        "Put the close names, best first, in error['details']['did_you_mean'] and name the best "
        "one in the suggestion; with no close name, the suggestion lists every tool.",
    ],
    reference=lambda: execute,
)
def _check_execute(student: Any) -> None:
    tools = _tools()
    expect_equal(
        student(tools, "get_weather", {"city": "Paris"}),
        {"ok": True, "value": _get_weather("Paris")},
        what="execute(tools, 'get_weather', {'city': 'Paris'})",
        hint="A known tool runs: {'ok': True, 'value': fn(**arguments)}.",
    )
    for name, pinned, unrelated in _UNKNOWN:
        error = _unknown(student, tools, name)
        close = error["details"]["did_you_mean"]
        expected = _close(name, tools)
        where = f"execute(tools, {name!r}, {{}})['error']['details']['did_you_mean']"
        if pinned:
            expect_equal(
                close,
                expected,
                what=where,
                hint="Every close name (at most 3), best first, as registered: what "
                "difflib.get_close_matches finds among the normalised names.",
            )
        else:
            expect_true(
                0 < len(close) <= 3 and close[0] == expected[0],
                f"{where} must list at most 3 close names, {expected[0]!r} first; got {close!r}.",
            )
        wrong = [n for n in unrelated if n in close]
        expect_true(
            not wrong,
            f"{where} includes unrelated {wrong}; suggest only close names.",
            hint="Use difflib's default cutoff (0.6).",
        )
        _expect_suggestion(error["suggestion"], name, expected[:1], tools)
    expect_equal(
        sorted(tools),
        sorted(_tools()),
        what="the tool names after execute",
        hint="execute must not change the tools dict.",
    )
