"""Chapter 05 checks reject the plausible wrong answers: each is the solution with one change."""

from __future__ import annotations

from typing import Any

import pytest

from tests.solution_code import answer, verdict
from toolsys.checks import Status


def _stub(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("stub")


@pytest.mark.parametrize("exercise_id", ["5.1", "5.3", "5.4"])
def test_a_stub_function_is_not_done(exercise_id: str) -> None:
    verdict(exercise_id, _stub, Status.NOT_DONE)


def test_a_meeting_model_whose_validator_is_a_stub_is_not_done() -> None:
    stub = answer(
        "5.2",
        (
            "start = self.start if",
            'raise NotImplementedError("5.2")\n        start = self.start if',
        ),
    )
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


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("centre = (p + z**2 / (2 * n)) / denominator", "centre = p"), "pulled"),
        ((" + z**2 / (4 * n**2)", ""), "both terms"),
        (("denominator = 1 + z**2 / n", "denominator = 1"), "Divide both"),
        (("p = successes / n", "p = successes / n\n    z = 1.96"), "use the `z` argument"),
        (("if n < 1 or not 0 <= successes <= n:", "if False:"), "ZeroDivisionError"),
        (
            (
                "return max(0.0, centre - half), min(1.0, centre + half)",
                "return min(1.0, centre + half), max(0.0, centre - half)",
            ),
            "swapped",
        ),
        (
            (
                "return max(0.0, centre - half), min(1.0, centre + half)",
                "return 100 * max(0.0, centre - half), 100 * min(1.0, centre + half)",
            ),
            "not percentages",
        ),
        (
            (
                "return max(0.0, centre - half), min(1.0, centre + half)",
                "return f'{centre - half:.3f}', f'{centre + half:.3f}'",
            ),
            "two numbers",
        ),
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
    ],
)
def test_a_wrong_wilson_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("5.1", answer("5.1", change)).text()


# -- 5.2 -------------------------------------------------------------------------------------

_NAIVE_START = "start = self.start if self.start.tzinfo else self.start.replace(tzinfo=HOME)"
_NAIVE_END = "end = self.end if self.end.tzinfo else self.end.replace(tzinfo=HOME)"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([("if end <= start:", "if end < start:")], "the end is the start"),
        ([(_NAIVE_START, "start = self.start"), (_NAIVE_END, "end = self.end")], "TypeError"),
        (
            [("if end <= start:", "if end.replace(tzinfo=None) <= start.replace(tzinfo=None):")],
            "14:30 UTC is 15:30 in Paris",
        ),
        (
            [
                (_NAIVE_START, "start = self.start.replace(tzinfo=self.start.tzinfo or UTC)"),
                (_NAIVE_END, "end = self.end.replace(tzinfo=self.end.tzinfo or UTC)"),
                ("HOME = ", "from datetime import timezone\nUTC = timezone.utc\nHOME = "),
            ],
            "a start without a zone is Paris time",
        ),
        ([("if end <= start:", "if end.time() <= start.time():")], "was refused"),
        (
            [
                (
                    'f"end ({self.end.isoformat()}) must be after start '
                    '({self.start.isoformat()}); "',
                    '"the meeting must finish later; "',
                ),
                ('"send an end later than the start"', '"please fix the times"'),
            ],
            "does not name start and end",
        ),
        ([("        return self\n", "")], "return self"),
        ([("raise ValueError(", "raise TypeError(")], "raised TypeError"),
    ],
    ids=[
        "equal-allowed",
        "naive-vs-aware",
        "clock",
        "naive-as-utc",
        "time-only",
        "vague",
        "no-self",
        "type-error",
    ],
)
def test_a_wrong_end_after_start_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("5.2", answer("5.2", *changes)).text()


def test_a_function_or_an_instance_instead_of_the_model_class_is_rejected() -> None:
    model = answer("5.2")
    instance = model(title="Sync", start="2025-01-16T15:00:00", end="2025-01-16T16:00:00")
    for wrong in (lambda: model, instance):
        assert "the class MeetingTimes" in verdict("5.2", wrong).text()


# -- 5.3 -------------------------------------------------------------------------------------

_EXPECTED = 'return value.get("at") == "2025-01-17 08:00"'


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((_EXPECTED, "return True"), "an hour later"),
        ((_EXPECTED, 'return value.get("at", "").startswith("2025-01-17")'), "an hour later"),
        ((_EXPECTED, 'return value.get("at", "").endswith("08:00")'), "a day later"),
        ((_EXPECTED, 'return value.get("at") == "2025-01-16 08:00"'), "refused it"),
        ((_EXPECTED, 'return value.get("at") == "2025-01-17 20:00"'), "refused it"),
        ((", effect=effect", ""), "no effect"),
        (('"set_reminder", effect', '"remind", effect'), "wrong tool"),
        ((_EXPECTED, _EXPECTED + ' and value.get("text") == "call the bank"'), "worded"),
        ((_EXPECTED, 'return "yes" if value.get("at") == "2025-01-17 08:00" else ""'), "not True"),
        (('"Remind me on Friday at 8am to call the bank"', '"Call the bank"'), "set no reminder"),
    ],
    ids=[
        "always",
        "date-only",
        "hour-only",
        "wrong-day",
        "pm",
        "none",
        "tool",
        "text",
        "str",
        "no-reminder",
    ],
)
def test_a_wrong_eval_case_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("5.3", answer("5.3", change)).text()


def test_a_case_that_is_not_an_evals_case_is_rejected() -> None:
    assert "evals.Case" in verdict("5.3", lambda: ("Remind me", "set_reminder")).text()


# -- 5.4 -------------------------------------------------------------------------------------

_ARGS = '''

        Args:
            restaurant: Restaurant name, e.g. "Chez Marie".
            time: Arrival in ISO 8601, e.g. "2025-01-16T20:00:00" (local time).
            party_size: Number of people, e.g. 4 (1 to 20).
            seating: Where to sit: inside (the default), terrace or bar.
        """'''


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([(_ARGS, '\n        """')], "first call was valid"),
        (
            [
                (
                    'seating: Literal["inside", "terrace", "bar"] = "inside"',
                    'seating: str = "inside"',
                )
            ],
            "intended effect",
        ),
        ([("time: datetime,", "time: str,")], "time must be a datetime"),
        (
            [("party_size: Annotated[int, Field(ge=1, le=20)]", "party_size: str")],
            "the request meant",
        ),
        (
            [
                (
                    'Literal["inside", "terrace", "bar"] = "inside"',
                    'Literal["inside", "terrace", "bar"]',
                )
            ],
            "called no tool",
        ),
        ([("    return registry", "    return registry.list()")], "toolsys Registry"),
    ],
    ids=[
        "undescribed",
        "free-seating",
        "time-str",
        "party-str",
        "seating-required",
        "not-registry",
    ],
)
def test_a_wrong_redesign_is_rejected_on_its_outcome(
    changes: list[tuple[str, str]], words: str
) -> None:
    assert words in verdict("5.4", answer("5.4", *changes)).text()


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
