"""Where and how one submission runs: its own temp folder, environment, user and processes.

Why: a submission is untrusted code. It must not see the instructor's secrets or the other
students' files, must not write where the grader writes, must not outlive its grading, and
what it uses (processes, memory) must not change another submission's grade. `Sandbox`
prepares a fresh temp folder holding a copy of the submission only, a scrubbed environment, a
verdict log the grader reads through a descriptor it opened itself, and the kernel command that
goes through `_jail.py`: isolated, with a uid of its own and a root file system listing only
what the kernel needs (`root_steps`); `Sandbox.stop` ends the kernel and every process the
submission started. `isolation()` finds out once per run how strong that can be here.
"""

from __future__ import annotations

import fcntl
import functools
import grp
import json
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from toolsys.checks import KEY_ENV, LOG_ENV
from toolsys.grading._jail import end_family
from toolsys.grading.hidden import HIDDEN_ENV, copy_cases

JAIL = Path(__file__).with_name("_jail.py")
COPY_LIMIT_BYTES = 100 * 2**20
COPY_LIMIT_FILES = 2000
PROBE_TIMEOUT = 120.0
_GiB = 2**30
MEMORY_LIMIT = 4 * _GiB
"""Bytes of resident memory all of one submission's processes may hold together."""
UID_FIRST, UID_COUNT = 2_000_000_000, 65_536
"""Each isolated submission runs as its own uid from this range (one no one else uses)."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""System folders an isolated kernel sees, read-only (those that exist here)."""
DEVICES = ("null", "zero", "full", "random", "urandom")
LEVEL_ENV = "TOOLSYS_GRADER_ISOLATION"
"""Set to "user" to skip namespaces: each submission still runs as a user of its own (what a
container without namespaces gives, e.g. Gradescope's; also to test that path). Set to "none"
to let a root grader run submissions as root when nothing better works (a throwaway VM)."""


@dataclass(frozen=True)
class Isolation:
    """How submissions are kept apart on this machine, in one line for the instructor.

    `isolated`: namespaces and a file system of their own (and their own user); `own_user`:
    each submission runs as a user of its own, at least (the grader is root); `refusal`: why
    grading must not start (a root grader that could only run submissions as root).
    """

    isolated: bool
    summary: str
    own_user: bool = False
    refusal: str = ""


def _same_user(reason: str) -> Isolation:
    return Isolation(
        False,
        f"{reason}: each submission runs as your user in its own temp folder and session, "
        "with a scrubbed environment and resource limits; see README 'For instructors'",
    )


def _probe(level: Isolation) -> str:
    """Why a kernel cannot start at `level` here ("" when it can)."""
    with Sandbox(level, timeout=PROBE_TIMEOUT) as box:
        command = [sys.executable, "-c", "import ipykernel.kernelapp, toolsys"]
        try:
            done = subprocess.run(
                box.command(command),
                env=box.env(),
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT,
                start_new_session=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"{type(exc).__name__}: {exc}"
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]


@functools.cache
def isolation() -> Isolation:
    """Probe once: how far can a kernel be isolated here? (Namespaces need root and Linux.)

    In a container that forbids namespaces (Docker's default seccomp profile, Gradescope's
    autograder) a root grader still runs each submission as a user of its own.
    """
    if not sys.platform.startswith("linux"):
        return _same_user("not Linux")
    if os.geteuid() != 0:
        return _same_user("the grader is not root")
    level = os.environ.get(LEVEL_ENV, "")
    if level == "none":
        return _same_user(f"WARNING: running as root, with {LEVEL_ENV}=none")
    why = f"{LEVEL_ENV}={level}" if level == "user" else _probe(Isolation(True, "", own_user=True))
    if not why:
        return Isolation(
            True,
            "each submission runs as its own unprivileged user in its own temp folder and "
            "mount, PID, IPC and network namespaces, on a file system holding only the system "
            "folders, the Python installation and its own files (no network, no view of other "
            "submissions, your files or --out), with resource limits of its own",
            own_user=True,
        )
    alone = _probe(Isolation(False, "", own_user=True))
    if alone:
        refusal = (
            f"running as root, but a submission can neither be isolated ({why}) nor run as a "
            f"user of its own ({alone}); make the Python installation readable by every user, "
            f"grade as an ordinary user, or set {LEVEL_ENV}=none to run submissions as root"
        )
        return Isolation(False, f"refused: {refusal}", refusal=refusal)
    return Isolation(
        False,
        f"WARNING: namespaces are not available here ({why}): each submission runs as its "
        "own unprivileged user in its own temp folder, with resource limits of its own, but "
        "sees whatever any user of this machine may read, and the network",
        own_user=True,
    )


_KERNEL_PATHS = """
import json, os, sys
import ipykernel, toolsys
paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.executable]
paths += [*sys.path, os.path.dirname(toolsys.__file__)]
for name, module in list(sys.modules.items()):  # setuptools' editable installs
    if name.startswith("__editable__") and name.endswith("_finder"):
        paths += getattr(module, "MAPPING", {}).values()
        paths += [p for more in getattr(module, "NAMESPACES", {}).values() for p in more]
print(json.dumps([p for p in paths if os.path.isabs(p) and os.path.exists(p)]))
"""


@functools.cache
def kernel_paths() -> tuple[str, ...]:
    """What a graded kernel imports from, asked of a Python started as the kernel will be.

    The grader's own `sys.path` is not the kernel's: it may hold the current folder, a test
    runner's folders or an editable install's path hook (which `realpath` turns into the current
    folder). The kernel's environment, from a neutral folder, names only the Python installation,
    its site-packages and the folders of editable installs.
    """
    python_path = os.environ.get("PYTHONPATH", "")
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    env |= {"PYTHONPATH": python_path} if python_path else {}
    done = subprocess.run(
        [sys.executable, "-c", _KERNEL_PATHS],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT,
        check=True,
    )
    return tuple(sorted(set(json.loads(done.stdout)) - {"/"}))


def _resolve(path: str, links: dict[str, str], depth: int = 0) -> str:
    """`path` with every symbolic link resolved; each link met is recorded in `links`."""
    if depth > 40:
        raise OSError(f"{path}: too many levels of symbolic links")
    current = "/"
    for part in Path(os.path.abspath(path)).parts[1:]:
        step = os.path.join(current, part)
        if os.path.islink(step):
            links[step] = os.readlink(step)
            step = _resolve(os.path.normpath(os.path.join(current, links[step])), links, depth + 1)
        current = step
    return current


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def root_steps(sandbox: Path) -> list[tuple[str, str, str]]:
    """The isolated kernel's whole file system, as the jail builds it (see `_jail._build_root`).

    Read-only: the system folders and what the kernel imports from, each at its real path, and
    the symbolic links that lead there from the paths the kernel uses; fresh: /proc, /tmp,
    /dev/shm and a /dev holding only a few devices; writable: the submission's temp folder.
    Nothing else of this machine (the current folder, homes, other submissions, --out) exists.
    """
    links: dict[str, str] = {}
    real = {_resolve(p, links) for p in [*SYSTEM, *kernel_paths()] if os.path.lexists(p)}
    real = {p for p in real if os.path.exists(p)}
    binds = {p for p in real if not any(_under(p, q) for q in real if q != p)}
    steps = [("ro", path, path) for path in binds]
    steps += [
        ("link", path, text)
        for path, text in links.items()
        if not any(_under(path, folder) for folder in binds)
    ]
    steps += [
        ("proc", "/proc", ""),
        ("tmpfs", "/tmp", "mode=1777,size=64m"),
        ("tmpfs", "/dev", "mode=0755,size=64k"),
        ("tmpfs", "/dev/shm", "mode=1777,size=64m"),
        ("link", "/dev/fd", "/proc/self/fd"),
        *[("link", f"/dev/{name}", f"/proc/self/fd/{n}") for n, name in enumerate(_STDIO)],
        *[("dev", f"/dev/{name}", f"/dev/{name}") for name in DEVICES],
    ]
    own = os.path.realpath(sandbox)
    steps.append(("rw", own, own))
    return sorted(steps, key=lambda step: (_depth(step[1]), step[1]))


_STDIO = ("stdin", "stdout", "stderr")


def _depth(path: str) -> int:
    return len([part for part in path.split("/") if part])


class _Uid:
    """A uid no one else uses, held (a lock file of the grader's) until `release`.

    Each isolated submission runs as its own user: a per-user limit (RLIMIT_NPROC counts every
    process and thread of a user) is then one submission's alone, and no two submissions can
    signal or read each other's processes. A uid is taken only if no account, group or running
    process has it, and if no other grader (another `toolsys check` on this machine) holds it.
    """

    def __init__(self) -> None:
        locks = Path("/run/toolsys-grader" if os.path.isdir("/run") else tempfile.gettempdir())
        if locks.name != "toolsys-grader":
            locks = locks / f"toolsys-grader-{os.geteuid()}"
        locks.mkdir(mode=0o700, exist_ok=True)
        info = locks.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise OSError(f"{locks}: not a private folder of the grader's; remove it")
        running = _running_uids()
        for uid in range(UID_FIRST, UID_FIRST + UID_COUNT):
            if uid in running or _has_account(uid):
                continue
            handle = os.open(locks / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            self.uid, self._handle = uid, handle
            return
        raise OSError(f"no free uid from {UID_FIRST} to {UID_FIRST + UID_COUNT - 1}")

    def release(self) -> None:
        """Give the uid back, unless a process still runs as it (then it stays taken)."""
        if self._handle >= 0 and self.uid not in _running_uids():
            os.close(self._handle)
            self._handle = -1


def _has_account(uid: int) -> bool:
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return True
        except KeyError:
            pass
    return False


def _running_uids() -> set[int]:
    """The real, effective, saved and file-system uids of every process (Linux's /proc)."""
    found: set[int] = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("Uid:"):
                found.update(int(uid) for uid in line.split()[1:])
                break
    return found


class Sandbox:
    """One submission's temp folder (`work/` its cwd, `home/` its HOME), log and kernel command."""

    def __init__(
        self,
        isolation: Isolation,
        *,
        timeout: float,
        notebook: Path | None = None,
        folder: Path | None = None,
        hidden: Path | None = None,
    ) -> None:
        self.isolation = isolation
        self.timeout = timeout
        self.notes: list[str] = []
        self.key = secrets.token_hex(32)
        self.root = Path(tempfile.mkdtemp(prefix="toolsys-grade-"))
        self.work, self.home = self.root / "work", self.root / "home"
        self.run, self.tmp = self.root / "run", self.root / "tmp"
        for made in (self.work, self.home, self.run, self.tmp):
            made.mkdir(mode=0o700)
        self.log = self.run / "verdicts.jsonl"
        self.log.touch(mode=0o600)
        self.log_fd = os.open(self.log, os.O_RDONLY | os.O_NOFOLLOW)
        self.connection_file = self.run / "kernel.json"
        self.hidden = self.run / "hidden" if hidden is not None else None
        # The jail's and the kernel's own stdout/stderr; closed in __exit__.
        self.diagnostics = tempfile.TemporaryFile()  # noqa: SIM115
        self._jail: subprocess.Popen[bytes] | None = None
        self._uid: _Uid | None = None
        try:
            if isolation.own_user:
                self._uid = _Uid()
            if hidden is not None and self.hidden is not None:
                copy_cases(hidden, self.hidden)
            self._prepare(notebook, folder)
        except BaseException:
            self.__exit__()
            raise

    def _prepare(self, notebook: Path | None, folder: Path | None) -> None:
        cwd = self.work
        if notebook is not None:
            self._copy(notebook, folder)
            if folder is not None:  # the kernel starts in the notebook's own folder, as in Jupyter
                cwd = self.work / notebook.relative_to(folder).parent
        uid = self._uid.uid if self._uid is not None else -1
        isolated = uid >= 0 and self.isolation.isolated
        if isolated:
            (self.root / "fs").mkdir(mode=0o700)  # where the jail builds the kernel's root
        if uid >= 0:
            for path in [self.root, *self.root.rglob("*")]:
                os.lchown(path, uid, uid)
        self._config = {
            "isolate": isolated,
            "uid": uid,
            "gid": uid,
            "fs": {"root": str(self.root / "fs"), "steps": root_steps(self.root)}
            if isolated
            else {},
            "chown": [str(self.connection_file)],
            "cwd": str(cwd),
            "limits": self._limits(),
            "memory": MEMORY_LIMIT,
        }

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
        os.close(self.log_fd)
        self.diagnostics.close()
        shutil.rmtree(self.root, ignore_errors=True)
        if self._uid is not None:
            self._uid.release()

    def _limits(self) -> dict[str, int]:
        limits = {
            "AS": 4 * _GiB,
            "CPU": int(self.timeout) + 60,
            "FSIZE": 64 * 2**20,
            "CORE": 0,
        }
        if self.isolation.own_user:  # per user: this submission's own uid
            limits["NPROC"] = 512
        return limits

    def _copy(self, notebook: Path, folder: Path | None) -> None:
        """Copy the submission: its own folder, or the notebook and the plain files beside it."""
        if folder is not None:
            sources = [(p, p.relative_to(folder)) for p in sorted(folder.rglob("*"))]
        else:
            beside = [p for p in sorted(notebook.parent.iterdir()) if p.suffix != ".ipynb"]
            sources = [(p, Path(p.name)) for p in [notebook, *beside]]
        copied = size = 0
        for source, relative in sources:
            if ".ipynb_checkpoints" in relative.parts:
                continue
            info = source.lstat()
            target = self.work / relative
            if stat.S_ISDIR(info.st_mode) and folder is not None:
                target.mkdir(parents=True, exist_ok=True)
            elif stat.S_ISREG(info.st_mode):  # never a symlink: it could point anywhere
                if copied >= COPY_LIMIT_FILES or size + info.st_size > COPY_LIMIT_BYTES:
                    self.notes.append(
                        f"only {copied} files ({size // 2**20} MB) of the submission were "
                        "copied for grading; the rest is over the limit"
                    )
                    return
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(source, "rb", opener=_no_follow) as src, open(target, "xb") as dst:
                    shutil.copyfileobj(src, dst)
                copied, size = copied + 1, size + info.st_size

    def env(self) -> dict[str, str]:
        """The kernel's whole environment: nothing of the instructor's but PATH and PYTHONPATH."""
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "LANG": "C.UTF-8",
            "TOOLSYS_OFFLINE": "1",
            "PYTHONHASHSEED": "0",
            LOG_ENV: str(self.log),
            KEY_ENV: self.key,
        }
        if self.hidden is not None:
            env[HIDDEN_ENV] = str(self.hidden)
        entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        python_path = [os.path.abspath(p) for p in entries if p]
        if python_path:
            env["PYTHONPATH"] = os.pathsep.join(python_path)
        return env

    def command(self, kernel: list[str]) -> list[str]:
        """`kernel` (an argv) launched through the jail with this sandbox's configuration."""
        return [sys.executable, "-I", "-S", str(JAIL), json.dumps(self._config), "--", *kernel]

    def started(self, jail: subprocess.Popen[bytes]) -> None:
        """Remember the jail of a started kernel, so `stop` can end all it started."""
        self._jail = jail

    def stop(self) -> None:
        """Kill every process of this submission, while its jail is alive to name them.

        A jail that has already ended has done this itself (in a namespace, the kernel kills
        whatever is left when its init ends); its pid may then belong to someone else.
        """
        if self._jail is not None and self._jail.poll() is None:
            left = end_family(self._jail.pid)
            if left:
                self.notes.append(f"processes still running after grading: {sorted(left)}")
        self._jail = None


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW)
