"""Exercise 2.1, reject duplicates helpfully: the check and its reference, `SafeRegistry`.

The reference wraps `toolsys.Registry`; the cases register a name twice and in other spellings
('Get-Weather' collides with 'get_weather'), and a refused registration must leave the registry as
it was.
"""

from __future__ import annotations

import random
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
from toolsys.checks._differential import Call, agree, calls
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
    agree(
        _registering(student),
        _registering(SafeRegistry),
        _GENERATED,
        name="register(name, ...) for each name of {args} in turn, on a new registry,",
        compare=_same_steps,
        wrong="went wrong: {problem}",
        hint="Two names collide when name.lower().replace('-', '_') is the same; refuse a "
        "collision with ValueError naming both ({name!r}, the registered one as it was "
        "registered) and saying what to do, before changing anything.",
    )


def _text_form(name: str) -> str:
    """The exercise text's normal form: letter case and '-' against '_' do not count."""
    return name.lower().replace("-", "_")


def _names_call(rng: random.Random, size: int) -> Call:
    """Names to register one after the other: new ones (letters in both cases, digits, '-',
    '_'), and variants of earlier ones (the same, another letter case, '-' for '_').

    Left out, where the package's reference (`toolsys.Registry`) and the exercise text part
    ways: a name providers refuse (spaces, non-ASCII, empty, over 64 characters: the registry
    raises, the text registers it), and a name that collides with an earlier one for one of
    them only: camelCase ('getWeather' is get_weather to the registry, getweather to the text)
    and runs of separators ('get__weather')."""
    from toolsys.names import check_name, normalize

    names: list[str] = []
    for _ in range(rng.randint(1, 2 + size)):
        if names and rng.random() < 0.5:
            earlier = rng.choice(names)
            candidate = "".join(
                (c.swapcase() if rng.random() < 0.4 else c)
                if c.isalpha()
                else {"-": "_", "_": "-"}.get(c, c)
                if rng.random() < 0.5
                else c
                for c in earlier
            )
        else:
            candidate = "".join(
                rng.choice("abcxyzABCXYZ019-_") for _ in range(rng.randint(1, 3 + size // 2))
            )
        try:
            check_name(candidate)
        except ValueError:
            continue
        if all(
            (normalize(candidate) == normalize(n)) == (_text_form(candidate) == _text_form(n))
            for n in names
        ):
            names.append(candidate)
    return Call((names,))


_GENERATED = calls(_names_call, seed=21, count=150)


def _registering(make: Callable[[], Any]) -> Callable[[list[str]], Any]:
    """Each name registered in turn on a new registry (a function of its own for each): per
    step, "registered" or the refusal ("refused", name, the message); then names(), and
    whether get() gives each registered name its own function."""

    def run(names: list[str]) -> Any:
        registry = make()
        steps: list[tuple[str, ...]] = []
        functions: dict[str, Callable[..., Any]] = {}
        for index, name in enumerate(names):
            before = list(registry.names())
            fn = _numbered(index)
            try:
                registry.register(name, fn)
            except ValueError as exc:
                after = registry.names()
                changed = type(after) is not list or after != before
                steps.append(("refused, but changed names()" if changed else "refused", name,
                              text(exc)))  # fmt: skip
                continue
            functions[name] = fn
            steps.append(("registered", name))
        wrong = [name for name, fn in functions.items() if registry.get(name) is not fn]
        return {"steps": steps, "names": registry.names(), "get() wrong for": wrong}

    return run


def _numbered(index: int) -> Callable[..., Any]:
    def tool() -> int:
        return index

    tool.__name__ = tool.__qualname__ = f"tool_{index}"
    return tool


def _same_steps(got: Any, expected: Any, what: str) -> str | None:
    """The same steps registered and refused; each refusal's message naming the new name and
    the registered one it collides with (both repr-quoted) and saying what to do."""
    from toolsys.checks._plain import difference

    registered: list[str] = []
    for index, (mine, theirs) in enumerate(zip(got["steps"], expected["steps"], strict=True)):
        name = theirs[1]
        if mine[0] != theirs[0]:
            return f"register({name!r}, ...) (step {index + 1}) was {mine[0]}, not {theirs[0]}"
        if theirs[0] == "registered":
            registered.append(name)
            continue
        taken = next(n for n in registered if _text_form(n) == _text_form(name))
        message = mine[2]
        missing = [n for n in dict.fromkeys((taken, name)) if repr(n) not in message]
        if missing:
            return (
                f"the error of register({name!r}, ...) (step {index + 1}) does not name "
                f"{missing[0]!r} (quoted with repr)"
            )
        if not any(word in message.lower() for word in _WHAT_TO_DO):
            return (
                f"the error of register({name!r}, ...) (step {index + 1}) does not say what to do"
            )
    return difference(
        {k: v for k, v in got.items() if k != "steps"},
        {k: v for k, v in expected.items() if k != "steps"},
        what,
    )
