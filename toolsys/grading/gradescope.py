"""A Gradescope autograder: the bundle an instructor uploads, and what runs for each submission.

Why: a class of hundreds grades on a platform that gives each submission its own container.
Gradescope builds an image once from the uploaded zip (`setup.sh` runs as root), then, for every
submission, puts the student's files in /autograder/submission, runs /autograder/run_autograder
and uploads /autograder/results/results.json (gradescope/autograder_samples, docs/specs.md, as
published at gradescope-autograders.readthedocs.io/en/latest/specs/). `build` writes that zip:
`setup.sh`, `run_autograder`, this package's source in `lib/`, the pinned requirements, the
instructor's hidden cases and `autograder.json` (the assignment's exercises and settings).
`main` is what `run_autograder` calls: it grades the submission with `toolsys.grading` as
`toolsys check` does (sandboxed, signed verdicts, its own user) and writes one test per visible
check and per hidden case. Texts that come from students are plain text (`output_format`
"text"), never HTML.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import stat
import sys
import time
import traceback
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolsys.grading import scores
from toolsys.grading.grades import DEFAULT_TIMEOUT, NotebookGrade, grade
from toolsys.grading.hidden import FILE_NAME, HiddenCases
from toolsys.grading.submissions import Submission, find_notebooks, read_notebook

CONFIG = "autograder.json"
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
"""Gradescope's visibility settings (docs/specs.md, "Controlling Test Case Visibility")."""
OUTPUT_LIMIT = 10_000
"""Characters of one test's output; Gradescope shows it in a collapsed <pre>."""
# The workbook extra is what the notebooks import; JupyterLab itself is not needed to grade.
_NOT_FOR_GRADING = {"jupyterlab"}
_CHECK_CALL = re.compile(r"""check\(\s*["'](\d+\.\d+)["']""")

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu).
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON=""
for candidate in python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    PYTHON="$candidate"; break
  fi
done
if [ -z "$PYTHON" ]; then  # Ubuntu 22.04 ships 3.10; 3.11 is in its universe repository
  apt-get install -y python3.11 python3.11-venv
  PYTHON=python3.11
fi
"$PYTHON" -m venv /autograder/venv
/autograder/venv/bin/pip install --no-cache-dir --requirement "$SOURCE/requirements.txt"
# Python and the package must be readable by the unprivileged users submissions run as.
chmod -R a+rX /autograder/venv "$SOURCE/lib"
chmod -R go-rwx "$SOURCE/hidden"
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission, as root, in a fresh container.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PYTHONPATH="$ROOT/source/lib" TOOLSYS_OFFLINE=1 PYTHONHASHSEED=0
exec "$ROOT/venv/bin/python" -m toolsys.grading.gradescope "$ROOT"
"""


class BundleError(ValueError):
    """The assignment cannot become an autograder: no exercises, a bad setting."""


def assignment(notebooks: Sequence[Path]) -> list[dict[str, str]]:
    """The exercises the given exercise notebooks check, in order, with their titles."""
    from toolsys.checks import get_exercise

    found: dict[str, dict[str, str]] = {}
    for path in notebooks:
        notebook = read_notebook(path)
        for cell in notebook.cells:
            if cell.get("cell_type") == "code":
                for exercise_id in _CHECK_CALL.findall(cell.get("source", "")):
                    known = get_exercise(exercise_id)
                    title = known.title if known is not None else ""
                    found.setdefault(
                        exercise_id, {"id": exercise_id, "title": title, "notebook": path.name}
                    )
    if not found:
        shown = ", ".join(str(p) for p in notebooks)
        raise BundleError(f'no check cells (check("2.1", ...)) in {shown}; give exercise notebooks')
    return list(found.values())


def requirements() -> list[str]:
    """This package's requirements and its `workbook` extra (what the notebooks import, but
    JupyterLab), each pinned to the version installed here."""
    names = []
    for line in importlib.metadata.requires("toolsys") or []:
        requirement, _, marker = line.partition(";")
        found = re.match(r"[A-Za-z0-9_.-]+", requirement.strip())
        if found and (not marker or 'extra == "workbook"' in marker):
            names.append(found.group())
    pinned = []
    for name in dict.fromkeys(n for n in names if n not in _NOT_FOR_GRADING):
        try:
            pinned.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            pinned.append(name)
    return pinned


def build(
    out: Path,
    notebooks: Sequence[Path],
    *,
    hidden: HiddenCases | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    hidden_visibility: str = "after_due_date",
) -> list[str]:
    """Write the autograder zip `out` for the assignment the exercise `notebooks` make up.

    Returns the names in the zip. Raises BundleError for notebooks without checks or a bad
    visibility, HiddenCasesError via `hidden` when it was loaded.
    """
    import toolsys

    if hidden_visibility not in VISIBILITIES:
        raise BundleError(
            f"hidden visibility {hidden_visibility!r}: give one of {', '.join(VISIBILITIES)}"
        )
    config = {
        "toolsys": importlib.metadata.version("toolsys"),
        "timeout": timeout,
        "hidden_visibility": hidden_visibility,
        "exercises": assignment(notebooks),
    }
    package = Path(toolsys.__file__).resolve().parent
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        _add(bundle, "setup.sh", SETUP, executable=True)
        _add(bundle, "run_autograder", RUN, executable=True)
        _add(bundle, "requirements.txt", "\n".join(requirements()) + "\n")
        _add(bundle, CONFIG, json.dumps(config, indent=2) + "\n")
        for path in sorted(package.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                bundle.write(path, f"lib/toolsys/{path.relative_to(package).as_posix()}")
        if hidden is not None and hidden.folder is not None:
            for path in sorted(hidden.folder.iterdir()):
                if FILE_NAME.fullmatch(path.name):
                    bundle.write(path, f"hidden/{path.name}")
        if hidden is None or hidden.folder is None:
            bundle.writestr("hidden/", "")
        return bundle.namelist()


def _add(bundle: zipfile.ZipFile, name: str, text: str, *, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, text)


def results(
    grades: Sequence[NotebookGrade],
    config: dict[str, Any],
    seconds: float,
    hidden: HiddenCases | None = None,
) -> dict[str, Any]:
    """Gradescope's results.json for one submission: a test per visible check and hidden case.

    Every exercise of the assignment has its tests, whether or not the submission checked it
    (then they score 0), so the maximum is the same for every student.
    """
    hidden = hidden or HiddenCases()
    visible = {v["exercise"]: v for v in scores.best(v for g in grades for v in g.verdicts)}
    ran = {(v["exercise"], v["case"]): v for v in scores.best(v for g in grades for v in g.hidden)}
    tests: list[dict[str, Any]] = []
    for number, exercise in enumerate(config["exercises"], start=1):
        exercise_id = exercise["id"]
        verdict = visible.get(exercise_id) or _absent(
            exercise_id, hidden.visible_points(exercise_id)
        )
        score = scores.of(verdict)
        tests.append(
            {
                "name": f"Exercise {exercise_id}: {exercise['title']}".rstrip(": "),
                "number": f"{number}",
                "score": score.earned,
                "max_score": score.possible,
                "visibility": "visible",
                "output": _clip(_verdict_text(verdict)),
            }
        )
        cases = [
            ran.get((exercise_id, one.name)) or _absent(exercise_id, one.points)
            for one in hidden.cases(exercise_id)
        ]
        for index, case in enumerate(cases, start=1):
            score = scores.of(case)
            tests.append(
                {
                    "name": f"Exercise {exercise_id}: hidden case {index}",
                    "number": f"{number}.{index}",
                    "score": score.earned,
                    "max_score": score.possible,
                    "visibility": config["hidden_visibility"],
                    "output": _label(case["status"]),
                }
            )
    problems = [
        f"{g.path.name}: {g.status}" + (f" ({g.problem})" if g.problem else "")
        for g in grades
        if g.status != "ran" or g.problem
    ]
    problems += [
        f"{g.path.name}: {len(g.rejected)} verdict-log line(s) rejected"
        for g in grades
        if g.rejected
    ]
    if not grades:
        problems.append("no notebook (.ipynb) found in the submission")
    return {
        "score": sum(t["score"] for t in tests),
        "execution_time": round(seconds, 1),
        "output": _clip("\n".join(problems) or "All notebooks ran."),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "tests": tests,
    }


def _absent(exercise_id: str, points: float) -> dict[str, Any]:
    return {
        "exercise": exercise_id,
        "status": "missing",
        "message": "no check of this exercise ran: hand in its notebook with the check cell",
        "points": points,
    }


def _label(status: str) -> str:
    return {"passed": "passed", "not_done": "not done yet", "missing": "did not run"}.get(
        status, "failed" if status == "failed" else status
    )


def _verdict_text(verdict: Mapping[str, Any]) -> str:
    lines = [_label(verdict.get("status", ""))]
    lines += [verdict["message"]] if verdict.get("message") else []
    lines += [f"{key}: {verdict[key]}" for key in ("expected", "got", "hint") if verdict.get(key)]
    return "\n".join(lines)


def _clip(text: str) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= OUTPUT_LIMIT else text[: OUTPUT_LIMIT - 1] + "…"


def main(root: Path) -> int:
    """Grade the submission in `root`/submission, write `root`/results/results.json; exit 0.

    Whatever goes wrong is written into results.json (score 0 and what happened) and the
    traceback to stdout, which Gradescope shows to instructors only.
    """
    started = time.monotonic()
    out = root / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        config = json.loads((root / "source" / CONFIG).read_text(encoding="utf-8"))
        folder = root / "source" / "hidden"
        hidden = HiddenCases.load(folder) if folder.is_dir() and any(folder.iterdir()) else None
        submission = root / "submission"
        notebooks = find_notebooks([submission]) if any(submission.rglob("*.ipynb")) else []
        grades = grade(
            [Submission(path, "submission", submission) for path, _, _ in notebooks],
            timeout=float(config["timeout"]),
            hidden=hidden,
        )
        report = results(grades, config, time.monotonic() - started, hidden)
        from toolsys.grading import gradebook, isolation

        print(gradebook.table(grades))
        print(f"isolation: {isolation().summary}")
    except Exception as exc:  # never leave Gradescope without results
        traceback.print_exc(file=sys.stdout)
        report = {
            "score": 0.0,
            "output": f"The autograder failed ({type(exc).__name__}); your instructor can see why.",
            "output_format": "text",
            "tests": [],
        }
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
