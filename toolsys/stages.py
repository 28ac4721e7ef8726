"""The first stages of every call, and the envelopes they answer with when a call fails.

    resolve   -> UNKNOWN_TOOL        the name is not registered
    decode    -> INVALID_JSON        the text is not JSON, or is over the size/depth/digit limits
    validate  -> INVALID_ARGUMENTS   the decoded value does not fit the tool's schema

Kept apart from `toolsys.execution` (which invokes the tool and runs the layers around it) so
each reads top to bottom; `failure` builds every envelope of both, and cannot itself fail.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic_core import ValidationError

from toolsys import failures
from toolsys._cancel import is_cancellation
from toolsys.errors import ErrorCode, ErrorInfo, ToolError
from toolsys.result import ToolResult

if TYPE_CHECKING:
    from toolsys.tool import Tool

MAX_ARGUMENT_CHARS = 1_000_000
"""Raw JSON arguments longer than this are refused before they are parsed."""
MAX_DEPTH = 64
"""Arguments nested deeper than this (objects and arrays) are refused."""
MAX_INT_DIGITS = 1_000
"""Integers with more digits than this are refused (Python's own limit is 4,300)."""

_log = logging.getLogger("toolsys")


def resolve(
    name: object, lookup: Callable[[str], Tool | None], available: Callable[[], list[str]]
) -> Tool | ToolResult:
    """The registered tool called `name`, or UNKNOWN_TOOL listing what is `available()`."""
    tool = lookup(name) if type(name) is str else None
    if tool is not None:
        return tool
    return failure(lambda: failures.unknown_tool(name, available()))


def valid_as_sent(tool: Tool, raw: Any, coerce: bool) -> BaseModel | None:
    """The validated arguments when `raw` (a dict, or JSON text) is valid as sent, the common
    case; None otherwise, and `validate` then says why. Never raises, builds no envelope.

    The one test of "valid as sent" (`toolsys.execution.ExecutePath.execute` inlines it)."""
    if coerce or tool.literals is not None:  # a number literal: `Tool.validate` checks it
        return None
    kind = type(raw)
    try:
        if kind is dict:
            if tool.accepts_anything or (tool.null_means_default and None in raw.values()):
                return None
            return tool.validator.validate_python(raw, strict=True)
        if kind is str and len(raw) <= MAX_ARGUMENT_CHARS:
            if tool.null_check and "null" in raw:  # a null may mean "the default": the long way
                return None
            model = tool.validator.validate_json(raw or "{}", strict=True)
            return None if "NaN" in raw or "Infinity" in raw else model  # as JSON reads them
    except Exception:
        pass
    return None


def validate(tool: Tool, raw: Any, coerce: bool = False) -> BaseModel | ToolResult:
    """Decode (when text) and validate `raw` against the tool's model, or say why not."""
    model = valid_as_sent(tool, raw, coerce)
    if model is not None:
        return model
    try:  # invalid, or stranger: the general path says which
        return _validate(tool, raw, coerce)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a value pydantic itself chokes on: the arguments are at fault
        if is_cancellation(exc):
            raise
        return failure(failures.unvalidatable, tool, exc, exception=exc)


def _validate(tool: Tool, raw: Any, coerce: bool) -> BaseModel | ToolResult:
    kind = type(raw)
    if kind is str and not coerce and len(raw) <= MAX_ARGUMENT_CHARS:
        try:  # the common case for models: JSON text that is valid as it is
            return tool.validate_json(raw or "{}")
        except ValidationError:
            pass  # the general path below finds out exactly what is wrong
    if isinstance(raw, str | bytes | bytearray):
        decoded = decode(tool.name, raw)
        if isinstance(decoded, ToolResult):
            return decoded
        raw = decoded
    elif _depth_exceeded(raw):
        return ToolResult.failure(
            failures.too_deep(tool.name, MAX_DEPTH, ErrorCode.INVALID_ARGUMENTS)
        )
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        return ToolResult.failure(failures.not_an_object(tool, raw))
    try:
        return tool.validate(raw, coerce=coerce)
    except ValidationError as exc:
        return ToolResult.failure(failures.invalid_arguments(tool, exc), exception=exc)


def decode(name: str, raw: str | bytes | bytearray) -> Any:
    """JSON text to Python values, within the size, depth and digit limits, or INVALID_JSON."""
    if isinstance(raw, bytes | bytearray):
        raw = bytes(raw).decode("utf-8", errors="replace")
    if len(raw) > MAX_ARGUMENT_CHARS:
        return ToolResult.failure(failures.too_large(name, len(raw), MAX_ARGUMENT_CHARS))
    text = raw if raw.strip() else "{}"  # some providers send "" for "no arguments"
    try:
        value = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        return ToolResult.failure(failures.invalid_json(name, text, exc), exception=exc)
    except _TooManyDigits as exc:
        return ToolResult.failure(failures.too_many_digits(name, exc.digits, MAX_INT_DIGITS))
    except RecursionError:
        value = None
    else:
        if not _depth_exceeded(value):
            return value
    return ToolResult.failure(failures.too_deep(name, MAX_DEPTH, ErrorCode.INVALID_JSON))


class _TooManyDigits(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _TooManyDigits(len(text.lstrip("-")))
    return int(text)


def _depth_exceeded(value: Any) -> bool:
    """True when containers nest deeper than MAX_DEPTH (or refer to themselves)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        if id(node) in seen:
            return True  # a cycle nests infinitely deep
        seen.add(id(node))
        stack.extend((child, depth + 1) for child in children)
    return False


def tool_failed(tool: Tool, exc: BaseException) -> ToolResult:
    """What a tool's exception tells the model: the tool's own envelope when it raised a
    `ToolError`, else EXECUTION_ERROR (`crashed`). The one place a tool's exception becomes an
    envelope; KeyboardInterrupt is raised again (an async path lets a real cancellation of its
    own task through before it asks)."""
    if isinstance(exc, KeyboardInterrupt):
        raise exc
    if isinstance(exc, ToolError):
        return failure(exc.to_info, exception=exc)
    return crashed(tool, exc)


def crashed(tool: Tool, exc: BaseException) -> ToolResult:
    """An exception the tool did not expect: data for the model, the traceback for the developer.

    The envelope is redacted; the full exception stays on `result.exception` and goes to the
    `toolsys` logger at DEBUG level (silent unless you configure logging).
    """
    _log.debug("tool %r raised", tool.name, exc_info=exc)
    return failure(failures.execution_error, tool, exc, exception=exc)


def failure(
    describe: Callable[..., ErrorInfo], *args: Any, exception: BaseException | None = None
) -> ToolResult:
    """`ToolResult.failure(describe(*args))`; if describing fails, a plain one that cannot fail."""
    try:
        return ToolResult.failure(describe(*args), exception=exception)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        if is_cancellation(error):
            raise
        _log.debug("building an error envelope failed", exc_info=error)
        return ToolResult(
            False,
            None,
            ErrorInfo(
                ErrorCode.EXECUTION_ERROR,
                "The call failed, and its error could not be described.",
                "Answer without this tool, or try a different call.",
            ),
            {},
            exception or error,
        )
