"""The process a graded kernel is launched through: it isolates, limits, supervises and cleans up.

Why a separate script: jupyter_client starts "the kernel" with one command line, and what must
happen between the grader and the student's code (namespaces, mounts, dropping root, resource
limits) cannot run safely inside the grader's threads. So the kernel command is
`python -I -S _jail.py CONFIG -- python -m ipykernel_launcher -f CONN`; this file imports
only the standard library (never toolsys) and must stay runnable as a plain script.

With `isolate` (the grader is root and its probe succeeded) the jail unshares the mount, PID,
IPC and network namespaces; covers the temp folders, the instructor's home and the submission
folders with empty tmpfs mounts; binds back, read-only, only what the kernel needs (the Python
installation, sys.path) and, writable, the submission's own temp folder; then runs the kernel
as PID 2 under a tiny init (PID 1) as an unprivileged user. When init ends, Linux kills every
process in the namespace: nothing a submission starts (background jobs, double forks, `setsid`)
outlives its kernel. Without `isolate`, the kernel runs as the grader's user in its own session,
with the same resource limits; the jail is a subreaper (orphans of the kernel become its
children, even after `setsid`) and kills all its descendants and its session when the kernel
ends. Either way the jail watches the grader: if the grader dies, the submission dies with it.
The grader uses `end_family` too, to end a submission while its jail is still alive.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import sys
import time

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x8000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
LIMITS = {
    "AS": resource.RLIMIT_AS,
    "CPU": resource.RLIMIT_CPU,
    "FSIZE": resource.RLIMIT_FSIZE,
    "NPROC": resource.RLIMIT_NPROC,
    "CORE": resource.RLIMIT_CORE,
}
POLL = 0.2


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _call(name: str, *args: object) -> None:
    if getattr(_libc(), name)(*args) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{name}{args!r}: {os.strerror(number)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    encode = lambda text: text.encode() if text is not None else None  # noqa: E731
    _call("mount", encode(source), encode(target), encode(fstype), flags, encode(data or None))


def _depth(path: str) -> int:
    return len([part for part in path.split("/") if part])


def _build_view(config: dict) -> None:
    """Cover, then bind back what is kept, shallowest path first (so deeper mounts win)."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    keep = {path: False for path in config["keep_ro"]} | {p: True for p in config["keep_rw"]}
    handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in keep}
    steps = [(_depth(p), 0, p, kind) for kind, paths in config["covers"].items() for p in paths]
    steps += [(_depth(p), 1, p, "keep") for p in keep]
    for _, _, path, kind in sorted(steps):
        if kind == "keep":
            os.makedirs(path, exist_ok=True)  # inside a cover, the mount point must exist
            _mount(f"/proc/self/fd/{handles[path]}", path, None, MS_BIND)
            if not keep[path]:
                flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
                _mount(None, path, None, flags)
        elif path not in keep and os.path.isdir(path):  # absent once a shallower cover hid it
            options = "mode=1777,size=64m" if kind == "tmp" else "mode=0755,size=1m"
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options)
    for handle in handles.values():
        os.close(handle)


def _become_kernel(config: dict, command: list[str]) -> None:
    """In the child: limits, then (isolated) the unprivileged user, then exec the kernel."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-big write fails, not the kernel
        if config["isolate"]:
            os.setgroups([])
            os.setresgid(config["gid"], config["gid"], config["gid"])
            os.setresuid(config["uid"], config["uid"], config["uid"])
        for name, value in config["limits"].items():
            resource.setrlimit(LIMITS[name], (value, value))
        if sys.platform.startswith("linux"):
            _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        os.umask(0o077)
        os.chdir(config["cwd"])
        env = {k: v for k, v in os.environ.items() if k != "JPY_PARENT_PID"}
        os.execve(command[0], command, env)
    except BaseException as exc:  # report any failure, then end this child only
        print(f"toolsys jail: cannot start the kernel: {exc}", file=sys.stderr, flush=True)
    os._exit(127)


def _init(config: dict, command: list[str]) -> None:
    """PID 1 of the new namespace: start the kernel, reap orphans, end when the kernel ends."""
    code = 1
    try:
        _call("prctl", PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        kernel = os.fork()
        if kernel == 0:
            _become_kernel(config, command)
        while True:
            pid, status = os.wait()
            if pid == kernel:
                code = os.waitstatus_to_exitcode(status)
                break
    except BaseException as exc:  # report it; the namespace ends with this process
        print(f"toolsys jail: init failed: {exc}", file=sys.stderr, flush=True)
    os._exit(code if code >= 0 else 128 - code)


def _processes() -> dict[int, tuple[int, int]]:
    """Every process as pid -> (parent pid, session id), from Linux's /proc; {} elsewhere."""
    table = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            table[int(entry)] = (int(fields[1]), int(fields[3]))
    return table


def family(leader: int) -> set[int]:
    """The processes `leader` started (its descendants) and the members of its session."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [leader]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    if leader != os.getsid(0):  # never the caller's own session
        found |= {pid for pid, (_, session) in table.items() if session == leader}
    return found - {leader, os.getpid()}


def end_family(leader: int) -> set[int]:
    """Kill `leader`'s family until none is left (a few seconds at most); what survived."""
    if not os.path.isdir("/proc"):  # no process table to read: its process group, at least
        with contextlib.suppress(OSError):
            os.killpg(leader, signal.SIGKILL)
        return set()
    left = family(leader)
    for _ in range(100):
        if not left:
            break
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
        left = family(leader)
    return left


def _supervise(child: int, grader: int) -> int:
    """Wait for the child; if the grader dies first, end the child and all it started.

    As a subreaper the jail inherits whatever its descendants orphan (a double fork), so
    `end_family` finds them all, even those that left the session.
    """
    code = 1
    while True:
        pid, status = os.waitpid(-1, os.WNOHANG)  # reaps adopted orphans too
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            break
        if os.getppid() != grader:
            break
        if pid == 0:
            time.sleep(POLL)
    end_family(os.getpid())
    return code if code >= 0 else 128 - code


def main(argv: list[str]) -> int:
    config, command = json.loads(argv[1]), argv[3:]
    grader = os.getppid()
    os.umask(0o022)  # mount points made inside covers must be walkable by the kernel's user
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # interrupts are for the kernel only
    if sys.platform.startswith("linux"):
        _call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if config["isolate"]:
        try:
            _call("unshare", CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET)
            _build_view(config)
            for path in config["chown"]:
                if os.path.exists(path):
                    os.chown(path, config["uid"], config["gid"])
        except OSError as exc:
            print(f"toolsys jail: cannot isolate the kernel: {exc}", file=sys.stderr, flush=True)
            return 70
    child = os.fork()
    if child == 0:
        if config["isolate"]:
            _init(config, command)
        _become_kernel(config, command)
    return _supervise(child, grader)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
