"""toolsys.testing as a pytest plugin, seen from a user's project: a test file in a temporary
directory, run by pytest in a subprocess, with the plugin found through its `pytest11` entry
point (the one pyproject.toml declares), not through `-p`.

Proves: the fixtures are there without any import or option; a test that asks for none is
untouched; a network attempt under `scripted` fails loudly, even when swallowed; each helper
fails on a broken tool with sent / got / expected, and no frame of toolsys.testing is shown.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

USER_TESTS = '''
import dataclasses
import socket

from toolsys import Registry, ToolError
from toolsys.loop import run_agent
from toolsys.models import OfflineModel
from toolsys.testing import assert_calls, assert_schema_agrees, fuzz_tool, selection_eval
from toolsys.tools import registry as builtin

registry = Registry()
PASSWORD = "hunter2 is the password"


@registry.tool
def add(a: int, b: int = 0) -> int:
    """Add two numbers."""
    return a + b


@registry.tool
def connect(host: str) -> str:
    """Connect to a host."""
    raise ToolError("LOGIN_FAILED", f"login to {host} failed with {PASSWORD}")


def test_a_scripted_run_passes(scripted):
    transcript = run_agent(scripted(("add", {"a": 1, "b": 2}), "3"), registry, "add 1 and 2")
    assert_calls(transcript, [("add", {"a": 1})])


def test_without_a_fixture_the_network_is_untouched():
    assert socket.getaddrinfo.__module__ == "socket"


def test_a_real_client_under_scripted_fails_loudly(scripted):
    import openai

    real = openai.OpenAI(api_key="sk-test", base_url="http://api.example.invalid/v1")
    real.models.list()


def test_a_swallowed_attempt_still_fails(no_network):
    try:
        socket.create_connection(("example.com", 80))
    except BaseException:
        pass


def test_broken_schema():
    tool = registry.get("add")
    schema = {**tool.parameters, "required": ["a", "b"]}
    assert_schema_agrees(dataclasses.replace(tool, parameters=schema), samples=30)


def test_broken_trajectory(scripted):
    transcript = run_agent(scripted(("add", {"a": 1, "b": 2}), "3"), registry, "add 1 and 2")
    assert_calls(transcript, [("add", {"a": 5})])


def test_leaky_tool():
    fuzz_tool(registry, "connect", calls=50, secrets=[PASSWORD])


def test_selection_miss():
    cases = [{"prompt": "What's the weather in Paris?", "tool": "calculator"}]
    selection_eval(OfflineModel().client(), builtin, cases).require(top1=1.0)
'''

OUTCOMES = {
    "test_a_scripted_run_passes": "PASSED",
    "test_without_a_fixture_the_network_is_untouched": "PASSED",
    "test_a_real_client_under_scripted_fails_loudly": "FAILED",
    "test_a_swallowed_attempt_still_fails": "ERROR",
    "test_broken_schema": "FAILED",
    "test_broken_trajectory": "FAILED",
    "test_leaky_tool": "FAILED",
    "test_selection_miss": "FAILED",
}


def _entry_point() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["entry-points"]["pytest11"]["toolsys"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> str:
    """pytest on the user's test file; the plugin known only by an installed entry point."""
    home = tmp_path_factory.mktemp("project")
    (home / "test_user.py").write_text(USER_TESTS)
    site = home / "site"
    info = site / "toolsys_entry_point_probe-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolsys-entry-point-probe\nVersion: 0\n"
    )
    (info / "entry_points.txt").write_text(f"[pytest11]\ntoolsys = {_entry_point()}\n")
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}", "TOOLSYS_OFFLINE": "1"}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    command = [sys.executable, "-m", "pytest", "-rA", "--tb=long", "-p", "no:cacheprovider"]
    command += ["-p", "no:xdist", "-p", "no:nbval", "-o", "addopts=", "test_user.py"]
    done = subprocess.run(command, cwd=home, env=env, capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


def _section(output: str, test: str) -> str:
    """The failure or error report of one test (from its header to the next one)."""
    match = re.search(
        rf"_{{3,}} (?:ERROR at teardown of )?{test} _{{3,}}\n(.*?)(?=\n_{{3,}} |\n={{3,}} )",
        output,
        re.S,
    )
    assert match, f"no report for {test} in:\n{output[-3000:]}"
    return match[1]


def test_the_entry_point_names_the_plugin_module() -> None:
    import importlib

    module = importlib.import_module(_entry_point())
    assert {"scripted", "no_network"} <= set(vars(module))


@pytest.mark.parametrize(("test", "outcome"), sorted(OUTCOMES.items()))
def test_each_user_test_ends_as_it_should(run: str, test: str, outcome: str) -> None:
    assert f"{outcome} test_user.py::{test}" in run, run[-3000:]


def test_a_network_attempt_names_where_it_went_and_what_to_do(run: str) -> None:
    assert re.search(
        r"\nE +toolsys\.testing\.network\.NetworkBlocked: toolsys\.testing blocked a network "
        r"connection to api\.example\.invalid:80: ",
        run,
    )
    assert "instead of a real endpoint" in run
    assert "ERROR test_user.py::test_a_real_client_under_scripted" not in run  # reported once


def test_a_swallowed_attempt_fails_the_test_when_it_ends(run: str) -> None:
    report = _section(run, "test_a_swallowed_attempt_still_fails")
    assert "blocked a network connection to example.com:80" in report


@pytest.mark.parametrize(
    ("test", "headline"),
    [
        ("test_broken_schema", "the exported schema refuses leaving out required 'b'"),
        ("test_broken_trajectory", "call 1 is add(a=1, b=2), not add(a=5)"),
        ("test_leaky_tool", "'connect' broke a promise"),
        ("test_selection_miss", "top-1 0.0% (required 100%)"),
    ],
)
def test_each_helper_fails_with_sent_got_expected_and_no_internals(
    run: str, test: str, headline: str
) -> None:
    report = _section(run, test)
    assert headline in report
    for label in ("sent:", "got:", "expected:"):
        assert re.search(rf"^E +{label}", report, re.M), report
    assert "toolsys/testing/" not in report and "hypothesis" not in report, report


def test_the_plugin_loads_nothing_heavy_into_every_pytest_run() -> None:
    from tests.test_import_light import HEAVY, _loaded_after

    assert _loaded_after("import toolsys.testing.plugin", HEAVY) == []
