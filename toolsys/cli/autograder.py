"""`toolsys autograder --gradescope OUT.zip NOTEBOOK...`: a Gradescope autograder for an assignment.

The exercise notebooks given make up the assignment (their check cells name its exercises).
Usage errors print one line on stderr and exit with code 2; nothing is written on error.
"""

from __future__ import annotations

from pathlib import Path

import click

from toolsys.cli._errors import usage_error
from toolsys.cli.notebooks import Seconds


@click.command("autograder")
@click.argument("notebooks", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--gradescope",
    "out",
    type=click.Path(path_type=Path),
    required=True,
    help="The zip to write: upload it as the assignment's autograder on Gradescope.",
)
@click.option(
    "--hidden",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder of hidden-case files (2.1.py, ...) to grade with; see README.",
)
@click.option(
    "--hidden-visibility",
    type=click.Choice(["hidden", "after_due_date", "after_published", "visible"]),
    default="after_due_date",
    show_default=True,
    help="When students see the hidden cases' tests on Gradescope.",
)
@click.option(
    "--timeout",
    type=Seconds(),
    default=120.0,
    show_default=True,
    help="Seconds each notebook may run.",
)
def autograder_command(
    notebooks: tuple[Path, ...],
    out: Path,
    hidden: Path | None,
    hidden_visibility: str,
    timeout: float,
) -> None:
    """Build a Gradescope autograder zip for the exercises these notebooks check."""
    from toolsys.grading import gradescope
    from toolsys.grading import hidden as hidden_cases

    if not notebooks:
        usage_error(
            "give the assignment's exercise notebooks, e.g. "
            "`toolsys autograder --gradescope ch02.zip exercises/02_registry.ipynb`"
        )
    missing = [str(p) for p in notebooks if not p.is_file()]
    if missing:
        usage_error(f"no such notebook file: {', '.join(missing)}")
    if out.exists() and not out.is_file():
        usage_error(f"--gradescope {out} is a folder; give the zip file to write")
    try:
        cases = hidden_cases.HiddenCases.load(hidden) if hidden is not None else None
        names = gradescope.build(
            out, notebooks, hidden=cases, timeout=timeout, hidden_visibility=hidden_visibility
        )
    except (hidden_cases.HiddenCasesError, gradescope.BundleError) as exc:
        usage_error(str(exc))
    except ValueError as exc:  # a notebook that is not one
        usage_error(f"not a readable notebook: {exc}")
    except OSError as exc:
        usage_error(f"cannot write {out}: {exc.strerror}")
    exercises = gradescope.assignment(notebooks)
    click.echo(f"wrote {out}: {len(names)} files, {len(exercises)} exercise(s)")
    if cases is not None:
        click.echo(f"hidden cases: {sum(len(f.cases) for f in cases.files.values())}")
    click.echo("upload it on Gradescope (Configure Autograder, zip file upload)")


COMMANDS = [autograder_command]
