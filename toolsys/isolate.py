"""Run a tool call in a child process that can really be stopped.

A thread cannot be killed: a hung sync tool behind a deadline is left running, and the result
says so (see `toolsys.layers.Timeout`). A process can. A tool registered with
`isolate="process"` (or `isolate=Subprocess(memory_mb=..., cpu_seconds=...)`) runs each call in
a forked child that leads its own process group. When the call is cancelled (a deadline, a run
that is stopped) the whole group, the child and everything it started, gets SIGTERM, then
SIGKILL after `kill_grace` seconds, and the child is reaped before the cancellation goes on.
When the call ends normally, anything the tool left running in its group is killed too.
Return values and exceptions come back over a pipe as pickled data; memory and CPU limits are
set with `resource` where the platform has it.

The child is a copy of this process at the moment of the call (fork): it sees the same globals,
so a function defined in a notebook works, but only the calling thread exists in it, and a lock
another thread held at that moment stays locked there. Its prints go nowhere: return data.
POSIX only (Linux, macOS); registration refuses `isolate` where `os.fork` is missing.

Policy: isolation is opt-in, per tool, because a forked copy of a large process costs
milliseconds and cannot share its connections (a sqlite handle, a socket) safely. Use it for
EXECUTE tools that run programs, call C code that can hang, or must be bounded in memory/CPU:
`@registry.tool(category=Category.EXECUTE, isolate="process")`.

Chapter 07 shows it at work: notebooks/07_robustness.ipynb.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import pickle
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolsys.errors import ToolError

_HEADER = 8  # bytes of the length prefix in front of the pickled outcome


class IsolatedProcessError(Exception):
    """The child process failed in a way that is not an ordinary exception of the tool."""


@dataclass(frozen=True)
class Subprocess:
    """Run each call in a forked child process with its own process group.

    `memory_mb`: how much memory the call may add to the copy of this process it starts as
    (RLIMIT_AS; enforced on Linux). `cpu_seconds`: CPU time the call may use (RLIMIT_CPU).
    `kill_grace`: seconds between SIGTERM and SIGKILL when the call is cancelled.
    """

    memory_mb: int | None = None
    cpu_seconds: int | None = None
    kill_grace: float = 0.5

    def __post_init__(self) -> None:
        for name in ("memory_mb", "cpu_seconds"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(
                    f"Subprocess({name}={value!r}): give a whole number >= 1, or None for no limit."
                )
        if type(self.kill_grace) not in (int, float) or not 0 <= self.kill_grace <= 60:
            raise ValueError(
                f"Subprocess(kill_grace={self.kill_grace!r}): give the seconds between SIGTERM "
                "and SIGKILL, from 0 to 60 (default 0.5)."
            )

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in a child process: its value, or its exception raised here."""
        read_fd, write_fd = os.pipe()
        with warnings.catch_warnings():  # Python 3.12+ warns about fork with threads: see above
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; coverage cannot follow it
            _child(read_fd, write_fd, fn, args, self)
        os.close(write_fd)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # the child does it too: whichever runs first wins the race
        try:
            message = await _read_message(read_fd)
        except BaseException:
            await _stop(pid, self.kill_grace)
            raise
        finally:
            os.close(read_fd)
        _signal_group(pid, signal.SIGKILL)  # whatever the tool left behind in its group
        status = _reap(pid)
        return _outcome(message, status, self)


def _child(
    read_fd: int, write_fd: int, fn: Callable[..., Any], args: Any, limits: Subprocess
) -> None:
    """In the child: run, send the outcome, exit without running anything of the parent's."""
    import asyncio  # here, not at import: `import toolsys` does not need asyncio

    code = 70
    try:
        os.close(read_fd)
        os.setpgid(0, 0)
        _reset_signals()
        devnull = open(os.devnull, "w")  # noqa: SIM115 - lives until os._exit
        sys.stdout = sys.stderr = devnull
        _apply_limits(limits)
        asyncio.events._set_running_loop(None)  # the parent's loop is not running here
        try:
            value = fn(*args)
            if inspect.isawaitable(value):
                value = asyncio.run(_awaited(value))
            outcome: tuple[Any, ...] = ("value", value)
        except BaseException as exc:
            outcome = _portable(exc)
        try:
            data = pickle.dumps(outcome)
        except Exception as exc:
            text = f"the result could not be sent back from its process: {exc}"
            data = pickle.dumps(("error", "TypeError", text, "", ""))
        view = memoryview(len(data).to_bytes(_HEADER, "big") + data)
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    finally:
        os._exit(code)


async def _awaited(value: Any) -> Any:
    return await value


def _reset_signals() -> None:
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)  # the parent's event loop listens on it: not ours to wake
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, signal.SIG_DFL)


def _apply_limits(limits: Subprocess) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on this platform
        return
    if limits.memory_mb is not None:
        total = _address_space() + limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (total, total))
    if limits.cpu_seconds is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))


def _address_space() -> int:
    """This process's current virtual size in bytes (0 where /proc does not tell)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _portable(exc: BaseException) -> tuple[Any, ...]:
    """An exception as data that unpickles in the parent, with its traceback as text."""
    trace = "".join(traceback.format_exception(exc))
    if isinstance(exc, ToolError):
        fields = {
            "suggestion": exc.suggestion,
            "retryable": exc.retryable,
            "details": exc.details,
            "retry_after": exc.retry_after,
        }
        return ("tool_error", exc.code, exc.message, fields, trace)
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        base = next((b.__name__ for b in (TimeoutError, ConnectionError) if isinstance(exc, b)), "")
        return ("error", type(exc).__name__, str(exc), base, trace)
    return ("exception", exc, trace)


def _outcome(message: bytes | None, status: int, limits: Subprocess) -> Any:
    """The value the child sent, or its exception raised here."""
    if message is None:
        raise IsolatedProcessError(_death(status, limits))
    outcome = pickle.loads(message)
    kind = outcome[0]
    if kind == "value":
        return outcome[1]
    if kind == "tool_error":
        _, code, text, fields, trace = outcome
        exc: BaseException = ToolError(code, text, **fields)
    elif kind == "exception":
        _, exc, trace = outcome
    else:
        _, name, text, base, trace = outcome
        bases = {"TimeoutError": TimeoutError, "ConnectionError": ConnectionError}
        exc = type(name, (bases.get(base, Exception),), {"__module__": __name__})(text)
    exc.add_note("Raised in the isolated process:\n" + trace)
    raise exc


def _death(status: int, limits: Subprocess) -> str:
    """Why a child ended without sending a result, in words."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return f"the isolated process exited with status {code} before sending a result"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    set_limits = [f"{k}={v}" for k in ("memory_mb", "cpu_seconds") if (v := getattr(limits, k))]
    why = f" (its limits: {', '.join(set_limits)})" if set_limits else ""
    return f"the isolated process was killed by {name}{why} before sending a result"


async def _read_message(fd: int) -> bytes | None:
    """The length-prefixed message from the child, or None if it died before sending all of it.

    Reading stops once the whole message is in: a grandchild that inherited the pipe cannot
    keep the call waiting by holding the pipe open.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    done: asyncio.Future[bytes | None] = loop.create_future()
    buffer = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        buffer.extend(chunk)
        size = int.from_bytes(buffer[:_HEADER], "big") if len(buffer) >= _HEADER else None
        if size is not None and len(buffer) >= _HEADER + size:
            message: bytes | None = bytes(buffer[_HEADER : _HEADER + size])
        elif not chunk:
            message = None
        else:
            return
        loop.remove_reader(fd)
        if not done.done():
            done.set_result(message)

    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)


async def _stop(pid: int, grace: float) -> None:
    """SIGTERM the group, wait up to `grace` for the child to exit, then SIGKILL and reap."""
    import asyncio

    try:
        _signal_group(pid, signal.SIGTERM)
        end = time.monotonic() + grace
        while time.monotonic() < end and not _exited(pid):
            await asyncio.sleep(0.005)
    finally:
        _signal_group(pid, signal.SIGKILL)
        _reap(pid)


def _signal_group(pid: int, signum: int) -> None:
    """Signal the child's process group (not yet reaped, so its id cannot have been reused)."""
    for send in (os.killpg, os.kill):  # kill: the child may not have called setpgid yet
        with contextlib.suppress(ProcessLookupError, PermissionError):
            send(pid, signum)


def _exited(pid: int) -> bool:
    """Has the child exited? Checked without reaping it, so its group id stays ours."""
    if not hasattr(os, "waitid"):  # pragma: no cover - then the whole grace is waited
        return False
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reap(pid: int) -> int:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0
