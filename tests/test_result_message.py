"""`to_message()` never raises and is always strict, UTF-8-encodable JSON, whatever a tool returns.

The same for the failure envelope: `ErrorInfo` and `ToolError` accept any code, message and
details, and the transcript renders any of it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import fractions
import json
import math
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from toolsys import ErrorCode, ErrorInfo, Registry, ToolError, ToolResult
from toolsys._sendable import MAX_DEPTH, dumps, sendable
from toolsys.loop import ToolCallEvent, ToolResultEvent, Transcript

HUGE = 9**999 * 9**999 * 9**999 * 9**999 * 9**999  # 4,767 digits: str() refuses it


def strict(text: str) -> Any:
    """Decode as a strict JSON peer would: no NaN/Infinity, UTF-8 on the wire."""
    text.encode("utf-8")

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


class Broken:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Exiting:
    def __str__(self) -> str:
        raise SystemExit(3)

    __repr__ = __str__


class HostileClass:
    @property
    def __class__(self):  # isinstance() itself raises on this object
        raise RuntimeError("no class")


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Color(enum.Enum):
    RED = "red"


class Reading(BaseModel):
    value: float
    at: dt.date


def circular_list() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items


def circular_dict() -> dict[str, Any]:
    data: dict[str, Any] = {"a": 1}
    data["self"] = data
    return data


def deep(levels: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(levels):
        node.append([])
        node = node[0]
    return root


# -- examples ---------------------------------------------------------------------------------

EXAMPLES = [
    (float("nan"), "NaN"),
    (float("inf"), "Infinity"),
    (-math.inf, "-Infinity"),
    ([1.5, float("nan")], [1.5, "NaN"]),
    (HUGE, f"{HUGE // 10**4752!s}… (4767 digits)"),
    (-HUGE, f"-{HUGE // 10**4752!s}… (4767 digits)"),
    (10**3999, 10**3999),
    (b"\x00\xff", "<2 bytes>"),
    (bytearray(5), "<5 bytes>"),
    ({3, 1, 2}, [1, 2, 3]),
    (frozenset({"b", "a"}), ["a", "b"]),
    ((1, "two"), [1, "two"]),
    (Broken(), "<unprintable Broken>"),
    (Exiting(), "<unprintable Exiting>"),
    (HostileClass(), "<unprintable HostileClass>"),
    (circular_list(), [1, "<circular reference>"]),
    (circular_dict(), {"a": 1, "self": "<circular reference>"}),
    (Point(1, math.inf), {"x": 1, "y": "Infinity"}),
    (Color.RED, "red"),
    (Reading(value=2.5, at=dt.date(2025, 1, 15)), {"value": 2.5, "at": "2025-01-15"}),
    (dt.datetime(2025, 1, 15, 8, 30), "2025-01-15T08:30:00"),
    (dt.time(8, 30), "08:30:00"),
    (decimal.Decimal("1.10"), "1.10"),
    (fractions.Fraction(1, 3), "1/3"),
    (complex(1, 2), "(1+2j)"),
    (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    ("lone \ud800 surrogate", "lone \ufffd surrogate"),
    ("split pair \ud83d\ude00", "split pair 😀"),
    ({7: "a", None: "b", True: "c", 2.5: "d", (1, 2): "e"}, None),
    (Point, None),
    (iter([1, 2]), None),
]


@pytest.mark.parametrize(("value", "expected"), EXAMPLES, ids=lambda v: type(v).__name__)
def test_any_value_becomes_a_strict_sendable_message(value: Any, expected: Any) -> None:
    message = ToolResult.success(value).to_message()
    decoded = strict(message)
    assert decoded["ok"] is True
    if expected is not None:
        assert decoded["value"] == expected


def test_non_string_keys_are_written_the_way_json_writes_them() -> None:
    value = {7: "a", None: "b", True: "c", 2.5: "d", (1, 2): "e", math.nan: "f"}
    assert sendable(value) == {
        "7": "a",
        "null": "b",
        "true": "c",
        "2.5": "d",
        "(1, 2)": "e",
        "NaN": "f",
    }


def test_deep_nesting_is_cut_with_a_marker_not_a_recursion_error() -> None:
    strict(ToolResult.success(deep(5000)).to_message())
    data = sendable(deep(5000))
    depth = 0
    while isinstance(data, list):
        data, depth = data[0], depth + 1
    assert data == f"<nested deeper than {MAX_DEPTH} levels>"
    assert depth == MAX_DEPTH


def test_a_list_met_twice_but_not_inside_itself_is_not_circular() -> None:
    shared = [1, 2]
    assert sendable([shared, shared]) == [[1, 2], [1, 2]]


def test_dumps_falls_back_to_a_string_rather_than_raise(monkeypatch) -> None:
    import toolsys._sendable as module

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(module, "sendable", boom)
    assert strict(dumps([1])) == "<value could not be encoded>"


def test_a_tool_returning_an_unsendable_value_gives_a_sendable_message_through_execute() -> None:
    registry = Registry()

    @registry.tool
    def odd(kind: str) -> Any:
        """Return something awkward.

        Args:
            kind: Which value.
        """
        return {"nan": math.nan, "huge": HUGE, "surrogate": "\ud800", "loop": circular_list()}[kind]

    for kind in ("nan", "huge", "surrogate", "loop"):
        result = registry.execute("odd", {"kind": kind})
        assert result.ok, result
        strict(result.to_message())
        strict(json.dumps({"content": result.to_message()}, ensure_ascii=False))
        assert str(result).startswith("ok ")


def test_result_without_an_envelope_still_says_it_failed() -> None:
    decoded = strict(ToolResult(False).to_message())
    assert decoded["ok"] is False
    assert decoded["error"]["code"] == "EXECUTION_ERROR"
    assert "without saying why" in decoded["error"]["message"]
    assert str(ToolResult(False)).startswith("error EXECUTION_ERROR")


# -- the failure envelope ---------------------------------------------------------------------


def test_tool_error_with_a_non_string_message_gives_a_sane_envelope() -> None:
    info = ToolError("E", 42).to_info()  # type: ignore[arg-type]
    assert (info.code, info.message, info.suggestion, info.retryable) == ("E", "42", "", False)
    strict(ToolResult.failure(info).to_message())


@pytest.mark.parametrize("code", [None, "", "   ", 404, ErrorCode.TIMEOUT, Broken()])
def test_error_code_is_always_non_empty_text(code: Any) -> None:
    info = ErrorInfo(code, "failed")
    assert isinstance(info.code, str) and info.code.strip()
    if code in (None, "", "   "):
        assert info.code == "EXECUTION_ERROR"
    decoded = strict(ToolResult.failure(info).to_message())
    assert decoded["error"]["code"] == info.code


def test_missing_message_and_suggestion_are_filled_not_null() -> None:
    info = ErrorInfo("E", None, None)  # type: ignore[arg-type]
    assert info.message == "The tool reported an error without a message."
    assert info.suggestion == ""


def test_hostile_retryable_and_details_never_raise() -> None:
    class NoBool:
        def __bool__(self) -> bool:
            raise RuntimeError("no bool")

    info = ErrorInfo("E", "m", retryable=NoBool(), details=[1, 2])  # type: ignore[arg-type]
    assert info.retryable is False
    assert info.details == {"value": [1, 2]}


def test_circular_details_are_marked() -> None:
    assert ErrorInfo("E", "m", details=circular_dict()).details == {
        "a": 1,
        "self": "<circular reference>",
    }
    info = ToolError("E", "m", details=circular_dict()).to_info()  # ToolError keeps a copy
    assert (
        "<circular reference>"
        in strict(ToolResult.failure(info).to_message())["error"]["details"]["self"].values()
    )


def test_a_path_in_details_is_shortened_like_any_path(tmp_path: Path) -> None:
    outside = Path("/home/alice/private/report.csv")
    info = ToolError(
        "E", "m", details={"file": outside, outside: "as a key", "nested": [{"p": outside}]}
    ).to_info()
    message = ToolResult.failure(info).to_message()
    assert "/home/alice" not in message and "alice" not in message
    assert strict(message)["error"]["details"] == {
        "file": "<path>/report.csv",
        "<path>/report.csv": "as a key",
        "nested": [{"p": "<path>/report.csv"}],
    }


def test_tool_error_details_that_are_not_a_mapping_are_kept_under_value() -> None:
    assert ToolError("E", "m", details=["a"]).details == {"value": ["a"]}  # type: ignore[arg-type]
    assert ToolError("E", "m").details == {}


# -- properties -------------------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=30)  # surrogates included
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    ANY_TEXT,
    st.binary(max_size=8),
    st.builds(lambda base, exp: base**exp, st.integers(2, 99), st.integers(1000, 4000)),
    st.sampled_from([Broken, Exiting]).map(lambda make: make()),
    st.just(Color.RED),
    st.builds(Point, st.floats(), st.floats()),
    st.dates(),
    st.complex_numbers(allow_nan=True),
    st.decimals(allow_nan=True),
)
KEYS = st.one_of(ANY_TEXT, st.integers(), st.none(), st.booleans(), st.floats())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(KEYS, inner, max_size=4),
        st.frozensets(st.one_of(st.integers(), ANY_TEXT), max_size=4),
    ),
    max_leaves=20,
)


def with_cycles(value: Any) -> Any:
    """Make the value contain itself wherever it is a list or a dict."""
    if isinstance(value, list):
        value.append(value)
    elif isinstance(value, dict):
        value["loop"] = value
    return value


@settings(max_examples=300, deadline=None, derandomize=True)
@given(VALUES, st.booleans())
def test_to_message_never_raises_and_is_strict_utf8_json(value: Any, cyclic: bool) -> None:
    value = with_cycles(value) if cyclic else value
    decoded = strict(ToolResult.success(value).to_message())
    assert decoded["ok"] is True


class _Dict(dict):  # type: ignore[type-arg]
    """A dict that is not exactly a dict: `sendable` takes its general path for it."""


class _List(list):  # type: ignore[type-arg]
    """A list that is not exactly a list, likewise."""


def _general(value: Any, made: dict[int, Any]) -> Any:
    """`value` with every exact dict and list replaced by a subclass copy, with the same
    sharing and cycles (`made`: the copy of each container already copied)."""
    if type(value) is tuple:
        return tuple(_general(item, made) for item in value)
    if type(value) is not dict and type(value) is not list:
        return value
    if id(value) in made:
        return made[id(value)]
    copy = made[id(value)] = _Dict() if type(value) is dict else _List()
    if type(value) is dict:
        copy.update((key, _general(item, made)) for key, item in value.items())
    else:
        copy.extend(_general(item, made) for item in value)
    return copy


def _refuses_x(text: str) -> str:
    if "x" in text:
        raise ValueError("a text function that fails on some strings")
    return text.upper()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(VALUES, st.booleans(), st.sampled_from([None, str.upper, _refuses_x]))
@example(deep(MAX_DEPTH + 5), False, None).via("nesting cut at the same depth")
@example([["x", {"x": 1}], {"k": "x"}], False, _refuses_x).via("a failing text function")
def test_plain_dicts_and_lists_convert_as_any_mapping_and_list_do(
    value: Any, cyclic: bool, text: Any
) -> None:
    """The shortcut for exact dicts and lists gives what the general path gives."""
    value = with_cycles(value) if cyclic else value
    general = json.dumps(sendable(_general(value, {}), text))
    general = general.replace("<unprintable _Dict>", "<unprintable dict>")
    assert json.dumps(sendable(value, text)) == general.replace(
        "<unprintable _List>", "<unprintable list>"
    )


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    code=st.one_of(st.none(), ANY_TEXT, st.integers(), SCALARS),
    message=st.one_of(st.none(), ANY_TEXT, SCALARS),
    suggestion=st.one_of(st.none(), ANY_TEXT, SCALARS),
    details=st.one_of(st.none(), VALUES, st.dictionaries(KEYS, VALUES, max_size=3)),
    cyclic=st.booleans(),
)
def test_error_envelope_is_built_from_anything_and_always_sendable(
    code: Any, message: Any, suggestion: Any, details: Any, cyclic: bool
) -> None:
    details = with_cycles(details) if cyclic else details
    info = ToolError(code, message, suggestion=suggestion, details=details).to_info()
    assert isinstance(info.code, str) and info.code
    assert isinstance(info.message, str) and isinstance(info.suggestion, str)
    assert isinstance(info.details, dict)
    decoded = strict(ToolResult.failure(info).to_message())
    assert decoded["ok"] is False and set(decoded["error"]) >= {"code", "message", "retryable"}


@settings(max_examples=100, deadline=None, derandomize=True)
@given(VALUES, ANY_TEXT, st.one_of(st.none(), ANY_TEXT, VALUES))
def test_a_transcript_of_any_results_always_renders(
    value: Any, answer: str, arguments: Any
) -> None:
    transcript = Transcript(
        events=[
            ToolCallEvent(1, "call_1", "odd", arguments),
            ToolResultEvent(1, "call_1", "odd", ToolResult.success(value, extra=value)),
            ToolResultEvent(1, "call_2", "odd", ToolResult.failure(ErrorInfo(None, value))),
        ],
        messages=[{"role": "user", "content": answer}, {"role": "tool", "content": value}],
    )
    str(transcript).encode("utf-8")
    assert strict(transcript.to_json())["events"][0]["type"] == "ToolCallEvent"
    strict(transcript.to_json(indent=None))
    transcript.summary()
