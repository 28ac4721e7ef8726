"""The process a graded kernel is launched through: it isolates, limits, supervises and cleans up.

Why a separate script: jupyter_client starts "the kernel" with one command line, and what must
happen between the grader and the student's code (namespaces, mounts, dropping root, resource
limits) cannot run safely inside the grader's threads. So the kernel command is
`python -I -S _jail.py CONFIG -- python -m ipykernel_launcher -f CONN`; this file imports
only the standard library (never toolsys) and must stay runnable as a plain script.

With `isolate` (the grader is root and its probe succeeded) the jail unshares the PID, IPC and
network namespaces and starts a tiny init (PID 1 of the new PID namespace). Init unshares the
mount namespace and builds a new root file system from nothing: an empty tmpfs into which it
binds, read-only, only what the grader listed (the system's /usr, /bin, /lib and /etc, the
Python installation and the folders the kernel imports from), a fresh /proc, /tmp and /dev
(null, zero, full, random, urandom) and, writable, the submission's own temp folder; then it
pivots into it and detaches the old root, so no other path of the machine can be named. The
kernel runs as PID 2 as the submission's own unprivileged user (a uid no one else uses, so
per-user limits such as RLIMIT_NPROC are per submission). When init ends, Linux kills every
process in the namespace: nothing a submission starts (background jobs, double forks, `setsid`)
outlives its kernel. Without `isolate`, the kernel runs in its own session, as its own user when
the config names one (a root grader without namespaces) or else as the grader's user, with the
same resource limits; the jail is a subreaper (orphans of the kernel become its children, even
after `setsid`) and kills all its descendants and its session when the kernel ends. Either way
the jail watches the grader (if the grader dies, the submission dies with it) and the memory
all the submission's processes hold together: past the limit it ends them all and says so on
stderr. The grader uses `end_family` too, to end a submission while its jail is still alive.
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
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
LIMITS = {
    "AS": resource.RLIMIT_AS,
    "CPU": resource.RLIMIT_CPU,
    "FSIZE": resource.RLIMIT_FSIZE,
    "NPROC": resource.RLIMIT_NPROC,
    "CORE": resource.RLIMIT_CORE,
}
POLL = 0.1
"""Seconds between two looks at the grader and at the memory the submission holds."""
SAYS = "toolsys jail:"
"""How every line the jail writes for the grader starts."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _call(name: str, *args: object) -> None:
    if getattr(_libc(), name)(*args) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{name}{args!r}: {os.strerror(number)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    encode = lambda text: text.encode() if text is not None else None  # noqa: E731
    _call("mount", encode(source), encode(target), encode(fstype), flags, encode(data or None))


def _bind(source: str, target: str, flags: int) -> None:
    """Bind `source` on `target`, then apply `flags` (a bind's own flags need a remount)."""
    _mount(source, target, None, MS_BIND)
    _mount(None, target, None, MS_BIND | MS_REMOUNT | flags)


def _build_root(fs: dict) -> None:
    """Make the new root at fs["root"] from fs["steps"], then switch to it for good.

    Steps come sorted, shallowest first: ("ro"|"rw"|"dev", target, source) bind a folder or
    file, ("tmpfs", target, options), ("proc", target, "") and ("link", target, text).
    """
    root = fs["root"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for kind, target, source in fs["steps"]:
        where = root + target
        os.makedirs(os.path.dirname(where), exist_ok=True)
        if kind == "link":
            os.symlink(source, where)
            continue
        if kind in ("ro", "rw", "dev") and not os.path.isdir(source):
            with open(where, "a"):  # a file to bind a file (or a device) onto
                pass
        else:
            os.makedirs(where, exist_ok=True)
        if kind == "tmpfs":
            _mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, source)
        elif kind == "proc":
            _mount("proc", where, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "dev":
            _bind(source, where, MS_NOSUID | MS_NOEXEC)
        else:
            _bind(source, where, MS_NOSUID | MS_NODEV | (MS_RDONLY if kind == "ro" else 0))
    os.mkdir(root + "/.old")
    _call("pivot_root", root.encode(), (root + "/.old").encode())
    os.chdir("/")
    _call("umount2", b"/.old", MNT_DETACH)
    os.rmdir("/.old")
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _become_kernel(config: dict, command: list[str]) -> None:
    """In the child: limits, then the submission's own user (if any), then exec the kernel."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-big write fails, not the kernel
        if config["uid"] >= 0:
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
        _say(f"cannot start the kernel: {exc}")
    os._exit(127)


def _init(config: dict, command: list[str]) -> None:
    """PID 1 of the new namespace: start the kernel, reap orphans, end when the kernel ends."""
    code = 1
    try:
        _call("prctl", PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        _call("unshare", CLONE_NEWNS)
        _build_root(config["fs"])
        kernel = os.fork()
        if kernel == 0:
            _become_kernel(config, command)
        while True:
            pid, status = os.wait()
            if pid == kernel:
                code = os.waitstatus_to_exitcode(status)
                break
    except BaseException as exc:  # report it; the namespace ends with this process
        _say(f"init failed: {exc}")
    os._exit(code if code >= 0 else 128 - code)


def _say(text: str) -> None:
    print(f"{SAYS} {text}", file=sys.stderr, flush=True)


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


def resident(pids: set[int]) -> int:
    """Bytes of memory the processes `pids` hold together: their proportional set sizes (a page
    shared by n of them counts 1/n in each, so forked workers are not counted n times), or their
    resident sizes where Linux has no `smaps_rollup` (before 4.14)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
                found = [line for line in handle if line.startswith(b"Pss:")]
            total += int(found[0].split()[1]) * 1024
        except (OSError, IndexError, ValueError):  # no smaps_rollup, or the process ended
            try:
                with open(f"/proc/{pid}/statm", "rb") as handle:
                    total += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, IndexError, ValueError):
                continue
    return total


def _supervise(child: int, grader: int, memory: int) -> int:
    """Wait for the child; if the grader dies first, or the submission's processes together
    hold more than `memory` bytes, end the child and all it started.

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
            if memory and resident(family(os.getpid())) > memory:
                _say(
                    f"the submission's processes held more than {memory / 2**30:g} GiB of "
                    "memory together; all of them were stopped"
                )
                code = -int(signal.SIGKILL)
                break
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
    try:
        if config["isolate"]:
            _call("unshare", CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET)
        for path in config["chown"] if config["uid"] >= 0 else []:
            if os.path.exists(path):
                os.chown(path, config["uid"], config["gid"])
    except OSError as exc:
        _say(f"cannot isolate the kernel: {exc}")
        return 70
    child = os.fork()
    if child == 0:
        if config["isolate"]:
            _init(config, command)
        _become_kernel(config, command)
    return _supervise(child, grader, config["memory"])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
