"""Compare a student's value with the expected one as plain data, so no object can fake a pass.

Why this module exists: `got == expected` asks the student's object whether it is right. An
object whose `__eq__` always says yes, or a `str`/`dict`/`list` subclass that overrides `__eq__`,
`__hash__`, `__len__`, `__bool__`, `__contains__` or `get`, would pass any check written that way.
Here the types are compared first, exactly (`type(got) is type(expected)`, recursively), and `==`
runs only between values of the same trusted type, so it is the expected type's `==` that answers.
The package's own string enums (`ErrorCode`, `Category`) count as the strings they are, and its
read-only exports (`ReadOnlyDict`, `ReadOnlyList`) as the dicts and lists they are: a check
accepts the package's own answers, which contain them. So do the standard library's own dicts
(`collections.Counter`, `OrderedDict`, `defaultdict`, exactly those types): a `Counter` of roles
is a `{role: count}` and serialises to the same JSON.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict
from typing import Any

from toolsys._readonly import ReadOnlyDict, ReadOnlyList
from toolsys.errors import ErrorCode
from toolsys.spec import Category

MAX_DEPTH = 60
"""Deeper nesting than this is reported, not followed (a value may even contain itself)."""

_SCALARS = (str, int, float, bool, type(None))
_NUMBERS = (int, float)
_OUR_STRINGS = (ErrorCode, Category)
_STDLIB_DICTS = (Counter, OrderedDict, defaultdict)


def _unwrap(value: Any) -> Any:
    """The package's own enums and read-only containers as the plain values they stand for."""
    cls = type(value)
    if cls in _OUR_STRINGS:
        return str.__str__(value)
    if cls is ReadOnlyDict or cls in _STDLIB_DICTS:
        return dict(value)
    if cls is ReadOnlyList:
        return list(value)
    return value


def as_plain(value: Any, depth: int = 0) -> Any:
    """`value` with the package's own read-only containers, at any depth, made plain dicts/lists.

    Anything else, a student's subclass included, is left exactly as it is for the checks to judge.
    """
    cls = type(value)
    if depth > MAX_DEPTH or cls not in (dict, list, ReadOnlyDict, ReadOnlyList):
        return value
    if cls in (dict, ReadOnlyDict):
        return {key: as_plain(item, depth + 1) for key, item in value.items()}
    return [as_plain(item, depth + 1) for item in value]


def text(value: Any) -> str:
    """`str(value)` as an exact `str`: never a subclass with its own `__contains__` or `__eq__`."""
    try:
        shown = str(value)
    except Exception as exc:  # a student's __str__ may raise
        return f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    return str.__str__(shown)


def as_str(value: Any) -> str | None:
    """The exact `str` that `value` is (one of the package's string enums too), else None."""
    value = _unwrap(value)
    return value if type(value) is str else None


def kind(value: Any) -> str:
    """How a value's type reads in a message: "a dict", "None", "a MyStr (a subclass of str)"."""
    if value is None:
        return "None"
    cls = type(value)
    name = cls.__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    base = next((b for b in (dict, list, tuple, str, int, float) if issubclass(cls, b)), None)
    if base is not None and cls is not base and cls not in _SCALARS:
        return f"{article} {name} (a subclass of {base.__name__})"
    return f"{article} {name}"


def impurity(value: Any, where: str = "") -> str | None:
    """Where `value` stops being plain data, in words, or None when it is plain throughout.

    Plain data is what `json.loads` gives back (exact `dict` with `str` keys, `list`, `str`, `int`,
    `float`, `bool`, `None`), plus tuples; no subclass of any of them and no other object.
    """
    return _impurity(value, where, 0)


def _impurity(value: Any, where: str, depth: int) -> str | None:
    at = where or "the value"
    if depth > MAX_DEPTH:
        return f"{at} is nested more than {MAX_DEPTH} levels deep"
    value = _unwrap(value)
    cls = type(value)
    if cls in _SCALARS:
        return None
    if cls is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"{at} has a key that is {kind(key)}, not a str"
            problem = _impurity(item, f"{where}[{key!r}]", depth + 1)
            if problem:
                return problem
        return None
    if cls in (list, tuple):
        for index, item in enumerate(value):
            problem = _impurity(item, f"{where}[{index}]", depth + 1)
            if problem:
                return problem
        return None
    return f"{at} is {kind(value)}, not plain data (dict, list, str, int, float, bool or None)"


def difference(got: Any, expected: Any, where: str = "") -> str | None:
    """The first place where `got` differs from `expected`, in words, or None when they are equal.

    `where` names the value in the words, e.g. "the result" gives "the result['type'] is ...".
    Numbers compare by value (1 and 1.0 agree), but a bool is never a number here.
    """
    return _difference(got, expected, where, 0)


def _difference(got: Any, expected: Any, where: str, depth: int) -> str | None:
    at = where or "the value"
    if depth > MAX_DEPTH:
        return f"{at} is nested more than {MAX_DEPTH} levels deep"
    got, expected = _unwrap(got), _unwrap(expected)
    if not _same_type(got, expected):
        return f"{at} is {kind(got)}, not {kind(expected)}"
    cls = type(expected)
    if cls is dict:
        return _dict_difference(got, expected, where, depth)
    if cls in (list, tuple):
        if len(got) != len(expected):
            if _short_scalars(got) and _short_scalars(expected):
                return f"{at} is {got!r}, not {expected!r}"
            return f"{at} has {len(got)} items, not {len(expected)}"
        for index, (mine, theirs) in enumerate(zip(got, expected, strict=True)):
            problem = _difference(mine, theirs, f"{where}[{index}]", depth + 1)
            if problem:
                return problem
        return None
    if cls in (set, frozenset):
        strange = next((item for item in got if type(item) not in _SCALARS), None)
        if strange is not None:
            return f"{at} contains {kind(strange)}, not plain data"
    if got == expected:  # same, trusted type: its own == answers
        return None
    return f"{at} is {got!r}, not {expected!r}"


def _dict_difference(got: dict, expected: dict, where: str, depth: int) -> str | None:
    at = where or "the value"
    key_types = {type(key) for key in expected if type(key) in _SCALARS} | {str}
    strange = next((key for key in got if type(key) not in key_types), None)
    if strange is not None:
        return f"{at} has a key that is {kind(strange)}"
    missing = [key for key in expected if key not in got]
    if missing:
        return f"{at} has no key {missing[0]!r}"
    extra = [key for key in got if key not in expected]
    if extra:
        return f"{at} has an unexpected key {extra[0]!r}"
    for key, theirs in expected.items():
        problem = _difference(got[key], theirs, f"{where}[{key!r}]", depth + 1)
        if problem:
            return problem
    return None


def _short_scalars(items: list | tuple) -> bool:
    """A list short enough to show whole, of values whose repr is their own (exact scalars)."""
    return len(items) <= 8 and all(type(item) in _SCALARS for item in items)


def _same_type(got: Any, expected: Any) -> bool:
    return type(got) is type(expected) or (type(got) in _NUMBERS and type(expected) in _NUMBERS)
