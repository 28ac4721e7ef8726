"""Set-up files agree: pyproject ↔ environment.yml, Binder layout, CI entry, nbval sanitizers."""

from __future__ import annotations

import configparser
import json
import os
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
NEWS_OFF = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false"}}


def _pyproject_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["workbook"]
    return {canonicalize_name(Requirement(r).name): Requirement(r) for r in wanted}


def _environment_versions() -> dict[str, str]:
    """Package → version from environment.yml (conda `name=X.Y`, pip `name==X.Y.*`)."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    found: dict[str, str] = {}
    for dep in env["dependencies"]:
        for line in dep["pip"] if isinstance(dep, dict) else [dep]:
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*==?\s*([0-9][0-9.]*)(\.\*)?", line)
            if match:
                found[canonicalize_name(match[1])] = match[2]
            elif line not in ("pip", "-e ."):
                raise AssertionError(f"environment.yml: {line!r} is not pinned as name=X.Y")
    return found


def test_environment_yml_names_the_packages_of_pyproject() -> None:
    env = _environment_versions()
    env.pop("python")
    assert sorted(env) == sorted(_pyproject_requirements())


def test_environment_yml_versions_are_within_pyproject_ranges() -> None:
    env = _environment_versions()
    for name, requirement in _pyproject_requirements().items():
        assert Version(env[name]) in requirement.specifier, (
            f"environment.yml pins {name} {env[name]}, pyproject wants {requirement.specifier}"
        )


def test_binder_uses_python_311_conda_forge_and_installs_the_repo() -> None:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    assert "python=3.11" in env["dependencies"]
    pip = next(dep["pip"] for dep in env["dependencies"] if isinstance(dep, dict))
    assert "-e ." in pip  # a local requirement: repo2docker copies the repo before installing


def test_no_binder_folder_hides_the_top_level_environment() -> None:
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()


@pytest.mark.parametrize("name", ["postBuild", "Makefile"])
def test_the_news_pop_up_is_switched_off(name: str) -> None:
    text = (ROOT / name).read_text()
    written = json.loads(re.search(r"'(\{\"@jupyterlab.*\})'", text)[1])
    key = "@jupyterlab/apputils-extension:notification"
    assert written[key]["fetchNews"] == NEWS_OFF[key]["fetchNews"]
    assert "share/jupyter/lab/settings" in text


@pytest.mark.parametrize("name", ["postBuild", ".ci/run"])
def test_scripts_are_executable(name: str) -> None:
    assert os.access(ROOT / name, os.X_OK)


def test_ci_runs_make_test() -> None:
    text = (ROOT / ".ci" / "run").read_text()
    assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text
    # the README's test command first, then the browser edition, the book and Binder, then the
    # mutation harness over the exercise checks
    steps = [line for line in text.splitlines() if line.startswith(("make ", "exec make "))]
    assert steps == [
        "make test",
        "make test-lite",
        "make test-site",
        "make test-binder",
        "exec make mutants",
    ]


def _sanitizers() -> list[tuple[re.Pattern[str], str]]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "tests" / "nbval_sanitize.cfg")
    return [
        (re.compile(s["regex"]), s["replace"]) for s in map(parser.__getitem__, parser.sections())
    ]


def _sanitize(text: str) -> str:
    for pattern, replace in _sanitizers():
        text = pattern.sub(replace, text)
    return text


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("<function f at 0x7f3a2c1b9e40>", "<function f at 0x7f00deadbeef>"),
        ("took 12.3 ms", "took 7 ms"),
        ("Wall time: 1.5 s", "Wall time: 2 s"),
        ("id 3f2b1c9e-0a1b-4c2d-8e9f-001122334455", "id 00000000-1111-4222-8333-444455556666"),
        ("File /work/main/toolsys/registry.py", "File /home/ann/src/toolsys/registry.py"),
    ],
)
def test_sanitizers_hide_what_changes_between_runs(a: str, b: str) -> None:
    assert _sanitize(a) == _sanitize(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("http://localhost:11434/v1", "http://localhost:11434/v2"),
        ("registry.py", "schema.py"),
        ("3 tools", "4 tools"),
        ("2026-01-05", "2026-01-06"),
    ],
)
def test_sanitizers_keep_what_matters(a: str, b: str) -> None:
    assert _sanitize(a) != _sanitize(b)
