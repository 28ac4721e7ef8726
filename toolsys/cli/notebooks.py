"""`toolsys check` (grade exercise notebooks), `toolsys exercises` and `toolsys execute` (authors).

Usage errors print one line on stderr and exit with code 2; nothing is written on error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from toolsys.cli._errors import usage_error

MAX_SECONDS = 86_400.0
"""The longest --timeout (a day): `nan`, `inf` and 1e308 are not durations."""


class Seconds(click.ParamType):
    """A number of seconds from 1 to a day; `nan` and `inf` are refused (nan passes `>= 1`)."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not 1 <= number <= MAX_SECONDS:  # False for nan as well
            shown = f"{value!r} is not a number of seconds from 1 to {MAX_SECONDS:.0f} (a day)."
            self.fail(shown, param, ctx)
        return float(number)


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("gradebook"),
    show_default=True,
    help="Folder for gradebook.csv and gradebook.md.",
)
@click.option(
    "--timeout",
    type=Seconds(),
    default=120.0,
    show_default=True,
    help="Seconds each notebook may run.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Notebooks graded at once, each in its own kernel.",
)
@click.option(
    "--hidden",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder of hidden-case files (2.1.py, ...) run after each check; see README.",
)
def check_command(
    paths: tuple[Path, ...], out: Path, timeout: float, jobs: int, hidden: Path | None
) -> None:
    """Grade student exercise notebooks (files or folders): a table and a gradebook.

    Student = the first folder (or notebook stem) under a folder given here, or the stem of a
    notebook given as a file. Writes gradebook.csv and gradebook.md, canvas.csv and moodle.csv,
    and one feedback page per student in feedback/. Exit code 0 if every exercise (and hidden
    case) passed, 1 otherwise, 2 on bad usage.
    """
    from toolsys import grading
    from toolsys.grading import feedback, lms
    from toolsys.grading import hidden as hidden_cases

    if not paths:
        usage_error(
            "give one or more exercise notebooks or folders, e.g. `toolsys check submissions/`",
        )
    if out.exists() and not out.is_dir():
        usage_error(f"--out {out} is a file; give a folder for the gradebook")
    try:
        notebooks = grading.find_notebooks(paths)
    except grading.UsageError as exc:
        usage_error(str(exc))
    try:
        cases = hidden_cases.HiddenCases.load(hidden) if hidden is not None else None
    except hidden_cases.HiddenCasesError as exc:
        usage_error(f"--hidden: {exc}")
    refusal = grading.isolation().refusal  # a root grader that could only grade as root
    if refusal:
        usage_error(refusal)
    try:  # before grading, so an unwritable --out does not cost a whole run
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        usage_error(f"--out {out}: cannot create the folder ({exc.strerror}); give another")
    grades = grading.grade(notebooks, timeout=timeout, jobs=jobs, hidden=cases)
    click.echo(grading.table(grades))
    isolation = grading.isolation().summary
    click.echo(f"isolation: {isolation}")
    try:
        written = grading.write_gradebook(grades, out, note=f"Isolation: {isolation}.")
        written += lms.write_lms(grades, out)
        pages = feedback.write_feedback(grades, out / "feedback")
    except OSError as exc:
        usage_error(f"cannot write the gradebook into {out}: {exc.strerror}")
    click.echo(f"gradebook: {', '.join(str(p) for p in written)}")
    click.echo(f"feedback: {len(pages)} page(s) in {out / 'feedback'}")
    sys.exit(0 if all(g.all_passed for g in grades) and any(g.verdicts for g in grades) else 1)


@click.command("exercises")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 if an exercise notebook is stale or has no solution.",
)
@click.option(
    "--solutions",
    type=click.Path(path_type=Path),
    default=Path("solutions"),
    show_default=True,
    help="Folder of solved notebooks.",
)
@click.option(
    "--exercises",
    "exercises_dir",
    type=click.Path(path_type=Path),
    default=Path("exercises"),
    show_default=True,
    help="Folder to write exercises to.",
)
def exercises_command(check_only: bool, solutions: Path, exercises_dir: Path) -> None:
    """Generate exercises/NN_*.ipynb from the markers in solutions/NN_*.ipynb."""
    from toolsys import exercises

    if not solutions.is_dir():
        usage_error(
            f"--solutions {solutions}: no such folder; run in the repository root or give "
            "the folder of solved notebooks",
        )
    if exercises_dir.exists() and not exercises_dir.is_dir():
        usage_error(f"--exercises {exercises_dir} is a file; give a folder")
    try:
        plan = exercises.plan(solutions, exercises_dir)
    except exercises.SolutionError as exc:
        usage_error(f"{exc} (nothing written)")
    for orphan in plan.orphans:
        click.echo(f"{orphan}: no solution notebook generates it; delete it or add the solution")
    if check_only:
        for path in plan.stale:
            click.echo(f"{path}: stale; run `make exercises` and commit the result")
        click.echo(f"{len(plan.texts)} exercise notebook(s), {len(plan.stale)} stale")
        sys.exit(1 if plan.stale or plan.orphans else 0)
    try:
        written = exercises.write(plan)
    except OSError as exc:
        usage_error(f"cannot write to --exercises {exercises_dir}: {exc.strerror}")
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"{len(plan.texts)} exercise notebook(s) up to date")


@click.command("execute")
@click.argument("notebooks", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--timeout",
    type=Seconds(),
    default=600.0,
    show_default=True,
    help="Seconds each notebook may run.",
)
def execute_command(notebooks: tuple[Path, ...], timeout: float) -> None:
    """Re-execute notebooks in place, deterministically (what `make notebooks` runs).

    A notebook whose run fails is left untouched; the exit code is then 1. The kernelspec is
    written as the kernel's own, so JupyterLab opens the notebook unmodified.
    """
    import nbformat

    from toolsys import grading
    from toolsys._kernelspec import stamp

    if not notebooks:
        usage_error("give one or more notebooks, e.g. `toolsys execute notebooks/*.ipynb`")
    missing = [str(p) for p in notebooks if not p.is_file()]
    if missing:
        usage_error(f"no such notebook file: {', '.join(missing)}")
    failed = 0
    for path in notebooks:
        # Not a notebook, unreadable, a failing cell, read-only: report it and go on with the
        # others; the file is untouched.
        try:
            notebook = nbformat.read(path, as_version=4)
            grading.execute(notebook, path.parent, timeout=timeout)
            stamp(notebook)  # the kernel's own spec, as JupyterLab writes it: opens unmodified
            nbformat.write(notebook, path)
        except Exception as exc:
            first = str(exc).strip().splitlines()
            click.echo(
                f"{path}: FAILED, left untouched: {type(exc).__name__}: "
                f"{first[-1] if first else ''}",
                err=True,
            )
            failed += 1
            continue
        click.echo(f"executed {path}")
    sys.exit(1 if failed else 0)


COMMANDS = [check_command, exercises_command, execute_command]
