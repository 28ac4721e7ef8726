"""Shared fixtures: a notebook writer and a clean exercise registry per test.

Hypothesis runs derandomized (the same examples on every run), so `make test` cannot fail by
chance on a loaded machine; health checks that only measure speed or how much a strategy filters
are off on purpose, because a busy 2-core CI machine trips them without any bug.
`HYPOTHESIS_PROFILE=explore` searches with fresh random examples and more of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

_SLOW_MACHINE = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=_SLOW_MACHINE, print_blob=True
)
settings.register_profile(
    "explore", max_examples=2_000, deadline=None, suppress_health_check=_SLOW_MACHINE
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture
def write_notebook() -> Callable[..., Path]:
    """Write a notebook: a str is a code cell, ("markdown", text) a markdown cell."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from toolsys._kernelspec import stamp

    def write(path: Path, cells: list[str | tuple[str, str]]) -> Path:
        notebook = new_notebook()
        for index, cell in enumerate(cells):
            new = new_code_cell(cell) if isinstance(cell, str) else new_markdown_cell(cell[1])
            new.id = f"cell-{index}"
            notebook.cells.append(new)
        stamp(notebook)  # as JupyterLab writes it, so the notebook opens unmodified
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
