"""The Makefile: one pytest run for everything; the install is skipped when nothing changed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(folder: Path, *args: str) -> str:
    """`make ARGS` in `folder` as a fresh shell runs it: variables given to an enclosing make
    (`make test PYTEST_ARGS=-q` runs these tests) reach a child make through MAKEFLAGS."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    for name in ("PYTEST_ARGS", "PARALLEL", "WORKERS", "MUTANTS", "PY", "VENV"):
        env.pop(name, None)
    done = subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def fake_checkout(tmp_path: Path) -> Path:
    """Makefile + pyproject.toml beside a .venv whose python only records how it was called."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/calls.log"\n')
    python.chmod(0o755)
    return tmp_path


def test_make_test_is_one_pytest_run_over_tests_and_notebooks() -> None:
    lines = _make(ROOT, "-n", "test").splitlines()
    runs = [line for line in lines if "pytest" in line]
    assert len(runs) == 1
    for folder in ("tests", "notebooks", "solutions"):
        if (ROOT / folder).is_dir():
            assert f" {folder}" in runs[0]


def test_make_test_runs_two_workers_per_core_at_most_eight_and_workers_overrides_it() -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    run = next(line for line in _make(ROOT, "-n", "test").splitlines() if "pytest" in line)
    assert f" -n {min(8, 2 * (cores or 1))} --dist loadgroup " in run
    run = next(
        line for line in _make(ROOT, "-n", "test", "WORKERS=3").splitlines() if "pytest" in line
    )
    assert " -n 3 --dist loadgroup " in run
    run = next(
        line for line in _make(ROOT, "-n", "test", "PARALLEL=").splitlines() if "pytest" in line
    )
    assert " -n " not in run


def test_the_install_runs_once_and_again_when_pyproject_changes(fake_checkout: Path) -> None:
    calls = fake_checkout / ".venv" / "bin" / "calls.log"
    _make(fake_checkout, "setup")
    _make(fake_checkout, "setup")
    assert calls.read_text().count("-e .[workbook,test]") == 1
    settings = fake_checkout / ".venv" / "share" / "jupyter" / "lab" / "settings"
    assert "fetchNews" in (settings / "overrides.json").read_text()
    pyproject = fake_checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n")
    _make(fake_checkout, "setup")
    assert calls.read_text().count("-e .[workbook,test]") == 2


def test_without_uv_pip_installs_alone(fake_checkout: Path) -> None:
    python = fake_checkout / ".venv" / "bin" / "python"
    python.write_text(
        '#!/bin/sh\necho "$@" >> "$(dirname "$0")/calls.log"\n[ "$2" != uv ] || exit 1\n'
    )
    _make(fake_checkout, "setup")
    calls = (fake_checkout / ".venv" / "bin" / "calls.log").read_text().splitlines()
    assert calls[-1] == "-m pip install --quiet --disable-pip-version-check -e .[workbook,test]"
    assert (fake_checkout / ".venv" / ".toolsys-installed").exists()


def test_without_notebook_folders_make_test_still_runs_the_tests(fake_checkout: Path) -> None:
    (fake_checkout / ".venv" / ".toolsys-installed").touch()
    run = next(line for line in _make(fake_checkout, "-n", "test").splitlines() if "pytest" in line)
    assert run.split()[-1] == "tests"


def test_make_bench_runs_every_benchmark() -> None:
    lines = _make(ROOT, "-n", "bench").splitlines()
    benches = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "benchmarks").glob("bench_*.py")
    )
    assert "benchmarks/bench_core.py" in benches
    for bench in benches:
        assert any(bench in line for line in lines), f"make bench does not run {bench}"
