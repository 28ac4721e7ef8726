"""Hostile tools for the reliability suite and `make fuzz`: every way a tool can misbehave.

Three registries: `raisers` (every kind of exception, some carrying planted secrets, paths and
tracebacks), `returners` (values JSON cannot hold, huge, circular or secret), and the same tools
behind layers at both stages (one of which fails on purpose). `PLANTED` lists secrets that must
never appear in a model-visible message; they are built at run time so that no committed file
holds anything shaped like a real key.
"""

from __future__ import annotations

import asyncio
import math
import os
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from toolsys import Registry, ToolError, ToolResult
from toolsys.execution import Call, Next


def _token(prefix: str, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return prefix + "".join(alphabet[(7 * i + 3) % len(alphabet)] for i in range(length))


ENV_SECRET = _token("fz", 28)
os.environ["FUZZ_SERVICE_API_KEY"] = ENV_SECRET  # a secret the environment holds
OPENAI_LIKE = _token("sk" + "-proj-", 40)
GITHUB_LIKE = _token("gh" + "p_", 36)
AWS_LIKE = _token("AK" + "IA", 16, string.ascii_uppercase + string.digits)
JWT_LIKE = ".".join(["eyJ" + _token("", 20), "eyJ" + _token("", 24), _token("", 30)])
URL_PASSWORD = _token("pw", 14)
PLANTED = [ENV_SECRET, OPENAI_LIKE, GITHUB_LIKE, AWS_LIKE, JWT_LIKE, URL_PASSWORD]

Kind = Literal[
    "value",
    "secret_message",
    "shape_message",
    "url_message",
    "unprintable",
    "tool_error_int",
    "tool_error_cycle",
    "tool_error_path",
    "generator_exit",
    "base_exception",
    "system_exit",
    "recursion",
    "traceback_text",
    "home_path",
    "timeout",
    "cancelled",
]


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot describe myself")


class _Odd(BaseException):
    pass


def _raise(kind: str) -> Any:
    cycle: dict[str, Any] = {}
    cycle["again"] = cycle
    failures: dict[str, BaseException] = {
        "secret_message": ValueError(f"auth failed with key {ENV_SECRET}"),
        "shape_message": PermissionError(f"tokens {OPENAI_LIKE} {GITHUB_LIKE} {AWS_LIKE}"),
        "url_message": ConnectionError(f"cannot reach https://admin:{URL_PASSWORD}@db.example"),
        "unprintable": _Unprintable(),
        "tool_error_int": ToolError("E", 42),  # type: ignore[arg-type]
        "tool_error_cycle": ToolError("CYCLE", "circular details", details=cycle),
        "tool_error_path": ToolError(
            "NO_FILE", "missing", details={"path": Path("/home/alice/private/keys.txt")}
        ),
        "generator_exit": GeneratorExit(),
        "base_exception": _Odd("odd"),
        "system_exit": SystemExit(3),
        "recursion": RecursionError("maximum recursion depth exceeded"),
        "traceback_text": RuntimeError(
            'Traceback (most recent call last):\n  File "/home/alice/app.py", line 3\nboom'
        ),
        "home_path": FileNotFoundError("/home/alice/.config/service/token.json"),
        "timeout": TimeoutError(f"timed out talking to {JWT_LIKE}"),
        "cancelled": asyncio.CancelledError(),
    }
    if kind in failures:
        raise failures[kind]
    return {"kind": kind}


def explode(kind: Kind, x: int = 0) -> Any:
    """Fail in the way `kind` names.

    Args:
        kind: Which failure to produce.
        x: Ignored; a second argument to mutate.
    """
    return _raise(kind)


async def aexplode(kind: Kind, x: int = 0) -> Any:
    """Fail in the way `kind` names, asynchronously.

    Args:
        kind: Which failure to produce.
        x: Ignored; a second argument to mutate.
    """
    await asyncio.sleep(0)
    return _raise(kind)


class _Model(BaseModel):
    name: str
    value: float


@dataclass
class _Record:
    key: str
    payload: bytes


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__


Shape = Literal[
    "nan",
    "inf",
    "huge_int",
    "surrogate",
    "bytes",
    "set",
    "bad_repr",
    "circular",
    "deep",
    "model",
    "dataclass",
    "env_secret",
    "shape_secrets",
    "non_string_keys",
    "complex",
    "plain",
]


def give(shape: Shape) -> Any:
    """Return a value of an awkward shape.

    Args:
        shape: Which value to return.
    """
    circular: list[Any] = []
    circular.append(circular)
    deep: Any = "bottom"
    for _ in range(5_000):
        deep = [deep]
    values: dict[str, Any] = {
        "nan": math.nan,
        "inf": {"up": math.inf, "down": -math.inf},
        "huge_int": 9**9999,
        "surrogate": "bad \ud800 text",
        "bytes": b"\x00\xffraw",
        "set": {3, 1, 2},
        "bad_repr": _BadRepr(),
        "circular": circular,
        "deep": deep,
        "model": _Model(name="m", value=1.5),
        "dataclass": _Record("k", b"12"),
        "env_secret": {"config": {"api_key": ENV_SECRET}},
        "shape_secrets": [OPENAI_LIKE, GITHUB_LIKE, AWS_LIKE, JWT_LIKE],
        "non_string_keys": {1: "one", (2, 3): "tuple", None: "none"},
        "complex": 1 + 2j,
        "plain": {"ok": True},
    }
    return values[shape]


async def passthrough(call: Call, call_next: Next) -> ToolResult:
    return await call_next(call)


async def faulty(call: Call, call_next: Next) -> ToolResult:
    """A layer with a bug: it fails whenever x is 7."""
    if call.values.get("x") == 7:
        raise RuntimeError(f"layer bug near {ENV_SECRET}")
    return await call_next(call)


faulty.stage = "validated"  # type: ignore[attr-defined]


def hostile_registries() -> list[Registry]:
    """raisers, returners, and both behind layers at each stage."""
    raisers, returners = Registry(), Registry()
    raisers.tool(explode)
    raisers.tool(aexplode)
    returners.tool(give)
    layered = Registry(layers=[passthrough, faulty])
    for tool in (explode, aexplode, give):
        layered.tool(tool)
    return [raisers, returners, layered]
