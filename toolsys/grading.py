"""Grade student exercise notebooks: run each in its own kernel and collect every check's verdict.

Why: an instructor with forty submissions needs one table (student × exercise), a gradebook, and
no surprises when one notebook does not parse, kills its kernel or loops forever. Each notebook
runs in a fresh `python3` kernel of the current environment, in its own folder, with
`TOOLSYS_CHECK_LOG` pointing at a private file where `toolsys.checks.check` appends its verdicts.

Student names: for a notebook found inside a folder given on the command line, the first path
part below that folder (`subs/alice.ipynb` → alice, `subs/alice/02_registry.ipynb` → alice);
for a notebook given as a file, its file stem.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsys.checks import LOG_ENV

if TYPE_CHECKING:
    from nbformat import NotebookNode

DEFAULT_TIMEOUT = 120.0
"""Seconds one notebook may run, kernel start excluded."""

_CHECK_CALL = re.compile(r"""check\(\s*["'](\d+\.\d+)["']""")
_MARKS = {
    "passed": "✓",
    "failed": "✗",
    "not_done": "○ not done",
    "error": "✗ error",
    "timeout": "✗ timeout",
    "missing": "– missing",
}


class UsageError(ValueError):
    """Bad input from the command line: a path that does not exist, or no notebooks."""


@dataclass
class NotebookGrade:
    """The outcome of running one notebook: its status and the verdicts its checks reported."""

    path: Path
    student: str
    status: str = "ran"  # ran | unparsable | crashed | timeout
    problem: str = ""
    verdicts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def all_passed(self) -> bool:
        return self.status == "ran" and all(v["status"] == "passed" for v in self.verdicts)


def find_notebooks(paths: Sequence[Path]) -> list[tuple[Path, str]]:
    """Every notebook under `paths` (files or folders, recursive) with its student name.

    When two of the given paths yield the same name (`a/alice.ipynb`, `b/alice.ipynb`), both are
    qualified with their path's name (`a/alice`, `b/alice`) rather than merged into one student.
    """
    found: list[tuple[Path, str, Path]] = []
    for root in paths:
        if not root.exists():
            raise UsageError(f"{root}: no such file or folder; give exercise notebooks or folders")
        if root.is_file():
            found.append((root, root.stem, root.parent))
            continue
        for path in sorted(root.rglob("*.ipynb")):
            relative = path.relative_to(root)
            if ".ipynb_checkpoints" in relative.parts:
                continue
            found.append((path, relative.parts[0].removesuffix(".ipynb"), root))
    if not found:
        shown = ", ".join(str(p) for p in paths)
        raise UsageError(f"no notebooks (*.ipynb) in {shown}; give exercise notebooks or folders")
    roots_of: dict[str, set[Path]] = {}
    for _, name, root in found:
        roots_of.setdefault(name, set()).add(root)
    return [
        (path, f"{root.resolve().name}/{name}" if len(roots_of[name]) > 1 else name)
        for path, name, root in found
    ]


def execute(
    notebook: NotebookNode,
    folder: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    allow_errors: bool = False,
) -> NotebookNode:
    """Run every cell of `notebook` in a fresh python3 kernel started in `folder`.

    `timeout` bounds the whole notebook. Raises nbclient's CellTimeoutError, DeadKernelError or
    (unless allow_errors) CellExecutionError.
    """
    from nbclient import NotebookClient

    quiet = logging.getLogger("toolsys.grading.kernel")
    quiet.setLevel(logging.CRITICAL)  # failures are reported by the caller, once
    deadline = time.monotonic() + timeout
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout_func=lambda _cell: max(1, int(deadline - time.monotonic())),
        allow_errors=allow_errors,
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
        log=quiet,
    )
    kernel_env = {**os.environ, "PYTHONHASHSEED": "0", **(env or {})}
    # The kernel's own stderr (start-up warnings, tracebacks of a dying kernel) is noise here.
    try:
        return client.execute(env=kernel_env, stderr=subprocess.DEVNULL)
    finally:
        _coalesce_streams(notebook)
        _renumber_widgets(notebook)


_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _renumber_widgets(notebook: NotebookNode) -> None:
    """Give widget models ids by order of creation, so a re-run does not rewrite the file.

    ipywidgets names each model with a random uuid; the saved widget state and each output that
    shows a widget refer to it. The order in which a notebook creates its widgets is stable.
    """
    state = notebook.metadata.get("widgets", {}).get(_WIDGET_STATE, {}).get("state")
    if not state:
        return
    import nbformat

    text = nbformat.writes(notebook)
    for number, old in enumerate(list(state), start=1):
        text = text.replace(old, f"{number:032x}")
    renumbered = nbformat.reads(text, as_version=4)
    notebook.metadata = renumbered.metadata
    notebook.cells = renumbered.cells


def _coalesce_streams(notebook: NotebookNode) -> None:
    """Merge consecutive stdout (or stderr) outputs: how prints are chunked depends on timing."""
    for cell in notebook.cells:
        merged: list[Any] = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                output.get("output_type") == "stream"
                and previous is not None
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")
            ):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def grade_notebook(path: Path, student: str, *, timeout: float = DEFAULT_TIMEOUT) -> NotebookGrade:
    """Run one exercise notebook and collect its verdicts; never raises for a bad notebook."""
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    grade = NotebookGrade(path, student)
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # not JSON, not a notebook, invalid schema: all the same here
        grade.status, grade.problem = "unparsable", f"not a readable notebook: {exc}"
        return grade
    with tempfile.TemporaryDirectory(prefix="toolsys-grade-") as scratch:
        log = Path(scratch) / "verdicts.jsonl"
        log.touch()
        try:
            execute(
                notebook, path.parent, timeout=timeout, env={LOG_ENV: str(log)}, allow_errors=True
            )
        except CellTimeoutError:
            grade.status = "timeout"
            grade.problem = f"stopped after {timeout:g} s (a cell never finished)"
        except DeadKernelError:
            grade.status, grade.problem = "crashed", "the kernel died while running the notebook"
        except Exception as exc:  # e.g. a kernel that cannot start: report, grade the others
            grade.status, grade.problem = "crashed", f"{type(exc).__name__}: {exc}"
        grade.verdicts = _read_log(log)
    if grade.status == "ran":
        grade.problem = _first_error(notebook)
    _add_missing(grade, notebook)
    return grade


def _read_log(log: Path) -> list[dict[str, Any]]:
    verdicts: dict[str, dict[str, Any]] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            verdict = json.loads(line)
        except ValueError:
            continue  # a line cut short by a dying kernel
        verdicts[verdict["exercise"]] = verdict  # a re-run check counts with its last verdict
    return list(verdicts.values())


def _first_error(notebook: NotebookNode) -> str:
    for index, cell in enumerate(notebook.cells, start=1):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return f"cell {index} raised {output['ename']}: {output['evalue']}"
    return ""


def _add_missing(grade: NotebookGrade, notebook: NotebookNode) -> None:
    seen = {v["exercise"] for v in grade.verdicts}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for exercise_id in _CHECK_CALL.findall(cell.source):
            if exercise_id not in seen:
                seen.add(exercise_id)
                reason = grade.problem or "its check cell did not report a verdict"
                grade.verdicts.append(
                    {
                        "exercise": exercise_id,
                        "title": "",
                        "status": "missing",
                        "message": reason,
                        "expected": None,
                        "got": None,
                        "hint": None,
                    }
                )


def grade(
    notebooks: Sequence[tuple[Path, str]], *, timeout: float = DEFAULT_TIMEOUT, jobs: int = 1
) -> list[NotebookGrade]:
    """Grade `(notebook, student)` pairs from `find_notebooks`, `jobs` at a time (own kernels)."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda item: grade_notebook(*item, timeout=timeout), notebooks))


def _exercise_ids(grades: Sequence[NotebookGrade]) -> list[str]:
    ids = {v["exercise"] for g in grades for v in g.verdicts}
    return sorted(ids, key=lambda i: tuple(int(p) for p in i.split(".")))


def _students(grades: Sequence[NotebookGrade]) -> dict[str, list[NotebookGrade]]:
    by_student: dict[str, list[NotebookGrade]] = {}
    for g in grades:
        by_student.setdefault(g.student, []).append(g)
    return dict(sorted(by_student.items()))


def _rows(grades: Sequence[NotebookGrade]) -> tuple[list[str], list[list[str]]]:
    ids = _exercise_ids(grades)
    header = ["student", *ids, "notebooks"]
    rows = []
    for student, own in _students(grades).items():
        statuses = {v["exercise"]: v["status"] for g in own for v in g.verdicts}
        notes = "; ".join(
            f"{g.path.name}: {g.status}" + (f" ({g.problem})" if g.problem else "") for g in own
        )
        rows.append([student, *(_MARKS.get(statuses.get(i, ""), "") for i in ids), notes])
    return header, rows


def table(grades: Sequence[NotebookGrade]) -> str:
    """A plain-text table, one row per student, one column per exercise."""
    header, rows = _rows(grades)
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [text.ljust(width) for text, width in zip(row[:-1], widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def write_gradebook(grades: Sequence[NotebookGrade], out: Path) -> list[Path]:
    """Write `gradebook.csv` (one row per student and exercise) and `gradebook.md` into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    columns = ["student", "notebook", "exercise", "status", "message", "expected", "got", "hint"]
    csv_path, md_path = out / "gradebook.csv", out / "gradebook.md"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for g in grades:
            if not g.verdicts:
                writer.writerow([g.student, str(g.path), "", g.status, g.problem, "", "", ""])
            for v in g.verdicts:
                writer.writerow([g.student, str(g.path), *(v.get(c) or "" for c in columns[2:])])
    header, rows = _rows(grades)
    md = ["# Gradebook", "", _md_row(header), _md_row(["---"] * len(header))]
    md += [_md_row(row) for row in rows]
    md += ["", "## Feedback", ""]
    for student, own in _students(grades).items():
        md.append(f"### {student}")
        md.append("")
        for g in own:
            if g.problem:
                md.append(f"- `{g.path.name}`: {g.status}: {g.problem}")
            for v in g.verdicts:
                details = "; ".join(
                    f"{key}: {v[key]}" for key in ("expected", "got", "hint") if v.get(key)
                )
                line = f"- {v['exercise']} {v['status']}"
                line += f": {v['message']}" if v.get("message") else ""
                md.append(line + (f" ({details})" if details else ""))
        md.append("")
    md_path.write_text("\n".join(md), encoding="utf-8")
    return [csv_path, md_path]


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
