"""Every `toolsys` command refuses bad input in one line, `toolsys COMMAND: message`, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from toolsys.cli import main

# Each command, with what comes before an argument of its own (an option's value for exercises).
COMMANDS = [
    ("check", []),
    ("exercises", ["--solutions"]),
    ("execute", []),
    ("chat", []),
    ("tools", []),
    ("explain", []),
]


def _toolsys(*args: bytes | str) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI as a user does: argv bytes decoded by Python, not by a test runner."""
    code = "from toolsys.cli import main; main()"
    env = {**os.environ, "TOOLSYS_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, env=env, timeout=120
    )


@pytest.mark.parametrize(("command", "before"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_an_argument_that_is_not_utf8_is_one_line_and_exit_2(
    command: str, before: list[str]
) -> None:
    done = _toolsys(command, *before, b"caf\xe9.ipynb")
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    position = 2 + len(before)
    assert done.stderr.decode("utf-8").splitlines() == [
        f"toolsys {command}: argument {position} is not valid UTF-8 (b'caf\\xe9.ipynb'); "
        "give it in UTF-8 (rename a file whose name is not)"
    ]


def test_a_command_name_that_is_not_utf8_is_one_line_and_exit_2() -> None:
    done = _toolsys(b"\xff")
    assert done.returncode == 2
    assert done.stderr.decode("utf-8").splitlines() == [
        "toolsys: argument 1 is not valid UTF-8 (b'\\xff'); "
        "give it in UTF-8 (rename a file whose name is not)"
    ]


@pytest.mark.parametrize(
    ("args", "start", "naming"),
    [
        (["check", "--jobs", "0", "x"], "toolsys check: ", "'--jobs'"),
        (["chat"], "toolsys chat: ", "'PROMPT'"),
        (["tools", "extra"], "toolsys tools: ", "extra"),
        (["execute", "--timeout", "soon", "x.ipynb"], "toolsys execute: ", "'soon'"),
        (["exercises", "--bogus"], "toolsys exercises: ", "--bogus"),
        (["nosuch"], "toolsys: ", "'nosuch'"),
        (["check", "a" * 5000], "toolsys check: File name too long", "a" * 77 + "..."),
        (["execute", "b" * 5000], "toolsys execute: File name too long", "b" * 77 + "..."),
    ],
    ids=lambda value: value[0][:10] if isinstance(value, list) else "",
)
def test_what_click_or_the_system_refuses_is_one_line_and_exit_2(
    args: list[str], start: str, naming: str
) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    [line] = result.output.splitlines()
    assert line.startswith(start) and naming in line
    assert "Usage:" not in line and "Traceback" not in line


def test_help_and_version_still_exit_0() -> None:
    assert CliRunner().invoke(main, ["--version"]).exit_code == 0
    result = CliRunner().invoke(main, ["check", "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output
