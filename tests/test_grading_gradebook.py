"""The verdict log and the gradebook, without kernels: signed lines, rejected lines, escaping."""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsys import checks, grading
from toolsys.checks._core import KEY_ENV, LOG_FIELD_LIMIT, verdict_mac
from toolsys.grading._verdicts import MAX_LOG_BYTES, read_verdicts
from toolsys.grading.gradebook import csv_cell, markdown_cell

KEY = "k" * 64
GOOD = {
    "exercise": "2.1",
    "title": "Reject duplicate names",
    "status": "passed",
    "message": "",
    "expected": None,
    "got": None,
    "hint": None,
}


def _signed(**fields: object) -> str:
    verdict = {**GOOD, **fields}
    return json.dumps({**verdict, "mac": verdict_mac(KEY, verdict)})


def _read(tmp_path: Path, data: bytes) -> tuple[list[dict], list[str]]:
    log = tmp_path / "verdicts.jsonl"
    log.write_bytes(data)
    descriptor = os.open(log, os.O_RDONLY)
    try:
        return read_verdicts(descriptor, KEY)
    finally:
        os.close(descriptor)


def test_check_signs_each_logged_verdict_in_one_ascii_line_with_bounded_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv(checks.LOG_ENV, str(log))
    monkeypatch.setenv(KEY_ENV, KEY)
    checks.check("9.9\ud800" + "x" * 5000, None)  # an unknown id: an error verdict, logged
    [line] = log.read_bytes().splitlines()
    assert line.isascii()
    verdict = json.loads(line)
    mac = verdict.pop("mac")
    assert mac == verdict_mac(KEY, verdict)
    assert len(verdict["exercise"]) == LOG_FIELD_LIMIT and verdict["status"] == "error"


def test_a_signed_verdict_counts_and_the_last_one_per_exercise_wins(tmp_path: Path) -> None:
    data = "\n".join([_signed(status="failed"), _signed(), _signed(exercise="2.2")]) + "\n"
    verdicts, rejected = _read(tmp_path, data.encode())
    assert rejected == []
    assert [(v["exercise"], v["status"]) for v in verdicts] == [
        ("2.1", "passed"),
        ("2.2", "passed"),
    ]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (json.dumps(GOOD), "not written by toolsys.checks for this run"),
        (json.dumps({**GOOD, "mac": "0" * 64}), "not written by toolsys.checks for this run"),
        (json.dumps({**GOOD, "mac": "é" * 64}), "not written by toolsys.checks for this run"),
        (_signed(status="hacked"), "status 'hacked' is not one of"),
        (_signed(exercise="../x"), "exercise id '../x' is not like 2.1"),
        (_signed(exercise=2.1), "exercise id 2.1 is not like 2.1"),
        (_signed(message="x" * (LOG_FIELD_LIMIT + 1)), "message is not a text of at most"),
        (_signed(got=["a list"]), "got is not a text"),
        (json.dumps({**GOOD, "extra": 1}), "fields ['extra'] missing or unexpected"),
        ("{not json", "not a JSON line (JSONDecodeError)"),
        ("[" * 100_000, "not a JSON line (RecursionError)"),
        ("1" * 5000, "not a JSON line (ValueError)"),
        ("[1, 2]", "a JSON list, not an object"),
        (b"\xff\xfe".decode("latin-1"), "not a JSON line"),
    ],
    ids=range(14),
)
def test_a_bad_line_is_rejected_with_its_reason_and_the_rest_still_counts(
    tmp_path: Path, line: str, reason: str
) -> None:
    data = line.encode("latin-1" if line.startswith("\xff") else "utf-8")
    verdicts, rejected = _read(tmp_path, data + b"\n" + _signed(exercise="3.1").encode() + b"\n")
    assert [v["exercise"] for v in verdicts] == ["3.1"]
    assert len(rejected) == 1 and rejected[0].startswith("verdict log line 1 rejected: ")
    assert reason in rejected[0]


def test_a_huge_log_is_read_only_up_to_its_limit_and_says_so(tmp_path: Path) -> None:
    data = (_signed() + "\n").encode() + b"x" * MAX_LOG_BYTES
    verdicts, rejected = _read(tmp_path, data)
    assert [v["exercise"] for v in verdicts] == ["2.1"]
    assert rejected[0] == f"verdict log over {MAX_LOG_BYTES:,} bytes; the rest was ignored"


def test_many_bad_lines_are_named_up_to_five_then_counted(tmp_path: Path) -> None:
    _, rejected = _read(tmp_path, b"nope\n" * 12)
    assert len(rejected) == 6 and rejected[-1] == "and 7 more rejected lines"


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_in_the_log_never_raise_and_never_forge_a_verdict(data: bytes) -> None:
    with tempfile.TemporaryFile() as log:
        log.write(data)
        log.flush()
        verdicts, rejected = read_verdicts(log.fileno(), KEY)
    assert verdicts == []
    assert all(isinstance(r, str) for r in rejected)


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ('=HYPERLINK("http://evil","x")', '\'=HYPERLINK("http://evil","x")'),
        ("+cmd", "'+cmd"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("  =1+1", "'  =1+1"),
        ("\tx", " x"),
        ("plain -1", "plain -1"),
        ("two\nlines", "two\nlines"),
        ("bad \udcff byte", "bad \\udcff byte"),
        (None, ""),
    ],
)
def test_a_csv_cell_is_never_a_formula(text: str | None, cell: str) -> None:
    assert csv_cell(text) == cell


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("a | b", "a \\| b"),
        ("line\nbreak\r\nhere", "line break  here"),
        ("<script>x</script>", "\\<script\\>x\\</script\\>"),
        ("[link](javascript:x)", "\\[link\\](javascript:x)"),
        ("ansi \x1b[31mred", "ansi \\\\x1b\\[31mred"),  # shows as `ansi \x1b[31mred`
    ],
)
def test_a_markdown_cell_stays_one_cell_of_text(text: str, cell: str) -> None:
    assert markdown_cell(text) == cell


def _hostile_grades(root: Path) -> list[grading.NotebookGrade]:
    names = ["=1+1|x\ny", "bad \udcff name", "@alice"]
    return [
        grading.NotebookGrade(
            root / f"{index}.ipynb",
            name,
            problem="cell 1 raised ValueError: -1 | \n# heading",
            verdicts=[{**GOOD, "status": "failed", "got": "-1", "message": "a\n| b |"}],
            notes=["kernel start retried once (first attempt: RuntimeError: x)"],
        )
        for index, name in enumerate(names)
    ]


def test_the_gradebook_is_written_whatever_the_texts(tmp_path: Path) -> None:
    grades = _hostile_grades(tmp_path)
    grading.write_gradebook(grades, tmp_path / "gb", note="Isolation: | test")
    with (tmp_path / "gb" / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["student"] for r in rows] == ["'=1+1|x\ny", "bad \\udcff name", "'@alice"]
    assert {r["got"] for r in rows} == {"'-1"}
    assert rows[0]["notes"] == "kernel start retried once (first attempt: RuntimeError: x)"
    lines = (tmp_path / "gb" / "gradebook.md").read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith("|") for line in lines) == 2 + 3
    assert not any(line.startswith("# heading") for line in lines)
    assert len(grading.table(grades).splitlines()) == 1 + 3


def test_a_planted_symlink_in_out_is_replaced_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    (tmp_path / "gb").mkdir()
    (tmp_path / "gb" / "gradebook.csv").symlink_to(target)
    grading.write_gradebook(_hostile_grades(tmp_path), tmp_path / "gb")
    assert target.read_text() == "keep me"
    assert not (tmp_path / "gb" / "gradebook.csv").is_symlink()
