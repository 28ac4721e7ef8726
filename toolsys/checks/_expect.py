"""The small language of a check: `expect_equal`, `expect_raises`, `expect_true`, and more.

Why this module exists: a check is read by the student when it fails, so each helper turns one
kind of wrong answer into a message that says what was computed, what was expected, what came
back. None of them asks the student's object whether it is right: comparisons go through
`_plain` (exact types first), and messages read exceptions through `_plain.text`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsys.checks._core import CheckFailed, Described, show_value
from toolsys.checks._plain import difference, impurity
from toolsys.checks._plain import text as _text


def expect_equal(got: Any, expected: Any, *, what: str, hint: str | None = None) -> None:
    """Fail unless `got` equals `expected`; `what` says what was computed, e.g. "add(2, 3)".

    Types are compared first, exactly and all the way down (see `_plain`): an object that claims
    to equal everything, or a subclass of str/dict/list, is a wrong value, not a pass.
    """
    problem = difference(got, expected, what)
    if problem is None:
        return
    simple = type(got) is type(expected) and type(expected) not in (dict, list, tuple)
    message = f"{what} returned a wrong value." if simple else f"{problem}."
    raise CheckFailed(message, expected=expected, got=got, hint=hint)


def expect_plain(value: Any, *, what: str, shape: str, hint: str | None = None) -> None:
    """Fail unless `value` is plain data (what `json.loads` gives: exact dict, list, str, ...).

    Call it before reading a student's result, so a malformed one gets a message naming the
    `shape` expected (e.g. "a dict with keys id, name, arguments, error") instead of a crash.
    """
    problem = impurity(value, what)
    if problem is not None:
        raise CheckFailed(
            f"{what} must be {shape}: {problem}.",
            expected=Described(shape),
            got=value,
            hint=hint,
        )


def call_student(
    call: Callable[..., Any],
    *args: Any,
    what: str,
    returns: str,
    hint: str | None = None,
    **kwargs: Any,
) -> Any:
    """`call(*args, **kwargs)` for an exercise that promises to return `returns`, never to raise.

    A `NotImplementedError` passes through, so a half-finished stub (one path still raising it)
    is "not done yet"; any other exception is a wrong answer that names the call and the error.
    """
    try:
        return call(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(
            f"{what} raised {type(exc).__name__}: {_text(exc)}. It must return {returns}, "
            "never raise.",
            expected=Described(returns),
            got=exc,
            hint=hint,
        ) from None


def expect_true(condition: object, message: str, *, hint: str | None = None) -> None:
    """Fail the check with `message` unless `condition` is true."""
    if not condition:
        raise CheckFailed(message, hint=hint)


def expect_raises(
    error: type[BaseException] | tuple[type[BaseException], ...],
    call: Callable[..., object],
    *args: Any,
    what: str,
    match: str | None = None,
    hint: str | None = None,
    **kwargs: Any,
) -> BaseException:
    """Fail unless `call(*args, **kwargs)` raises `error` (whose message contains `match`).

    A `NotImplementedError` from a stub passes through, so the check reports "not done yet".
    Returns the exception, for further checks on it.
    """
    try:
        value = call(*args, **kwargs)
    except error as exc:
        if match is not None and match not in _text(exc):
            raise CheckFailed(
                f"{what} raised the right error, but its message does not mention {match!r}.",
                expected=Described(f"a message containing {match!r}"),
                got=_text(exc),
                hint=hint,
            ) from None
        return exc
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(
            f"{what} raised the wrong kind of error.",
            expected=Described(_error_names(error)),
            got=exc,
            hint=hint,
        ) from None
    raise CheckFailed(
        f"{what} should raise {_error_names(error)} but returned normally.",
        expected=Described(_error_names(error)),
        got=Described(f"returned {show_value(value)}"),
        hint=hint,
    )


def _error_names(error: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    kinds = error if isinstance(error, tuple) else (error,)
    return " or ".join(kind.__name__ for kind in kinds)
