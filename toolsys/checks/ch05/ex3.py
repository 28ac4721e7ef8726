"""Exercise 5.3, an eval case: the check and its reference, `reminder_case`.

An eval case is graded by its effect, not by its wording: the case is run against the offline model,
so a case that any call would pass fails.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise
from toolsys.checks._plain import as_str
from toolsys.evals import Case, Variant, run_episode
from toolsys.models import OfflineModel
from toolsys.registry import Registry


def _reminders() -> Registry:
    """The reminder tool of exercise 5.3, as the notebook defines it."""
    registry = Registry()

    @registry.tool
    def set_reminder(text: str, at: datetime) -> dict:
        """Remind the user of something at a given time.

        Args:
            text: What to remind of, e.g. "call the bank".
            at: When, in ISO 8601, e.g. "2025-01-16T09:00:00" (the user's local time).
        """
        return {"text": text, "at": at.strftime("%Y-%m-%d %H:%M")}

    return registry


def reminder_case() -> Case:
    """Reference for 5.3: a reminder request and the effect that judges it."""

    def effect(value: dict) -> bool:
        return value.get("at") == "2025-01-17 08:00"

    return Case("Remind me on Friday at 8am to call the bank", "set_reminder", effect=effect)


def _months_later(moment: datetime, months: int) -> datetime:
    """The same day and clock time `months` calendar months later (the month's last day if it is
    shorter): the moment an effect that ignores the month, or the year, still accepts."""
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def _later(delta: timedelta) -> Callable[[datetime], datetime]:
    return lambda moment: moment + delta


_NEAR_MISSES: list[tuple[Callable[[datetime], datetime], str]] = [
    (_later(timedelta(hours=1)), "an hour later"),
    (_later(timedelta(hours=-1)), "an hour earlier"),
    (_later(timedelta(days=1)), "a day later"),
    (_later(timedelta(days=-1)), "a day earlier"),
    (_later(timedelta(hours=12)), "twelve hours later (pm for am)"),
    (_later(timedelta(minutes=15)), "a quarter of an hour later"),
    # the same weekday and clock time, the same day of another month, the same date a year on
    (_later(timedelta(days=7)), "a week later"),
    (lambda moment: _months_later(moment, 1), "a month later"),
    (lambda moment: _months_later(moment, 12), "a year later"),
]


def _judge(effect: Callable[[Any], Any], value: dict[str, str], what: str) -> bool:
    verdict = call_student(
        effect,
        dict(value),
        what=what,
        returns="True or False",
        hint="Read value['at'] (a 'YYYY-MM-DD HH:MM' string) and compare it.",
    )
    if type(verdict) is not bool:
        raise CheckFailed(
            f"{what} returned {type(verdict).__name__}, not True or False.",
            expected=Described("True or False"),
            got=verdict,
            hint="Return the comparison itself, e.g. `return value.get('at') == '...'`.",
        )
    return verdict


@exercise(
    "5.3",
    title="An eval case",
    hints=[
        "Return Case(prompt, 'set_reminder', effect=...): the prompt asks for a reminder at a "
        "day and a clock time; today is Wednesday 2025-01-15.",
        "The effect receives the tool's result, e.g. {'text': ..., 'at': '2025-01-17 08:00'}, "
        "and must return True only for the exact moment the prompt asked for.",
        "Compare the whole 'at' string (date and time), and ignore 'text', e.g. "
        "`lambda value: value.get('at') == '2025-01-17 08:00'`.",
    ],
    reference=lambda: reminder_case,
)
def _check_reminder_case(student: Callable[[], Any]) -> None:
    case = call_student(student, what="reminder_case()", returns="an evals.Case")
    if type(case) is not Case:
        raise CheckFailed(
            "reminder_case() should return an evals.Case.",
            expected=Described("Case(prompt, 'set_reminder', effect=...)"),
            got=case,
            hint="Build it with toolsys.evals.Case(prompt, tool, effect=...).",
        )
    if as_str(case.tool) != "set_reminder":
        raise CheckFailed(
            "The case names the wrong tool.",
            expected="set_reminder",
            got=case.tool,
            hint="The tool that should handle a reminder request is set_reminder.",
        )
    if case.effect is None:
        raise CheckFailed(
            "The case has no effect: any successful call would count, at any time.",
            expected=Described("effect=<a function value -> bool>"),
            got=None,
            hint="Pass effect=..., a function that checks value['at'].",
        )
    value = _outcome(case)
    shown = f"your effect({value})"
    if not _judge(case.effect, value, shown):
        raise CheckFailed(
            f"For {case.prompt!r} the tool stored a reminder at {value['at']}, and your effect "
            "refused it.",
            expected=Described(f"True for at={value['at']!r}, if that is the moment you asked for"),
            got=False,
            hint="Either the moment in your effect is not the one the prompt asks for (today is "
            "Wednesday 2025-01-15), or the offline model read your prompt differently: say the "
            "day and the time plainly, e.g. 'tomorrow at 9am', 'on Friday at 17:30'.",
        )
    moment = datetime.strptime(value["at"], "%Y-%m-%d %H:%M")
    for shift, how in _NEAR_MISSES:
        near = {**value, "at": shift(moment).strftime("%Y-%m-%d %H:%M")}
        if _judge(case.effect, near, f"your effect({near})"):
            raise CheckFailed(
                f"Your effect accepts a reminder at {near['at']}, {how} than asked "
                f"({value['at']}).",
                expected=False,
                got=True,
                hint="Compare the whole date and time, year, month and day included, e.g. "
                f"`value.get('at') == {value['at']!r}`, not only a part of it such as the "
                "weekday or the day of the month.",
            )
    reworded = {**value, "text": "something else entirely"}
    if not _judge(case.effect, reworded, f"your effect({reworded})"):
        raise CheckFailed(
            "Your effect refuses the right moment when the text is worded differently.",
            expected=True,
            got=False,
            hint="Ignore 'text': the model's wording varies; judge only 'at'.",
        )


def _outcome(case: Case) -> dict[str, str]:
    """What set_reminder stored when the (perfect) offline model ran the case's prompt."""
    registry = _reminders()
    _, transcript = run_episode(
        [case], 0, Variant("check", registry), 0, client=OfflineModel().async_client()
    )
    stored = [e.result.value for e in transcript.results if e.result.ok]
    if not stored:
        raise CheckFailed(
            f"The offline model set no reminder for your prompt {case.prompt!r}.",
            expected=Described("a call to set_reminder"),
            got=transcript.answer,
            hint="Ask for a reminder with a day and a clock time, e.g. 'Remind me on Friday at "
            "8am to call the bank'.",
        )
    return stored[-1]
