"""The whole repository stays ruff clean (notebooks too), the Python files stay formatted, and
mypy finds no error in the package (`make lint` runs all three)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def test_ruff_finds_nothing() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_python_files_are_formatted() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "toolsys", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_error_in_the_package() -> None:
    # What to check and how strictly (files = toolsys, ...) is pyproject's [tool.mypy], as for
    # `make lint`; both share the incremental cache in .mypy_cache.
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lint_runs_mypy_after_ruff() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "lint"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    tools = [line.split()[0].rsplit("/", 1)[-1] for line in done.stdout.splitlines()]
    lint = tools[tools.index("ruff") :]
    assert lint == ["ruff", "ruff", "mypy"]
