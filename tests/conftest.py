"""Shared fixtures: a notebook writer and a clean exercise registry per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture
def write_notebook() -> Callable[..., Path]:
    """Write a notebook: a str is a code cell, ("markdown", text) a markdown cell."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    def write(path: Path, cells: list[str | tuple[str, str]]) -> Path:
        notebook = new_notebook()
        for index, cell in enumerate(cells):
            new = new_code_cell(cell) if isinstance(cell, str) else new_markdown_cell(cell[1])
            new.id = f"cell-{index}"
            notebook.cells.append(new)
        notebook.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        return path

    return write


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Exercises registered during a test are forgotten after it."""
    from toolsys.checks import _core

    saved = dict(_core._REGISTRY.exercises)
    hints = dict(_core._REGISTRY.hints_shown)
    yield
    _core._REGISTRY.exercises.clear()
    _core._REGISTRY.exercises.update(saved)
    _core._REGISTRY.hints_shown.clear()
    _core._REGISTRY.hints_shown.update(hints)
