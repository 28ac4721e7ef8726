"""`toolsys audit verify|show|stats FILE`: exit codes, messages, one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys import Category, Registry, ToolError
from toolsys.cli import main
from toolsys.governance import AuditLog


def write_log(path: Path) -> Path:
    registry = Registry(layers=[AuditLog(path)])

    @registry.tool
    def weather(city: str) -> str:
        """Weather.

        Args:
            city: The city.
        """
        if city == "Atlantis":
            raise ToolError("NOT_FOUND", "No such city.")
        return "sunny"

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str) -> str:
        """Refund.

        Args:
            order_id: The order.
        """
        return "done"

    for city in ("Oslo", "Bergen", "Atlantis"):
        registry.execute("weather", {"city": city}, context={"user": "ana"})
    registry.execute("weather", {"town": "Oslo"})
    registry.execute("refund", {"order_id": "A"})
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_verify_says_ok_with_the_count(tmp_path: Path) -> None:
    code, out, err = run("audit", "verify", str(write_log(tmp_path / "a.jsonl")))
    assert code == 0 and err == ""
    assert "OK: 5 records, hash chain intact" in out


def test_verify_names_the_first_altered_line_and_exits_1(tmp_path: Path) -> None:
    path = write_log(tmp_path / "a.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b"Atlantis", b"Lemuria")
    path.write_bytes(b"".join(lines))
    code, out, err = run("audit", "verify", str(path))
    assert code == 1 and out == ""
    assert "line 3 was altered" in err
    assert "the first 2 records are intact" in err


def test_verify_names_a_missing_line(tmp_path: Path) -> None:
    path = write_log(tmp_path / "a.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:1] + lines[2:]))
    code, _, err = run("audit", "verify", str(path))
    assert code == 1 and "line 2 comes after a gap" in err


def test_show_prints_one_row_per_call(tmp_path: Path) -> None:
    code, out, _ = run("audit", "show", str(write_log(tmp_path / "a.jsonl")))
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == [
        "seq",
        "time",
        "user",
        "tool",
        "category",
        "decision",
        "outcome",
        "ms",
        "try",
    ]
    assert len(rows) == 5
    assert rows[2].split()[2:4] == ["ana", "weather"] and "NOT_FOUND" in rows[2]
    assert "INVALID_ARGUMENTS" in rows[3] and "write" in rows[4]


def test_show_filters_by_tool_and_keeps_the_last_rows(tmp_path: Path) -> None:
    path = str(write_log(tmp_path / "a.jsonl"))
    _, out, _ = run("audit", "show", "--tool", "weather", "--last", "2", path)
    rows = out.splitlines()[1:]
    assert [row.split()[0] for row in rows] == ["3", "4"]
    _, out, _ = run("audit", "show", "--tool", "nothing", path)
    assert out.strip() == "no records"


def test_stats_prints_per_tool_numbers(tmp_path: Path) -> None:
    code, out, _ = run("audit", "stats", str(write_log(tmp_path / "a.jsonl")))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["tool", "calls", "ok"]
    weather = next(line for line in lines if line.startswith("weather"))
    assert weather.split()[1:3] == ["4", "50%"]
    assert "INVALID_ARGUMENTS 1" in weather and "NOT_FOUND 1" in weather


def test_stats_as_json_and_as_a_plot(tmp_path: Path) -> None:
    path = str(write_log(tmp_path / "a.jsonl"))
    plot = tmp_path / "usage.png"
    code, out, _ = run("audit", "stats", "--json", "--plot", str(plot), path)
    assert code == 0
    rows = json.loads(out)
    assert rows[0]["tool"] == "weather" and rows[0]["errors"] == {
        "INVALID_ARGUMENTS": 1,
        "NOT_FOUND": 1,
    }
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_stats_refuses_a_plot_in_a_missing_folder(tmp_path: Path) -> None:
    path = str(write_log(tmp_path / "a.jsonl"))
    code, out, err = run("audit", "stats", "--plot", str(tmp_path / "no" / "p.png"), path)
    assert code == 2 and out == ""
    assert err.startswith("toolsys audit stats: --plot") and err.count("\n") == 1


@pytest.mark.parametrize("command", ["verify", "show", "stats"])
@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "no such file"),
        (b"", "is empty"),
        (b"\x00\x01\x02binary", "is a binary file"),
        (b"just text\n", "is not an audit log"),
        (b'{"seq": 1}\n', "is not an audit log"),
    ],
    ids=["missing", "empty", "binary", "text", "json-but-not-audit"],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, command: str, content: bytes | None, says: str
) -> None:
    path = tmp_path / "x.jsonl"
    if content is not None:
        path.write_bytes(content)
    code, out, err = run("audit", command, str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"toolsys audit {command}: ") and says in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("command", ["verify", "show", "stats"])
def test_a_missing_argument_names_the_audit_subcommand(command: str) -> None:
    code, _, err = run("audit", command)
    assert code == 2
    assert err.startswith(f"toolsys audit {command}: Missing argument 'FILE'")
    assert f"`toolsys audit {command} --help`" in err


def test_an_unknown_audit_subcommand_is_one_line() -> None:
    code, _, err = run("audit", "explode")
    assert code == 2 and err.startswith("toolsys audit: No such command 'explode'")


def test_verify_against_a_kept_head_catches_a_cut_tail(tmp_path: Path) -> None:
    path = write_log(tmp_path / "a.jsonl")
    _, out, _ = run("audit", "verify", str(path))
    kept = out.split("(head ")[1].rstrip(")\n")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]))
    code, _, err = run("audit", "verify", "--head", kept, str(path))
    assert code == 1 and "line 4 is missing" in err
    code, _, err = run("audit", "verify", "--head", "zz", str(path))
    assert code == 2 and err.startswith("toolsys audit verify: head='zz' is not a record hash")
