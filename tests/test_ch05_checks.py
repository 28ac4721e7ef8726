"""Chapter 05 checks reject plausible wrong answers and accept correct ones written differently.

Each wrong answer is the solution with one change, written as code (`swap`, or a function that
edits the answer's syntax tree), so re-formatting a solution does not break it.
"""

from __future__ import annotations

import ast
import math
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, NamedTuple
from zoneinfo import ZoneInfo

import pytest
from pydantic import BaseModel, Field, model_validator

from tests.solution_code import answer, drop, solution, swap, verdict
from toolsys.checks import Status


def _stub(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("stub")


@pytest.mark.parametrize("exercise_id", ["5.1", "5.3", "5.4"])
def test_a_stub_function_is_not_done(exercise_id: str) -> None:
    verdict(exercise_id, _stub, Status.NOT_DONE)


_NAIVE_START = "start = self.start if self.start.tzinfo else self.start.replace(tzinfo=HOME)"
_NAIVE_END = "end = self.end if self.end.tzinfo else self.end.replace(tzinfo=HOME)"


def test_a_meeting_model_whose_validator_is_a_stub_is_not_done() -> None:
    stub = answer("5.2", swap(_NAIVE_START, f'raise NotImplementedError("5.2")\n{_NAIVE_START}'))
    verdict("5.2", stub, Status.NOT_DONE)


# -- 5.1 -------------------------------------------------------------------------------------


def _wald(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n < 1 or not 0 <= successes <= n:
        raise ValueError("bad arguments")
    p = successes / n
    half = z * (p * (1 - p) / n) ** 0.5
    return max(0.0, p - half), min(1.0, p + half)


def test_the_textbook_interval_is_rejected_where_it_claims_no_doubt() -> None:
    result = verdict("5.1", _wald)
    assert "textbook interval" in (result.hint or "") and "zero width" in (result.hint or "")


_RETURN = "return max(0.0, centre - half), min(1.0, centre + half)"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap("centre = (p + z**2 / (2 * n)) / denominator", "centre = p"), "pulled"),
        (swap("p * (1 - p) / n + z**2 / (4 * n**2)", "p * (1 - p) / n"), "both terms"),
        (swap("denominator = 1 + z**2 / n", "denominator = 1"), "Divide both"),
        (swap("p = successes / n", "p = successes / n\nz = 1.96"), "use the `z` argument"),
        (drop("if n < 1 or not 0 <= successes <= n:\n    ..."), "ZeroDivisionError"),
        (
            swap(_RETURN, "return min(1.0, centre + half), max(0.0, centre - half)"),
            "swapped",
        ),
        (
            swap(_RETURN, "return 100 * max(0.0, centre - half), 100 * min(1.0, centre + half)"),
            "not percentages",
        ),
        (swap(_RETURN, "return f'{centre - half:.3f}', f'{centre + half:.3f}'"), "two numbers"),
        (swap(_RETURN, "return False, True"), "two numbers"),
        # the two numbers the formula names, not the two ends: not "swapped" (issue 27)
        (swap(_RETURN, "return centre, half"), "centre and the half-width"),
        (swap(_RETURN, "return centre + half, centre - 2 * half"), "The first number is larger"),
        # only n is checked: 11 of 10 fails by luck (a negative square root) unless z is large
        (swap("n < 1 or not 0 <= successes <= n", "n < 1"), "wilson(11, 10, 3.0)"),
        # one try is enough for an interval
        (swap("n < 1", "n <= 1"), "wilson(1, 1)"),
    ],
    ids=[
        "centre-p",
        "no-z2-term",
        "no-denominator",
        "z-ignored",
        "no-checks",
        "swapped",
        "%",
        "text",
        "bools",
        "centre-half",
        "inverted",
        "range-unchecked",
        "n-of-one-refused",
    ],
)
def test_a_wrong_wilson_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("5.1", answer("5.1", change)).text()


def _wilson_by_roots(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """A correct 5.1: the interval as the two roots of Wilson's quadratic in the true rate."""
    if not (n >= 1 and 0 <= successes <= n):
        raise ValueError(f"successes={successes} of n={n}: need n >= 1 and 0 <= successes <= n")
    p, k = successes / n, z * z / n
    # (1 + k) r² - (2p + k) r + p² = 0
    a, b, c = 1 + k, -(2 * p + k), p * p
    root = math.sqrt(max(0.0, b * b - 4 * a * c))
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


def test_a_correct_wilson_written_differently_passes() -> None:
    verdict("5.1", _wilson_by_roots, Status.PASSED)


class _Interval(NamedTuple):
    low: float
    high: float


class _Bound(float):
    """A float subclass, as numpy's float64 is."""


@pytest.mark.parametrize(
    "shape",
    [_Interval, lambda low, high: (_Bound(low), _Bound(high))],
    ids=["namedtuple", "float-subclass"],
)
def test_a_correct_wilson_in_another_tuple_or_real_type_passes(shape: Any) -> None:
    def wilson(successes: int, n: int, z: float = 1.96) -> Any:
        return shape(*_wilson_by_roots(successes, n, z))

    verdict("5.1", wilson, Status.PASSED)


def test_a_wilson_that_returns_a_list_is_rejected() -> None:
    # Held-out rounds 4 and 5: "as a tuple (low, high)"; a list is not one ([a, b] != (a, b)).
    def wilson(successes: int, n: int, z: float = 1.96) -> Any:
        return list(_wilson_by_roots(successes, n, z))

    assert "should return a tuple (low, high), not a list" in verdict("5.1", wilson).text()


def test_a_correct_wilson_with_numpy_bounds_passes() -> None:
    numpy = pytest.importorskip("numpy")

    def wilson(successes: int, n: int, z: float = 1.96) -> Any:
        low, high = numpy.clip(numpy.array(_wilson_by_roots(successes, n, z)), 0, 1)
        return low, high

    verdict("5.1", wilson, Status.PASSED)


# -- 5.2 -------------------------------------------------------------------------------------


def _raises_type_error(tree: ast.Module) -> None:
    raised = next(node for node in ast.walk(tree) if isinstance(node, ast.Raise))
    raised.exc.func.id = "TypeError"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([swap("end <= start", "end < start")], "the end is the start"),
        (
            [swap(_NAIVE_START, "start = self.start"), swap(_NAIVE_END, "end = self.end")],
            "TypeError",
        ),
        (
            [swap("end <= start", "end.replace(tzinfo=None) <= start.replace(tzinfo=None)")],
            "14:30 UTC is 15:30 in Paris",
        ),
        (
            [
                swap(_NAIVE_START, "start = self.start.replace(tzinfo=self.start.tzinfo or UTC)"),
                swap(_NAIVE_END, "end = self.end.replace(tzinfo=self.end.tzinfo or UTC)"),
                swap("HOME = ...", "from datetime import timezone\nUTC = timezone.utc\nHOME = UTC"),
            ],
            "a start without a zone is Paris time",
        ),
        ([swap("end <= start", "end.time() <= start.time()")], "was refused"),
        (
            [swap("raise ValueError(...)", "raise ValueError('the meeting must finish later')")],
            "does not name start and end",
        ),
        # names the fields but never says what to send instead
        (
            [
                swap(
                    "raise ValueError(...)",
                    "raise ValueError(f'end {self.end} is not after start {self.start}')",
                )
            ],
            "does not say what to send instead",
        ),
        # "end" only inside "send": the field is never named
        (
            [
                swap(
                    "raise ValueError(...)",
                    "raise ValueError('start must come before the finish; send a later finish')",
                )
            ],
            "does not name end",
        ),
        # an assert, which python -O removes: nothing would refuse the times then
        (
            [
                swap(
                    "if end <= start:\n    raise ValueError(...)",
                    "assert end > start, 'end must be after start; send a later end'",
                )
            ],
            "`assert`",
        ),
        ([drop("return self")], "return self"),
        ([_raises_type_error], "raised TypeError"),
        # every start given Paris as its zone, even one that has a zone of its own
        (
            [
                swap(
                    "self.start if self.start.tzinfo else self.start.replace(tzinfo=HOME)",
                    "self.start.replace(tzinfo=HOME)",
                )
            ],
            "keep the zone a time has",
        ),
    ],
    ids=[
        "equal-allowed",
        "naive-vs-aware",
        "clock",
        "naive-as-utc",
        "time-only",
        "vague",
        "no-advice",
        "send-not-end",
        "assert",
        "no-self",
        "type-error",
        "zone-replaced",
    ],
)
def test_a_wrong_end_after_start_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("5.2", answer("5.2", *changes)).text()


def test_a_function_or_an_instance_instead_of_the_model_class_is_rejected() -> None:
    model = answer("5.2")
    instance = model(title="Sync", start="2025-01-16T15:00:00", end="2025-01-16T16:00:00")
    for wrong in (lambda: model, instance):
        assert "the class MeetingTimes" in verdict("5.2", wrong).text()


_PARIS = ZoneInfo("Europe/Paris")


class _MeetingByTimestamps(BaseModel):
    """A correct 5.2: moments compared as POSIX timestamps, naive times read in Paris."""

    title: str = Field(description="Short title.")
    start: datetime = Field(description="Start, ISO 8601.")
    end: datetime = Field(description="End, ISO 8601, after start.")

    @model_validator(mode="after")
    def end_after_start(self) -> _MeetingByTimestamps:
        def moment(value: datetime) -> float:
            return (value if value.tzinfo else value.replace(tzinfo=_PARIS)).timestamp()

        if moment(self.end) - moment(self.start) <= 0:
            raise ValueError(
                f"the meeting's end {self.end} is not after its start {self.start}: send an end "
                "that comes later"
            )
        return self


def test_a_correct_end_after_start_written_differently_passes() -> None:
    verdict("5.2", _MeetingByTimestamps, Status.PASSED)


class _MeetingNormalisedInPlace(BaseModel):
    """5.2 with the naive times given HOME in place: fine alone, but a Registry freezes the
    arguments, so no meeting with a naive time can be booked through it."""

    title: str = Field(description="Short title.")
    start: datetime = Field(description="Start, ISO 8601.")
    end: datetime = Field(description="End, ISO 8601, after start.")

    @model_validator(mode="after")
    def end_after_start(self) -> _MeetingNormalisedInPlace:
        if self.start.tzinfo is None:
            self.start = self.start.replace(tzinfo=_PARIS)
        if self.end.tzinfo is None:
            self.end = self.end.replace(tzinfo=_PARIS)
        if self.end <= self.start:
            raise ValueError("end must be after start; send an end later than the start")
        return self


def test_a_validator_that_assigns_to_the_fields_is_told_the_arguments_are_frozen() -> None:
    result = verdict("5.2", _MeetingNormalisedInPlace)
    assert "assigns to a field" in result.text() and "frozen" in result.text()
    assert "leave self.start and self.end as they are" in (result.hint or "")


# -- 5.3 -------------------------------------------------------------------------------------

_EXPECTED = "return value.get('at') == '2025-01-17 08:00'"


def _without_effect(tree: ast.Module) -> None:
    case = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case"
    )
    case.keywords = [k for k in case.keywords if k.arg != "effect"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap(_EXPECTED, "return True"), "an hour later"),
        (swap(_EXPECTED, "return value.get('at', '').startswith('2025-01-17')"), "an hour later"),
        (swap(_EXPECTED, "return value.get('at', '').endswith('08:00')"), "a day later"),
        # a Friday at 8, any Friday; the 17th at 8 of any month; 17 January of any year
        (
            swap(
                _EXPECTED,
                "return datetime.strptime(value['at'], '%Y-%m-%d %H:%M').strftime('%A %H:%M') "
                "== 'Friday 08:00'",
            ),
            "a week later",
        ),
        (swap(_EXPECTED, "return value.get('at', '')[8:] == '17 08:00'"), "a month later"),
        (swap(_EXPECTED, "return value.get('at', '')[5:] == '01-17 08:00'"), "a year later"),
        (swap(_EXPECTED, "return value.get('at') == '2025-01-16 08:00'"), "refused it"),
        (swap(_EXPECTED, "return value.get('at') == '2025-01-17 20:00'"), "refused it"),
        (_without_effect, "no effect"),
        (swap("'set_reminder'", "'remind'"), "wrong tool"),
        (swap(_EXPECTED, f"{_EXPECTED} and value.get('text') == 'call the bank'"), "worded"),
        (
            swap(_EXPECTED, "return 'yes' if value.get('at') == '2025-01-17 08:00' else ''"),
            "not True",
        ),
        (
            swap("'Remind me on Friday at 8am to call the bank'", "'Call the bank'"),
            "set no reminder",
        ),
    ],
    ids=[
        "always",
        "date-only",
        "hour-only",
        "weekday",
        "day-of-month",
        "no-year",
        "wrong-day",
        "pm",
        "none",
        "tool",
        "text",
        "str",
        "no-reminder",
    ],
)
def test_a_wrong_eval_case_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("5.3", answer("5.3", change)).text()


def test_a_case_that_is_not_an_evals_case_is_rejected() -> None:
    assert "evals.Case" in verdict("5.3", lambda: ("Remind me", "set_reminder")).text()


def _case_by_moment() -> Any:
    """A correct 5.3: another request, and an effect that compares parsed moments."""
    from toolsys.evals import Case

    wanted = datetime(2025, 1, 16, 9, 0)

    def effect(value: dict) -> bool:
        try:
            return datetime.strptime(value["at"], "%Y-%m-%d %H:%M") == wanted
        except (KeyError, TypeError, ValueError):
            return False

    return Case("Remind me tomorrow at 9am to water the plants", "set_reminder", effect=effect)


def test_a_correct_eval_case_written_differently_passes() -> None:
    verdict("5.3", _case_by_moment, Status.PASSED)


@pytest.mark.parametrize(
    ("moment", "months", "expected"),
    [
        (datetime(2025, 1, 17, 8), 1, datetime(2025, 2, 17, 8)),
        (datetime(2025, 1, 31, 8), 1, datetime(2025, 2, 28, 8)),
        (datetime(2025, 12, 5, 8), 1, datetime(2026, 1, 5, 8)),
        (datetime(2024, 2, 29, 8), 12, datetime(2025, 2, 28, 8)),
    ],
)
def test_a_month_later_is_the_same_day_of_the_next_month_or_its_last(
    moment: datetime, months: int, expected: datetime
) -> None:
    from toolsys.checks.ch05.ex3 import _months_later

    assert _months_later(moment, months) == expected


# -- 5.4 -------------------------------------------------------------------------------------


def _undescribed(tree: ast.Module) -> None:
    """book_table's docstring without its Args: section."""
    tool = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "book_table"
    )
    tool.body[0] = ast.Expr(ast.Constant("Book a table at a restaurant."))


def _only_restaurant_described(tree: ast.Module) -> None:
    """book_table's docstring describing the restaurant only."""
    tool = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "book_table"
    )
    tool.body[0] = ast.Expr(
        ast.Constant(
            "Book a table at a restaurant.\n\nArgs:\n"
            '    restaurant: Restaurant name, e.g. "Chez Marie".\n'
        )
    )


def _seating_required(tree: ast.Module) -> None:
    tool = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "book_table"
    )
    tool.args.defaults = []


def _phone_required(tree: ast.Module) -> None:
    """book_table with a required phone number, which no request gives (held-out round 5)."""
    tool = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "book_table"
    )
    tool.args.args.insert(3, ast.arg("phone", ast.Name("str", ast.Load())))
    docstring = tool.body[0].value.value  # type: ignore[attr-defined]
    tool.body[0] = ast.Expr(
        ast.Constant(docstring.rstrip() + '\n    phone: Phone number, e.g. "+33 1 23 45 67 89".\n')
    )


_SEATING = "Literal['inside', 'terrace', 'bar']"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # an undescribed restaurant is read wrong ("people at Sakura"), the others sent badly
        (_undescribed, "right restaurant"),
        (_only_restaurant_described, "first call was valid"),
        (swap(_SEATING, "str"), "intended effect"),
        (swap("datetime", "str"), "time must be a datetime"),
        (swap("Annotated[int, Field(ge=1, le=20)]", "str"), "the request meant"),
        (_seating_required, "called no tool"),
        (_phone_required, "called no tool"),  # the model asks for a phone; it does not make one up
        (swap("return registry", "return registry.list()"), "toolsys Registry"),
        # the restaurant never reaches the booking system
        (
            swap(
                "reservation(restaurant, time, party_size, seating)",
                "reservation('', time, party_size, seating)",
            ),
            "the request meant restaurant Chez Marie",
        ),
        # a closed set without 'inside': the default still books inside, a request for it cannot
        (swap(_SEATING, "Literal['terrace', 'bar']"), "leaves out 'inside'"),
    ],
    ids=[
        "undescribed",
        "only-restaurant-described",
        "free-seating",
        "time-str",
        "party-str",
        "seating-required",
        "phone-required",
        "not-registry",
        "no-restaurant",
        "no-inside",
    ],
)
def test_a_wrong_redesign_is_rejected_on_its_outcome(change: Any, words: str) -> None:
    assert words in verdict("5.4", answer("5.4", change)).text()


def test_the_loose_tool_itself_fails_the_redesign_check() -> None:
    from toolsys import Registry

    def loose() -> Registry:
        registry = Registry()

        @registry.tool
        def book_table(restaurant: str, when: str, people: str, seating: str) -> dict:
            """Book a table."""
            return {"restaurant": restaurant, "time": when, "party_size": people}

        return registry

    result = verdict("5.4", loose)
    assert "0% [0–4]" in result.text()


def _redesign_with_other_names() -> Any:
    """A correct 5.4: other names, another order of seatings, a strict positive party size."""
    from toolsys import Registry

    reservation = solution("5.4").namespace()["reservation"]
    registry = Registry()

    @registry.tool
    def book_table(
        venue: str,
        arrival: datetime,
        guests: Annotated[int, Field(gt=0)],
        area: Literal["terrace", "bar", "inside"] = "inside",
    ) -> dict:
        """Reserve a restaurant table.

        Args:
            venue: The restaurant, e.g. "Luigi's".
            arrival: Date and time in ISO 8601 (YYYY-MM-DDTHH:MM:SS), e.g. "2025-01-17T19:30:00".
            guests: How many people, e.g. 2.
            area: terrace, bar, or inside (used when the request does not say).
        """
        return reservation(venue, arrival, guests, area)

    return registry


class _Seating(StrEnum):
    INSIDE = "inside"
    TERRACE = "terrace"
    BAR = "bar"


def _redesign_with_a_str_enum() -> Any:
    """A correct 5.4: the seating a str Enum, whose member is passed on as it is (it is the
    string the booking system stores)."""
    from toolsys import Registry

    reservation = solution("5.4").namespace()["reservation"]
    registry = Registry()

    @registry.tool
    def book_table(
        restaurant: str, time: datetime, party_size: int, seating: _Seating = _Seating.INSIDE
    ) -> dict:
        """Book a table at a restaurant.

        Args:
            restaurant: Restaurant name, e.g. "Chez Marie".
            time: Arrival in ISO 8601, e.g. "2025-01-16T20:00:00" (local time).
            party_size: Number of people, e.g. 4.
            seating: inside (the default), terrace or bar.
        """
        return reservation(restaurant, time, party_size, seating)

    return registry


@pytest.mark.parametrize("correct", [_redesign_with_other_names, _redesign_with_a_str_enum])
def test_a_correct_redesign_written_differently_passes(correct: Any) -> None:
    verdict("5.4", correct, Status.PASSED)
