"""Exercise 2.1, reject duplicates helpfully: the check and its reference, `SafeRegistry`.

The reference wraps `toolsys.Registry`; the cases register a name twice and in other spellings
('Get-Weather' collides with 'get_weather'), and a refused registration must leave the registry as
it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    exercise,
    expect_plain,
    expect_raises,
    expect_true,
)
from toolsys.checks._plain import text
from toolsys.checks.ch02._shared import (
    calculator_fn,
    get_time_fn,
    get_weather_fn,
    search_docs_fn,
    send_email_fn,
)


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
    "get_weather": get_weather_fn,
    "Send-Email": send_email_fn,
    "get_time": get_time_fn,
    "get_weather_forecast": search_docs_fn,
    "weather": calculator_fn,
    "getweather": get_time_fn,  # no '-' or '_' where get_weather has one: another name
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
            calculator_fn,
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
