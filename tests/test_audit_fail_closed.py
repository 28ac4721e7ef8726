"""An audit log that cannot record a call fails closed, as data: the call is refused before it
runs, or (when the write fails after it ran) its result is withheld and later calls refused."""

from __future__ import annotations

import errno
import io
from pathlib import Path
from typing import Any

import pytest

from toolsys import Category, Registry
from toolsys.governance import AuditLog, _journal
from toolsys.governance.audit import read, verify


def build(target: Any) -> tuple[Registry, AuditLog, list[str]]:
    ran: list[str] = []
    log = AuditLog(target)
    registry = Registry(layers=[log])

    @registry.tool(category=Category.WRITE)
    def delete(name: str) -> str:
        """Delete something.

        Args:
            name: What.
        """
        ran.append(name)
        return f"deleted {name}"

    return registry, log, ran


def test_a_log_in_a_missing_folder_refuses_the_call_before_it_runs(tmp_path: Path) -> None:
    registry, _, ran = build(tmp_path / "missing" / "audit.jsonl")
    result = registry.execute("delete", {"name": "x"})
    assert ran == []
    assert result.error is not None and result.error.code == "AUDIT_UNAVAILABLE"
    assert "was not run" in result.error.message and result.error.retryable is False
    assert str(tmp_path) not in result.to_message()


def test_once_the_folder_exists_the_next_call_runs_and_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "audit.jsonl"
    registry, _, ran = build(path)
    registry.execute("delete", {"name": "x"})
    path.parent.mkdir()
    assert registry.execute("delete", {"name": "y"}).ok
    assert ran == ["y"] and [r["arguments"]["name"] for r in read(path)] == ["y"]


def test_a_folder_given_as_the_log_refuses_calls(tmp_path: Path) -> None:
    registry, _, ran = build(tmp_path)
    assert registry.execute("delete", {"name": "x"}).error is not None
    assert ran == []


class BrokenStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.broken = True

    def write(self, text: str) -> int:
        if self.broken:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(text)


def test_a_write_that_fails_after_the_call_withholds_its_result_and_refuses_later_calls() -> None:
    stream = BrokenStream()
    registry, log, ran = build(stream)
    first = registry.execute("delete", {"name": "a"})
    assert ran == ["a"]  # it ran: the write failed afterwards
    assert first.error is not None and first.error.code == "AUDIT_UNAVAILABLE"
    assert "finished (ok)" in first.error.message and "Do not repeat" in first.error.suggestion
    assert "deleted a" not in first.to_message()
    assert "No space left" in first.meta["audit_error"]

    second = registry.execute("delete", {"name": "b"})
    assert ran == ["a"]  # refused before running
    assert second.error is not None and "was not run" in second.error.message

    stream.broken = False
    log.reopen()
    assert registry.execute("delete", {"name": "c"}).ok
    assert ran == ["a", "c"] and '"name":"c"' in stream.getvalue()


def test_a_full_disk_under_a_file_log_fails_closed_and_leaves_the_chain_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "audit.jsonl"
    registry, log, ran = build(path)
    assert registry.execute("delete", {"name": "a"}).ok

    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_journal.os, "write", full)
    assert registry.execute("delete", {"name": "b"}).error is not None
    assert registry.execute("delete", {"name": "c"}).error is not None
    assert ran == ["a", "b"]
    monkeypatch.undo()
    log.reopen()
    assert registry.execute("delete", {"name": "d"}).ok
    assert verify(path).count == 2


def test_a_failing_log_never_raises_to_the_caller() -> None:
    class Exploding:
        def write(self, text: str) -> int:
            raise RuntimeError("not even an OSError")

    registry, _, _ = build(Exploding())
    result = registry.execute("delete", {"name": "a"})
    assert result.error is not None and result.error.code == "AUDIT_UNAVAILABLE"


def test_a_target_that_is_neither_a_path_nor_a_stream_is_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="file path"):
        AuditLog(42)  # type: ignore[arg-type]
