"""Any Python value as strict JSON data that a model endpoint accepts, without ever raising.

A tool may return anything: NaN, an integer too long for `str()`, bytes, a set, a list that
contains itself, an object whose `__repr__` raises, text with a lone surrogate that UTF-8 cannot
encode. The endpoint accepts only strict JSON sent as UTF-8, and one unsendable tool message
fails the whole next request. `sendable(value)` turns any value into plain data (dict with str
keys, list, str, int, finite float, bool, None); `dumps(value)` is its strict JSON text.

Each awkward value is represented explicitly, so the model is never handed a silent guess:

| value | becomes |
|---|---|
| NaN, inf, -inf | the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers) |
| int of more than 4,000 digits | "377167149703519… (4771 digits)" (`str()` refuses them) |
| bytes | "<3 bytes>" |
| set, frozenset, tuple | a list (a set sorted when its items compare) |
| dataclass, pydantic model | an object of its fields |
| enum, date/time | its value, its ISO text |
| anything else | its `str()`, or "<unprintable T>" when that raises |
| a container met inside itself | "<circular reference>" |
| nesting deeper than 64 levels | "<nested deeper than 64 levels>" |
| text with a lone surrogate | the same text with U+FFFD in its place |

`text=` is applied to every string, keys included, after it is made valid: that is where
redaction runs, on decoded values, before anything is cut short or escaped.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import decimal
import enum
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

MAX_DEPTH = 64
MAX_INT_DIGITS = 4000
SAFE_INT_BITS = 13_000  # 2**13000 has 3,914 digits: below MAX_INT_DIGITS, no need to count
_LEADING_DIGITS = 15
_FLOAT_WORDS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
_FALLBACK_JSON = '"<value could not be encoded>"'


def sendable(value: Any, text: Callable[[str], str] | None = None) -> Any:
    """`value` as strict JSON data; `text` (e.g. a redactor) is applied to every string."""
    return _convert(value, text, set(), 0)


def dumps(value: Any, text: Callable[[str], str] | None = None, indent: int | None = None) -> str:
    """Strict JSON text for any value: no NaN, valid UTF-8, never raises."""
    try:
        return json.dumps(sendable(value, text), ensure_ascii=False, allow_nan=False, indent=indent)
    except KeyboardInterrupt:
        raise
    except BaseException:  # sendable data always encodes; this is the last line of defence
        return _FALLBACK_JSON


def valid_text(value: str) -> str:
    """`value` encodable as UTF-8: a lone surrogate becomes U+FFFD, a split pair is joined."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def text_of(value: Any) -> str:
    """`str(value)` as valid text, or "<unprintable T>" when `str` and `repr` both raise."""
    if type(value) is str:
        return valid_text(value)
    for render in (str, repr):
        try:
            return valid_text(str.__str__(render(value)))
        except KeyboardInterrupt:
            raise
        except BaseException:  # a broken __str__ is the value's problem, not the caller's
            continue
    return f"<unprintable {_type_name(value)}>"


def integer(value: int) -> int | str:
    """An int as itself, or as leading digits and a digit count when it is too long for JSON."""
    if value.bit_length() <= SAFE_INT_BITS:
        return int(value)
    context = decimal.Context(
        prec=_LEADING_DIGITS, rounding=decimal.ROUND_DOWN, Emax=decimal.MAX_EMAX
    )
    sign, digits, exponent = context.create_decimal(value).as_tuple()
    count = len(digits) + int(exponent)
    if count <= MAX_INT_DIGITS:
        return int(value)
    leading = "".join(map(str, digits))
    return f"{'-' if sign else ''}{leading}… ({count} digits)"


def _type_name(value: Any) -> str:
    try:
        return str(type(value).__name__)
    except Exception:
        return "object"


def _convert(value: Any, text: Callable[[str], str] | None, active: set[int], depth: int) -> Any:
    try:
        return _convert_unguarded(value, text, active, depth)
    except KeyboardInterrupt:
        raise
    except BaseException:  # a hostile __eq__, __iter__, __class__...: show the type instead
        return f"<unprintable {_type_name(value)}>"


def _convert_unguarded(
    value: Any, text: Callable[[str], str] | None, active: set[int], depth: int
) -> Any:
    kind = type(value)
    if kind is str:
        return _text(value, text)
    if value is None or kind is bool:
        return value
    if kind is int:
        return integer(value)
    if kind is float:
        return _number(value)
    if kind is dict or kind is list:  # plain containers, most of what is sent: no type to ask
        return _cut(value, active, depth) or _items(value, value.copy(), text, active, depth)
    if isinstance(value, enum.Enum):
        return _convert(value.value, text, active, depth)
    if isinstance(value, str):
        return _text(str.__str__(value), text)
    if isinstance(value, int):
        return integer(int.__index__(value))
    if isinstance(value, float):
        return _number(float.__float__(value))
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{memoryview(value).nbytes} bytes>"
    if isinstance(value, _dt.date | _dt.time):
        return _text(value.isoformat(), text)
    if isinstance(value, type):
        return _text(text_of(value), text)
    cut = _cut(value, active, depth)
    if cut:
        return cut
    children = _children(value)
    if children is None:
        return _text(text_of(value), text)
    return _items(value, children, text, active, depth)


def _cut(value: Any, active: set[int], depth: int) -> str | None:
    """The marker a container gets in place of its items: met inside itself, or too deep."""
    if id(value) in active:
        return "<circular reference>"
    if depth >= MAX_DEPTH:
        return f"<nested deeper than {MAX_DEPTH} levels>"
    return None


def _items(
    value: Any,
    children: dict[Any, Any] | list[Any],
    text: Callable[[str], str] | None,
    active: set[int],
    depth: int,
) -> Any:
    """A container's `children` (a copy of its items) converted while `value` is active."""
    active.add(id(value))
    try:
        if isinstance(children, dict):
            return {
                _key(key, text): _convert(item, text, active, depth + 1)
                for key, item in children.items()
            }
        return [_convert(item, text, active, depth + 1) for item in children]
    finally:
        active.discard(id(value))


def _children(value: Any) -> dict[Any, Any] | list[Any] | None:
    """The items of a container-like value, or None when it is to be shown as text."""
    if isinstance(value, dict | Mapping):
        return dict(value.items())
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, set | frozenset):
        items = list(value)
        try:
            return sorted(items)
        except Exception:
            return items
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model: its own JSON view, with its own serialisers
        dumped = dump(mode="json")
        return dumped if isinstance(dumped, dict) else [dumped]
    return None


def _number(value: float) -> float | str:
    return value if math.isfinite(value) else _FLOAT_WORDS[repr(value)]


def _text(value: str, text: Callable[[str], str] | None) -> str:
    value = valid_text(value)
    if text is None:
        return value
    return valid_text(str.__str__(text(value)))


def _key(key: Any, text: Callable[[str], str] | None) -> str:
    """A mapping key as JSON writes it: true/false/null, numbers as text, else its text."""
    if type(key) is str:  # nearly every key: no type to ask
        return _text(key, text)
    if isinstance(key, enum.Enum):
        return _key(key.value, text)
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, float):
        return str(_number(float.__float__(key)))
    if isinstance(key, int):
        return str(integer(int.__index__(key)))
    return _text(str.__str__(key) if isinstance(key, str) else text_of(key), text)
