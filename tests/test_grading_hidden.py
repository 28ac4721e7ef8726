"""Hidden cases and points through `toolsys check`: the gradebook, feedback pages, LMS files.

One class is graded once with an instructor's hidden cases for a demo exercise (double): alice
is right, bob's answer passes the visible check only (`x + 4` doubles 4), carol left the stub,
dave forges a passing hidden verdict with his own kernel's key and one for a case that does not
exist, and a student's name is HTML and a formula. The visible check of 99.2 is worth 3 points
here (the file's VISIBLE_POINTS); its hidden cases 2 and 1.
"""

from __future__ import annotations

import csv
import html
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys.checks.hidden import HiddenCasesError, load
from toolsys.cli import main
from toolsys.grading import feedback

DEMO_CHECKS = """
from toolsys.checks import exercise, expect_equal

@exercise("99.2", title="Double")
def _(student):
    expect_equal(student(4), 8, what="double(4)")
"""
HIDDEN = """
from toolsys.checks import expect_equal
from toolsys.grading.hidden import case

VISIBLE_POINTS = 3

@case("negative numbers double too", points=2)
def _(double):
    expect_equal(double(-3), -6, what="double(-3)")

@case("zero stays zero")
def _(double):
    expect_equal(double(0), 0, what="double(0)")
"""
SETUP = "import demo_checks\nfrom toolsys.checks import check"
CHECK = 'check("99.2", double)'
FORGE = """
import json, os
from toolsys.checks._core import verdict_mac
for case in ["zero stays zero", "a case that is not the instructor's"]:
    line = {"exercise": "99.2", "title": "", "status": "passed", "message": "", "expected": None,
            "got": None, "hint": None, "case": case}
    line["mac"] = verdict_mac(os.environ["TOOLSYS_CHECK_KEY"], line)
    with open(os.environ["TOOLSYS_CHECK_LOG"], "a") as log:
        log.write(json.dumps(line) + "\\n")
"""
HOSTILE_NAME = "<img src=x onerror=alert(1)>=1+1"


def _write(path: Path, cells: list[str]) -> None:
    from nbformat import v4, write

    path.parent.mkdir(parents=True, exist_ok=True)
    write(v4.new_notebook(cells=[v4.new_code_cell(c) for c in cells]), path)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("class")
    subs, hidden, out = root / "submissions", root / "hidden", root / "out"
    hidden.mkdir()
    (hidden / "99.2.py").write_text(HIDDEN)
    subs.mkdir()
    (subs / "demo_checks.py").write_text(DEMO_CHECKS)
    _write(subs / "alice.ipynb", [SETUP, "def double(x):\n    return 2 * x", CHECK])
    _write(subs / "bob.ipynb", [SETUP, "def double(x):\n    return x + 4", CHECK])
    _write(subs / "carol.ipynb", [SETUP, "def double(x):\n    raise NotImplementedError", CHECK])
    _write(subs / "dave.ipynb", [SETUP, "def double(x):\n    return x + 4", CHECK, FORGE])
    _write(subs / f"{HOSTILE_NAME}.ipynb", [SETUP, "def double(x):\n    return 2 * x", CHECK])
    arguments = ["check", str(subs), "--hidden", str(hidden), "--out", str(out), "--jobs", "2"]
    result = CliRunner().invoke(main, [*arguments, "--timeout", "60"])
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return result, out, rows


def _rows(rows: list[dict[str, str]], student: str) -> dict[str, dict[str, str]]:
    return {r["case"]: r for r in rows if r["student"] == student}


def test_hidden_cases_are_scored_apart_from_the_visible_check(graded) -> None:
    result, _, rows = graded
    assert result.exit_code == 1, result.output
    alice, bob = _rows(rows, "alice"), _rows(rows, "bob")
    assert set(alice) == {"", "negative numbers double too", "zero stays zero"}
    assert [(r["status"], r["points"], r["max_points"]) for r in alice.values()] == [
        ("passed", "3", "3"),
        ("passed", "2", "2"),
        ("passed", "1", "1"),
    ]
    assert bob[""]["status"] == "passed"  # the visible check cannot tell
    assert bob["negative numbers double too"]["status"] == "failed"
    assert bob["negative numbers double too"]["got"] == "1"
    assert bob["zero stays zero"]["status"] == "failed"


def test_the_table_shows_visible_and_hidden_scores(graded) -> None:
    result, out, _ = graded
    lines = {line.split()[0]: line.split() for line in result.output.splitlines()[1:6]}
    assert lines["alice"][1:4] == ["✓", "3/3", "3/3"]
    assert lines["bob"][1:4] == ["✓", "3/3", "0/3"]
    assert lines["carol"][1:5] == ["○", "not", "done", "0/3"]
    markdown = (out / "gradebook.md").read_text(encoding="utf-8")
    assert "| student | 99.2 | score | hidden | notebooks |" in markdown


def test_a_stub_is_not_run_again_by_its_hidden_cases(graded) -> None:
    _, _, rows = graded
    carol = _rows(rows, "carol")
    assert {r["status"] for r in carol.values()} == {"not_done"}
    assert carol["zero stays zero"]["message"] == "not run: see the visible check"


def test_forged_hidden_verdicts_count_only_for_the_forger_and_unknown_cases_not_at_all(
    graded,
) -> None:
    """The documented limit: with its own kernel's key a submission fakes its own passes."""
    _, _, rows = graded
    dave = _rows(rows, "dave")
    assert dave["zero stays zero"]["status"] == "passed"  # forged after the real verdict
    assert "1 verdict(s) of unknown hidden cases ignored" in dave[""]["notes"]
    assert _rows(rows, "bob")["zero stays zero"]["status"] == "failed"


def test_every_student_gets_an_escaped_feedback_page_without_hidden_names(graded) -> None:
    _, out, _ = graded
    pages = sorted((out / "feedback").iterdir())
    assert len(pages) == 5
    bob = (out / "feedback" / feedback.page_name("bob")).read_text(encoding="utf-8")
    assert "Score: <b>3/3</b> points on the checks you ran, <b>0/3</b> on the hidden cases" in bob
    assert "hidden cases: 0 of 2 passed" in bob
    assert "negative numbers" not in bob and "double(-3)" not in bob
    hostile = (out / "feedback" / feedback.page_name(HOSTILE_NAME)).read_text(encoding="utf-8")
    assert "<img" not in hostile and html.escape(HOSTILE_NAME) in hostile
    assert "default-src 'none'" in hostile
    assert all(page.name.endswith(".html") and "<" not in page.name for page in pages)


def test_the_lms_files_have_the_shapes_canvas_and_moodle_import(graded) -> None:
    _, out, _ = graded
    with (out / "canvas.csv").open(encoding="utf-8", newline="") as handle:
        canvas = list(csv.reader(handle))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "toolsys ch99"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "6"]
    assert ["alice", "", "", "alice", "", "6"] in canvas and [
        "bob",
        "",
        "",
        "bob",
        "",
        "3",
    ] in canvas
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in canvas for cell in row)
    with (out / "moodle.csv").open(encoding="utf-8", newline="") as handle:
        moodle = list(csv.reader(handle))
    assert moodle[0] == ["Student", "toolsys ch99"]
    assert ["carol", "0"] in moodle and len(moodle) == 1 + 5


def test_a_bad_hidden_case_file_is_refused_before_any_grading(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "99.2.py").write_text(HIDDEN.replace("points=2", "points=-2"))
    _write(tmp_path / "alice.ipynb", [CHECK])
    result = CliRunner().invoke(
        main, ["check", str(tmp_path / "alice.ipynb"), "--hidden", str(hidden)]
    )
    assert result.exit_code == 2
    assert "case 'negative numbers double too': points=-2 is not >= 0" in result.output
    assert not (tmp_path / "gradebook").exists()


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("notes.py", "", "name it after its exercise"),
        ("2.1.py", "raise RuntimeError('x')", "cannot load it: RuntimeError: x"),
        ("2.1.py", HIDDEN.replace("zero stays zero", "negative numbers double too"), "two cases"),
        ("2.1.py", "VISIBLE_POINTS = 'a lot'", "VISIBLE_POINTS='a lot'"),
    ],
)
def test_a_hidden_case_file_says_what_is_wrong(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(HiddenCasesError) as caught:
        load(tmp_path / name)
    assert problem in str(caught.value)


def test_case_outside_a_hidden_case_file_says_where_it_belongs() -> None:
    from toolsys.grading.hidden import case

    with pytest.raises(HiddenCasesError, match="give their folder to `toolsys check --hidden`"):
        case("x")(lambda student: None)


def test_the_example_hidden_cases_pass_on_the_solution() -> None:
    """tests/data/hidden/2.1.py, the README's example, is right about the solution."""
    from tests.solution_code import answer
    from toolsys.checks import CheckFailed, Status, check

    loaded = load(Path(__file__).parent / "data" / "hidden" / "2.1.py")
    assert loaded.visible_points == 2 and [c.points for c in loaded.cases] == [2, 1]
    solution = answer("2.1")
    assert check("2.1", solution).status is Status.PASSED
    for one in loaded.cases:
        one.run(solution)  # raises CheckFailed on a wrong answer
    # a wrong answer the first case catches: the name is taken before the check
    takes_first = answer(
        "2.1",
        (
            "        existing = self._normalized.get(self.normalize(name))\n",
            "        existing = self._normalized.get(self.normalize(name))\n"
            "        self._tools.setdefault(name, fn)\n",
        ),
    )
    with pytest.raises(CheckFailed, match="names\\(\\) after the refusal"):
        loaded.cases[0].run(takes_first)
