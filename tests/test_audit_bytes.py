"""The audit log under attack on its bytes: repeated keys, re-spelled lines, short heads, a keyed
chain with key rotation, and files that are not files (a FIFO, /dev/zero) or larger than memory."""

from __future__ import annotations

import json
import os
import threading
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolsys import Registry
from toolsys.cli import main
from toolsys.governance import AuditLog
from toolsys.governance.audit import read, verify
from toolsys.governance.chain import GENESIS, AuditFileError, records, seal

KEY = "k" * 32
OTHER = "o" * 32


def lookup(city: str) -> str:
    """Look up a city.

    Args:
        city: The city.
    """
    return city.upper()


def write_log(path: Path, n: int = 4, **options: object) -> list[bytes]:
    log = AuditLog(path, **options)  # type: ignore[arg-type]
    registry = Registry(layers=[log])
    registry.register(lookup)
    for i in range(n):
        registry.execute("lookup", {"city": f"city-{i}"}, call_id=f"call_{i}")
    log.close()
    return path.read_bytes().splitlines(keepends=True)


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


FORGED = b'"approved_by":"manager-bob","decision":"approved","outcome":"ok",'


def test_keys_written_twice_in_front_of_the_real_ones_are_caught(tmp_path: Path) -> None:
    # The attack: Python's json keeps the last value, so the parsed record (and its
    # canonical hash) is unchanged while grep and most readers see an approved call.
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    head = verify(path).head
    lines[1] = lines[1].replace(b"{", b"{" + FORGED, 1)
    path.write_bytes(b"".join(lines))
    assert json.loads(lines[1])["decision"] == "none"  # what the old verify saw
    for result in (verify(path), verify(path, head=head)):
        assert not result.ok and result.line == 2 and "twice" in result.problem
    with pytest.raises(AuditFileError, match="line 2 is not an audit record"):
        read(path)
    for command in ("verify", "show", "stats"):
        code, out, err = cli("audit", command, str(path))
        assert code in (1, 2) and "hash chain intact" not in out, (command, out, err)


@pytest.mark.parametrize(
    "edit",
    [
        lambda line: line.replace(b'","', b'", "', 1),  # respaced
        lambda line: json.dumps(dict(reversed(json.loads(line).items()))).encode() + b"\n",
        lambda line: line.replace(b'"tool":"lookup"', b'"tool":"\\u006cookup"'),  # re-spelled
        lambda line: line.replace(b'"attempt":1', b'"attempt":1.0'),
    ],
    ids=["respaced", "reordered", "escaped", "number-spelling"],
)
def test_a_line_that_is_not_byte_for_byte_what_auditlog_wrote_does_not_verify(
    tmp_path: Path, edit
) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[2] = edit(lines[2])
    path.write_bytes(b"".join(lines))
    result = verify(path)
    assert not result.ok and result.line == 3 and result.count == 2


def test_the_head_is_printed_whole_and_only_a_whole_head_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path)
    code, out, _ = cli("audit", "verify", str(path))
    head = out.split("(head ")[1].rstrip(")\n")
    assert code == 0 and len(head) == 64 and head == verify(path).head
    assert cli("audit", "verify", "--head", head, str(path))[0] == 0
    code, _, err = cli("audit", "verify", "--head", head[:8], str(path))
    assert code == 2 and "all 64 hex digits" in err


# --- a keyed chain ------------------------------------------------------------------------------


def test_a_keyed_log_verifies_only_with_its_key_which_it_never_holds(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, key=KEY, key_id="2026-12")
    assert KEY.encode() not in path.read_bytes()
    assert all(json.loads(line)["signer"] == "2026-12" for line in lines)
    assert verify(path, keys={"2026-12": KEY}).ok
    plain = verify(path)
    assert not plain.ok and plain.line == 1 and "verify with that key" in plain.problem
    wrong = verify(path, keys={"2026-12": OTHER})
    assert not wrong.ok and "altered" in wrong.problem
    unknown = verify(path, keys={"2027-01": KEY})
    assert not unknown.ok and "not among the keys given" in unknown.problem


def test_an_edit_with_the_whole_chain_recomputed_fails_without_the_key(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, key=KEY, key_id="k1")
    rebuilt, prev = [], GENESIS
    for seq, line in enumerate(lines, start=1):
        record = {k: v for k, v in json.loads(line).items() if k not in ("hash", "signer")}
        record.update(seq=seq, prev=prev, decision="approved")
        sealed, prev = seal(record)  # what an attacker without the key can do
        rebuilt.append(sealed)
    path.write_bytes(b"".join(rebuilt))
    assert verify(path).ok  # a bare chain cannot tell...
    result = verify(path, keys={"k1": KEY})  # ... a keyed one can
    assert not result.ok and result.line == 1 and "not signed" in result.problem


def test_a_rotated_key_continues_the_chain_and_both_keys_verify_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, key=KEY, key_id="old")
    registry = Registry(layers=[log])
    registry.register(lookup)
    registry.execute("lookup", {"city": "a"})
    log.rotate_key(OTHER, key_id="new")
    registry.execute("lookup", {"city": "b"})
    assert log.verify().ok
    assert [r["signer"] for r in read(path)] == ["old", "new"]
    assert verify(path, keys={"old": KEY, "new": OTHER}).ok
    result = verify(path, keys={"new": OTHER})
    assert not result.ok and result.line == 1
    with pytest.raises(ValueError, match="already names another key"):
        log.rotate_key("x" * 32, key_id="old")
    with pytest.raises(ValueError, match="at least 16 bytes"):
        AuditLog(path, key="short")


def test_the_cli_verifies_a_keyed_log_with_a_key_file_kept_apart(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, key=KEY, key_id="2026-12")
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"2026-12": KEY}))
    assert cli("audit", "verify", "--key-file", str(keys), str(path))[0] == 0
    assert cli("audit", "verify", str(path))[0] == 1
    keys.write_text("[1]")
    code, _, err = cli("audit", "verify", "--key-file", str(keys), str(path))
    assert code == 2 and "JSON object" in err


# --- files that are not files, and files larger than memory ------------------------------------


@pytest.mark.timeout(30)
@pytest.mark.parametrize("command", ["verify", "show", "stats"])
def test_a_fifo_or_a_device_is_refused_at_once(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        code, _, err = cli("audit", command, path)
        assert code == 2 and "not a regular file" in err and err.count("\n") == 1, err
    with pytest.raises(AuditFileError, match="not a regular file"):
        verify("/dev/zero")


def test_a_line_longer_than_the_limit_is_refused_not_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsys.governance import chain

    monkeypatch.setattr(chain, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, 2)
    path.write_bytes(lines[0] + b"x" * 5000)
    with pytest.raises(AuditFileError, match="line 2 is longer than"):
        verify(path)


def test_verify_show_and_stats_stream_the_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, 3000)
    size = path.stat().st_size
    assert size > 1_400_000

    def peak(action) -> int:
        tracemalloc.start()
        try:
            action()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(lambda: verify(path)) < size / 10
    assert peak(lambda: sum(1 for _ in records(path))) < size / 10
    assert peak(lambda: cli("audit", "stats", str(path))) < size / 5
    assert peak(lambda: cli("audit", "show", "--last", "5", str(path))) < size / 5


def test_verify_still_reads_a_log_another_thread_appends_to(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, 50)
    done = threading.Event()

    def append() -> None:
        write_log(path, 50)
        done.set()

    thread = threading.Thread(target=append)
    thread.start()
    result = verify(path)
    thread.join()
    assert result.ok and result.count >= 50 and done.is_set()
