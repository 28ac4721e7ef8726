"""docs/lessons_09_10_protocols.py (issue 30's cells for the gated lessons 09 and 10) applies to
the lessons as they are, in either order with the claims audit's docs/claims_09_10.py, and a
second run changes nothing; the hand-built `hints_for` it writes agrees with the package."""

from __future__ import annotations

import contextlib
import importlib
import io
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from toolsys import Category
from toolsys.mcp import annotations_for
from toolsys.tools import registry as builtin

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ("notebooks/09_composition.ipynb", "notebooks/10_mcp.ipynb")


def script(name: str):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "docs"))


def copy_lessons(root: Path) -> None:
    (root / "notebooks").mkdir()
    for relative in LESSONS:
        shutil.copy(ROOT / relative, root / relative)


def contents(root: Path) -> list[str]:
    return [(root / relative).read_text(encoding="utf-8") for relative in LESSONS]


@pytest.mark.parametrize("claims_first", [False, True])
def test_the_cells_apply_in_either_order_and_twice_change_nothing(tmp_path, claims_first):
    protocols, claims = script("lessons_09_10_protocols"), script("claims_09_10")
    copy_lessons(tmp_path)
    steps = [claims.apply, protocols.apply] if claims_first else [protocols.apply, claims.apply]
    for step in steps:
        step(tmp_path)
    applied = contents(tmp_path)
    protocols.apply(tmp_path)
    assert claims.apply(tmp_path) == [] and contents(tmp_path) == applied
    ids = {c.id for c in nbformat.read(tmp_path / LESSONS[1], as_version=4).cells}
    assert {"protocols-10-revision", "protocols-10-approval"} <= ids


def test_the_lessons_hints_for_agrees_with_annotations_for(tmp_path):
    copy_lessons(tmp_path)
    script("lessons_09_10_protocols").apply(tmp_path)
    cells = nbformat.read(tmp_path / LESSONS[1], as_version=4).cells
    (source,) = [c.source for c in cells if c.id == "3b985948"]
    namespace: dict = {"Category": Category}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(source, namespace)
    for tool in builtin:
        mine = namespace["hints_for"](tool.category, "destructive" in tool.tags, tool.idempotent)
        assert mine == annotations_for(tool), tool.name
    read = namespace["hints_for"](Category.READ, False, False)
    assert "openWorldHint" not in read
