"""Dates and times in everyday English, resolved against the offline world's fixed clock.

"tomorrow", "next Monday", "in 3 days", "this weekend" (its Saturday), "January 20", "2025-01-31",
"3pm", "15:30": the offline model needs these to fill `date` and `time` arguments, and to repair
a free-form date after a validation error. Everything is relative to `config.FIXED_NOW`, so
results never change.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache

from toolsys.models.config import FIXED_NOW

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = (  # a month's name or its abbreviation, not any word it starts ('10 novels')
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)

_PATTERNS: list[tuple[str, str]] = [
    ("iso", r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    ("month_day", rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b"),
    ("day_month", rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}}))?\b"),
    ("after_tomorrow", r"\bday after tomorrow\b"),
    ("named", r"\b(today|tonight|tomorrow|yesterday)\b"),
    ("in_n", r"\bin (\d+|a|one|two|three|four|five|six|seven) (day|week)s?\b"),
    ("next_week", r"\bnext week\b"),
    ("weekend", r"\b(this |next |the |over the )?weekend\b"),
    (
        "weekday",
        r"\b(next |this |on |coming )?(monday|tuesday|wednesday|thursday|friday|"
        r"saturday|sunday)\b",
    ),
]
_SMALL = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def _month(word: str) -> int:
    return next(i + 1 for i, m in enumerate(MONTHS) if m.startswith(word.lower()[:3]))


def _resolve(kind: str, m: re.Match[str]) -> date | None:
    today = FIXED_NOW.date()
    g = m.groups()
    if kind == "iso":
        return date(int(g[0]), int(g[1]), int(g[2]))
    if kind in ("month_day", "day_month"):
        month, day = (_month(g[0]), int(g[1])) if kind == "month_day" else (_month(g[1]), int(g[0]))
        year = int(g[2]) if g[2] else today.year
        return date(year, month, day)
    if kind == "after_tomorrow":
        return today + timedelta(days=2)
    if kind == "named":
        return today + timedelta(days={"yesterday": -1, "tomorrow": 1}.get(g[0], 0))
    if kind == "in_n":
        n = int(g[0]) if g[0].isdigit() else _SMALL[g[0]]
        return today + timedelta(days=n * (7 if g[1] == "week" else 1))
    if kind == "next_week":
        return today + timedelta(days=7)
    if kind == "weekend":  # its Saturday: this one, or the one after with "next"
        ahead = (5 - today.weekday()) % 7
        return today + timedelta(days=ahead + (7 if (g[0] or "").strip() == "next" else 0))
    ahead = (WEEKDAYS.index(g[1]) - today.weekday()) % 7  # weekday: the next one, never today
    return today + timedelta(days=ahead or 7)


@lru_cache(maxsize=1024)  # a request's clauses are read many times, once per parameter
def _dates_in(text: str) -> tuple[tuple[int, int, str], ...]:
    lowered, found = text.lower(), []
    taken: set[int] = set()
    for kind, pattern in _PATTERNS:
        for m in re.finditer(pattern, lowered):
            if taken & set(range(*m.span())):
                continue
            try:
                day = _resolve(kind, m)
            except (ValueError, StopIteration):
                continue
            if day is not None:
                found.append((m.start(), m.end(), day.isoformat()))
                taken |= set(range(*m.span()))
    return tuple(sorted(found))


def find_dates(text: str) -> list[tuple[int, int, str]]:
    """Every date mentioned in `text` as (start, end, "YYYY-MM-DD"), in order of appearance."""
    return list(_dates_in(text))


@lru_cache(maxsize=1024)
def _times_in(text: str) -> tuple[tuple[int, int, str], ...]:
    found = []
    for m in re.finditer(
        r"\b(\d{1,2})(?::([0-5]\d))?\s*([ap])\.?m\.?(?![a-z])|\b([01]?\d|2[0-3]):"
        r"([0-5]\d)\b|\b(noon|midnight)\b",
        text.lower(),
    ):
        if m.group(6):
            hh, mm = (12, 0) if m.group(6) == "noon" else (0, 0)
        elif m.group(3):
            hh, mm = int(m.group(1)) % 12 + (12 if m.group(3) == "p" else 0), int(m.group(2) or 0)
        else:
            hh, mm = int(m.group(4)), int(m.group(5))
        if hh < 24:
            found.append((m.start(), m.end(), f"{hh:02d}:{mm:02d}"))
    for m in _BARE_HOUR.finditer(text.lower()):  # "on Sunday at 10": ten o'clock
        group = 1 if m.group(1) else 2
        hour = int(m.group(group))
        if hour < 24 and not any(a <= m.start(group) < b for a, b, _ in found):
            found.append((m.start(group), m.end(), f"{hour:02d}:00"))
    return tuple(sorted(found))


_BARE_HOUR = re.compile(
    r"\bat (\d{1,2})(?: o'clock)?(?=\s*(?:$|[,.!?;]|on\b|and\b|tomorrow|today|tonight|this\b|"
    r"next\b|every\b))|\b(\d{1,2}) o'clock\b"
)


def find_times(text: str) -> list[tuple[int, int, str]]:
    """Every clock time in `text` as (start, end, "HH:MM"): "3pm", "3:30 pm", "15:00", "noon"."""
    return list(_times_in(text))


def human_date(iso: str) -> str:
    """The way people (and careless models) write a date: '2025-01-16' -> 'January 16, 2025'."""
    d = date.fromisoformat(iso)
    return f"{MONTHS[d.month - 1].capitalize()} {d.day}, {d.year}"
