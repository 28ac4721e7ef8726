"""Exercises are generated from solutions: stubs, hidden blocks, marker errors, staleness."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from toolsys import exercises
from toolsys.cli import main

SOLVED = '''def add(a, b):
    """Add two numbers."""
    ### BEGIN SOLUTION 2.1 Add "two" numbers
    total = a + b
    return total
    ### END SOLUTION'''

METHOD = """class Registry:
    def register(self, name):
        if True:
            ### BEGIN SOLUTION 2.2 Reject duplicates
            return name
            ### END SOLUTION"""


def _generate(
    write_notebook: Callable[..., Path], tmp_path: Path, cells: list
) -> nbformat.NotebookNode:
    path = write_notebook(tmp_path / "solutions" / "02_demo.ipynb", cells)
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[0].outputs = [nbformat.v4.new_output("stream", text="hi\n")]
    notebook.cells[0].execution_count = 3
    generated, _ = exercises.generate(notebook, path.name, chapter=2)
    return generated


def test_a_solution_block_becomes_a_stub_at_the_marker_indentation(
    write_notebook, tmp_path
) -> None:
    exercise = _generate(write_notebook, tmp_path, [SOLVED, METHOD])
    assert exercise.cells[0].source == (
        'def add(a, b):\n    """Add two numbers."""\n'
        '    raise NotImplementedError("Exercise 2.1: Add \\"two\\" numbers")'
    )
    assert exercise.cells[1].source.endswith(
        '            raise NotImplementedError("Exercise 2.2: Reject duplicates")'
    )
    compile(exercise.cells[0].source, "cell", "exec")


def test_outputs_and_execution_counts_are_cleared_and_check_cells_kept(
    write_notebook, tmp_path
) -> None:
    exercise = _generate(write_notebook, tmp_path, [SOLVED, 'check("2.1", add)'])
    assert exercise.cells[0].outputs == [] and exercise.cells[0].execution_count is None
    assert exercise.cells[1].source == 'check("2.1", add)'


def test_hidden_blocks_and_markdown_solutions_are_dropped(write_notebook, tmp_path) -> None:
    cells = [
        "x = 1\n### BEGIN HIDDEN\nassert x == 1\n### END HIDDEN\ny = 2",
        "### BEGIN HIDDEN\nprint('solution only')\n### END HIDDEN",
        ("markdown", "Why?\n<!-- BEGIN SOLUTION -->\nBecause.\n<!-- END SOLUTION -->"),
    ]
    exercise = _generate(write_notebook, tmp_path, cells)
    assert [c.source for c in exercise.cells] == ["x = 1\ny = 2", "Why?"]


def test_generation_does_not_modify_the_solution(write_notebook, tmp_path) -> None:
    path = write_notebook(tmp_path / "02_demo.ipynb", [SOLVED])
    solution = nbformat.read(path, as_version=4)
    exercises.generate(solution, path.name)
    assert solution.cells[0].source == SOLVED


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (
            "def f():\n    ### BEGIN SOLUTION 2.1 T\n    return 1",
            "line 2: '### BEGIN SOLUTION' is never closed",
        ),
        (
            "def f():\n    return 1\n    ### END SOLUTION",
            "line 3: '### END SOLUTION' does not close",
        ),
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION", "unknown marker"),
        (
            "def f():\n    ### BEGIN ANSWER 2.1 T\n    return 1\n    ### END ANSWER",
            "unknown marker",
        ),
        ("### BEGIN SOLUTION 2.1 Top\nx = 1\n### END SOLUTION", "not inside a function body"),
        (
            "def f():\n    ### BEGIN SOLUTION 3.1 T\n    return 1\n    ### END SOLUTION",
            "number it 2.N",
        ),
        ("### BEGIN HIDDEN\n### BEGIN HIDDEN\n### END HIDDEN", "close it first"),
        ("def f(:\n    ### BEGIN SOLUTION 2.1 T\n    ### END SOLUTION", "not valid Python"),
    ],
)
def test_a_bad_marker_names_notebook_cell_and_line(
    write_notebook, tmp_path, source, problem
) -> None:
    path = write_notebook(tmp_path / "02_demo.ipynb", ["x = 0", source])
    notebook = nbformat.read(path, as_version=4)
    with pytest.raises(exercises.MarkerError, match=r"02_demo\.ipynb: cell 2, line") as error:
        exercises.generate(notebook, path.name, chapter=2)
    assert problem in str(error.value)


def test_an_unbalanced_markdown_marker_is_an_error(write_notebook, tmp_path) -> None:
    path = write_notebook(tmp_path / "02_demo.ipynb", [("markdown", "<!-- BEGIN SOLUTION -->\nx")])
    with pytest.raises(exercises.MarkerError, match=r"cell 1, line 1: .* never closed"):
        exercises.generate(nbformat.read(path, as_version=4), path.name)


def test_the_command_writes_then_reports_up_to_date(write_notebook, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_notebook(tmp_path / "solutions" / "02_demo.ipynb", [SOLVED])
    runner = CliRunner()
    assert runner.invoke(main, ["exercises", "--check"]).exit_code == 1
    first = runner.invoke(main, ["exercises"])
    assert first.exit_code == 0, first.output
    written = (tmp_path / "exercises" / "02_demo.ipynb").read_bytes()
    assert runner.invoke(main, ["exercises"]).exit_code == 0
    assert (tmp_path / "exercises" / "02_demo.ipynb").read_bytes() == written
    checked = runner.invoke(main, ["exercises", "--check"])
    assert checked.exit_code == 0 and "0 stale" in checked.output


def test_a_marker_error_writes_nothing_and_exits_2(write_notebook, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_notebook(tmp_path / "solutions" / "01_good.ipynb", [SOLVED.replace("2.1", "1.1")])
    write_notebook(tmp_path / "solutions" / "02_bad.ipynb", ["def f():\n    ### END SOLUTION"])
    result = CliRunner().invoke(main, ["exercises"])
    assert result.exit_code == 2
    assert "02_bad.ipynb: cell 1, line 2" in result.output and "nothing written" in result.output
    assert not (tmp_path / "exercises").exists()


def test_a_solution_that_is_not_a_notebook_writes_nothing_and_exits_2(
    write_notebook, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_notebook(tmp_path / "solutions" / "01_good.ipynb", [SOLVED.replace("2.1", "1.1")])
    (tmp_path / "solutions" / "02_broken.ipynb").write_text("{ not json")
    result = CliRunner().invoke(main, ["exercises"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "02_broken.ipynb: not a readable notebook" in result.output
    assert not (tmp_path / "exercises").exists()


def test_no_solutions_folder_is_bad_usage(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["exercises", "--check"])
    assert result.exit_code == 2
    assert result.output.startswith("toolsys exercises: --solutions solutions: no such folder")


def test_an_exercise_without_solution_fails_the_check(
    write_notebook, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "solutions").mkdir()
    write_notebook(tmp_path / "exercises" / "05_gone.ipynb", ["x = 1"])
    result = CliRunner().invoke(main, ["exercises", "--check"])
    assert result.exit_code == 1 and "05_gone.ipynb: no solution notebook" in result.output
    assert (tmp_path / "exercises" / "05_gone.ipynb").exists()


def test_committed_exercise_notebooks_are_up_to_date(repo_root: Path) -> None:
    plan = exercises.plan(repo_root / "solutions", repo_root / "exercises")
    assert not plan.stale, f"stale: {plan.stale}; run `make exercises` and commit the result"
    assert not plan.orphans, f"exercise notebooks without a solution: {plan.orphans}"
