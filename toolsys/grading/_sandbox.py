"""Where and how one submission runs: its own temp folder, environment, user and processes.

Why: a submission is untrusted code. It must not see the instructor's secrets or the other
students' files, must not write where the grader writes, and must not outlive its grading.
`Sandbox` prepares a fresh temp folder holding a copy of the submission only, a scrubbed
environment, a verdict log the grader reads through a descriptor it opened itself, and the
kernel command that goes through `_jail.py`; `Sandbox.stop` ends the kernel and every process
the submission started. `isolation()` finds out once per run how strong that can be here.
"""

from __future__ import annotations

import functools
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

from toolsys.checks._core import KEY_ENV, LOG_ENV
from toolsys.grading._jail import end_family

JAIL = Path(__file__).with_name("_jail.py")
COPY_LIMIT_BYTES = 100 * 2**20
COPY_LIMIT_FILES = 2000
PROBE_TIMEOUT = 120.0
_GiB = 2**30


@dataclass(frozen=True)
class Isolation:
    """How submissions are kept apart on this machine, in one line for the instructor."""

    isolated: bool
    summary: str
    uid: int = -1
    gid: int = -1


def _unprivileged() -> tuple[int, int, str]:
    try:
        user = pwd.getpwnam("nobody")
        return user.pw_uid, user.pw_gid, "nobody"
    except KeyError:
        return 65534, 65534, "65534"


def _same_user(reason: str) -> Isolation:
    return Isolation(
        False,
        f"{reason}: each submission runs as your user in its own temp folder and session, "
        "with a scrubbed environment and resource limits; see README 'For instructors'",
    )


@functools.cache
def isolation() -> Isolation:
    """Probe once: can a kernel run as `nobody` in its own namespaces here? (needs root, Linux)."""
    if not sys.platform.startswith("linux"):
        return _same_user("not Linux")
    if os.geteuid() != 0:
        return _same_user("the grader is not root")
    uid, gid, name = _unprivileged()
    probe = Isolation(True, "", uid, gid)
    with Sandbox(probe, timeout=PROBE_TIMEOUT) as box:
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
            failed = done.returncode != 0
            why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        except (OSError, subprocess.SubprocessError) as exc:
            failed, why = True, f"{type(exc).__name__}: {exc}"
    if failed:
        return _same_user(f"WARNING: running as root, but a kernel cannot be isolated ({why})")
    return Isolation(
        True,
        f"each submission runs as user {name} "
        "in its own temp folder and mount, PID, IPC and network namespaces (no network, "
        "no view of other submissions, your home or --out), with resource limits",
        uid,
        gid,
    )


def _kept_paths() -> list[str]:
    """What a kernel needs to see: the Python installation, sys.path and toolsys itself."""
    import toolsys

    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    wanted |= {entry for entry in sys.path if entry}
    wanted |= set(os.environ.get("PYTHONPATH", "").split(os.pathsep)) - {""}
    wanted.add(str(Path(toolsys.__file__).resolve().parent.parent))
    wanted.add(str(Path(sys.executable).resolve().parent))
    folders = {os.path.realpath(p) for p in wanted}
    folders = {p if os.path.isdir(p) else os.path.dirname(p) for p in folders}
    return sorted(p for p in folders if os.path.isdir(p) and p != "/")


def _covered_paths(notebook: Path | None, folder: Path | None, kept: list[str]) -> dict:
    """What a kernel must not see: temp folders, homes, folders that hold submissions."""
    tmp = {tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm", "/run/lock"}
    hide = {str(Path.home()), os.environ.get("HOME", "")}
    for source in (notebook, folder):
        if source is not None:
            hide.add(str(source.resolve().parent))
    for path in kept:  # a folder the unprivileged user cannot walk through is covered too
        parent = Path(path)
        while parent != parent.parent:
            parent = parent.parent
            if not parent.stat().st_mode & stat.S_IXOTH:
                hide.add(str(parent))
    real = lambda paths: sorted({os.path.realpath(p) for p in paths if p} - {"/"})  # noqa: E731
    return {"tmp": real(tmp), "hide": real(hide)}


class Sandbox:
    """One submission's temp folder (`work/` its cwd, `home/` its HOME), log and kernel command."""

    def __init__(
        self,
        isolation: Isolation,
        *,
        timeout: float,
        notebook: Path | None = None,
        folder: Path | None = None,
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
        # The jail's and the kernel's own stdout/stderr; closed in __exit__.
        self.diagnostics = tempfile.TemporaryFile()  # noqa: SIM115
        self._jail: subprocess.Popen[bytes] | None = None
        try:
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
        isolated = self.isolation.isolated
        if isolated:
            for path in [self.root, *self.root.rglob("*")]:
                os.lchown(path, self.isolation.uid, self.isolation.gid)
        kept = _kept_paths() if isolated else []
        self._config = {
            "isolate": isolated,
            "uid": self.isolation.uid,
            "gid": self.isolation.gid,
            "covers": _covered_paths(notebook, folder, kept) if isolated else {},
            "keep_ro": kept,
            "keep_rw": [str(self.root)],
            "chown": [str(self.connection_file)],
            "cwd": str(cwd),
            "limits": self._limits(),
        }

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
        os.close(self.log_fd)
        self.diagnostics.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def _limits(self) -> dict[str, int]:
        limits = {
            "AS": 4 * _GiB,
            "CPU": int(self.timeout) + 60,
            "FSIZE": 64 * 2**20,
            "CORE": 0,
        }
        if self.isolation.isolated:  # per user: meaningful only for a user nobody else runs as
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
