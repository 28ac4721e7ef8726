"""`toolsys chat`, `toolsys tools`, `toolsys explain`: traces, listings and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys.cli import main


@pytest.fixture
def invoke(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args))


def test_chat_prints_the_trace_and_exits_0(invoke):
    result = invoke("chat", "What is 17 times 38?")
    assert result.exit_code == 0
    assert result.output.splitlines()[:2] == [
        'ToolCall  calculator({"expression": "17 * 38"})',
        "Result    ok 646",
    ]
    assert "Status    completed" in result.output


def test_chat_json_is_the_transcript(invoke):
    data = json.loads(invoke("chat", "--json", "weather in Paris and in Tokyo").output)
    assert data["status"] == "completed"
    assert [e["arguments"] for e in data["events"] if e["type"] == "ToolCallEvent"] == [
        '{"city": "Paris"}',
        '{"city": "Tokyo"}',
    ]


def test_chat_with_a_subset_of_tools(invoke):
    result = invoke("chat", "--tools", "get_weather", "What is 17 times 38?")
    assert result.exit_code == 0
    assert "None of the available tools (get_weather)" in result.output


def test_chat_that_does_not_complete_exits_1(invoke):
    result = invoke("chat", "--max-steps", "1", "What is 17 times 38?")
    assert result.exit_code == 1
    assert result.output.rstrip().endswith("Status    max_steps")


def test_chat_imperfect_is_reproducible_with_a_seed(invoke):
    args = ("chat", "--imperfect", "--seed", "3", "convert 30 C to F and what is 2+2")
    assert invoke(*args).output == invoke(*args).output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("chat", "--tools", "calculator,get_wether", "hi"),
            "toolsys chat: Unknown tool 'get_wether'. Did you mean 'get_weather'",
        ),
        (
            ("explain", "calculater"),
            "toolsys explain: Unknown tool 'calculater'. Did you mean 'calculator'?",
        ),
        (("chat", "  "), "toolsys chat: The prompt is empty"),
        (("chat", "--tools", " , ", "hi"), "toolsys chat: --tools ' , ' names no tool"),
    ],
)
def test_bad_input_exits_2_with_one_line(invoke, args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.output.startswith(message)
    assert len(result.output.strip().splitlines()) == 1


def test_unreachable_endpoint_exits_2(invoke, monkeypatch):
    monkeypatch.delenv("TOOLSYS_OFFLINE", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    result = invoke("chat", "hi")
    assert result.exit_code == 2
    assert result.output.startswith("toolsys chat: No reachable model endpoint")


def test_tools_lists_name_category_and_first_line(invoke):
    lines = invoke("tools").output.splitlines()
    assert len(lines) == 6
    assert lines[0].split()[:2] == ["calculator", "read"]


def test_explain_shows_what_the_model_sees(invoke):
    result = invoke("explain", "get_weather")
    assert result.exit_code == 0
    assert "get_weather" in result.output and "city" in result.output


def test_chat_in_a_subprocess(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    command = [
        sys.executable,
        "-c",
        "from toolsys.cli import main; main()",
        "chat",
        "What is 17 times 38?",
    ]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert "calculator" in done.stdout and "646" in done.stdout
