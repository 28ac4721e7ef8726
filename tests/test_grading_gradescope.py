"""The Gradescope autograder: its zip, and `run_autograder` on four kinds of submission.

`toolsys autograder --gradescope` builds the bundle for chapter 02 with the example hidden cases
(tests/data/hidden/2.1.py). Each submission is graded in its own temp root laid out as
Gradescope's /autograder (source/ holding the unzipped bundle, run_autograder, submission/,
results/), by the bundle's own run_autograder with the bundle's own copy of the package. As
root on Linux it runs as Gradescope most likely runs it: a root grader in a container without
namespaces (TOOLSYS_GRADER_ISOLATION=user), on a Python every user may read (a venv of the
system's Python seeing this environment's packages). Every results.json is validated against a
JSON Schema written from Gradescope's documentation (tests/data/gradescope_results.schema.json).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import nbformat
import pytest
from click.testing import CliRunner

from tests.test_grading_nbgrader import solved
from toolsys.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "data" / "gradescope_results.schema.json").read_text())
NOTEBOOK = "02_registry.ipynb"
PLANTED = "planted by the submission"

HOSTILE = f"""
import json, os, subprocess, sys
results = os.path.join(ROOT, "results", "results.json")
seen = {{}}
hidden = os.path.join(ROOT, "source", "hidden", "2.1.py")
for name, path in [("results", results), ("hidden", hidden)]:
    try:
        with open(path, "a") as handle:
            handle.write("x")
        seen[name] = "written"
    except OSError as exc:
        seen[name] = type(exc).__name__
rewrite = f"import time\\ntime.sleep(3)\\nopen({{results!r}}, 'w').write({PLANTED!r})"
subprocess.Popen([sys.executable, "-c", rewrite], start_new_session=True)
with open(os.environ["TOOLSYS_CHECK_LOG"], "a") as log:
    log.write(json.dumps({{"exercise": "2.2", "title": "", "status": "passed", "message": "",
                          "expected": None, "got": None, "hint": None}}) + "\\n")
raise RuntimeError("</pre><script>alert(1)</script> " + json.dumps(seen))
"""


def _python(root: Path) -> dict[str, str]:
    """Put Gradescope's venv at root/venv; the environment run_autograder needs."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
    system = Path(f"/usr/bin/python3.{sys.version_info.minor}")
    if os.geteuid() == 0 and system.is_file():
        subprocess.run([str(system), "-m", "venv", "--without-pip", str(root / "venv")], check=True)
        (site,) = (root / "venv" / "lib").glob("python3.*/site-packages")
        packages = sysconfig.get_paths()["purelib"]
        (site / "grader.pth").write_text(f"import site; site.addsitedir({packages!r})\n")
        env["TOOLSYS_GRADER_ISOLATION"] = "user"
    else:
        (root / "venv").symlink_to(sys.prefix)
    return env


def _submissions() -> dict[str, nbformat.NotebookNode]:
    exercise = nbformat.read(ROOT / "exercises" / NOTEBOOK, as_version=4)

    def answer(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
        return next(
            c
            for c in notebook.cells
            if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-2_3"
        )

    correct = solved(exercise, ROOT / "solutions" / NOTEBOOK)
    partial = solved(exercise, ROOT / "solutions" / NOTEBOOK)
    answer(partial).source = answer(exercise).source
    crashing = solved(exercise, ROOT / "solutions" / NOTEBOOK)
    crashing.cells.insert(2, nbformat.v4.new_code_cell("import os\nos._exit(1)"))
    hostile = nbformat.from_dict(exercise)
    hostile.cells.insert(2, nbformat.v4.new_code_cell(HOSTILE))
    return {"correct": correct, "partial": partial, "crashing": crashing, "hostile": hostile}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    arguments = ["autograder", "--gradescope", str(out), str(ROOT / "exercises" / NOTEBOOK)]
    arguments += ["--hidden", str(ROOT / "tests" / "data" / "hidden"), "--timeout", "60"]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    return out


def _grade(bundle: Path, root: Path, kind: str, notebook: nbformat.NotebookNode) -> dict:
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):  # zipfile keeps no modes: as Gradescope does
        (root / "source" / name).chmod(0o755)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "source" / "hidden").chmod(0o700)  # what setup.sh does
    (root / "results").mkdir()
    (root / "submission").mkdir()
    notebook.cells.insert(0, nbformat.v4.new_code_cell(f"ROOT = {str(root)!r}"))
    nbformat.write(notebook, root / "submission" / NOTEBOOK)
    env = _python(root)
    done = subprocess.run(
        [str(root / "run_autograder")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {
        "results": json.loads((root / "results" / "results.json").read_text(encoding="utf-8")),
        "stdout": done.stdout,
        "root": root,
    }


@pytest.fixture(scope="module")
def graded(bundle: Path) -> Iterator[dict[str, dict]]:
    # Like /autograder, every user may walk to it (pytest's own temp folder is private).
    base = Path(tempfile.mkdtemp(prefix="toolsys-gradescope-"))
    base.chmod(0o755)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = {
                kind: pool.submit(_grade, bundle, base / kind, kind, notebook)
                for kind, notebook in _submissions().items()
            }
            yield {kind: run.result() for kind, run in runs.items()}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_the_bundle_holds_setup_run_autograder_the_package_and_the_checks(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        requirements = archive.read("requirements.txt").decode().split()
        config = json.loads(archive.read("autograder.json"))
        setup = archive.read("setup.sh")
    assert {"setup.sh", "run_autograder", "hidden/2.1.py"} <= names
    assert {"lib/toolsys/grading/gradescope.py", "lib/toolsys/checks/ch02/ex1.py"} <= names
    assert all(modes[n] & stat.S_IXUSR for n in ("setup.sh", "run_autograder"))
    assert not any("__pycache__" in n for n in names)
    assert all("==" in line for line in requirements) and "ipykernel" in " ".join(requirements)
    assert [e["id"] for e in config["exercises"]] == ["2.1", "2.2", "2.3"]
    checked = subprocess.run(["bash", "-n"], input=setup, capture_output=True, check=False)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("kind", ["correct", "partial", "crashing", "hostile"])
def test_every_results_json_is_valid_for_gradescope(graded: dict, kind: str) -> None:
    results = graded[kind]["results"]
    jsonschema.Draft202012Validator(SCHEMA).validate(results)
    assert results["score"] == sum(t["score"] for t in results["tests"])
    assert [t["max_score"] for t in results["tests"]] == [2, 2, 1, 1, 1]  # same for everyone
    assert all(0 <= t["score"] <= t["max_score"] for t in results["tests"])
    assert {t["visibility"] for t in results["tests"] if "hidden" in t["name"]} == {
        "after_due_date"
    }
    assert results["output_format"] == results["test_output_format"] == "text"


def test_a_correct_submission_gets_every_point_visible_and_hidden(graded: dict) -> None:
    results = graded["correct"]["results"]
    assert results["score"] == 7
    assert [t["output"] for t in results["tests"]] == ["passed"] * 5
    assert "isolation:" in graded["correct"]["stdout"]
    if os.geteuid() == 0:  # as Gradescope runs it: a user of its own, no namespaces
        assert "each submission runs as its own unprivileged user" in graded["correct"]["stdout"]


def test_a_partial_submission_gets_the_points_of_what_it_solved(graded: dict) -> None:
    results = graded["partial"]["results"]
    assert results["score"] == 6
    last = results["tests"][-1]
    assert last["name"] == "Exercise 2.3: Unknown names, with suggestions" and last["score"] == 0
    assert last["output"].startswith("not done yet\nReplace `raise NotImplementedError(...)`")


def test_a_crashing_submission_gets_zero_and_says_why(graded: dict) -> None:
    results = graded["crashing"]["results"]
    assert results["score"] == 0
    assert (
        "02_registry.ipynb: crashed (the kernel died while running the notebook"
        in results["output"]
    )
    assert all(t["output"].startswith("did not run") for t in results["tests"])


def test_a_hostile_submission_cannot_write_the_results_or_fake_a_pass(graded: dict) -> None:
    import time

    hostile = graded["hostile"]
    results = hostile["results"]
    assert results["score"] == 0
    assert "verdict-log line(s) rejected" in results["output"]
    assert (
        '"results": "PermissionError"' in results["output"]
        or '"results": "FileNotFoundError"' in results["output"]
    )
    assert '"hidden": "written"' not in results["output"]
    assert "<script>" in results["output"] and results["output_format"] == "text"
    time.sleep(4)  # the process it left would rewrite results.json after 3 s
    written = (hostile["root"] / "results" / "results.json").read_text(encoding="utf-8")
    assert PLANTED not in written and json.loads(written) == results
