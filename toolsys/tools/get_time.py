"""get_time: the current date and time in a time zone, from the offline world's fixed clock.

The clock is `toolsys.models.config.FIXED_NOW` (the same instant the offline model resolves
"today" and "tomorrow" against), so outputs never change between runs.
"""

from __future__ import annotations

import difflib
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from toolsys import ToolError
from toolsys.models.config import FIXED_NOW
from toolsys.tools import registry


@registry.tool
def get_time(timezone: str = "UTC") -> dict[str, str]:
    """Get the current date, time and weekday in a time zone.

    Use it for "what time is it in Tokyo?" or "what day is it today?". Limits: this is a
    simulated clock fixed at 2025-01-15 09:00 Europe/Paris, the same for every call.

    Args:
        timezone: IANA time zone name such as 'Europe/Paris', 'Asia/Tokyo' or 'UTC'.
    """
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        close = difflib.get_close_matches(timezone, sorted(available_timezones()), n=3)
        hint = f"Did you mean '{close[0]}'? " if close else ""
        raise ToolError(
            "UNKNOWN_TIMEZONE",
            f"Unknown time zone '{timezone}'.",
            suggestion=f"{hint}Use an IANA name like 'Europe/Paris' or 'UTC'.",
            details={"close_matches": close},
        ) from exc
    now = FIXED_NOW.astimezone(zone)
    return {
        "timezone": timezone,
        "datetime": now.isoformat(timespec="minutes"),
        "weekday": now.strftime("%A"),
    }
