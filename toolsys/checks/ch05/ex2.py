"""Exercise 5.2, end after start: the check and its reference, `MeetingTimes`.

A validator across fields turns an impossible request into an error the model can read; the cases
include end equal to start and times without a zone, compared as moments.
"""

from __future__ import annotations

import contextlib
import random
import re
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from toolsys.checks import CheckFailed, Described, exercise
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._differential import text as some_text
from toolsys.checks._plain import as_str, text
from toolsys.registry import Registry

_PARIS = "+01:00"  # Europe/Paris in January: what a time without a zone means here


def _meeting(start: str, end: str) -> dict[str, str]:
    return {"title": "Sync", "start": start, "end": end}


# (start, end, why it is fine) and (start, end, why it is not)
_FINE = [
    ("2025-01-16T15:00:00", "2025-01-16T16:00:00", "an hour later"),
    ("2025-01-16T15:00:00+01:00", "2025-01-16T14:30:00+00:00", "14:30 UTC is 15:30 in Paris"),
    ("2025-01-16T15:00:00", "2025-01-16T14:30:00Z", "a start without a zone is Paris time"),
    ("2025-01-16T14:00:00Z", "2025-01-16T15:30:00", "14:00 UTC is 15:00 in Paris"),
]
_REFUSED = [
    ("2025-01-16T15:00:00", "2025-01-16T14:30:00", "the end is before the start"),
    ("2025-01-16T15:00:00", "2025-01-16T15:00:00", "the end is the start"),
    ("2025-01-16T15:00:00+01:00", "2025-01-16T14:30:00+01:00", "the end is before the start"),
    ("2025-01-16T15:00:00", "2025-01-15T16:00:00", "the end is the day before"),
    ("2025-01-16T15:00:00", "2025-01-16T13:30:00Z", "13:30 UTC is 14:30 in Paris"),
    (
        "2025-01-16T14:00:00Z",
        "2025-01-16T14:30:00",
        "14:00 UTC is 15:00 in Paris, after an end at 14:30 without a zone (Paris time): keep "
        "the zone a time has, give HOME only to the one without",
    ),
]


def _meeting_times() -> type[BaseModel]:
    """Reference for 5.2: the arguments of book_meeting with an end-after-start validator."""
    from zoneinfo import ZoneInfo

    home = ZoneInfo("Europe/Paris")

    class MeetingTimes(BaseModel):
        """Arguments of book_meeting: a title, a start and an end."""

        title: str = Field(description='Short title, e.g. "Budget review".')
        start: datetime = Field(description="Start in ISO 8601.")
        end: datetime = Field(description="End in ISO 8601, after start.")

        @model_validator(mode="after")
        def end_after_start(self) -> MeetingTimes:
            start = self.start if self.start.tzinfo else self.start.replace(tzinfo=home)
            end = self.end if self.end.tzinfo else self.end.replace(tzinfo=home)
            if end <= start:
                raise ValueError(
                    f"end ({self.end.isoformat()}) must be after start "
                    f"({self.start.isoformat()}); send an end later than the start"
                )
            return self

    return MeetingTimes


_REFUSED_BY_VALIDATION = object()


def _validate(student: type[BaseModel], data: dict[str, str], what: str) -> Any:
    """The validated model, or `_REFUSED_BY_VALIDATION`; any other error fails the check."""
    try:
        return student.model_validate(data)
    except NotImplementedError:
        raise
    except ValidationError as exc:
        if any(error.get("type") == "assertion_error" for error in exc.errors()):
            raise CheckFailed(
                f"{what} was refused by an `assert`: Python removes asserts when it runs "
                "optimised (python -O), and then nothing refuses the times.",
                expected=Described("a ValueError raised by the validator"),
                got=Described(f"a validation error from an assert: {text(exc.errors()[0]['msg'])}"),
                hint="Test the times with `if end <= start:` and `raise ValueError(...)`.",
            ) from None
        return _REFUSED_BY_VALIDATION
    except Exception as exc:
        compare = "compare" in text(exc) or "offset" in text(exc)
        raise CheckFailed(
            f"{what} raised {type(exc).__name__}: {text(exc)}. A validator reports a problem by "
            "raising ValueError, which Pydantic turns into a validation error.",
            expected=Described("a validated model, or a ValueError from the validator"),
            got=exc,
            hint="Give a time without a zone the user's zone (HOME) before comparing."
            if compare
            else "Raise ValueError, not another exception.",
        ) from None


# Days away from Paris's clock changes (the last Sundays of March and October), so that every
# time without a zone names one moment: winter (+01:00), summer (+02:00), a year's end, 29 February.
_DAYS = ["2025-01-16", "2025-07-16", "2025-12-31", "2024-02-29", "2025-06-01"]
_ZONES = ["", "", "", "Z", "+00:00", "+01:00", "+02:00", "-05:00", "+05:30", "+14:00", "-12:00"]


def _meeting_call(rng: random.Random, size: int) -> Call:
    """A start and an end in ISO 8601, each with or without a zone, apart by a few minutes to
    days, either way, often by exactly the offset between their zones (the same moment)."""
    day = datetime.fromisoformat(rng.choice(_DAYS)).replace(hour=rng.randint(4, 23))
    start = day + timedelta(minutes=rng.choice([0, 30, rng.randint(0, 59)]))
    gap = rng.choice([0, 1, -1, 30, -30, 60, -60, 90, -90, 1440, -1440, rng.randint(-3000, 3000)])
    zones = rng.choice(_ZONES), rng.choice(_ZONES)
    if rng.random() < 0.4:  # about the same moment, read on two clocks
        gap = _offset(start, zones[1]) - _offset(start, zones[0]) + rng.choice([0, 1, -1])
    end = start + timedelta(minutes=gap)
    start_text, end_text = (t.isoformat() + z for t, z in zip((start, end), zones, strict=True))
    return Call(({"title": some_text(rng, size, least=1), "start": start_text, "end": end_text},))


def _offset(moment: datetime, zone: str) -> int:
    """Minutes ahead of UTC of a clock reading in `zone` ("" is Paris: +1 h, in summer +2 h)."""
    if zone in ("", "Z"):
        return (120 if 4 <= moment.month <= 9 else 60) if zone == "" else 0
    sign = -1 if zone[0] == "-" else 1
    return sign * (int(zone[1:3]) * 60 + int(zone[4:6]))


_GENERATED = calls(_meeting_call, seed=52, count=150)


def _verdict_of(model: type[BaseModel]) -> Any:
    def verdict(data: dict[str, str]) -> str:
        what = f"MeetingTimes.model_validate({data!r})"
        refused = _validate(model, data, what) is _REFUSED_BY_VALIDATION
        return "refused (a validation error)" if refused else "accepted"

    return verdict


def _book_meeting(args: BaseModel) -> str:
    """Book a meeting between a start and an end time."""
    return "booked"


@exercise(
    "5.2",
    title="End after start",
    hints=[
        "self.start and self.end are datetimes. Refuse with `raise ValueError(...)` when "
        "end <= start (equal is refused too); otherwise `return self`.",
        "A datetime without a time zone cannot be compared with one that has one (TypeError). "
        "Give each naive one the user's zone first: "
        "`t if t.tzinfo else t.replace(tzinfo=HOME)`; then compare the two moments.",
        "The message is what the model reads: name both fields and both values, e.g. "
        "f'end ({self.end.isoformat()}) must be after start ({self.start.isoformat()})'.",
    ],
    reference=_meeting_times,
)
def _check_meeting_times(student: Any) -> None:
    with contextlib.suppress(AttributeError):
        student.model_validate  # noqa: B018 - a stub says "not done" here
    if not (isinstance(student, type) and issubclass(student, BaseModel)):
        raise CheckFailed(
            "check('5.2', MeetingTimes) needs the class MeetingTimes itself: a Pydantic model.",
            expected=Described("the class MeetingTimes"),
            got=student,
            hint="Pass the class, not an instance or a function: check('5.2', MeetingTimes).",
        )
    for start, end, why in _FINE:
        what = f"MeetingTimes.model_validate(start={start!r}, end={end!r})"
        model = _validate(student, _meeting(start, end), what)
        if model is _REFUSED_BY_VALIDATION:
            raise CheckFailed(
                f"{what} was refused, but the times are fine: {why}.",
                expected=Described("a MeetingTimes"),
                got=Described("a validation error"),
                hint="Compare moments, not clock readings: give a naive time the user's zone "
                "(HOME), then compare the two datetimes themselves.",
            )
        if not isinstance(model, student):
            raise CheckFailed(
                f"{what} returned {type(model).__name__}, not a MeetingTimes.",
                expected=Described("the validated model"),
                got=model,
                hint="An 'after' model validator must end with `return self`.",
            )
    for start, end, why in _REFUSED:
        what = f"MeetingTimes.model_validate(start={start!r}, end={end!r})"
        if _validate(student, _meeting(start, end), what) is not _REFUSED_BY_VALIDATION:
            raise CheckFailed(
                f"{what} was accepted, but {why}.",
                expected=Described("a validation error (raise ValueError)"),
                got=Described("a valid MeetingTimes"),
                hint="Refuse when end <= start (the same moment too), comparing the two moments "
                "(dates included, time zones applied), not only the clock times.",
            )
    agree(
        _verdict_of(student),
        _verdict_of(_meeting_times()),
        _GENERATED,
        name="MeetingTimes.model_validate",
        wrong="was {problem}",
        compare=lambda got, expected, what: (
            None if got == expected else f"{got}, but the reference's verdict is: {expected}"
        ),
        hint="Refuse exactly when the end's moment is not after the start's: a time without a "
        "zone is HOME's (Europe/Paris, +01:00 in winter, +02:00 in summer), a time with one "
        "keeps it.",
    )
    _expect_actionable(student)


_ADVICE = re.compile(
    r"\b(must|should|needs?|has to|have to|send|use|give|choose|pick|provide|set|make|move|"
    r"try|pass|change|put|select|schedule|ask|expected|expects?|instead|please)\b",
    re.IGNORECASE,
)
"""Words that say what to do: a modal ("must be after") or a request ("send an end ...")."""


def _named(field: str, message: str) -> bool:
    """Whether `message` names `field` as a word: "end" in "send" or "ends" does not count."""
    return re.search(rf"\b{field}\b", message, re.IGNORECASE) is not None


def _frozen(message: str, what: str) -> CheckFailed:
    return CheckFailed(
        f"{what} failed because the validator assigns to a field: a toolsys Registry freezes "
        "the arguments (what its layers saw validated reaches the tool unchanged), so "
        "`self.start = ...` raises 'instance is frozen'.",
        expected=Described("a validator that reads the fields and does not change them"),
        got=message,
        hint="Build new values and compare those: "
        "`start = self.start if self.start.tzinfo else self.start.replace(tzinfo=HOME)`, "
        "likewise for end; leave self.start and self.end as they are.",
    )


def _expect_actionable(student: type[BaseModel]) -> None:
    """Through a registry, fine times book and the refusal is an INVALID_ARGUMENTS that names
    start and end and says what to send."""
    registry = Registry()
    registry.register(_book_meeting, name="book_meeting", args=student)
    for start, end, why in _FINE:
        result = registry.execute("book_meeting", _meeting(start, end))
        if result.error is not None:
            message = text(result.error.message)
            what = f"book_meeting(start={start!r}, end={end!r}) through a toolsys Registry"
            if "frozen" in message:
                raise _frozen(message, what)
            raise CheckFailed(
                f"{what} failed, but the times are fine: {why}.",
                expected=Described("the meeting booked"),
                got=result.to_dict(),
                hint="The validator must accept these times when the tool is called through a "
                "Registry, as it does in MeetingTimes.model_validate.",
            )
    start, end, _ = _REFUSED[0]
    result = registry.execute("book_meeting", _meeting(start, end))
    error = result.error
    message = text(error.message) if error is not None else ""
    what = f"book_meeting(start={start!r}, end={end!r}) through a toolsys Registry"
    if error is None or as_str(error.code) != "INVALID_ARGUMENTS":
        raise CheckFailed(
            f"{what} should fail with INVALID_ARGUMENTS.",
            expected=Described("an INVALID_ARGUMENTS envelope"),
            got=result.to_dict(),
            hint="Raise ValueError in the validator when end <= start.",
        )
    if "frozen" in message:
        raise _frozen(message, what)
    missing = [field for field in ("start", "end") if not _named(field, message)]
    if missing:
        raise CheckFailed(
            f"The message the model reads for {what} does not name {' and '.join(missing)}: "
            "the model must know which argument to change.",
            expected=Described("a message naming both fields by their names, start and end"),
            got=message,
            hint="Name both fields and their values, e.g. "
            "f'end ({self.end.isoformat()}) must be after start ({self.start.isoformat()})'.",
        )
    if _ADVICE.search(message) is None:
        raise CheckFailed(
            f"The message the model reads for {what} names start and end but does not say what "
            "to send instead: the model reads it to make its next call.",
            expected=Described(
                "a message that says what a valid call sends, e.g. '...; send an end later "
                "than the start'"
            ),
            got=message,
            hint="End the message with what to do: 'end must be after start; send an end "
            "later than the start'.",
        )
