"""Run a tool call in a child process that can really be stopped, with all it started.

A thread cannot be killed: a hung sync tool behind a deadline is left running, and the result
says so (see `toolsys.layers.Timeout`). A process can. A tool registered with
`isolate="process"` (or `isolate=Subprocess(memory_mb=..., cpu_seconds=...)`) runs each call in
a forked child, the *keeper*, which runs the tool in a child of its own and is its subreaper
(Linux's PR_SET_CHILD_SUBREAPER): whatever the tool starts, even in a session of its own
(`Popen(..., start_new_session=True)`, `setsid`, a daemon's double fork), stays a descendant of
the keeper, and becomes its child when its own parent ends. When the call ends normally, the
keeper kills whatever the tool left running. When the call is cancelled (a deadline, a run that
is stopped), the keeper sends SIGTERM to the tool and to all it started, then SIGKILL after
`kill_grace` seconds. Either way it reaps every one of them before it ends, and the caller
reaps the keeper before the result (or the cancellation) goes on. Where there is no subreaper
(macOS), the tool's process group is what gets killed: a process that left it can survive.
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
import gc
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
        prctl = _subreaper_call()  # looked up here: the keeper only calls it
        read_fd, write_fd = os.pipe()
        with warnings.catch_warnings():  # Python 3.12+ warns about fork with threads: see above
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the keeper; coverage cannot follow it
            _keeper(read_fd, write_fd, fn, args, self, prctl)
        os.close(write_fd)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # the keeper does it too: whichever runs first wins the race
        try:
            message = await _read_message(read_fd)
        except BaseException:
            await _stop(pid, self.kill_grace)
            raise
        finally:
            os.close(read_fd)
        status = await _ended(pid, _KEEPER_SLACK)  # it ends once nothing the tool started runs
        return _outcome(message, status, self)


_KEEPER_SLACK = 5.0  # seconds the keeper may take to end everything, past the kill grace


def _keeper(
    read_fd: int,
    write_fd: int,
    fn: Callable[..., Any],
    args: Any,
    limits: Subprocess,
    prctl: Callable[..., int] | None,
) -> None:
    """In the first child: run the tool in a child of its own, then end all it started.

    The keeper is a subreaper (Linux): a process the tool starts and leaves, even in a session
    of its own (`start_new_session=True`, `setsid`, a daemon's double fork), becomes the
    keeper's child when its parent ends, so the keeper can kill and reap every one of them,
    after the tool ended or when the call is cancelled (SIGTERM from the caller). Where there is
    no subreaper, the tool's process group is what gets killed.
    """
    code = 70
    try:
        gc.freeze()  # nothing copied from the parent is finalized here: it is the parent's
        os.close(read_fd)
        os.setpgid(0, 0)
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(-1)  # the parent's event loop listens on it: not ours to wake
        signal.pthread_sigmask(signal.SIG_BLOCK, _KEEPER_SIGNALS)  # read with sigtimedwait
        devnull = open(os.devnull, "w")  # noqa: SIM115 - lives until os._exit
        sys.stdout = sys.stderr = devnull
        subreaper = prctl is not None and prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        worker = os.fork()
        if worker == 0:
            _child(write_fd, fn, args, limits)
        os.close(write_fd)
        status = _watch(worker, limits.kill_grace, subreaper)
        code = _mirror(status)
    finally:
        os._exit(code)


_PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
_KEEPER_SIGNALS = {signal.SIGTERM, signal.SIGCHLD}


def _subreaper_call() -> Callable[..., int] | None:
    """libc's `prctl` on Linux, else None (found once, in the parent)."""
    if _prctl:
        return _prctl[0]
    found: Callable[..., int] | None = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            found = ctypes.CDLL(None, use_errno=True).prctl
        except (ImportError, OSError, AttributeError):
            found = None
    _prctl.append(found)
    return found


_prctl: list[Callable[..., int] | None] = []


def _watch(worker: int, grace: float, subreaper: bool) -> int:
    """In the keeper: wait until the tool's process ends or the call is cancelled (SIGTERM),
    then end everything else. The tool's wait status (0 if it never got one)."""
    while not _exited(worker):
        taken = signal.sigtimedwait(_KEEPER_SIGNALS, 1.0)
        if taken is not None and taken.si_signo == signal.SIGTERM:
            break
    else:
        return _kill_all(worker, subreaper)  # it ended: kill whatever it left running
    # Cancelled: SIGTERM to the tool and to what it started, then SIGKILL after the grace.
    _signal_group(worker, signal.SIGTERM)
    for pid in _children(subreaper):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + grace
    while not _exited(worker) and (left := end - time.monotonic()) > 0:
        signal.sigtimedwait({signal.SIGCHLD}, left)
    return _kill_all(worker, subreaper)


def _kill_all(worker: int, subreaper: bool) -> int:
    """SIGKILL the tool's group and every child of the keeper until none is left; reap them.

    A killed process's own children become the keeper's (it is their subreaper), so they are
    found in the next round; the loop ends when the keeper has no child at all.
    """
    _signal_group(worker, signal.SIGKILL)  # the group id is ours until the tool is reaped
    status = 0
    while True:
        children = _children(subreaper) if subreaper else [worker]
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        reaped = False
        while True:
            try:
                pid, wait_status = os.waitpid(-1 if subreaper else worker, os.WNOHANG)
            except ChildProcessError:
                return status
            if pid == 0:
                break
            reaped = True
            if pid == worker:
                status = wait_status
                if not subreaper:
                    return status
        if not reaped:
            time.sleep(0.001)  # a process that is being killed, or is becoming our child


def _children(subreaper: bool) -> list[int]:
    """The keeper's living children: from /proc (this thread's `children` file, else a scan)."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children") as listing:
            return [int(pid) for pid in listing.read().split()]
    except (OSError, ValueError):
        pass
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def _mirror(status: int) -> int:
    """End the keeper as the tool's process ended: the same exit code, or the same signal."""
    code = os.waitstatus_to_exitcode(status) if status else 0
    if code >= 0:
        return code
    signum = -code
    with contextlib.suppress(Exception):
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a SIGXCPU would dump a core
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)
    return 128 + signum  # a signal that does not end a process


def _child(write_fd: int, fn: Callable[..., Any], args: Any, limits: Subprocess) -> None:
    """In the tool's process: run, send the outcome, exit without running anything of the
    parent's."""
    import asyncio  # here, not at import: `import toolsys` does not need asyncio

    code = 70
    try:
        os.setpgid(0, 0)
        _reset_signals()
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
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())  # the keeper's blocked signals


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
    """Ask the keeper to end the call (it sends SIGTERM, then SIGKILL after `grace`, to all the
    tool started) and wait for it; SIGKILL it too if it has not ended in time, then reap it."""
    try:
        _signal_group(pid, signal.SIGTERM)
        await _ended(pid, grace + _KEEPER_SLACK, reap=False)
    finally:
        _signal_group(pid, signal.SIGKILL)
        _reap(pid)


async def _ended(pid: int, seconds: float, *, reap: bool = True) -> int:
    """Wait up to `seconds` for the keeper to exit (then SIGKILL it); its wait status."""
    import asyncio

    end = time.monotonic() + seconds
    try:
        handle = os.pidfd_open(pid)  # readable once the process has exited (Linux 5.3+)
    except (AttributeError, OSError):
        handle = None
    try:
        if handle is not None:
            loop = asyncio.get_running_loop()
            exited: asyncio.Future[None] = loop.create_future()

            def readable() -> None:
                if not exited.done():
                    exited.set_result(None)

            loop.add_reader(handle, readable)
            try:
                async with asyncio.timeout(seconds):
                    await exited
            except TimeoutError:
                pass
            finally:
                loop.remove_reader(handle)
        while not _exited(pid) and time.monotonic() < end:
            await asyncio.sleep(0.002)
    finally:
        if handle is not None:
            os.close(handle)
    if not reap:
        return 0
    if not _exited(pid):
        _signal_group(pid, signal.SIGKILL)
    return _reap(pid)


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
