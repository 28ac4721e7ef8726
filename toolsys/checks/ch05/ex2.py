"""Exercise 5.2, end after start: the check and its reference, `MeetingTimes`.

A validator across fields turns an impossible request into an error the model can read; the cases
include end equal to start and times without a zone, compared as moments.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from toolsys.checks import CheckFailed, Described, exercise
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
    except ValidationError:
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
    _expect_actionable(student)


def _expect_actionable(student: type[BaseModel]) -> None:
    """Through a registry, the refusal is an INVALID_ARGUMENTS naming start and end."""
    registry = Registry()
    registry.register(_book_meeting, name="book_meeting", args=student)
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
    missing = [field for field in ("start", "end") if field not in message.lower()]
    if missing:
        raise CheckFailed(
            f"The message the model reads for {what} does not name {' and '.join(missing)}.",
            expected=Described("a message naming both fields, start and end"),
            got=message,
            hint="Name both fields and their values, e.g. "
            "f'end ({self.end.isoformat()}) must be after start ({self.start.isoformat()})'.",
        )
