"""`toolsys check`: grade a folder of submissions, surviving crashing, hanging and broken ones.

Hostile submissions (forged verdicts, snooping, leftover processes) are in
test_grading_adversarial.py; the verdict log and the gradebook's escaping in
test_grading_gradebook.py.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys import grading
from toolsys.cli import main

# A test-only checks module: each notebook imports it from its own folder (the kernel's cwd).
DEMO_CHECKS = """
from toolsys.checks import exercise, expect_equal, expect_raises

@exercise("99.1", title="Divide safely", hints=["Raise ValueError when b == 0."])
def _(student):
    expect_equal(student(6, 3), 2, what="safe_div(6, 3)")
    expect_raises(ValueError, student, 1, 0, what="safe_div(1, 0)")

@exercise("99.2", title="Double")
def _(student):
    expect_equal(student(4), 8, what="double(4)")
"""

SETUP = "import demo_checks\nfrom toolsys.checks import check"
GOOD = "def safe_div(a, b):\n    if b == 0:\n        raise ValueError('b is 0')\n    return a / b"
WRONG = "def safe_div(a, b):\n    return a / b if b else 0"
STUB = "def double(x):\n    raise NotImplementedError('Exercise 99.2: Double')"
DOUBLE = "def double(x):\n    return 2 * x"
CHECK_1 = 'check("99.1", safe_div)'
CHECK_2 = 'check("99.2", double)'


@pytest.fixture(scope="module")
def submissions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from nbformat import v4, write

    root = tmp_path_factory.mktemp("submissions")

    def notebook(path: Path, cells: list[str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "demo_checks.py").write_text(DEMO_CHECKS)
        write(v4.new_notebook(cells=[v4.new_code_cell(c) for c in cells]), path)

    notebook(root / "alice.ipynb", [SETUP, GOOD, CHECK_1, DOUBLE, CHECK_2])
    notebook(root / "bob" / "99_demo.ipynb", [SETUP, WRONG, CHECK_1, STUB, CHECK_2])
    notebook(root / "carol.ipynb", [SETUP, GOOD, CHECK_1, "import os\nos._exit(1)", CHECK_2])
    notebook(root / "dave.ipynb", [SETUP, GOOD, CHECK_1, "import time\ntime.sleep(600)", CHECK_2])
    (root / "erin.ipynb").write_text("{ this is not a notebook")
    notebook(root / "frank.ipynb", [SETUP, "1 / 0", GOOD, CHECK_1, DOUBLE, CHECK_2])
    notebook(root / ".ipynb_checkpoints" / "alice-checkpoint.ipynb", ["1 / 0"])
    return root


@pytest.fixture(scope="module")
def graded(submissions: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("gradebook")
    result = CliRunner().invoke(
        main, ["check", str(submissions), "--timeout", "15", "--jobs", "2", "--out", str(out)]
    )
    return result, out


def test_students_are_named_by_file_stem_or_first_folder(submissions: Path) -> None:
    found = grading.find_notebooks([submissions, submissions / "alice.ipynb"])
    names = [s.student for s in found]
    assert names == ["alice", "bob", "carol", "dave", "erin", "frank", "alice"]


def test_every_submission_gets_a_row_and_the_run_exits_1(graded) -> None:
    result, _ = graded
    assert result.exit_code == 1, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines()[1:7]}
    assert rows["alice"].split()[1:5] == ["✓", "✓", "2/2", "alice.ipynb:"]
    assert "✗" in rows["bob"] and "○ not done" in rows["bob"]
    assert "crashed" in rows["carol"] and "– missing" in rows["carol"]
    assert "timeout" in rows["dave"] and "– missing" in rows["dave"]
    assert "erin.ipynb: unparsable (not a readable notebook" in rows["erin"]


def test_an_error_in_one_cell_does_not_stop_the_grading(graded) -> None:
    result, _ = graded
    frank = next(line for line in result.output.splitlines() if line.startswith("frank"))
    assert frank.split()[1:3] == ["✓", "✓"]
    assert "cell 2 raised ZeroDivisionError" in frank


def test_the_gradebook_has_one_csv_row_per_student_and_exercise(graded) -> None:
    _, out = graded
    with (out / "gradebook.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    statuses = {(r["student"], r["exercise"]): r["status"] for r in rows}
    assert statuses[("alice", "99.1")] == "passed"
    assert statuses[("bob", "99.1")] == "failed"
    assert statuses[("bob", "99.2")] == "not_done"
    assert statuses[("erin", "")] == "unparsable"
    bob = next(r for r in rows if (r["student"], r["exercise"]) == ("bob", "99.1"))
    assert bob["expected"] == "ValueError" and bob["got"] == "returned 0"
    markdown = (out / "gradebook.md").read_text(encoding="utf-8")
    assert "| student | 99.1 | 99.2 | score | notebooks |" in markdown
    assert "### bob" in markdown


def test_a_fully_passing_submission_exits_0(submissions: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["check", str(submissions / "alice.ipynb"), "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check"], "toolsys check: give one or more exercise notebooks or folders"),
        (["check", "no/such/folder"], "toolsys check: no/such/folder: no such file or folder"),
        *[
            (
                ["check", "no/such.ipynb", "--timeout", seconds],
                f"toolsys check: Invalid value for '--timeout': '{seconds}' is not a number of "
                "seconds from 1 to 86400 (a day)",
            )
            for seconds in ["nan", "inf", "-inf", "1e308", "0.5", "86401"]
        ],
    ],
)
def test_bad_usage_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [message + result.output.split(message)[1].strip()]


@pytest.mark.parametrize("seconds", [math.nan, math.inf, 0.5, -1.0])
def test_grading_refuses_a_timeout_that_is_not_a_duration(seconds: float, tmp_path: Path) -> None:
    notebook = tmp_path / "alice.ipynb"
    with pytest.raises(ValueError, match="give a finite number of seconds, at least 1"):
        grading.grade([(notebook, "alice")], timeout=seconds)
    with pytest.raises(ValueError, match="give a finite number of seconds, at least 1"):
        grading.grade_notebook(notebook, "alice", timeout=seconds)


def test_a_folder_without_notebooks_is_bad_usage(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--out", str(tmp_path / "gb")])
    assert result.exit_code == 2 and "no notebooks" in result.output
    assert not (tmp_path / "gb").exists()


def test_an_out_folder_that_cannot_be_made_is_bad_usage_before_any_grading(
    tmp_path: Path,
) -> None:
    (tmp_path / "alice.ipynb").write_text("{}")
    (tmp_path / "taken").write_text("a file, not a folder")
    result = CliRunner().invoke(
        main, ["check", str(tmp_path / "alice.ipynb"), "--out", str(tmp_path / "taken" / "gb")]
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"toolsys check: --out {tmp_path / 'taken' / 'gb'}: cannot create the folder "
        "(Not a directory); give another"
    ]


def test_execute_in_place_is_deterministic(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    path = write_notebook(
        tmp_path / "00_sample.ipynb",
        [
            "print(sorted({'b', 'a'}))",
            "{'x', 'y', 'z'}",
            f"import os\nos.getcwd() == {str(tmp_path)!r}",
            "import ipywidgets\nipywidgets.VBox([ipywidgets.HTML('a widget: random model ids')])",
        ],
    )
    runs = []
    for _ in range(2):
        result = CliRunner().invoke(main, ["execute", str(path)])
        assert result.exit_code == 0, result.output
        runs.append(path.read_bytes())
    assert runs[0] == runs[1]
    assert b"True" in runs[0] and b'"execution"' not in runs[0]
    assert b"widget-state+json" in runs[0] and b"00000000000000000000000000000001" in runs[0]


def test_prints_of_one_cell_become_one_output_whatever_the_timing(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    import nbformat

    cell = "import sys, time\nprint('a', end='')\nsys.stdout.flush()\ntime.sleep(0.3)\nprint('b')"
    path = write_notebook(tmp_path / "00_sample.ipynb", [cell])
    assert CliRunner().invoke(main, ["execute", str(path)]).exit_code == 0
    outputs = nbformat.read(path, as_version=4).cells[0].outputs
    assert [(o.output_type, o.text) for o in outputs] == [("stream", "ab\n")]


def test_execute_leaves_a_failing_notebook_untouched(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    path = write_notebook(tmp_path / "bad.ipynb", ["1 / 0"])
    before = path.read_bytes()
    result = CliRunner().invoke(main, ["execute", str(path)])
    assert result.exit_code == 1 and "left untouched" in result.output
    assert path.read_bytes() == before


def test_execute_reports_a_file_that_is_not_a_notebook_and_runs_the_others(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ not json")
    good = write_notebook(tmp_path / "good.ipynb", ["1 + 1"])
    result = CliRunner().invoke(main, ["execute", str(broken), str(good)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"{broken}: FAILED, left untouched: NotJSONError" in result.output
    assert f"executed {good}" in result.output
    assert broken.read_text() == "{ not json"


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        ([], "toolsys execute: give one or more notebooks"),
        (["."], "toolsys execute: no such notebook file: ."),
        (["no/such.ipynb"], "toolsys execute: no such notebook file: no/such.ipynb"),
    ],
)
def test_execute_bad_usage_is_one_line_and_exit_2(paths: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["execute", *paths])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and result.output.startswith(message)


def test_same_name_under_two_folders_stays_two_students(tmp_path: Path) -> None:
    from toolsys.grading import find_notebooks

    for folder in ("exercises", "solutions"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "alice.ipynb").write_text("{}")
    (tmp_path / "solutions" / "bob.ipynb").write_text("{}")
    names = [s.student for s in find_notebooks([tmp_path / "exercises", tmp_path / "solutions"])]
    assert names == ["exercises/alice", "solutions/alice", "bob"]


def test_a_student_folder_is_copied_whole_and_a_lone_notebook_alone(tmp_path: Path) -> None:
    (tmp_path / "alice" / "week2").mkdir(parents=True)
    (tmp_path / "alice" / "week2" / "02.ipynb").write_text("{}")
    (tmp_path / "bob.ipynb").write_text("{}")
    found = {s.student: s.folder for s in grading.find_notebooks([tmp_path])}
    assert found == {"alice": tmp_path / "alice", "bob": None}


def test_a_file_name_that_is_not_utf8_is_shown_with_escapes(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"caf\xe9.ipynb")).write_text("{}")
    [found] = grading.find_notebooks([tmp_path])
    assert found.student == "caf\\xe9"


def test_a_symlinked_notebook_is_not_followed_and_its_target_not_shown(tmp_path: Path) -> None:
    secret = tmp_path / "instructor-only.txt"
    secret.write_text("ANSWER KEY: 42")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "mallory.ipynb").symlink_to(secret)
    [found] = grading.find_notebooks([tmp_path / "subs"])
    grade = grading.grade_notebook(found.path, found.student)
    assert grade.status == "unparsable" and "ANSWER KEY" not in grade.problem
