"""Keep secrets, stack traces and machine paths out of anything a model will read.

A tool's exception message can contain an API key from the environment, a traceback, or
`/home/alice/...`. The model gains nothing from them and a log of the conversation leaks them.

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
REDACTED = "[redacted]"
_MIN_SECRET_LENGTH = 4

_TRACEBACK = re.compile(r"Traceback \(most recent call last\):.*", re.DOTALL)
_POSIX_PATH = re.compile(r"(?<![\w.~/-])/(?:[^\s/'\"()\[\]{},;:<>|]+/)+[^\s/'\"()\[\]{},;:<>|]*")
_WINDOWS_PATH = re.compile(r"\b[A-Za-z]:\\(?:[^\s\\'\"<>|]+\\)+[^\s\\'\"<>|]*")


def secret_values() -> list[str]:
    """Values of environment variables whose names look secret, longest first."""
    values = {
        value
        for name, value in os.environ.items()
        if len(value) >= _MIN_SECRET_LENGTH and any(word in name.upper() for word in SECRET_WORDS)
    }
    return sorted(values, key=len, reverse=True)


def _shorten_path(match: re.Match[str]) -> str:
    text = match.group(0)
    try:
        return str(Path(text).relative_to(Path.cwd()))
    except ValueError:
        name = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        return f"<path>/{name}" if name else "<path>"


def redact(text: str) -> str:
    """Remove tracebacks, secret values and absolute paths outside the working directory."""
    text = redact_secrets(_TRACEBACK.sub("(traceback removed)", text))
    text = _POSIX_PATH.sub(_shorten_path, text)
    return _WINDOWS_PATH.sub(_shorten_path, text)


def redact_secrets(text: str) -> str:
    """Only the secret values: for successful results, whose paths may be the point."""
    for value in secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
    return text
