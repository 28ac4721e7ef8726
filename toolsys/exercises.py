"""Generate student exercise notebooks from solved notebooks: one source, no drift.

Why: a solution and its exercise written by hand drift apart. Authors write only
`solutions/NN_*.ipynb` with markers; `toolsys exercises` writes `exercises/NN_*.ipynb`, and
`toolsys exercises --check` (run by the tests) fails when a committed exercise is stale.

Each code cell also gets nbgrader's metadata (`toolsys.nbgrader`): check cells are graded,
stub cells are answers, the others are read-only; an nbgrader course can release them as is.

Markers (see CONTRIBUTING.md):
- code: `### BEGIN SOLUTION 2.1 Title` ... `### END SOLUTION`, inside a function or method body;
  the lines become `raise NotImplementedError("Exercise 2.1: Title")`.
- code: `### BEGIN HIDDEN` ... `### END HIDDEN` lines are dropped (solution-only code).
- markdown: `<!-- BEGIN SOLUTION -->` ... `<!-- END SOLUTION -->` lines are dropped.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolsys import nbgrader

if TYPE_CHECKING:
    from nbformat import NotebookNode

_CODE_MARKER = re.compile(r"^(?P<indent>\s*)###\s*(?P<kind>BEGIN|END)\b\s*(?P<rest>.*?)\s*$")
_BEGIN_SOLUTION = re.compile(r"SOLUTION\s+(?P<id>\d+\.\d+)\s+(?P<title>\S.*)")
_MD_MARKER = re.compile(r"^\s*<!--\s*(?P<kind>BEGIN|END)\b\s*(?P<rest>.*?)\s*-->\s*$")
_CHAPTER = re.compile(r"(?P<chapter>\d+)_")


class SolutionError(ValueError):
    """A solution notebook cannot become an exercise: it is unreadable, or a marker is wrong."""


class MarkerError(SolutionError):
    """A marker in a solution notebook is unknown, unbalanced or misplaced."""

    def __init__(self, notebook: str, cell: int, line: int, problem: str) -> None:
        super().__init__(f"{notebook}: cell {cell}, line {line}: {problem}")


@dataclass(frozen=True)
class Stub:
    """One exercise stub found in a solution notebook."""

    id: str
    title: str
    cell: int


def _fail(where: tuple[str, int], line: int, problem: str) -> MarkerError:
    return MarkerError(where[0], where[1], line, problem)


def _function_lines(source: str, where: tuple[str, int]) -> list[tuple[int, int]]:
    """(first, last) line numbers of every function in a code cell, IPython magics blanked."""
    plain = "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
    )
    try:
        tree = ast.parse(plain)
    except SyntaxError as exc:
        raise _fail(where, exc.lineno or 0, f"the cell is not valid Python: {exc.msg}") from None
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _code_cell(source: str, where: tuple[str, int], chapter: int | None) -> tuple[str, list[Stub]]:
    lines = source.split("\n")
    functions: list[tuple[int, int]] | None = None
    out: list[str] = []
    stubs: list[Stub] = []
    open_kind: str | None = None
    open_line = 0
    for number, line in enumerate(lines, start=1):
        marker = _CODE_MARKER.match(line)
        if marker is None:
            if open_kind is None:
                out.append(line)
            continue
        kind, rest, indent = marker["kind"], marker["rest"], marker["indent"]
        if kind == "END":
            if open_kind is None or rest != open_kind:
                expected = f"### END {open_kind}" if open_kind else "no END marker here"
                raise _fail(where, number, f"{line.strip()!r} does not close a block ({expected})")
            open_kind = None
            continue
        if open_kind is not None:
            raise _fail(
                where,
                number,
                f"{line.strip()!r} opens a block inside the one opened on line "
                f"{open_line}; close it first with '### END {open_kind}'",
            )
        open_line = number
        if rest == "HIDDEN":
            open_kind = "HIDDEN"
            continue
        solution = _BEGIN_SOLUTION.fullmatch(rest)
        if solution is None:
            raise _fail(
                where,
                number,
                f"unknown marker {line.strip()!r}; expected "
                "'### BEGIN SOLUTION <id> <title>' (e.g. '### BEGIN SOLUTION 2.1 Reject "
                "duplicates') or '### BEGIN HIDDEN'",
            )
        exercise_id, title = solution["id"], solution["title"]
        if chapter is not None and int(exercise_id.split(".")[0]) != chapter:
            raise _fail(
                where,
                number,
                f"exercise {exercise_id} is in the notebook of chapter {chapter}; "
                f"number it {chapter}.N",
            )
        if functions is None:
            functions = _function_lines(source, where)
        if not any(first < number <= last for first, last in functions):
            raise _fail(
                where,
                number,
                f"the SOLUTION block of exercise {exercise_id} is not inside a "
                "function body; put it in a def so the exercise notebook still runs top to bottom",
            )
        open_kind = "SOLUTION"
        stubs.append(Stub(exercise_id, title, where[1]))
        out.append(f'{indent}raise NotImplementedError("Exercise {exercise_id}: {_quote(title)}")')
    if open_kind is not None:
        raise _fail(
            where, open_line, f"'### BEGIN {open_kind}' is never closed by '### END {open_kind}'"
        )
    return "\n".join(out), stubs


def _quote(title: str) -> str:
    return title.replace("\\", "\\\\").replace('"', '\\"')


def _markdown_cell(source: str, where: tuple[str, int]) -> str:
    out: list[str] = []
    open_line = 0
    for number, line in enumerate(source.split("\n"), start=1):
        marker = _MD_MARKER.match(line)
        if marker is None:
            if not open_line:
                out.append(line)
            continue
        if marker["rest"] != "SOLUTION":
            raise _fail(
                where,
                number,
                f"unknown marker {line.strip()!r}; markdown cells know only "
                "'<!-- BEGIN SOLUTION -->' and '<!-- END SOLUTION -->'",
            )
        if (marker["kind"] == "BEGIN") == bool(open_line):
            problem = "opens a block that is already open" if open_line else "closes no block"
            raise _fail(where, number, f"{line.strip()!r} {problem}")
        open_line = number if marker["kind"] == "BEGIN" else 0
    if open_line:
        raise _fail(where, open_line, "'<!-- BEGIN SOLUTION -->' is never closed")
    return "\n".join(out).strip("\n")


def chapter_of(path: Path) -> int | None:
    """The chapter number from a file name like `02_registry.ipynb`, or None."""
    found = _CHAPTER.match(path.name)
    return int(found["chapter"]) if found else None


def generate(
    solution: NotebookNode, name: str, chapter: int | None = None
) -> tuple[NotebookNode, list[Stub]]:
    """The exercise version of a solution notebook, and the stubs it contains.

    `name` is used in error messages. Raises `MarkerError` for an unknown, unbalanced or
    misplaced marker. The input is not modified.
    """
    import nbformat

    from toolsys._kernelspec import stamp

    exercise = nbformat.from_dict(nbformat.reads(nbformat.writes(solution), as_version=4))
    cells: list[NotebookNode] = []
    stubs: list[Stub] = []
    answers: dict[int, list[str]] = {}
    for index, cell in enumerate(exercise.cells, start=1):
        where = (name, index)
        found: list[Stub] = []
        if cell.cell_type == "code":
            cell.source, found = _code_cell(cell.source, where, chapter)
            stubs.extend(found)
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        elif cell.cell_type == "markdown":
            cell.source = _markdown_cell(cell.source, where)
        if cell.source.strip() or cell.cell_type == "raw":
            if found:
                answers[len(cells)] = [stub.id for stub in found]
            cells.append(cell)
    exercise.cells = cells
    nbgrader.mark(exercise, answers)
    exercise.metadata.pop("widgets", None)
    stamp(exercise)  # whatever the solution was saved with: JupyterLab opens it unmodified
    exercise.metadata["toolsys"] = {"generated_from": f"solutions/{name}"}
    return exercise, stubs


@dataclass(frozen=True)
class Plan:
    """What generation would write: exercise path → text, and which files are stale or orphaned."""

    texts: dict[Path, str]
    stale: list[Path]
    orphans: list[Path]


def plan(solutions: Path, exercises: Path) -> Plan:
    """Generate every exercise in memory (nothing written).

    Raises `SolutionError` for a solution that is not a readable notebook, `MarkerError` (one
    kind of it) for a bad marker.
    """
    import nbformat

    texts: dict[Path, str] = {}
    for source in sorted(solutions.glob("*.ipynb")):
        try:
            notebook = nbformat.read(source, as_version=4)
        except Exception as exc:  # not JSON, not a notebook, unreadable: all the same here
            first = str(exc).strip().splitlines()
            raise SolutionError(
                f"{source}: not a readable notebook ({type(exc).__name__}: "
                f"{first[0] if first else ''}); fix or remove it"
            ) from None
        generated, _ = generate(notebook, source.name, chapter_of(source))
        texts[exercises / source.name] = render(generated)
    stale = [
        path
        for path, text in texts.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    orphans = [path for path in sorted(exercises.glob("*.ipynb")) if path not in texts]
    return Plan(texts, stale, orphans)


def render(notebook: NotebookNode) -> str:
    """Notebook text exactly as written to disk (stable: same notebook, same bytes)."""
    import nbformat

    return nbformat.writes(notebook) + "\n"


def write(result: Plan) -> list[Path]:
    """Write the stale exercise notebooks of a plan; returns the paths written."""
    for path in result.stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(result.texts[path], encoding="utf-8")
    return list(result.stale)


def exercise_ids(solution: Path) -> list[str]:
    """Exercise ids whose stubs a solution notebook declares, in order, without repeats."""
    import nbformat

    notebook = nbformat.read(solution, as_version=4)
    _, stubs = generate(notebook, solution.name, chapter_of(solution))
    return list(dict.fromkeys(stub.id for stub in stubs))
