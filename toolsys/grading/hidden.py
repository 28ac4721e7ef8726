"""Hidden cases for instructors: extra cases per exercise, with points, that students never see.

Write one file per exercise, named after it (`hidden/2.1.py`), with `@case(name, points=...)`
functions that receive the student's object (see `toolsys.checks.hidden` for the format and an
example), and give the folder to the grader: `toolsys check submissions/ --hidden hidden/`, or
`toolsys autograder --gradescope OUT.zip --hidden hidden/ ...`. The folder is never part of
`exercises/`. The gradebook then shows visible and hidden scores apart; a student's feedback page
says how many hidden cases passed, never which.

What this cannot hide: the cases run inside the student's kernel (that is where the object
lives), so the files are readable there while it is graded. A submission that looks for them
sees them; read the code of any that opens files it was not given.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from toolsys.checks.hidden import (
    FILE_NAME,
    HIDDEN_ENV,
    Case,
    CaseFile,
    HiddenCasesError,
    case,
    load,
    load_folder,
)
from toolsys.checks.points import points

__all__ = [
    "HIDDEN_ENV",
    "Case",
    "CaseFile",
    "HiddenCases",
    "HiddenCasesError",
    "case",
    "copy_cases",
    "load",
    "load_folder",
]


def copy_cases(folder: Path, target: Path) -> None:
    """Copy the hidden-case files of `folder` (only those) into `target`, a new folder."""
    target.mkdir(mode=0o700)
    for path in sorted(folder.iterdir()):
        if FILE_NAME.fullmatch(path.name) and path.is_file():
            shutil.copyfile(path, target / path.name)


@dataclass(frozen=True)
class HiddenCases:
    """An instructor's folder of hidden-case files, loaded: what each exercise is worth."""

    folder: Path | None = None
    files: dict[str, CaseFile] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path) -> HiddenCases:
        """Load every file of `folder`; raises HiddenCasesError for the first bad one."""
        if not folder.is_dir():
            raise HiddenCasesError(f"{folder}: no such folder of hidden-case files")
        return cls(folder, load_folder(folder))

    def cases(self, exercise_id: str) -> tuple[Case, ...]:
        found = self.files.get(exercise_id)
        return found.cases if found is not None else ()

    def visible_points(self, exercise_id: str) -> float:
        """What the visible check is worth: the file's VISIBLE_POINTS, else the exercise's."""
        found = self.files.get(exercise_id)
        if found is not None and found.visible_points is not None:
            return found.visible_points
        return points(exercise_id)
