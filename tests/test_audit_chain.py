"""The audit log's hash chain: every kind of tampering is named by line; restarts continue it."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from toolsys import Registry
from toolsys.governance import AuditLog
from toolsys.governance.audit import read, verify
from toolsys.governance.chain import GENESIS, AuditFileError, canonical, digest_of, seal


def lookup(city: str) -> str:
    """Look up a city.

    Args:
        city: The city.
    """
    return city.upper()


def write_log(path: Path, n: int = 6) -> list[bytes]:
    registry = Registry(layers=[AuditLog(path)])
    registry.register(lookup)
    for i in range(n):
        registry.execute("lookup", {"city": f"city-{i}"}, call_id=f"call_{i}")
    return path.read_bytes().splitlines(keepends=True)


def rewrite(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def test_an_untouched_log_verifies_with_its_count_and_head(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    result = verify(path)
    assert result.ok and result.count == 6 and result.line is None
    assert result.head == json.loads(lines[-1])["hash"]
    assert str(result).startswith("OK: 6 records")


def test_each_record_carries_the_previous_hash_and_its_own_hash_of_the_canonical_body(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, 3)
    records = read(path)
    assert [r["seq"] for r in records] == [1, 2, 3]
    assert records[0]["prev"] == GENESIS
    assert [r["prev"] for r in records[1:]] == [r["hash"] for r in records[:-1]]
    for record in records:
        assert record["hash"] == digest_of(record)
        body = canonical(record)
        assert b'"hash"' not in body and body.isascii()


def test_the_canonical_form_does_not_depend_on_key_order_or_spacing() -> None:
    a = {"seq": 1, "prev": GENESIS, "tool": "x", "arguments": {"b": 1, "a": "é"}}
    b = dict(reversed(list(a.items())))
    assert canonical(a) == canonical(b)
    line, digest = seal(dict(a))
    assert json.loads(line)["hash"] == digest == digest_of(json.loads(line))


def test_an_edited_field_is_named_as_altered(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[3] = lines[3].replace(b"CITY-3", b"CITY-X").replace(b"city-3", b"city-x")
    result = verify(rewrite(path, lines))
    assert not result.ok and result.line == 4
    assert "altered" in result.problem
    assert result.count == 3


def test_a_changed_outcome_is_named_as_altered(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[1] = lines[1].replace(b'"outcome":"ok"', b'"outcome":"PERMISSION_DENIED"')
    assert verify(rewrite(path, lines)).line == 2


def test_a_deleted_line_is_named_as_missing(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    del lines[2]
    result = verify(rewrite(path, lines))
    assert result.line == 3
    assert "1 record before it is missing" in result.problem


def test_a_deleted_first_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    result = verify(rewrite(path, lines[1:]))
    assert result.line == 1 and "missing" in result.problem


def test_two_swapped_lines_are_named_as_out_of_order(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[2], lines[3] = lines[3], lines[2]
    result = verify(rewrite(path, lines))
    assert result.line == 3
    assert "out of order" in result.problem


def test_a_cut_last_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[-1] = lines[-1][:40]
    result = verify(rewrite(path, lines))
    assert result.line == 6 and "cut short" in result.problem
    assert result.count == 5


def test_a_last_line_cut_only_at_its_end_of_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[-1] = lines[-1].rstrip(b"\n")
    assert verify(rewrite(path, lines)).line == 6


def forged(after: bytes | None, seq: int) -> bytes:
    """A record with a correct hash of its own, linked to `after` (the line before it)."""
    prev = json.loads(after)["hash"] if after is not None else GENESIS
    record: dict[str, Any] = {"seq": seq, "prev": prev, "tool": "refund", "outcome": "ok"}
    line, _ = seal(record)
    return line


@pytest.mark.parametrize("at", [0, 1, 3, 5])
def test_a_forged_line_with_its_own_hash_recomputed_is_named_as_inserted(
    tmp_path: Path, at: int
) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines.insert(at, forged(lines[at - 1] if at else None, at + 1))
    result = verify(rewrite(path, lines))
    assert not result.ok
    assert result.line == at + 1
    assert "inserted" in result.problem


def test_a_duplicated_line_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines.insert(3, lines[2])
    result = verify(rewrite(path, lines))
    assert not result.ok and result.line in (3, 4)


def test_a_line_replaced_by_garbage_is_named(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[2] = b"not json at all\n"
    result = verify(rewrite(path, lines))
    assert result.line == 3 and "not a whole audit record" in result.problem


def test_a_nan_smuggled_into_a_record_is_altered_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[1] = lines[1].replace(b'"attempt":1', b'"attempt":NaN')
    assert verify(rewrite(path, lines)).line == 2


def test_a_new_audit_log_on_an_existing_file_continues_its_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, 3)
    write_log(path, 2)  # a restart: a new registry, a new AuditLog, the same file
    result = verify(path)
    assert result.ok and result.count == 5
    assert [r["seq"] for r in read(path)] == [1, 2, 3, 4, 5]


def test_a_file_ending_in_a_cut_line_is_not_continued_and_the_call_does_not_run(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, 2)
    rewrite(path, [lines[0], lines[1][:30]])
    ran: list[str] = []
    registry = Registry(layers=[AuditLog(path)])

    @registry.tool
    def touch(name: str) -> str:
        """Touch.

        Args:
            name: What.
        """
        ran.append(name)
        return name

    result = registry.execute("touch", {"name": "x"})
    assert not result.ok and result.error is not None
    assert result.error.code == "AUDIT_UNAVAILABLE"
    assert "cut line" in result.error.message
    assert ran == []
    assert str(tmp_path) not in result.to_message()


def test_a_stream_gets_a_chain_of_its_own_that_verifies_once_saved(tmp_path: Path) -> None:
    stream = io.StringIO()
    registry = Registry(layers=[AuditLog(stream)])
    registry.register(lookup)
    for city in ("a", "b", "c"):
        registry.execute("lookup", {"city": city})
    path = tmp_path / "saved.jsonl"
    path.write_text(stream.getvalue())
    assert verify(path).count == 3


def test_a_binary_stream_works_too() -> None:
    stream = io.BytesIO()
    registry = Registry(layers=[AuditLog(stream)])
    registry.register(lookup)
    registry.execute("lookup", {"city": "a"})
    assert json.loads(stream.getvalue())["seq"] == 1


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "no such file"),
        (b"", "is empty"),
        (b"\n\n  \n", "is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (b"\xff\xfe broken utf-8\n", "binary"),
        (b"hello\nworld\n", "not an audit log"),
        (b'{"a": 1}\n', "not an audit log"),
        (b"[1, 2]\n", "not an audit log"),
    ],
)
def test_a_file_that_is_not_an_audit_log_is_one_clear_error(
    tmp_path: Path, content: bytes | None, says: str
) -> None:
    path = tmp_path / "x.jsonl"
    if content is not None:
        path.write_bytes(content)
    for function in (verify, read):
        with pytest.raises(AuditFileError, match=says) as info:
            function(path)
        assert "\n" not in str(info.value)


def test_a_folder_is_not_an_audit_log(tmp_path: Path) -> None:
    with pytest.raises(AuditFileError, match="is a folder"):
        verify(tmp_path)


def test_read_names_a_line_that_is_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, 3)
    lines[1] = b"{oops\n"
    with pytest.raises(AuditFileError, match="line 2 is not an audit record"):
        read(rewrite(path, lines))


def test_lines_cut_from_the_end_are_caught_against_a_head_kept_earlier(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    kept = verify(path).head
    assert verify(path, head=kept).ok
    rewrite(path, lines[:4])  # two whole lines gone: the chain alone still looks intact
    assert verify(path).ok
    result = verify(path, head=kept)
    assert not result.ok and result.line == 5 and result.count == 4
    assert "cut from the end" in result.problem


def test_a_head_kept_earlier_still_verifies_after_more_records(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, 2)
    kept = verify(path).head
    write_log(path, 3)
    assert verify(path, head=kept.upper()).ok


@pytest.mark.parametrize("head", ["", "abc", "not-hex-at-all", "0" * 65, "a" * 8, "a" * 63])
def test_a_head_that_is_not_a_hash_is_refused(tmp_path: Path, head: str) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, 1)
    with pytest.raises(AuditFileError, match="is not a record hash"):
        verify(path, head=head)


def test_a_fixed_clock_and_timer_give_a_byte_identical_log(tmp_path: Path) -> None:
    def log(path: Path) -> bytes:
        registry = Registry(layers=[AuditLog(path, clock=lambda: 0.0, timer=lambda: 1.0)])
        registry.register(lambda a, b: a + b, name="add")
        for n in range(3):
            registry.execute("add", {"a": n, "b": 1})
        return path.read_bytes()

    assert log(tmp_path / "a.jsonl") == log(tmp_path / "b.jsonl")
