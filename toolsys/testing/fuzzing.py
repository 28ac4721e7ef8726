"""`fuzz_tool` for a test: `toolsys.fuzz.fuzz_tool` that fails the test with what was sent.

`toolsys.fuzz` sends seeded hostile calls (schema-guided arguments and their mutations, broken
JSON, bytes, values JSON cannot hold) and reports every broken promise: an exception escaped
`execute`, a message that is not strict JSON, a traceback, absolute path or secret in any message
the model would read (a successful result's too), each failure saying what leaked. This wrapper
adds what a test needs: any tool, registry or function as the target, a canary *planted* in
the environment for the run (a tool that echoes `os.environ` into a message is caught), and an
AssertionError with the first bad call's arguments and what came back.
The canary is shaped like no key and named like no secret on purpose: redaction
(toolsys/_redact.py) removes what looks like a secret, and the canary stands for the secrets
that do not look like one (a database URL, an internal host name), which only a tool that never
dumps its environment keeps out of a message.

Chapter 11 uses it, and its exercises build it by hand: notebooks/11_testing.ipynb.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from toolsys.fuzz import FuzzReport
from toolsys.fuzz import fuzz_tool as _fuzz
from toolsys.registry import Registry
from toolsys.testing._failure import fail
from toolsys.tool import Tool

__all__ = ["PLANTED_ENV", "FuzzReport", "fuzz_tool"]

PLANTED_ENV = "TOOLSYS_FUZZ_CANARY"
"""The environment variable that holds the planted canary while `fuzz_tool` runs."""

_PROMISE = (
    "a ToolResult for every call (execute never raises) whose message is strict JSON with no "
    "traceback, absolute path or secret"
)


def _registry(target: Registry | Tool | Callable[..., Any]) -> Registry:
    __tracebackhide__ = True
    if isinstance(target, Registry):
        return target
    registry = Registry()
    if isinstance(target, Tool):
        registry.add(target)
    elif callable(target):
        registry.register(target)
    else:
        raise TypeError(
            f"fuzz_tool: {type(target).__name__} is not a Registry, a Tool or a function; pass "
            "e.g. fuzz_tool(registry, 'get_weather') or fuzz_tool(my_tool_function)."
        )
    return registry


@contextmanager
def _planted(seed: int) -> Iterator[str]:
    """A canary value in the environment for the length of the run, then removed."""
    secret = f"canary of fuzz seed {seed}: {hashlib.sha256(str(seed).encode()).hexdigest()[:8]}"
    before = os.environ.get(PLANTED_ENV)
    os.environ[PLANTED_ENV] = secret
    try:
        yield secret
    finally:
        if before is None:
            os.environ.pop(PLANTED_ENV, None)
        else:
            os.environ[PLANTED_ENV] = before


def fuzz_tool(
    target: Registry | Tool | Callable[..., Any],
    name: str | None = None,
    calls: int = 10_000,
    *,
    seed: int = 0,
    secrets: Iterable[str] = (),
) -> FuzzReport:
    """Send `calls` seeded hostile calls to tool `name` (every tool when None); fail if any
    promise breaks. Returns the report (calls made, nothing broken) when all held."""
    __tracebackhide__ = True
    if type(calls) is not int or calls < 1:
        raise ValueError(f"fuzz_tool: calls={calls!r}; give a whole number >= 1, e.g. 1_000.")
    registry = _registry(target)
    names = registry.names() if name is None else [name]
    if name is not None and name not in registry:
        raise ValueError(f"fuzz_tool: no tool {name!r} in the registry; it has {registry.names()}.")
    total = FuzzReport()
    with _planted(seed) as planted:
        for each in names:
            report = _fuzz(registry, each, calls=calls, seed=seed, secrets=[planted, *secrets])
            if not report.clean:
                fail(
                    f"fuzz_tool: {each!r} broke a promise in "
                    f"{report.escapes + report.unsendable + report.leaks} of {report.calls} "
                    f"calls ({report})",
                    sent=report.sent[0],
                    got=report.problems[0],
                    expected=_PROMISE,
                    more="  reproduce: the same seed sends the same calls; "
                    f"fuzz_tool(..., {each!r}, calls={calls}, seed={seed})",
                )
            total.add(report)
    return total
