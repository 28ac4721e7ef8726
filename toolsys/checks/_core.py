"""Exercise checks: run a student's object against an exercise's cases and report, never raise.

Why this module exists: a check cell in an exercise notebook must give actionable feedback (what
was expected, what came back, a hint) for a stub, a wrong answer, a crash or a hang alike, and the
instructor's grader must be able to collect the same verdicts. Chapter authors register one check
per exercise id with `@exercise(...)` in the chapter's package, one module per exercise
(`toolsys/checks/chNN/exN.py`); each package is imported on first use.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import pkgutil
import re
import textwrap
import threading
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from toolsys import _platform
from toolsys.checks._plain import text as _text

DEFAULT_TIMEOUT = 10.0
"""Seconds a check may run before it is reported as a timeout."""

LOG_ENV = "TOOLSYS_CHECK_LOG"
"""When this environment variable names a file, every verdict is appended to it as a JSON line."""

_MAX_REPR = 300
_ID = re.compile(r"\d+\.\d+")


class Status(StrEnum):
    """The outcome of one check."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_DONE = "not_done"
    ERROR = "error"
    TIMEOUT = "timeout"


_MARK = {
    Status.PASSED: "✓",
    Status.FAILED: "✗",
    Status.NOT_DONE: "○",
    Status.ERROR: "✗",
    Status.TIMEOUT: "✗",
}


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


class Described:
    """A value shown as its text, not its repr: `CheckFailed(expected=Described("a list"))`."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class CheckFailed(Exception):
    """Raised inside a check to report a wrong answer: what, what was expected, what came back."""

    def __init__(
        self,
        message: str,
        *,
        expected: Any = MISSING,
        got: Any = MISSING,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got
        self.hint = hint


class CheckBroken(Exception):
    """Raised inside a check when the check's own code failed (a reference, a comparator, a
    generator of inputs): reported as the check's internal error, never as the student's."""

    def __init__(self, what: str, error: BaseException) -> None:
        super().__init__(f"{what} raised {type(error).__name__}: {_text(error)}")
        self.what = what
        self.error = error


@dataclass(frozen=True)
class Exercise:
    """One registered exercise: its id, title, hints, the check body and the reference solution."""

    id: str
    title: str
    run: Callable[[Any], object]
    hints: tuple[str, ...] = ()
    reference: Callable[[], Any] | None = None
    timeout: float | None = None


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check; its text (repr) is what the notebook shows and nbval compares.

    `note` says what the student's code wrote to stderr or warned while the check ran: shown
    with the verdict (a check never writes to stderr itself), not part of `to_dict()` or the log.
    """

    exercise: str
    title: str
    status: Status
    message: str
    expected: str | None = None
    got: str | None = None
    hint: str | None = None
    note: str | None = field(default=None, compare=False)

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    def text(self) -> str:
        label = "not done yet" if self.status is Status.NOT_DONE else self.status.value
        head = f"{_MARK[self.status]} Exercise {self.exercise}"
        if self.title:
            head += f" ({self.title})"
        lines = [f"{head}: {label}"]
        if self.message:
            lines.append(f"  {self.message}")
        if self.expected is not None:
            lines.append(f"  expected: {self.expected}")
        if self.got is not None:
            lines.append(f"  got:      {self.got}")
        if self.hint:
            lines.append(f"  hint:     {self.hint}")
        if self.note:
            lines.append(f"  note:     {self.note}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        fields = asdict(self)
        del fields["note"]
        return {**fields, "status": self.status.value}

    def __repr__(self) -> str:
        return self.text()

    __str__ = __repr__

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str] | None:
        from toolsys.checks.points import nbgrader_bundle  # under nbgrader only: the points

        return nbgrader_bundle(self)


@dataclass
class _Registry:
    exercises: dict[str, Exercise] = field(default_factory=dict)
    hints_shown: dict[str, int] = field(default_factory=dict)
    discovered: bool = False


_REGISTRY = _Registry()


def exercise(
    id: str,
    *,
    title: str,
    hints: Iterable[str] = (),
    reference: Callable[[], Any] | None = None,
    timeout: float | None = None,
) -> Callable[[Callable[[Any], object]], Callable[[Any], object]]:
    """Register the decorated function as the check of exercise `id` (e.g. "2.1").

    The function receives the student's object and raises `CheckFailed` (or uses the `expect_*`
    helpers) at the first wrong answer; returning normally means passed. `reference` returns the
    package's own implementation of the same piece, which must pass (tested for every exercise).
    """
    if not _ID.fullmatch(id):
        raise ValueError(f"exercise id {id!r} is not of the form CHAPTER.NUMBER, e.g. '2.1'")

    def register(run: Callable[[Any], object]) -> Callable[[Any], object]:
        old = _REGISTRY.exercises.get(id)
        if old is not None and _origin(old.run) != _origin(run):
            raise ValueError(
                f"exercise {id} is already registered by {_origin(old.run)}; "
                f"pick another id for {_origin(run)}"
            )
        _REGISTRY.exercises[id] = Exercise(id, title, run, tuple(hints), reference, timeout)
        return run

    return register


def _origin(func: Callable[..., object]) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def _discover() -> None:
    """Import every chapter (`toolsys/checks/chNN/`, or a module `chNN.py`) once, so its
    `@exercise` decorators register."""
    if _REGISTRY.discovered:
        return
    _REGISTRY.discovered = True
    from toolsys import checks

    for info in sorted(pkgutil.iter_modules(checks.__path__), key=lambda i: i.name):
        if re.fullmatch(r"ch\d+", info.name):
            importlib.import_module(f"{checks.__name__}.{info.name}")


def exercises() -> list[Exercise]:
    """Every registered exercise, sorted by id (chapter, then number)."""
    _discover()
    return sorted(_REGISTRY.exercises.values(), key=lambda e: _sort_key(e.id))


def _sort_key(exercise_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in exercise_id.split("."))


def get_exercise(exercise_id: str) -> Exercise | None:
    """The registered exercise with this id, or None."""
    _discover()
    return _REGISTRY.exercises.get(exercise_id)


def _unknown(exercise_id: str) -> str:
    known = ", ".join(e.id for e in exercises()) or "none"
    return (
        f"There is no exercise {exercise_id!r}. Known exercises: {known}. "
        "Check the id in this cell against the exercise heading."
    )


def check(exercise_id: str, student: Any, *, timeout: float | None = None) -> CheckResult:
    """Check `student` (the function, class or object you wrote) for exercise `exercise_id`.

    Never raises: a stub is reported "not done yet", an exception from your code as an error, a
    run longer than `timeout` seconds (default 10) as a timeout. Display the result to see it.
    """
    exercise_id = str(exercise_id)  # check(2.1, ...) means "2.1" too
    found = get_exercise(exercise_id)
    if found is None:
        result = CheckResult(exercise_id, "", Status.ERROR, _unknown(exercise_id))
    else:
        limit = timeout if timeout is not None else found.timeout or DEFAULT_TIMEOUT
        result = run_check(found, student, limit)
    _log(result)
    if found is not None:
        from toolsys.checks.hidden import run_hidden  # only when the grader gives hidden cases

        run_hidden(found, student, result)
    return result


def run_check(ex: Exercise, student: Any, timeout: float) -> CheckResult:
    with _kept_off_stderr() as heard:
        result = _run_thread(ex, student, timeout)
    if not heard:
        return result
    said = _short(" | ".join(" ".join(part.split()) for part in heard), _MAX_REPR)
    return replace(result, note=f"your code wrote to stderr or warned (not shown): {said}")


@contextlib.contextmanager
def _kept_off_stderr() -> Iterator[list[str]]:
    """What is written to stderr or warned while a check runs, collected instead of shown.

    A grader such as nbgrader scores a cell with any stderr output as 0, so the check's output
    is its verdict only; what the student's code said goes into the verdict's note. A thread
    the check left running (a timeout) writes to the real stderr again afterwards.
    """
    heard: list[str] = []
    buffer = io.StringIO()
    crashed: list[str] = []

    def thread_crashed(args: Any) -> None:  # a thread the student's code started raised
        name = args.thread.name if args.thread is not None else "a thread"
        crashed.append(f"{args.exc_type.__name__} in {name}: {_text(args.exc_value)}")

    hooks = threading.excepthook
    threading.excepthook = thread_crashed
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(buffer):
            try:
                yield heard
            finally:
                heard += [f"{w.category.__name__}: {_text(w.message)}" for w in caught]
    finally:
        threading.excepthook = hooks
        heard += crashed
        if buffer.getvalue().strip():
            heard.append(buffer.getvalue().strip())


def _run_thread(ex: Exercise, student: Any, timeout: float) -> CheckResult:
    outcome: list[CheckResult] = []

    def target() -> None:
        outcome.append(_verdict(ex, student))

    if _platform.THREADS:
        worker = threading.Thread(target=target, name=f"check-{ex.id}", daemon=True)
        worker.start()
        worker.join(timeout)
    elif not _platform.run_with_deadline(
        target, timeout * _platform.SLOWER
    ):  # the browser: no thread to watch
        outcome.clear()
    if outcome:
        return outcome[0]
    return CheckResult(
        ex.id,
        ex.title,
        Status.TIMEOUT,
        f"The check did not finish within {timeout:g} s.",
        hint="Look for a loop that never ends or a call that waits forever.",
    )


def _verdict(ex: Exercise, student: Any) -> CheckResult:
    more = f"Run toolsys.checks.hint({ex.id!r}) for a hint." if ex.hints else None
    try:
        ex.run(student)
    except NotImplementedError:
        return CheckResult(
            ex.id,
            ex.title,
            Status.NOT_DONE,
            "Replace `raise NotImplementedError(...)` with your code, then run this cell again.",
        )
    except CheckBroken as broken:
        return CheckResult(
            ex.id,
            ex.title,
            Status.ERROR,
            f"The check itself failed (an internal error in the check, not in your code): "
            f"{broken}.",
            hint="This is not your fault, and says nothing about your answer: please report it "
            "(the exercise id and this message) to your instructor or the workbook's issue "
            "tracker.",
        )
    except CheckFailed as failure:
        return CheckResult(
            ex.id,
            ex.title,
            Status.FAILED,
            failure.message,
            None if failure.expected is MISSING else show_value(failure.expected),
            None if failure.got is MISSING else show_value(failure.got),
            failure.hint or more,
        )
    except BaseException as exc:  # student code may raise anything (even SystemExit): report it
        return CheckResult(
            ex.id,
            ex.title,
            Status.ERROR,
            f"Your code raised {type(exc).__name__}: {_text(exc)}{_during(exc, ex.run)}",
            hint=more or "Read the error message, fix your code and run this cell again.",
        )
    return CheckResult(ex.id, ex.title, Status.PASSED, "")


def _during(exc: BaseException, run: Callable[[Any], object]) -> str:
    """Which call of the check was running when the student's code raised, with its inputs."""
    check_file = getattr(getattr(run, "__code__", None), "co_filename", None)
    stack = traceback.StackSummary.extract(
        traceback.walk_tb(exc.__traceback__), capture_locals=True
    )
    inside = [i for i, frame in enumerate(stack) if frame.filename == check_file]
    if not inside or inside[-1] == len(stack) - 1:
        return ""  # nothing found, or the check itself raised: no student call to point at
    frame = stack[inside[-1]]
    line = (frame.line or "").rstrip(",")
    names = dict.fromkeys(re.findall(r"\b([a-z_]\w*)\b(?!\s*[(=])", line))
    local = frame.locals or {}
    shown = [
        f"{name}={_short(local[name])}"
        for name in names
        if name in local
        and name != "student"
        and " at 0x" not in local[name]  # object reprs say nothing useful here
    ]
    return f"\n  while the check ran: {line}" + (f" with {', '.join(shown)}" if shown else "")


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_value(value: Any) -> str:
    if isinstance(value, type) and issubclass(value, BaseException):
        shown = value.__name__
    elif isinstance(value, BaseException):
        shown = f"{type(value).__name__}({_text(value)!r})"
    else:
        try:
            shown = str.__str__(repr(value))
        except Exception as exc:  # a student's __repr__ may be broken too
            shown = f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    return shown if len(shown) <= _MAX_REPR else shown[: _MAX_REPR - 1] + "…"


KEY_ENV = "TOOLSYS_CHECK_KEY"
"""When set (by the grader, one random key per notebook), each logged verdict carries an HMAC."""
LOG_FIELD_LIMIT = 4000
"""Characters kept of each text field of a logged verdict; the grader refuses longer ones."""


def verdict_mac(key: str, verdict: dict[str, Any]) -> str:
    """HMAC-SHA256 of a verdict's fields (without "mac"), in one canonical JSON spelling."""
    import hashlib
    import hmac

    body = json.dumps(verdict, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hmac.new(key.encode(), body.encode(), hashlib.sha256).hexdigest()


def log_verdict(fields: dict[str, Any]) -> OSError | None:
    """Append a verdict's fields to the file LOG_ENV names: one ASCII JSON line, each string cut
    at LOG_FIELD_LIMIT, signed if KEY_ENV is set. Returns the error if it could not append.

    The grader reads this log; the key lets it refuse lines that `check` did not write for this
    run. It is not a defence against a student who reads the key from their own kernel.
    """
    path = os.environ.get(LOG_ENV)
    if not path:
        return None
    verdict = {
        name: value[:LOG_FIELD_LIMIT] if isinstance(value, str) else value
        for name, value in fields.items()
    }
    key = os.environ.get(KEY_ENV)
    if key:
        verdict["mac"] = verdict_mac(key, verdict)
    try:
        with open(path, "a", encoding="ascii") as log:
            log.write(json.dumps(verdict, ensure_ascii=True) + "\n")
    except OSError as exc:
        return exc
    return None


def _log(result: CheckResult) -> None:
    """`log_verdict` for `check`, which never raises (nor writes to stderr): a log it cannot
    append to is said with the verdict."""
    exc = log_verdict(result.to_dict())
    if exc is not None:
        print(
            f"note: {LOG_ENV}={os.environ.get(LOG_ENV)!r}: cannot append the verdict "
            f"({exc.strerror}); unset {LOG_ENV} or point it at a writable file"
        )


def hint(exercise_id: str) -> None:
    """Print the hints of an exercise, one more on every call."""
    exercise_id = str(exercise_id)  # hint(2.1) means "2.1" too
    found = get_exercise(exercise_id)
    if found is None:
        print(_unknown(exercise_id))
        return
    if not found.hints:
        print(
            f"Exercise {found.id} has no hints: re-read the exercise text and the check's message."
        )
        return
    shown = min(_REGISTRY.hints_shown.get(found.id, 0) + 1, len(found.hints))
    _REGISTRY.hints_shown[found.id] = shown
    for number, text in enumerate(found.hints[:shown], start=1):
        line = f"Hint {number}/{len(found.hints)} for exercise {found.id}: {text}"
        # Lines that fit the output area: JupyterLab would otherwise break words at its edge.
        print(textwrap.fill(line, 100, subsequent_indent="    ", break_on_hyphens=False))
    if shown == len(found.hints):
        print("That was the last hint; the solution is in solutions/.")
