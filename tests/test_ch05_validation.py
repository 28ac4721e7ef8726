"""Validation across fields reaches the model in the validator's own words (chapter 05).

A model-level validator ("end must be after start") has no single field to blame. Its message is
the whole fix, so the envelope says it as written, instead of quoting every argument and reading
"(arguments) must be end (...) must be after start (...)".
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, field_validator, model_validator

from toolsys import Registry


class Meeting(BaseModel):
    """Arguments of book."""

    start: datetime
    end: datetime

    @model_validator(mode="after")
    def end_after_start(self) -> Meeting:
        if self.end <= self.start:
            raise ValueError(
                f"end ({self.end.isoformat()}) must be after start ({self.start.isoformat()}); "
                "send a later end"
            )
        return self


class Slot(BaseModel):
    """Arguments of hold."""

    minutes: int

    @field_validator("minutes")
    @classmethod
    def quarter_hours(cls, minutes: int) -> int:
        if minutes % 15:
            raise ValueError("a multiple of 15")
        return minutes


def _registry() -> Registry:
    registry = Registry()

    @registry.tool(args=Meeting)
    def book(args: Meeting) -> str:
        """Book a meeting."""
        return "booked"

    @registry.tool(args=Slot)
    def hold(args: Slot) -> str:
        """Hold a slot."""
        return "held"

    return registry


BACKWARDS = {"start": "2025-01-16T15:00:00", "end": "2025-01-16T14:30:00"}


def test_a_cross_field_error_is_invalid_arguments_in_the_validator_s_words() -> None:
    error = _registry().execute("book", BACKWARDS).error
    assert error is not None and error.code == "INVALID_ARGUMENTS"
    assert error.message == (
        "Invalid arguments for 'book': end (2025-01-16T14:30:00) must be after start "
        "(2025-01-16T15:00:00); send a later end."
    )
    assert error.suggestion == (
        "Fix these arguments and call book again: end (2025-01-16T14:30:00) must be after start "
        "(2025-01-16T15:00:00); send a later end."
    )


def test_a_cross_field_error_keeps_the_arguments_for_programs_only() -> None:
    error = _registry().execute("book", BACKWARDS).error
    assert error is not None
    (problem,) = error.details["problems"]
    assert problem["path"] == "(arguments)" and problem["value"] == BACKWARDS
    assert "got {" not in error.message and "(arguments) must be" not in error.suggestion


def test_a_field_validator_still_names_its_field_and_the_bad_value() -> None:
    error = _registry().execute("hold", {"minutes": 20}).error
    assert error is not None
    assert (
        error.message == "Invalid arguments for 'hold': minutes: got 20, expected a multiple of 15."
    )
