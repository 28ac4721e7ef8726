"""Which notebooks to grade, whose they are, and reading one without trusting it.

Student names: for a notebook found inside a folder given on the command line, the first path
part below that folder (`subs/alice.ipynb` → alice, `subs/alice/02_registry.ipynb` → alice, whose
folder `subs/alice/` is then hers and copied whole for grading); for a notebook given as a file,
its file stem. A name that is not valid UTF-8 is shown with `\\xNN` escapes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from nbformat import NotebookNode

MAX_NOTEBOOK_BYTES = 50 * 2**20
"""A bigger file is not read: it is reported as unparsable."""


class UsageError(ValueError):
    """Bad input from the command line: a path that does not exist, or no notebooks."""


class Submission(NamedTuple):
    """One notebook to grade, its student, and the student's own folder (None: a lone notebook).

    A lone notebook is graded with a copy of the plain files beside it (shared material such as a
    data file), never its sibling notebooks or folders: those are other students'.
    """

    path: Path
    student: str
    folder: Path | None = None


def display_name(text: str) -> str:
    """`text` (e.g. from a file name) as valid UTF-8: undecodable bytes become `\\xNN`."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def find_notebooks(paths: Sequence[Path]) -> list[Submission]:
    """Every notebook under `paths` (files or folders, recursive) with its student name.

    When two of the given paths yield the same name (`a/alice.ipynb`, `b/alice.ipynb`), both are
    qualified with their path's name (`a/alice`, `b/alice`) rather than merged into one student.
    """
    found: list[tuple[Path, str, Path, Path | None]] = []
    for root in paths:
        if not root.exists():
            raise UsageError(f"{root}: no such file or folder; give exercise notebooks or folders")
        if root.is_file():
            found.append((root, root.stem, root.parent, None))
            continue
        for path in sorted(root.rglob("*.ipynb")):
            relative = path.relative_to(root)
            if ".ipynb_checkpoints" in relative.parts:
                continue
            folder = root / relative.parts[0] if len(relative.parts) > 1 else None
            found.append((path, relative.parts[0].removesuffix(".ipynb"), root, folder))
    if not found:
        shown = ", ".join(str(p) for p in paths)
        raise UsageError(f"no notebooks (*.ipynb) in {shown}; give exercise notebooks or folders")
    roots_of: dict[str, set[Path]] = {}
    for _, name, root, _ in found:
        roots_of.setdefault(name, set()).add(root)
    return [
        Submission(
            path,
            display_name(f"{root.resolve().name}/{name}" if len(roots_of[name]) > 1 else name),
            folder,
        )
        for path, name, root, folder in found
    ]


def read_notebook(path: Path) -> NotebookNode:
    """The notebook at `path`: a regular file (never through a symlink) of at most 50 MB."""
    import nbformat

    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > MAX_NOTEBOOK_BYTES:
            raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
        return nbformat.reads(handle.read().decode("utf-8"), as_version=4)
