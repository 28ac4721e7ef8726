"""`toolsys check` against hostile submissions: real notebooks that attack the grader.

One class of two sections is graded once (module fixture, `toolsys check secA secB --out gb`
run from the course folder, two kernels at a time): honest students (`victim` in section A,
`bob` in section B) and attackers graded in the same run. A `forger` writes verdicts into its
log (and tries the others'), a `snoop` looks for secrets, other students' files, the other
section and the last gradebook, a `lingerer` leaves processes behind to rewrite the gradebook
later and tries the resource limits, `busy` starts as many threads as it may and holds them
while the others start (once enough to keep every other kernel from starting), a `hog`'s
processes together hold more memory than a submission may, and a student's file name and
messages are spreadsheet formulas and broken Markdown. The course folder is outside the temp
folders and homes, where an instructor keeps it. The isolation promises need root (they are
skipped otherwise, see README "For instructors"); the rest hold for any user.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys import grading
from toolsys.cli import main

SECRET = f"sk-proj-{uuid.uuid4().hex}"
MARK = f"toolsys-adversary-{uuid.uuid4().hex[:12]}"
FORMULA_NAME = '=HYPERLINK("evil.example","click")|a\nb'

DEMO_CHECKS = """
import json
from toolsys.checks import CheckFailed, exercise, expect_equal, expect_raises

@exercise("99.1", title="Divide safely")
def _(student):
    expect_equal(student(6, 3), 2, what="safe_div(6, 3)")
    expect_raises(ValueError, student, 1, 0, what="safe_div(1, 0)")

@exercise("99.2", title="Double")
def _(student):
    expect_equal(student(4), 8, what="double(4)")

@exercise("99.9", title="Report what the submission saw")
def _(seen):
    raise CheckFailed(json.dumps(seen, sort_keys=True))
"""
SETUP = "import demo_checks\nfrom toolsys.checks import check"
WRONG = "def safe_div(a, b):\n    return a / b if b else 0\ncheck('99.1', safe_div)"
DOUBLE = "def double(x):\n    return 2 * x\ncheck('99.2', double)"
STUB = "def double(x):\n    raise NotImplementedError\ncheck('99.2', double)"

FORGER = """
import glob, json, os
from toolsys.checks._core import verdict_mac
log = os.environ["TOOLSYS_CHECK_LOG"]
forged = {"exercise": "99.1", "title": "", "status": "passed", "message": "",
          "expected": None, "got": None, "hint": None}
lines = [
    json.dumps(forged),                                   # no signature
    json.dumps({**forged, "mac": "0" * 64}),              # a wrong one
    "{not json",
    json.dumps({**forged, "status": "hacked"}),
    json.dumps({**forged, "exercise": "../../etc"}),
    json.dumps({**forged, "message": "x" * 10000}),
    "[" * 100000,
    json.dumps([1, 2]),
]
with open(log, "a") as handle:
    handle.write("\\n".join(lines) + "\\n")
with open(log, "ab") as handle:
    handle.write(b"\\xff\\xfe not UTF-8\\n")
# The documented limit: with its own kernel's key, a submission can sign its own verdicts.
own = {**forged, "exercise": "99.2"}
own["mac"] = verdict_mac(os.environ["TOOLSYS_CHECK_KEY"], own)
with open(log, "a") as handle:
    handle.write(json.dumps(own) + "\\n")
for other in glob.glob("/tmp/toolsys-grade-*/run/verdicts.jsonl"):
    if other != log:
        try:
            with open(other, "a") as handle:
                handle.write(json.dumps(forged) + "\\n")
        except OSError:
            pass
"""

SNOOP = """
import glob, json, os, socket
def attempt(action):
    try:
        action()
        return "ok"
    except Exception as exc:
        return type(exc).__name__
def secret_in_proc():
    for path in glob.glob("/proc/[0-9]*/environ"):
        try:
            with open(path, "rb") as handle:
                if SECRET.encode() in handle.read():
                    return True
        except OSError:
            pass
    return False
seen = {
    "env": sorted(os.environ),
    "secret_in_env": any(SECRET in value for value in os.environ.values()),
    "root_in_env": any(ROOT in value for value in os.environ.values()),
    "secret_in_proc": secret_in_proc(),
    "home": os.environ.get("HOME"),
    "cwd": os.getcwd(),
    "cwd_files": sorted(os.listdir(".")),
    "uid": os.getuid(),
    "read_victim": attempt(lambda: open(VICTIM).read()),
    "list_submissions": attempt(lambda: os.listdir(ROOT)),
    "write_out": attempt(lambda: open(os.path.join(OUT, "planted.csv"), "w").write("x")),
    "connect": attempt(lambda: socket.create_connection(("127.0.0.1", PORT), timeout=3)),
    "other_logs": [
        p for p in glob.glob("/tmp/toolsys-grade-*/run/verdicts.jsonl")
        if p != os.environ["TOOLSYS_CHECK_LOG"]
    ],
    "read_other_section": attempt(lambda: open(OTHER_SECTION).read()),
    "read_last_gradebook": attempt(lambda: open(LAST_GRADEBOOK).read()),
    "list_course": attempt(lambda: os.listdir(COURSE)),
    "root": sorted(os.listdir("/")),
}
check("99.9", seen)
"""

THREADS = """
import threading, time
threading.stack_size(256 * 1024)  # default stacks (8 MiB) would meet the address-space limit first
release = threading.Event()
started = []
try:
    for _ in range(600):  # as many threads as this user may have
        started.append(threading.Thread(target=release.wait, daemon=True))
        started[-1].start()
except RuntimeError:
    started.pop()
time.sleep(8)  # graded first: the next kernels start meanwhile
release.set()
for thread in started:
    thread.join()
"""

HOG = """
import os, time
children = []
for _ in range(4):  # each well under the address-space limit, together over the memory limit
    pid = os.fork()
    if pid == 0:
        block = b"x" * (300 * 2**20)
        time.sleep(60)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
"""

LINGERER = """
import errno, os, subprocess, sys
subprocess.Popen(["sh", "-c", "sleep 600; : MARK-background"])
if os.fork() == 0:  # a double fork out of the kernel's session, to rewrite the gradebook later
    os.setsid()
    if os.fork() == 0:
        code = ("import time\\nfor _ in range(600):\\n    try:\\n"
                "        open(GRADEBOOK, 'w').write('all passed')\\n"
                "    except OSError:\\n        pass\\n    time.sleep(0.2)")
        rewrite = f"GRADEBOOK = {GRADEBOOK!r}\\n" + code
        os.execv(sys.executable, [sys.executable, "-c", rewrite, "MARK-daemon"])
    os._exit(0)
os.wait()
seen = {}
try:
    bytearray(6 * 2**30)
    seen["memory"] = "allocated 6 GiB"
except MemoryError:
    seen["memory"] = "MemoryError"
try:
    with open("big.bin", "wb") as handle:
        handle.write(bytes(100 * 2**20))
    seen["file_size"] = "wrote 100 MiB"
except OSError as exc:
    seen["file_size"] = errno.errorcode[exc.errno]
print("x" * 5_000_000)
check("99.9", seen)
"""

FORMULA = [
    "def double(x):\n    return -1\ncheck('99.2', double)",
    "raise ValueError(\"=cmd|' /C calc'!A0\\n| broken | table |\\n- item\")",
]


def _write(path: Path, cells: list[str]) -> None:
    from nbformat import v4, write

    path.parent.mkdir(parents=True, exist_ok=True)
    write(v4.new_notebook(cells=[v4.new_code_cell(c) for c in cells]), path)


def _define(**names: object) -> str:
    return "\n".join(f"{name} = {value!r}" for name, value in names.items())


def _processes_with(mark: str) -> list[str]:
    found = []
    for entry in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = entry.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if mark in text:
            found.append(text)
    return found


@pytest.fixture(scope="module")
def listener() -> Iterator[int]:
    server = socket.create_server(("127.0.0.1", 0))
    yield server.getsockname()[1]
    server.close()


MEMORY_LIMIT = 2**30
"""The per-submission memory limit of this class: honest kernels hold about 100 MB each."""
LAST_GRADES = "the last run's grades"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The instructor's course folder: outside temp folders and homes when run as root."""
    places = [p for p in ("/srv", "/var/lib", "/opt") if os.path.isdir(p)]
    if os.geteuid() != 0 or not places:
        yield tmp_path_factory.mktemp("course")
        return
    folder = Path(tempfile.mkdtemp(prefix="toolsys-course-", dir=places[0]))
    folder.chmod(0o755)  # as a course folder usually is: readable by every user
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def graded(course: Path, listener: int):
    root = course / "secA"
    out = course / "gb"
    out.mkdir()
    (out / "gradebook.csv").write_text(LAST_GRADES)
    (out / "gradebook.csv").chmod(0o644)
    bob = course / "secB" / "bob"
    bob.mkdir(parents=True)
    (bob / "answers.txt").write_text("bob's answers")
    (bob / "answers.txt").chmod(0o644)
    (bob / "demo_checks.py").write_text(DEMO_CHECKS)
    _write(bob / "99_demo.ipynb", [SETUP, DOUBLE])
    (root / "victim" / "week9").mkdir(parents=True)  # her folder; the kernel starts in week9/
    (root / "victim" / "week9" / "demo_checks.py").write_text(DEMO_CHECKS)
    (root / "demo_checks.py").write_text(DEMO_CHECKS)
    victim = root / "victim" / "week9" / "99_demo.ipynb"
    _write(victim, [SETUP, WRONG, DOUBLE])
    _write(root / "forger.ipynb", [SETUP, FORGER, WRONG])
    places = _define(
        SECRET=SECRET,
        ROOT=str(root),
        VICTIM=str(victim),
        OUT=str(out),
        PORT=listener,
        OTHER_SECTION=str(bob / "answers.txt"),
        LAST_GRADEBOOK=str(out / "gradebook.csv"),
        COURSE=str(course),
    )
    _write(root / "snoop.ipynb", [SETUP, places, SNOOP])
    _write(root / "busy.ipynb", [SETUP, THREADS, DOUBLE])  # sorted second: starts at once
    _write(root / "hog.ipynb", [SETUP, HOG, DOUBLE])
    gradebook = str(out / "gradebook.csv")
    _write(
        root / "lingerer.ipynb",
        [SETUP, _define(GRADEBOOK=gradebook), LINGERER.replace("MARK", MARK)],
    )
    _write(root / f"{FORMULA_NAME}.ipynb", [SETUP, *FORMULA])
    with pytest.MonkeyPatch.context() as patch:
        from toolsys.grading import _sandbox

        patch.setattr(_sandbox, "MEMORY_LIMIT", MEMORY_LIMIT, raising=False)
        patch.setenv("OPENAI_API_KEY", SECRET)
        patch.setenv("TOOLSYS_TEST_SECRET", SECRET)
        patch.chdir(course)
        result = CliRunner().invoke(
            main, ["check", "secA", "secB", "--out", "gb", "--jobs", "2", "--timeout", "60"]
        )
    written = (out / "gradebook.csv").read_bytes()
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return result, out, rows, written


def _row(rows: list[dict[str, str]], student: str, exercise: str) -> dict[str, str]:
    return next(r for r in rows if (r["student"], r["exercise"]) == (student, exercise))


def _seen(rows: list[dict[str, str]], student: str) -> dict:
    return json.loads(_row(rows, student, "99.9")["message"])


@pytest.fixture(scope="module")
def isolated() -> None:
    if not grading.isolation().isolated:
        pytest.skip(f"needs root and Linux namespaces: {grading.isolation().summary}")


def test_every_student_is_graded_and_a_gradebook_is_written(graded) -> None:
    result, out, rows, _ = graded
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    students = {r["student"] for r in rows}
    assert {"victim", "forger", "snoop", "lingerer", "busy", "hog", "bob"} <= students
    assert (out / "gradebook.md").is_file()


def test_forged_verdict_lines_are_rejected_and_reported_for_that_student_only(graded) -> None:
    _, _, rows, _ = graded
    forger = _row(rows, "forger", "99.1")
    assert forger["status"] == "failed"  # its real verdict, not the forged "passed"
    assert "verdict log line 1 rejected: not written by toolsys.checks" in forger["notes"]
    assert "status 'hacked' is not one of" in forger["notes"]
    assert "more rejected lines" in forger["notes"]
    victim = {r["exercise"]: r for r in rows if r["student"] == "victim"}
    assert victim["99.1"]["status"] == "failed" and victim["99.2"]["status"] == "passed"
    assert victim["99.1"]["notes"] == ""


def test_a_student_who_signs_with_their_own_kernels_key_fakes_only_their_own_pass(graded) -> None:
    """The limit the README states ("What grading guarantees, and what it cannot")."""
    _, _, rows, _ = graded
    assert _row(rows, "forger", "99.2")["status"] == "passed"
    assert _row(rows, "victim", "99.1")["status"] == "failed"


def test_the_environment_is_scrubbed_and_home_is_the_sandbox(graded) -> None:
    _, _, rows, _ = graded
    seen = _seen(rows, "snoop")
    assert "OPENAI_API_KEY" not in seen["env"] and "TOOLSYS_TEST_SECRET" not in seen["env"]
    assert not seen["secret_in_env"] and not seen["root_in_env"]
    assert seen["home"].startswith(seen["cwd"].rsplit("/", 1)[0])
    assert Path(seen["cwd"]).name == "work" and "toolsys-grade-" in seen["cwd"]
    assert {"PATH", "HOME", "TOOLSYS_OFFLINE", "PYTHONHASHSEED"} <= set(seen["env"])


def test_a_submission_runs_on_its_own_copy_alone_in_its_folder(graded) -> None:
    _, _, rows, _ = graded
    files = set(_seen(rows, "snoop")["cwd_files"]) - {"__pycache__"}
    assert files == {"demo_checks.py", "snoop.ipynb"}


def test_a_submission_cannot_read_secrets_or_other_students_files(graded, isolated) -> None:
    _, _, rows, _ = graded
    seen = _seen(rows, "snoop")
    assert seen["uid"] != 0
    assert not seen["secret_in_proc"]
    assert seen["read_victim"] in {"FileNotFoundError", "PermissionError"}
    assert seen["list_submissions"] in {"FileNotFoundError", "PermissionError"}
    assert seen["other_logs"] == []


def test_a_section_never_sees_another_section_the_course_or_the_gradebook(graded, isolated) -> None:
    """Issue 26: the working folder was mounted into every jail (an editable install's hook)."""
    _, _, rows, _ = graded
    seen = _seen(rows, "snoop")
    assert seen["read_other_section"] in {"FileNotFoundError", "PermissionError"}
    assert seen["read_last_gradebook"] in {"FileNotFoundError", "PermissionError"}
    assert seen["list_course"] in {"FileNotFoundError", "PermissionError"}
    system = {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp", "usr"}
    python = {Path(p).parts[1] for p in _sandbox_paths()}
    assert set(seen["root"]) <= system | python, seen["root"]


def _sandbox_paths() -> tuple[str, ...]:
    from toolsys.grading import _sandbox

    return _sandbox.kernel_paths()


def test_a_submission_with_many_threads_changes_no_one_elses_grade(graded, isolated) -> None:
    """Issue 26: every kernel ran as `nobody`, whose RLIMIT_NPROC all jails shared."""
    _, _, rows, _ = graded
    assert _row(rows, "victim", "99.2")["status"] == "passed"
    assert _row(rows, "bob", "99.2")["status"] == "passed"
    assert _row(rows, "busy", "99.2")["status"] == "passed"
    for row in rows:
        assert "kernel start retried" not in row["notes"], row
        assert "did not start" not in row["message"], row


def test_a_submission_over_the_memory_limit_is_stopped_and_says_why(graded) -> None:
    _, _, rows, _ = graded
    hog = _row(rows, "hog", "99.2")
    assert hog["status"] == "missing"
    assert hog["message"] == (
        "the kernel died while running the notebook (the submission's processes held more "
        "than 1 GiB of memory together; all of them were stopped)"
    )
    assert _row(rows, "victim", "99.2")["status"] == "passed"


def test_a_submission_cannot_write_into_out_or_reach_the_network(graded, isolated) -> None:
    _, out, rows, _ = graded
    seen = _seen(rows, "snoop")
    assert seen["write_out"] != "ok" and not (out / "planted.csv").exists()
    assert seen["connect"] != "ok"


def test_no_process_outlives_the_grading_or_rewrites_the_gradebook(graded) -> None:
    _, out, _, written = graded
    assert _processes_with(MARK) == []
    time.sleep(1)  # a survivor would rewrite the gradebook every 0.2 s
    assert (out / "gradebook.csv").read_bytes() == written
    assert b"all passed" not in written


def test_resource_limits_stop_memory_and_file_size_hogs(graded) -> None:
    _, _, rows, _ = graded
    seen = _seen(rows, "lingerer")
    assert seen == {"memory": "MemoryError", "file_size": "EFBIG"}
    assert (
        "output beyond 4,000,000 characters was dropped" in _row(rows, "lingerer", "99.9")["notes"]
    )


def test_formulas_in_names_and_messages_are_text_in_the_csv(graded) -> None:
    _, _, rows, _ = graded
    double = _row(rows, "'" + FORMULA_NAME, "99.2")
    assert double["got"] == "'-1"
    assert double["notebook"].startswith("secA/=")  # a path as given, never a formula
    for row in rows:
        for value in row.values():
            assert value[:1] not in {"=", "+", "-", "@"}, row


def test_newlines_and_pipes_do_not_break_the_markdown_table(graded) -> None:
    _, out, rows, _ = graded
    lines = (out / "gradebook.md").read_text(encoding="utf-8").splitlines()
    table = [line for line in lines if line.startswith("|")]
    students = {r["student"] for r in rows}
    assert len(table) == 2 + len(students)
    cells = {len(re.split(r"(?<!\\)\|", line)) for line in table}
    assert len(cells) == 1 and all(line.endswith(" |") for line in table)
    assert all(line == "" or line[0] in "#|-I" for line in lines), lines
    assert "\\| broken \\| table \\|" in "\n".join(lines)


def test_the_terminal_table_has_one_line_per_student(graded) -> None:
    result, _, rows, _ = graded
    students = {r["student"] for r in rows}
    body = result.output.split("isolation:")[0].strip().splitlines()
    assert len(body) == 1 + len(students)


@pytest.fixture
def same_user(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolsys.grading import _sandbox, grades

    monkeypatch.setattr(grades, "isolation", lambda: _sandbox._same_user("test"))


def test_without_root_every_process_the_kernel_started_is_still_killed(
    same_user: None, tmp_path: Path
) -> None:
    mark = f"{MARK}-same-user"
    cells = [
        f"import os, subprocess\nsubprocess.Popen(['sh', '-c', 'sleep 600; : {mark}-bg'])",
        "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        f"        os.execvp('sh', ['sh', '-c', 'sleep 600; : {mark}-orphan'])\n"
        "    os._exit(0)\nos.wait()",
    ]
    _write(tmp_path / "alice.ipynb", cells)
    grade = grading.grade_notebook(tmp_path / "alice.ipynb", "alice", timeout=60)
    assert (grade.status, grade.problem) == ("ran", "")
    assert _processes_with(mark) == []


def test_a_kernel_that_dies_at_start_is_retried_once_and_the_retry_noted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolsys.grading._sandbox import Sandbox

    real = Sandbox.command
    starts = []

    def first_start_dies(self: Sandbox, kernel: list[str]) -> list[str]:
        starts.append(kernel)
        if len(starts) == 1:
            return [sys.executable, "-c", "import sys; print('overloaded', file=sys.stderr)"]
        return real(self, kernel)

    grading.isolation()  # probe before the kernel command is replaced
    monkeypatch.setattr(Sandbox, "command", first_start_dies)
    (tmp_path / "demo_checks.py").write_text(DEMO_CHECKS)
    _write(tmp_path / "alice.ipynb", [SETUP, DOUBLE])
    grade = grading.grade_notebook(tmp_path / "alice.ipynb", "alice", timeout=60)
    assert grade.all_passed, grade
    assert len(starts) == 2
    assert grade.notes[0].startswith("kernel start retried once (first attempt: RuntimeError")
    assert "overloaded" in grade.notes[0]
    assert "kernel start retried once" in grading.table([grade]).splitlines()[1]


def test_a_kernel_that_never_starts_is_that_notebooks_error_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolsys.grading._sandbox import Sandbox

    grading.isolation()  # probe before the kernel command is replaced
    monkeypatch.setattr(Sandbox, "command", lambda self, kernel: [sys.executable, "-c", "1"])
    _write(tmp_path / "alice.ipynb", [SETUP, DOUBLE])
    grade = grading.grade_notebook(tmp_path / "alice.ipynb", "alice", timeout=60)
    assert grade.status == "crashed"
    assert grade.problem.startswith("the kernel did not start, twice: RuntimeError")
    assert [v["status"] for v in grade.verdicts] == ["missing"]


def test_a_grader_failure_on_one_notebook_is_reported_on_that_notebook(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolsys.grading._sandbox import Sandbox

    roots = []

    def disk_full(self: Sandbox, *_: object) -> None:
        roots.append(self.root)
        raise OSError(28, "No space left on device")

    grading.isolation()
    monkeypatch.setattr(Sandbox, "_copy", disk_full)
    _write(tmp_path / "alice.ipynb", [DOUBLE])
    grade = grading.grade_notebook(tmp_path / "alice.ipynb", "alice", timeout=60)
    assert grade.status == "crashed"
    assert (
        grade.problem == "the grader could not run it: OSError: [Errno 28] No space left on device"
    )
    assert roots and not roots[0].exists()  # its temp folder is removed all the same


def test_many_quick_cells_stop_when_the_notebooks_time_is_up(tmp_path: Path) -> None:
    _write(tmp_path / "alice.ipynb", ["import time", *["time.sleep(0.05)"] * 1000])
    grade = grading.grade_notebook(tmp_path / "alice.ipynb", "alice", timeout=3)
    assert grade.status == "timeout"
    assert grade.problem == "stopped after 3 s: the notebook did not finish in time"


def test_two_sandboxes_never_share_a_uid_and_a_uid_is_given_back(isolated) -> None:
    from toolsys.grading._sandbox import Sandbox

    level = grading.isolation()
    with Sandbox(level, timeout=60) as one, Sandbox(level, timeout=60) as two:
        uids = {one._config["uid"], two._config["uid"]}
        assert len(uids) == 2 and 0 not in uids
        assert all(Path(box.root).stat().st_uid == box._config["uid"] for box in (one, two))
    with Sandbox(level, timeout=60) as again:
        assert again._config["uid"] in uids


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """isolation() probed afresh with the given failures (namespaces, then own user)."""
    from toolsys.grading import _sandbox

    failures: list[str] = []
    monkeypatch.setattr(_sandbox, "_probe", lambda level: failures.pop(0) if failures else "")
    monkeypatch.setattr(_sandbox.os, "geteuid", lambda: 0)
    _sandbox.isolation.cache_clear()
    yield failures
    _sandbox.isolation.cache_clear()


def test_a_root_grader_that_could_only_grade_as_root_refuses(
    probes: list[str], tmp_path: Path
) -> None:
    probes += ["unshare: Operation not permitted", "Permission denied: python"]
    _write(tmp_path / "alice.ipynb", [DOUBLE])
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--out", str(tmp_path / "gb")])
    assert result.exit_code == 2
    assert result.output.startswith(
        "toolsys check: running as root, but a submission can neither be isolated (unshare: "
        "Operation not permitted) nor run as a user of its own (Permission denied: python)"
    )
    assert "TOOLSYS_GRADER_ISOLATION=none" in result.output
    with pytest.raises(grading.UsageError, match="running as root"):
        grading.grade_notebook(tmp_path / "alice.ipynb", "alice")


def test_without_namespaces_a_root_grader_still_gives_each_submission_its_own_user(
    probes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    probes.append("unshare: Operation not permitted")
    level = grading.isolation()
    assert (level.isolated, level.own_user, level.refusal) == (False, True, "")
    assert "namespaces are not available here (unshare: Operation not permitted)" in level.summary
    from toolsys.grading import _sandbox

    _sandbox.isolation.cache_clear()
    monkeypatch.setenv("TOOLSYS_GRADER_ISOLATION", "none")
    level = grading.isolation()
    assert (level.own_user, level.refusal) == (False, "")
    assert level.summary.startswith("WARNING: running as root, with TOOLSYS_GRADER_ISOLATION=none")
