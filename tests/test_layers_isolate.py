"""isolate="process": a call in its own process group, killed whole at the deadline.

"Dead" means gone or a zombie (state Z: exited, waiting for init to reap it); a process is
checked through /proc, so these tests run on Linux only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.attacks import ESCAPES
from toolsys import Category, ErrorCode, Registry, Subprocess, ToolError
from toolsys.errors import ToolDefinitionError
from toolsys.layers import Timeout

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def state(pid: int) -> str | None:
    """The process's state letter, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rsplit(")", 1)[1].split()[0]


def alive(pid: int) -> bool:
    return state(pid) not in (None, "Z", "X")


def group_members(pgid: int) -> list[int]:
    """Living processes in process group `pgid`."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def eventually(condition: Any, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def wait_for_file(path: Path, seconds: float = 20.0) -> str:
    assert eventually(lambda: path.exists() and path.read_text().endswith("\n"), seconds)
    return path.read_text()


def test_the_deadline_kills_the_whole_process_group_with_no_survivors(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    registry = Registry(layers=[Timeout(seconds=1.0)])

    @registry.tool(category=Category.EXECUTE, isolate="process")
    def spawn_and_hang() -> str:
        """Starts `sleep 600` and waits for it."""
        child = subprocess.Popen(["sleep", "600"])
        pids.write_text(f"{os.getpid()} {child.pid}\n")
        child.wait()
        return "never"

    result = registry.execute("spawn_and_hang")
    tool_pid, sleep_pid = map(int, wait_for_file(pids).split())
    error = result.error
    assert error is not None and error.code == ErrorCode.TIMEOUT
    assert error.details["stopped"] == "killed" and error.details["still_running"] is False
    assert error.details["side_effects"] == "unknown"
    assert result.meta["abandoned_thread"] is False
    assert eventually(lambda: not alive(sleep_pid) and not alive(tool_pid))
    assert group_members(tool_pid) == []


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    registry = Registry(layers=[Timeout(seconds=1.0)])

    @registry.tool(category=Category.EXECUTE, isolate=Subprocess(kill_grace=0.2))
    def stubborn() -> None:
        """Ignores SIGTERM, and so does its child."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 600 & wait"])
        pids.write_text(f"{os.getpid()} {child.pid}\n")
        time.sleep(600)

    result = registry.execute("stubborn")
    tool_pid, shell_pid = map(int, wait_for_file(pids).split())
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert eventually(lambda: group_members(tool_pid) == [])
    assert not alive(shell_pid)


def test_processes_a_finished_call_left_behind_are_killed(tmp_path: Path) -> None:
    registry = Registry()

    @registry.tool(category=Category.EXECUTE, isolate="process")
    def leave_one_behind() -> int:
        """Starts `sleep 600` and returns at once."""
        return subprocess.Popen(["sleep", "600"]).pid

    result = registry.execute("leave_one_behind")
    assert result.ok
    assert eventually(lambda: not alive(result.value))


class Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # pickle calls Unpicklable(message): fails
        super().__init__(f"{a}-{b}")


def test_values_and_exceptions_cross_back_as_data() -> None:
    registry = Registry()

    def isolated(fn: Any) -> Any:
        registry.register(fn, category=Category.EXECUTE, isolate="process")
        return fn

    @isolated
    def pid() -> int:
        """The pid of the process it runs in."""
        return os.getpid()

    @isolated
    def rate_limited() -> None:
        """Raises a ToolError."""
        raise ToolError("RATE_LIMITED", "Slow down.", retryable=True, retry_after=1.5)

    @isolated
    def odd_error() -> None:
        """Raises an exception that cannot be pickled back."""
        raise Unpicklable(1, 2)

    @isolated
    def flaky_network() -> None:
        """Raises a ConnectionError."""
        raise ConnectionError("reset by peer")

    @isolated
    def unsendable() -> Any:
        """Returns a value that cannot be pickled."""
        return lambda: None

    @isolated
    def exits() -> None:
        """Leaves without a word."""
        os._exit(3)

    @isolated
    async def async_value() -> str:
        """An async tool runs in the child too."""
        return "awaited"

    assert registry.execute("pid").value != os.getpid()
    error = registry.execute("rate_limited").error
    assert error is not None and (error.code, error.retryable, error.retry_after) == (
        "RATE_LIMITED",
        True,
        1.5,
    )
    crash = registry.execute("odd_error")
    assert crash.error is not None and "Unpicklable: 1-2" in crash.error.message
    assert "isolated process" not in crash.to_message()  # the remote traceback stays a note
    assert "Raised in the isolated process" in "".join(crash.exception.__notes__)  # type: ignore[union-attr]
    network = registry.execute("flaky_network").exception
    assert isinstance(network, ConnectionError)
    assert "could not be sent back" in registry.execute("unsendable").error.message  # type: ignore[union-attr]
    assert "exited with status 3" in registry.execute("exits").error.message  # type: ignore[union-attr]
    assert registry.execute("async_value").value == "awaited"


def test_memory_and_cpu_limits_apply_in_the_child() -> None:
    registry = Registry(layers=[Timeout(seconds=60)])

    @registry.tool(category=Category.EXECUTE, isolate=Subprocess(memory_mb=64))
    def hog_memory() -> int:
        """Allocates 512 MB."""
        return len(bytearray(512 * 1024 * 1024))

    @registry.tool(category=Category.EXECUTE, isolate=Subprocess(cpu_seconds=1))
    def hog_cpu() -> None:
        """Spins forever."""
        while True:
            pass

    memory = registry.execute("hog_memory").error
    assert memory is not None and "MemoryError" in memory.message
    cpu = registry.execute("hog_cpu").error
    assert cpu is not None and "SIGXCPU" in cpu.message and "cpu_seconds=1" in cpu.message


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"isolate": "thread"}, "isolate='thread' is not supported"),
        ({"isolate": True}, "is not supported"),
    ],
)
def test_an_unknown_isolation_is_refused_at_registration(
    options: dict[str, Any], words: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=words):
        Registry().register(lambda: None, name="x", **options)


@pytest.mark.parametrize(
    "options", [{"memory_mb": 0}, {"cpu_seconds": 1.5}, {"kill_grace": -1}, {"kill_grace": "1"}]
)
def test_bad_limits_are_refused_with_the_value_named(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="Subprocess"):
        Subprocess(**options)


def _escaping_tool(registry: Registry, how: str, pids: Path, hang: bool) -> None:
    source = ESCAPES[how]

    @registry.tool(category=Category.EXECUTE, isolate=Subprocess(kill_grace=0.2))
    def escape() -> int:
        """Starts a process outside its own process group, then returns (or hangs)."""
        pid = eval(source)  # one of ESCAPES: a process in a session of its own
        pids.write_text(f"{pid}\n")
        if hang:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(600)
        return pid


@pytest.mark.parametrize("how", sorted(ESCAPES))
@pytest.mark.parametrize("hang", [False, True], ids=["normal end", "timeout"])
def test_a_process_started_in_a_session_of_its_own_dies_with_the_call(
    tmp_path: Path, how: str, hang: bool
) -> None:
    pids = tmp_path / "pids"
    # A call that ends gets time to spare on a loaded machine (a fork, an exec, a setsid, as in
    # tests/attacks.py); a hung one is stopped after a second, once it has surely started.
    registry = Registry(layers=[Timeout(seconds=1.0 if hang else 30.0)])
    _escaping_tool(registry, how, pids, hang)
    result = registry.execute("escape")
    escaped = int(wait_for_file(pids))
    if hang:
        assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    else:
        assert result.ok and result.value == escaped
    assert eventually(lambda: not alive(escaped)), f"pid {escaped} ({how}) outlived its call"


def children_of(pid: int) -> set[int]:
    """Processes (zombies included) whose parent is `pid`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


@pytest.mark.parametrize("hang", [False, True], ids=["normal end", "timeout"])
def test_an_isolated_call_leaves_no_process_and_no_zombie_behind(hang: bool) -> None:
    # The call that must end is never held to the 0.5 s meant for the hung one (a fork of this
    # process can take that long on a loaded machine).
    registry = Registry(layers=[Timeout(seconds=0.5 if hang else 30.0)])

    @registry.tool(category=Category.EXECUTE, isolate=Subprocess(kill_grace=0.1))
    def quick() -> int:
        """Returns its pid, or hangs."""
        if hang:
            time.sleep(600)
        return os.getpid()

    before = children_of(os.getpid())
    result = registry.execute("quick")
    assert result.ok is not hang
    if not hang:
        assert state(result.value) is None  # gone and reaped (by the keeper)
    assert children_of(os.getpid()) <= before  # and the keeper reaped by us
