"""Fuzz a registry the way a careless or hostile model would, and check every promise we make.

Why: "execute never raises" and "nothing leaks" are promises about *every* input, so examples are
not enough. `fuzz_tool` sends a tool thousands of seeded calls (schema-guided arguments and their
mutations, broken and oversized JSON text, raw bytes, Python values JSON cannot hold) and checks
each result: it is a `ToolResult`, its message is strict UTF-8 JSON, and the message holds no
traceback, absolute path or secret (planted, or known to `toolsys._redact`). Every message the
model would read is scanned, a successful result's as well as an error envelope: a diagnostic
tool that returns `traceback.format_exc()` leaks as much as a crash would. A leak is reported
with what leaked (`leaks: get_x call 3: an absolute path '/home/...' in the message`).
It needs no hypothesis: a `random.Random(seed)` makes
the same calls every run, so a failure found once is found again.

    report = fuzz_tool(registry, "get_weather", calls=10_000, secrets=["sk-test-..."])
    assert report.clean, report.problems[:3]

`make fuzz` (benchmarks/fuzz.py) runs it over the built-in tools and hostile registries; the test
suite runs a smaller share of the same calls.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from toolsys._redact import secret_values
from toolsys.registry import Registry
from toolsys.result import ToolResult

_TRACEBACK = "Traceback (most recent call last)"
_PATH_TEXT = re.compile(r"/[^\s\"'\\,;<>]*")
_ABSOLUTE_PATH = re.compile(r"(?<![\w.<>-])/([\w.-]+)/\S")
# Where paths of other machines start (a macOS home, a container's /work); a path of this machine
# starts with one of its own top-level folders, wherever it was checked out (/tmp, /check, ...).
_OTHER_ROOTS = frozenset({"home", "root", "Users", "etc", "var", "opt", "srv", "work", "usr", "tmp",
                          "private", "mnt", "Volumes"})  # fmt: skip


@functools.cache
def _roots() -> frozenset[str]:
    try:
        here = {entry for entry in os.listdir("/") if os.path.isdir(os.path.join("/", entry))}
    except OSError:
        here = set()
    return _OTHER_ROOTS | here


def _absolute_path(message: str) -> re.Match[str] | None:
    """The first absolute path in `message`: `/x/...` where `x` is a top-level folder (not a
    URL's path such as `/v1/orders`)."""
    for found in _ABSOLUTE_PATH.finditer(message):
        if found[1] in _roots():
            return found
    return None


@dataclass
class FuzzReport:
    """What one fuzz run saw: how many calls, and each broken promise (the first 50 kept).

    `sent[i]` shows the arguments of the call behind `problems[i]`, to reproduce it.
    """

    calls: int = 0
    escapes: int = 0
    unsendable: int = 0
    leaks: int = 0
    problems: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.escapes or self.unsendable or self.leaks)

    def add(self, other: FuzzReport) -> None:
        self.calls += other.calls
        self.escapes += other.escapes
        self.unsendable += other.unsendable
        self.leaks += other.leaks
        room = 50 - len(self.problems)
        self.problems.extend(other.problems[:room])
        self.sent.extend(other.sent[:room])

    def note(self, kind: str, text: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.problems) < 50:
            self.problems.append(f"{kind}: {text}"[:300])

    def __str__(self) -> str:
        return (
            f"calls={self.calls} escapes={self.escapes} unsendable={self.unsendable} "
            f"leaks={self.leaks}"
        )


def check_message(result: object, secrets: Iterable[str], report: FuzzReport, label: str) -> None:
    """Record every promise `result` breaks: type, sendable strict JSON, no trace/path/secret."""
    if not isinstance(result, ToolResult):
        report.note("escapes", f"{label}: returned {type(result).__name__}, not a ToolResult")
        return
    try:
        message = result.to_message()
        message.encode("utf-8")
        json.loads(message, parse_constant=_refuse_constant)
    except Exception as exc:
        report.note("unsendable", f"{label}: {type(exc).__name__}: {exc}")
        return
    found = leaks(message, secrets)
    if found:
        where = "" if not result.ok else " (a successful result's)"
        report.note("leaks", f"{label}: {' and '.join(found)} in the message{where}")


def leaks(message: str, secrets: Iterable[str] = ()) -> list[str]:
    """What `message` (a tool message, as the model reads it) leaks, each said in words: a
    traceback, an absolute path, a planted secret or a secret `toolsys._redact` knows."""
    found = []
    planted = next((secret for secret in secrets if secret and secret in message), None)
    if planted is not None:
        found.append(f"planted secret {planted[:6]}…")
    elif any(secret in message for secret in secret_values()):
        found.append("a secret from the environment (or add_secret)")
    if _TRACEBACK in message:
        found.append(f"a traceback ({_TRACEBACK!r})")
    path = _absolute_path(message)
    if path is not None:
        shown = _PATH_TEXT.match(message, path.start())
        found.append(f"an absolute path {(shown[0] if shown else '/')[:60]!r}")
    return found


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def fuzz_tool(
    registry: Registry,
    name: str,
    *,
    calls: int = 10_000,
    seed: int = 0,
    secrets: Iterable[str] = (),
) -> FuzzReport:
    """Send `calls` seeded hostile calls to one tool; a report of every promise broken."""
    planted = list(secrets)
    tool = registry.get(name)
    rng = random.Random(f"{seed}:{name}")
    report = FuzzReport()
    arguments_stream = hostile_arguments(rng, tool.parameters)
    for index in range(calls):
        arguments = next(arguments_stream)
        report.calls += 1
        label = f"{name} call {index}"
        noted = len(report.problems)
        try:
            result = registry.execute(name, arguments)
        except BaseException as exc:  # the promise under test: nothing may get here
            if isinstance(exc, KeyboardInterrupt):
                raise
            report.note("escapes", f"{label}: {type(exc).__name__}: {exc}"[:300])
        else:
            check_message(result, planted, report, label)
        report.sent.extend([_shown(arguments)] * (len(report.problems) - noted))
    return report


def _shown(arguments: Any) -> str:
    """The arguments of one call as short, printable text (some have no working repr)."""
    try:
        text = repr(arguments)
    except Exception:
        text = f"<{type(arguments).__name__} with a broken repr>"
    return text if len(text) <= 200 else text[:199] + "…"


# --- what a hostile caller sends ---------------------------------------------------------------


def hostile_arguments(rng: random.Random, schema: dict[str, Any]) -> Iterator[Any]:
    """An endless, seeded mix of plausible, mutated and hostile arguments for `schema`."""
    makers = (
        plausible_arguments,
        _mutated,
        _hostile_text,
        _raw_bytes,
        _python_value,
        _as_json_text,
    )
    while True:
        yield rng.choice(makers)(rng, schema)


def plausible_arguments(rng: random.Random, schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments a careful caller might send: every required property, each optional one half
    the time, each value of its schema's type (check 11.3 draws its samples here too)."""
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return {
        key: _value_for(rng, sub)
        for key, sub in properties.items()
        if key in required or rng.random() < 0.5
    }


def _as_json_text(rng: random.Random, schema: dict[str, Any]) -> str:
    return json.dumps(plausible_arguments(rng, schema))


def _mutated(rng: random.Random, schema: dict[str, Any]) -> dict[str, Any]:
    arguments = plausible_arguments(rng, schema)
    keys = list(arguments)
    choice = rng.randrange(5)
    if choice == 0 and keys:
        del arguments[rng.choice(keys)]
    elif choice == 1:
        arguments[rng.choice(["extra", "__class__", "", "a" * 300])] = _scalar(rng)
    elif keys:
        arguments[rng.choice(keys)] = _scalar(rng) if choice < 4 else _python_value(rng, schema)
    return arguments


def _value_for(rng: random.Random, schema: dict[str, Any]) -> Any:
    if "enum" in schema and rng.random() < 0.8:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    kind = rng.choice(kind) if isinstance(kind, list) else kind
    if kind == "integer":
        return rng.choice([0, 1, -1, 7, 10**6, 2**63, -(2**63) - 1, 2.0])
    if kind == "number":
        return rng.choice([0.0, 1.5, -3.25, 1e308, 5e-324, 12])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_value_for(rng, schema.get("items", {})) for _ in range(rng.randrange(4))]
    if kind == "object":
        return plausible_arguments(rng, schema) if "properties" in schema else {"k": _scalar(rng)}
    if kind == "null":
        return None
    return _text(rng)


def _text(rng: random.Random) -> str:
    return rng.choice(
        [
            "",
            "Amsterdam",
            "ORD-42",
            "2026-11-30",
            "x" * rng.choice([1, 100, 5_000]),
            "\ud800 lone surrogate",
            "emoji 🙂 and \u202e right-to-left",
            'quote " backslash \\ newline \n',
            "null",
            "17 * 38",
            "../../etc/passwd",
        ]
    )


def _scalar(rng: random.Random) -> Any:
    return rng.choice(
        [None, True, 0, -1, 10**400, 3.5, math.nan, math.inf, "", "text", [], {}, _text(rng)]
    )


_DEEP = "[" * 1001 + "]" * 1001


def _hostile_text(rng: random.Random, schema: dict[str, Any]) -> str:
    keys = list(schema.get("properties", {})) or ["a"]
    key = rng.choice(keys)
    return rng.choice(
        [
            "",
            "   ",
            "null",
            "[]",
            "42",
            '"just a string"',
            "{",
            '{"' + key + '": }',
            "{'" + key + "': 1}",
            '{"' + key + '": NaN}',
            '{"' + key + '": Infinity}',
            '{"' + key + '": ' + "9" * 5_000 + "}",
            '{"' + key + '": "\\ud800"}',
            '{"' + key + '": 1, "' + key + '": 2}',
            _DEEP,
            "{" + '"a":{' * 200 + "}" * 201,
            '{"' + key + '": "' + "y" * 200_000 + '"}',
            "\x00\x01 binary",
        ]
    )


def _raw_bytes(rng: random.Random, schema: dict[str, Any]) -> bytes:
    return rng.choice([b"", b"\xff\xfe", b'{"a": 1}', bytes(rng.randrange(256) for _ in range(12))])


class _Opaque:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _python_value(rng: random.Random, schema: dict[str, Any]) -> Any:
    keys = list(schema.get("properties", {})) or ["a"]
    loop: dict[str, Any] = {}
    loop[rng.choice(keys)] = loop
    return rng.choice(
        [
            None,
            loop,
            {rng.choice(keys): {1, 2}},
            {rng.choice(keys): b"bytes"},
            {rng.choice(keys): _Opaque()},
            {rng.choice(keys): math.nan},
            {rng.choice(keys): 10**5000},
            {1: "non-string key"},
            [1, 2, 3],
            "not json at all",
            _Opaque(),
        ]
    )
