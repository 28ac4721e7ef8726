"""Every name and constant that says *which* model answers, in one place.

Notebooks, the CLI and the tests read these instead of repeating strings, so switching from the
offline teaching model to a real endpoint is a matter of environment variables, never of code.
"""

from __future__ import annotations

import os
from datetime import datetime
from zoneinfo import ZoneInfo

OFFLINE_MODEL = "toolsys-offline-1"
"""Name of the offline teaching model; it appears in every response it produces."""

SCRIPTED_MODEL = "toolsys-scripted"
"""Name reported by `ScriptedModel` responses."""

DEFAULT_REAL_MODEL = "gpt-4o-mini"
"""Model used against a real endpoint when `TOOLSYS_MODEL` is not set."""

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "TOOLSYS_MODEL"
OFFLINE_ENV = "TOOLSYS_OFFLINE"
"""Set to 1 to stay offline even with a key in the environment (`make test` sets it)."""

OFFLINE_BASE_URL = "http://offline.toolsys.invalid/v1"
"""Never contacted: requests to it are answered in-process by a mock transport."""

TIMEZONE = "Europe/Paris"
FIXED_NOW = datetime(2025, 1, 15, 9, 0, tzinfo=ZoneInfo(TIMEZONE))
"""The offline world's clock (a Wednesday). Relative dates and `get_time` both read it."""

OFFLINE_MARK = "(offline teaching model)"
"""Ends every plain-text answer of the offline model, so nobody mistakes it for an LLM."""


def real_endpoint() -> tuple[str, str | None, str] | None:
    """(api_key, base_url or None, model) when a real endpoint is configured, else None."""
    key = os.environ.get(API_KEY_ENV)
    if not key or os.environ.get(OFFLINE_ENV, "") not in ("", "0"):
        return None
    model = os.environ.get(MODEL_ENV) or DEFAULT_REAL_MODEL
    return key, os.environ.get(BASE_URL_ENV) or None, model
