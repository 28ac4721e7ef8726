"""Exercise 7.5, a deadline wrapper that is honest: the check and its reference, `with_deadline`.

`toolsys.layers.Timeout` around the same function; the cases are a deadline that waits for the
thread anyway, a None result read as 'no value yet', and a timeout called safe.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
)
from toolsys.checks._plain import as_str


def with_deadline(fn: Callable[[], Any], seconds: float, idempotent: bool) -> dict[str, Any]:
    """Reference for 7.5: `toolsys.layers.Timeout` around a tool that calls `fn`."""
    from toolsys import Category, Registry
    from toolsys.layers import Timeout

    registry = Registry(layers=[Timeout(seconds=seconds)])

    def call() -> Any:
        """Call the function."""
        return fn()

    registry.register(call, category=Category.WRITE, idempotent=idempotent)
    result = registry.execute("call")
    if result.error is None:
        return {"ok": True, "value": result.value}
    envelope: dict[str, Any] = {"ok": False, "error": result.error.to_dict()}
    if result.meta.get("abandoned_thread"):
        envelope["abandoned_thread"] = True
    return envelope


_DEADLINE = 0.25
"""The deadline of the timeout cases, in seconds."""


def _allowed(seconds: float) -> float:
    """Seconds a wrapper may take to return at a deadline of `seconds`: the deadline, plus half
    of it (at least 0.2 s) for thread start and join on a loaded machine. Waiting twice the
    deadline is too long; a wrapper that is merely slow once gets a second try."""
    return seconds + max(0.2, seconds / 2)


_TIMEOUT_SHAPE = (
    '{"ok": False, "abandoned_thread": True, "error": {"code": "TIMEOUT", "message": ..., '
    '"retryable": ..., "details": {"side_effects": "unknown"}}}'
)


_STILL = re.compile(
    r"still|running|cannot|can't|can ?not|could ?n[o']t|unable|unknown|uncertain|not known|"
    r"abandon|may have|might have|may still|might still|background|in progress|no way",
    re.IGNORECASE,
)
"""Words that tell the caller the call may go on, or may have taken effect."""
_DENIED = re.compile(
    r"\b(?:did|does|has|have|was|were|will) ?n(?:o|')t (?:happen|run|take effect|execute|go "
    r"through|change)|\bnever (?:happened|ran|took effect|executed)|\bnothing (?:happened|"
    r"was done|ran|changed|took effect)|\b(?:was|were|been|got|is|are|has|have) (?:now |safely )?"
    r"(?:cancel+ed|stopped|killed|aborted|terminated|interrupted|rolled back|undone|reverted)|"
    r"\bno (?:side[ -])?effects?\b(?! (?:is|are) known)",
    re.IGNORECASE,
)
"""Claims that the call stopped or did not happen: untrue of a thread left running."""
_HONEST = (
    "Say in the message that the call may still be running (the thread cannot be stopped) and "
    "may have taken effect, e.g. 'No answer within 0.25 s; the call is still running in the "
    "background and cannot be stopped; whether it took effect is unknown.' Never say it was "
    "cancelled or did not happen."
)


def _expect_honest(message: str, what: str) -> None:
    claim = _DENIED.search(message)
    if claim is not None or _STILL.search(message) is None:
        raise CheckFailed(
            f"The TIMEOUT message of {what} claims {claim.group(0)!r}: the thread is still "
            "running and may yet do its work."
            if claim is not None
            else f"The TIMEOUT message of {what} does not say that the call may still be running "
            "or may have taken effect.",
            expected=Described("a message saying the call may still run / may have taken effect"),
            got=message,
            hint=_HONEST,
        )


def _deadline(
    student: Callable[..., Any], fn: Callable[[], Any], label: str, seconds: float, idem: bool
) -> tuple[Any, str]:
    what = f"with_deadline({label}, {seconds}, idempotent={idem})"
    got = call_student(
        student,
        fn,
        seconds,
        idem,
        what=what,
        returns="an envelope",
        hint="Catch the function's exception inside the thread and report it as data.",
    )
    expect_plain(got, what=what, shape="an envelope dict of plain JSON values")
    return got, what


def _in_time(pause: float, value: Any) -> Callable[[], Any]:
    def fn() -> Any:
        time.sleep(pause)
        return value

    return fn


def _raises() -> Any:
    raise ValueError("order A-7 is locked")


def _not_found() -> Any:
    raise KeyError("A-7")


class LedgerClosed(Exception):
    """A tool's own exception, of no builtin kind: `except Exception` catches it, a list of
    builtin kinds does not."""


def _ledger_closed() -> Any:
    raise LedgerClosed("the ledger is closed for the night")


def _expect_execution_error(student: Callable[..., Any], fn: Callable[[], Any], kind: str) -> None:
    got, what = _deadline(student, fn, f"a function raising {kind}", 5.0, True)
    error = got.get("error") if type(got) is dict else None
    message = error.get("message") if type(error) is dict else None
    if (
        type(got) is not dict
        or got.get("ok") is not False
        or as_str(error.get("code") if type(error) is dict else None) != "EXECUTION_ERROR"
        or type(message) is not str
        or kind not in message
        or sorted(got) != ["error", "ok"]
    ):
        raise CheckFailed(
            f"{what} should report EXECUTION_ERROR naming {kind}.",
            expected=Described(
                f'{{"ok": False, "error": {{"code": "EXECUTION_ERROR", "message": "{kind}: ..."}}}}'
            ),
            got=got,
            hint="Catch every exception (except Exception, not a list of kinds: a tool raises "
            "its own classes too) inside the thread and keep it; after join, report it with its "
            "type: f'{type(exc).__name__}: {exc}'. An exception is not a timeout, and the thread "
            "has ended: nothing was abandoned.",
        )


def _hang_once(student: Callable[..., Any], idempotent: bool) -> tuple[Any, str, float, bool]:
    """The student's deadline around a function that hangs: (answer, what, seconds waited,
    whether the function had ended by then)."""
    release, finished = threading.Event(), threading.Event()

    def hangs() -> str:
        release.wait(3)
        finished.set()
        return "too late"

    try:
        start = time.monotonic()
        got, what = _deadline(student, hangs, "a function that hangs", _DEADLINE, idempotent)
        return got, what, time.monotonic() - start, finished.is_set()
    finally:
        release.set()


def _expect_timeout(student: Callable[..., Any], idempotent: bool) -> None:
    got, what, waited, ended = _hang_once(student, idempotent)
    if waited > _allowed(_DEADLINE) and not ended:  # slow once: a second try
        got, what, again, ended = _hang_once(student, idempotent)
        waited = min(waited, again)
    if ended or waited > _allowed(_DEADLINE):
        raise CheckFailed(
            f"{what} waited for the function to end instead of returning at the deadline."
            if ended
            else f"{what} returned {waited:.2f} s after it was called: it must return at the "
            f"deadline ({_DEADLINE} s), at once (by {_allowed(_DEADLINE):.2f} s at the latest).",
            expected=Described(f"TIMEOUT after about {_DEADLINE} s, the function still running"),
            got=got,
            hint="worker.join(seconds) once, then worker.is_alive(); not join() without a limit, "
            "not a second join, and not `with ThreadPoolExecutor()` (leaving the block waits for "
            "the thread).",
        )
    error = got.get("error") if type(got) is dict else None
    details = error.get("details") if type(error) is dict else None
    if (
        type(got) is not dict
        or got.get("ok") is not False
        or got.get("abandoned_thread") is not True
        or type(error) is not dict
        or as_str(error.get("code")) != "TIMEOUT"
        or type(error.get("message")) is not str
        or not error["message"].strip()
        or type(details) is not dict
        or as_str(details.get("side_effects")) != "unknown"
    ):
        raise CheckFailed(
            f"{what} should say TIMEOUT, that the thread was abandoned and that the side "
            "effects are unknown.",
            expected=Described(_TIMEOUT_SHAPE),
            got=got,
            hint="The thread is still running and may still do its work: never claim it "
            "stopped or that nothing happened.",
        )
    _expect_honest(error["message"], what)
    expect_equal(
        error.get("retryable"),
        idempotent,
        what=f"the 'retryable' of {what}",
        hint="A repeat after a timeout is safe only for an idempotent tool: a write may "
        "already have happened. retryable = idempotent.",
    )


def _expect_daemon(student: Callable[..., Any]) -> None:
    """The worker must be a daemon because the student made it one, not because it inherited it.

    `check()` runs this check on a daemon thread, and a new thread inherits its creator's daemon
    flag: called from there, a `threading.Thread(target=...)` without `daemon=True` (or a
    ThreadPoolExecutor's worker) would be a daemon by accident. So `with_deadline` is called here
    from a thread that is not a daemon, and before any other call: a shared ThreadPoolExecutor
    makes its workers at its first calls, and workers made under check()'s thread would be
    daemons too, and reused.
    """
    seen: list[threading.Thread] = []
    done: list[Any] = []

    def where() -> str:
        seen.append(threading.current_thread())
        return "here"

    def call() -> None:
        try:
            done.append(student(where, 5.0, True))
        except BaseException as exc:  # reported below, on the check's own thread
            done.append(exc)

    caller = threading.Thread(target=call, name="not-a-daemon", daemon=False)
    caller.start()
    caller.join(6.0)
    if done and isinstance(done[0], NotImplementedError):
        raise done[0]
    if not done or isinstance(done[0], BaseException):
        raise CheckFailed(
            "with_deadline(a function that notes its thread, 5.0, idempotent=True), called from a "
            "thread that is not a daemon, "
            + ("did not return." if not done else f"raised {type(done[0]).__name__}."),
            expected=Described("{'ok': True, 'value': 'here'}"),
            got=Described("no answer") if not done else done[0],
            hint="Catch the function's exception inside the thread and report it as data.",
        )
    if not seen or seen[0] is caller or not seen[0].daemon:
        raise CheckFailed(
            "with_deadline must run the function on a daemon worker thread.",
            expected=Described("a daemon thread other than the caller's"),
            got=Described(
                "the function was not called"
                if not seen
                else "the caller's own thread"
                if seen[0] is caller
                else "a thread that is not a daemon (called from a thread that is not one: "
                "a new thread takes its creator's flag unless you set daemon=True)"
            ),
            hint="threading.Thread(target=..., daemon=True): a thread left behind at a deadline "
            "must not keep Python from exiting, and only another thread can be waited for with "
            "a limit. A ThreadPoolExecutor's workers are not daemons.",
        )


@exercise(
    "7.5",
    title="A deadline wrapper that is honest",
    hints=[
        "Start a threading.Thread(target=..., daemon=True) that stores fn()'s value or exception "
        "in a dict; then worker.join(seconds).",
        "After join, worker.is_alive() says whether the deadline passed. Do not test 'no value "
        "yet': a function may return None.",
        "At the deadline return at once with code TIMEOUT, abandoned_thread True, retryable = "
        "idempotent and details {'side_effects': 'unknown'}: the thread cannot be stopped.",
    ],
    reference=lambda: with_deadline,
)
def _check_with_deadline(student: Callable[..., Any]) -> None:
    _expect_daemon(student)  # first: no thread of the student's made under check()'s daemon yet
    calls = [0]

    def counted(value: Any) -> Callable[[], Any]:
        def fn() -> Any:
            calls[0] += 1
            time.sleep(0.05)
            return value

        return fn

    got, what = _deadline(student, counted(42), "a function returning 42", 5.0, True)
    expect_equal(
        got,
        {"ok": True, "value": 42},
        what=what,
        hint="Wait for the thread up to the deadline (join(seconds)); when it has ended, return "
        "{'ok': True, 'value': <its value>}.",
    )
    expect_equal(
        calls[0],
        1,
        what=f"how many times {what} called the function",
        hint="Call fn() once, on the worker thread: a tool that writes must not run twice.",
    )
    got, what = _deadline(student, _in_time(0.0, None), "a function returning None", 5.0, True)
    expect_equal(
        got,
        {"ok": True, "value": None},
        what=what,
        hint="None is a value: decide with worker.is_alive(), not with 'no value yet'.",
    )
    for fn, kind in (
        (_raises, "ValueError"),
        (_not_found, "KeyError"),
        (_ledger_closed, "LedgerClosed"),
    ):
        _expect_execution_error(student, fn, kind)
    _expect_timeout(student, idempotent=False)
    _expect_timeout(student, idempotent=True)
