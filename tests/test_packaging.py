"""The package ships `py.typed`, so type checkers read toolsys's own hints (PEP 561)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_py_typed_marker_exists_and_is_package_data() -> None:
    assert (ROOT / "toolsys" / "py.typed").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in package_data["package-data"]["toolsys"]


def test_wheel_and_sdist_contents_include_py_typed(tmp_path: Path) -> None:
    """Built offline from a copy: `build_py` lays out what the wheel holds; then the sdist."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "toolsys", source / "toolsys", ignore=shutil.ignore_patterns("__pycache__")
    )
    setup = [sys.executable, "-c", "from setuptools import setup; setup()", "-q"]
    for command in (["build_py", "--build-lib", "../lib"], ["sdist", "--dist-dir", "../dist"]):
        done = subprocess.run([*setup, *command], cwd=source, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "lib" / "toolsys" / "py.typed").is_file()
    (sdist,) = (tmp_path / "dist").glob("toolsys-*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert any(n.endswith("/toolsys/py.typed") for n in archive.getnames())
