"""nbgrader itself grades our exercise notebooks: generate_assignment, validate and autograde.

A throwaway nbgrader course of one chapter (02, three exercises): the exercise notebook is its
source, `nbgrader generate_assignment` releases it unchanged, and nbgrader 0.9.6 validates and
autogrades a solved and an unsolved submission. The metadata itself (schema, checksums) is
checked on every exercise notebook against nbgrader's own code, without running a kernel.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.formatters import DisplayFormatter

from toolsys import checks
from toolsys.checks import Status

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = "02_registry"
CONFIG = """c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "toolsys"
# exercises/ already holds the stubs: nothing to clear (nbgrader would replace a whole answer cell)
c.ClearSolutions.enabled = False
"""
_HIDDEN = re.compile(
    r"^\s*### BEGIN HIDDEN.*?^\s*### END HIDDEN[^\n]*\n?", re.DOTALL | re.MULTILINE
)
_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION.*\n?", re.MULTILINE)
# The first test sets up the course: four nbgrader runs, each starting kernels (its setup took
# 294 s of the 300 s per-test limit on a loaded 2-core machine). The runs keep their own 600 s
# guard (`_output`); the test's limit is the hang guard for all of them together.
pytestmark = pytest.mark.timeout(900)


def solved(exercise: nbformat.NotebookNode, solution: Path) -> nbformat.NotebookNode:
    """`exercise` with each answer cell replaced by the solution's code (markers dropped)."""
    answers = {}
    for cell in nbformat.read(solution, as_version=4).cells:
        ids = re.findall(r"### BEGIN SOLUTION (\d+\.\d+)", cell.source)
        if ids:
            grade_id = "answer-" + "-".join(dict.fromkeys(ids)).replace(".", "_")
            answers[grade_id] = _MARKER.sub("", _HIDDEN.sub("", cell.source))
    copy = nbformat.from_dict(exercise)
    for cell in copy.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = answers[meta["grade_id"]]
    return copy


def _start(course: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TOOLSYS_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # alembic
    return subprocess.Popen(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _output(run: subprocess.Popen[str]) -> str:
    output, _ = run.communicate(timeout=600)
    assert run.returncode == 0, output
    return output


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("course")
    (root / "nbgrader_config.py").write_text(CONFIG.format(root=str(root)))
    exercise = ROOT / "exercises" / f"{CHAPTER}.ipynb"
    (root / "source" / "ch02").mkdir(parents=True)
    (root / "source" / "ch02" / exercise.name).write_bytes(exercise.read_bytes())
    _output(_start(root, "generate_assignment", "ch02", "--force"))
    release = root / "release" / "ch02" / exercise.name
    released = nbformat.read(release, as_version=4)
    submissions = {
        "solved": solved(released, ROOT / "solutions" / exercise.name),
        "unsolved": released,
    }
    for student, notebook in submissions.items():
        path = root / "submitted" / student / "ch02" / exercise.name
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)
    runs = {  # at once: validate reads its file only, autograde writes the gradebook
        student: _start(
            root, "validate", str(root / "submitted" / student / "ch02" / exercise.name)
        )
        for student in submissions
    }
    _output(_start(root, "autograde", "ch02"))
    validated = {student: _output(run) for student, run in runs.items()}
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        scores = {
            student: {
                grade.name: grade.auto_score
                for grade in gradebook.find_submission_notebook(CHAPTER, "ch02", student).grades
            }
            for student in submissions
        }
    return {"root": root, "release": release, "validated": validated, "scores": scores}


def test_nbgrader_releases_an_exercise_notebook_byte_for_byte(course: dict) -> None:
    assert course["release"].read_bytes() == (ROOT / "exercises" / f"{CHAPTER}.ipynb").read_bytes()


def test_validate_passes_a_solved_notebook_and_fails_an_unsolved_one(course: dict) -> None:
    assert "Success! Your notebook passes all the tests." in course["validated"]["solved"]
    unsolved = course["validated"]["unsolved"]
    assert "VALIDATION FAILED ON 3 CELL(S)!" in unsolved
    assert unsolved.count("The following cell failed:") == 3


def test_autograde_gives_a_solved_notebook_every_point_and_an_unsolved_one_none(
    course: dict,
) -> None:
    checked = {"check-2_1", "check-2_2", "check-2_3"}
    assert course["scores"]["solved"] == dict.fromkeys(checked, 1.0)
    assert course["scores"]["unsolved"] == dict.fromkeys(checked, 0.0)


def test_an_autograded_check_shows_its_points_and_its_feedback(course: dict) -> None:
    notebook = nbformat.read(
        course["root"] / "autograded" / "unsolved" / "ch02" / f"{CHAPTER}.ipynb", as_version=4
    )
    graded = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")]
    (result,) = graded[0].outputs
    assert result.output_type == "execute_result"
    assert result.data["text/plain"] == "0.0"
    assert "Exercise 2.1 (Reject duplicates helpfully): not done yet" in result.data["text/html"]


EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.parametrize("path", EXERCISES, ids=[p.stem for p in EXERCISES])
def test_every_exercise_notebook_has_nbgraders_metadata_and_checksums(path: Path) -> None:
    from nbgrader.nbgraderformat import MetadataValidator
    from nbgrader.utils import compute_checksum, is_grade, is_solution

    notebook = nbformat.read(path, as_version=4)
    MetadataValidator().validate_nb(notebook)  # schema 3, unique ids, points on grade cells
    marked = [c for c in notebook.cells if "nbgrader" in c.metadata]
    assert marked == [c for c in notebook.cells if c.cell_type == "code"]
    for cell in marked:
        assert cell.metadata.nbgrader.checksum == compute_checksum(cell)
    grades = [c for c in marked if is_grade(c)]
    answers = [c for c in marked if is_solution(c)]
    assert grades and answers
    assert all(re.fullmatch(r'check\("\d+\.\d+", \w+\)', c.source) for c in grades)
    assert all('raise NotImplementedError("Exercise' in c.source for c in answers)


def test_a_check_shows_its_points_only_while_nbgrader_runs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passed = checks.CheckResult("2.1", "Reject duplicates", Status.PASSED, "")
    failed = checks.CheckResult("2.1", "Reject duplicates", Status.FAILED, "a <b>", hint="h & i")
    formatter = DisplayFormatter()
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert formatter.format(failed)[0] == {"text/plain": failed.text()}  # committed outputs
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert formatter.format(passed)[0]["text/plain"] == "1.0"
    shown = formatter.format(failed)[0]
    assert shown["text/plain"] == "0.0"
    assert "a &lt;b&gt;" in shown["text/html"] and "h &amp; i" in shown["text/html"]
