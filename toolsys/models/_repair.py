"""Reading a tool's error message and deciding how to call again, as a model would.

The offline model sees only the text of the tool message (the error's message and suggestion,
or whatever a naive tool returned), never the Python exception. So it can recover exactly when
the message says how: "Did you mean 'get_weather'?", "a: got 'abc', expected a number",
"unit: got 'C', expected one of 'celsius', 'fahrenheit'", "b: missing required argument",
"not valid JSON". A bare "Error" says nothing, and the model gives up. That contrast is the
lesson of chapter 04.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from toolsys.models._arguments import find_value
from toolsys.models._dates import find_dates, find_times
from toolsys.models._kinds import param_kind
from toolsys.models._text import name_words

_PROBLEM = re.compile(
    r"([A-Za-z_][\w.\[\]]*):\s+(got [^;]*|missing required argument[^;]*|"
    r"expected [^;]*)",
    re.I,
)
_MUST_BE = re.compile(r"([A-Za-z_][\w.\[\]]*) must be one of ([^.;]*)", re.I)


def read_result(content: str) -> tuple[bool, Any, str]:
    """(ok, value, error text) from a tool message's content, JSON envelope or plain text."""
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, TypeError):
        failed = bool(
            re.match(r"\s*(error|exception|traceback|failed|invalid)\b", content or "", re.I)
        )
        return (not failed, content, content if failed else "")
    if isinstance(data, dict) and (data.get("ok") is False or "error" in data):
        error = data.get("error")
        if isinstance(error, dict):
            parts = [str(error.get(k, "")) for k in ("code", "message", "suggestion")]
            text = " ".join(p for p in parts if p)
            if error.get("retryable"):
                text += " (retryable)"
            return False, None, text
        return False, None, str(error)
    if isinstance(data, dict) and data.get("ok") is True:
        return True, data.get("value"), ""
    return True, data, ""


def failure(content: str) -> tuple[str, str]:
    """(code, message) of a failed result: its envelope's, or ('', the text) of a plain one."""
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return "", (content or "").strip()
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("code") or ""), str(error.get("message") or "").strip()
    return "", str(error if error is not None else content).strip()


def lenient_json(raw: str) -> dict[str, Any] | None:
    """Parse arguments, also when the model dropped a closing brace or quote."""
    for candidate in (raw, raw + "}", raw + '"}'):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        return value if isinstance(value, dict) else None
    return None


def closest(value: Any, allowed: list[str]) -> str | None:
    """The allowed value meant by `value`: same letters, a prefix ('C' -> 'celsius'), or similar."""
    v = str(value).lower().strip()
    for a in allowed:
        if a.lower() == v:
            return a
    for a in allowed:
        if v and (a.lower().startswith(v) or v.startswith(a.lower()) or a.lower() in v):
            return a
    match = difflib.get_close_matches(v, [a.lower() for a in allowed], n=1, cutoff=0.6)
    return next(a for a in allowed if a.lower() == match[0]) if match else None


def _coerce(value: Any, expected: str) -> Any:
    text = str(value).strip()
    if "integer" in expected:
        return int(float(text))
    if "number" in expected:
        number = float(text)
        return int(number) if number.is_integer() else number
    if "boolean" in expected:
        return {"true": True, "yes": True, "false": False, "no": False}[text.lower()]
    if "string" in expected:
        return text
    raise ValueError(expected)


def _clock(text: str) -> str | None:
    """The time of day in a date-time as written ('January 16, 2025 15:00'), as 'HH:MM'."""
    iso = re.search(r"\d{4}-\d{2}-\d{2}[T ](\d{2}:\d{2})", text)
    if iso:
        return iso.group(1)
    times = find_times(text)
    return times[0][2] if times else None


def _fix_problem(
    path: str, problem: str, args: dict[str, Any], function: dict[str, Any], user_text: str
) -> bool:
    """Apply one "path: problem" clause to `args`; False when the clause gives nothing to act on."""
    schema = (function.get("parameters") or {}).get("properties", {}).get(path)
    if schema is None:
        return False
    lowered = problem.lower()
    if lowered.startswith("missing required"):
        found = find_value(
            path,
            schema,
            user_text,
            set(),
            required=True,
            tool_words=set(name_words(function["name"])),
        )
        if found is None:
            return False
        args[path] = found[1]
        return True
    if path not in args:
        return False
    if "one of" in lowered:
        allowed = re.findall(r"'([^']*)'|\"([^\"]*)\"", problem.split("one of", 1)[1])
        choice = closest(args[path], [a or b for a, b in allowed])
        if choice is None or choice == args[path]:
            return False
        args[path] = choice
        return True
    kind = param_kind(path, schema)
    if re.search(r"date|yyyy", lowered) or kind in ("date", "datetime"):
        dates = find_dates(str(args[path]))
        fixed = dates[0][2] if dates else None
        clock = _clock(str(args[path])) if kind == "datetime" else None
        if fixed and clock:  # a date-time keeps the time it was given
            fixed = f"{fixed}T{clock}:00"
        if fixed and fixed != args[path]:
            args[path] = fixed
            return True
    expected = lowered.split("expected", 1)[-1]
    try:
        value = _coerce(args[path], expected)
    except (ValueError, KeyError):
        return False
    if value == args[path] and type(value) is type(args[path]):
        return False
    args[path] = value
    return True


def repair(
    name: str, raw: str, error: str, functions: list[dict[str, Any]], user_text: str
) -> tuple[str, dict[str, Any]] | None:
    """The corrected (tool, arguments) the error text points to, or None if it gives no lead."""
    by_name = {f["name"]: f for f in functions}
    meant = re.search(r"did you mean '([^']+)'", error, re.I)
    args = lenient_json(raw)
    if name not in by_name:
        if meant and meant.group(1) in by_name:
            return meant.group(1), args or {}
        return None
    function = by_name[name]
    if args is None or "not valid json" in error.lower():
        return (name, args) if args is not None else None
    fixed = dict(args)
    problems = [m.groups() for m in _PROBLEM.finditer(error)]
    problems += [(p, f"one of {allowed}") for p, allowed in _MUST_BE.findall(error)]
    changed = [
        _fix_problem(path, problem, fixed, function, user_text) for path, problem in problems
    ]
    if any(changed):
        return name, fixed
    if meant:  # a tool's own "No data for 'Pariss'. Did you mean 'Paris'?"
        for key, value in args.items():
            if f"'{value}'" in error and value != meant.group(1):
                return name, {**args, key: meant.group(1)}
    if error.endswith("(retryable)"):
        return name, args
    return None
