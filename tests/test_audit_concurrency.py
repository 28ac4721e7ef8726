"""Concurrent writers never interleave partial lines and never fork the chain: threads, parallel
async calls, two AuditLog objects on one file, two processes."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from toolsys import Registry
from toolsys.governance import AuditLog
from toolsys.governance.audit import read, verify

BIG = "y" * 6000  # long lines make a torn write likelier, if writes could tear


def echo(text: str, worker: int) -> int:
    """Echo the length.

    Args:
        text: Anything.
        worker: Who calls.
    """
    return len(text)


async def aecho(text: str, worker: int) -> int:
    """Echo the length, asynchronously.

    Args:
        text: Anything.
        worker: Who calls.
    """
    await asyncio.sleep(0)
    return len(text)


def assert_whole(path: Path, expected: int) -> None:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert len(lines) == expected
    for line in lines:
        json.loads(line)  # every line is whole JSON
    result = verify(path)
    assert result.ok, str(result)
    assert result.count == expected
    assert [r["seq"] for r in read(path)] == list(range(1, expected + 1))


def hammer(registries: list[Registry], threads: int, calls: int) -> None:
    barrier = threading.Barrier(threads)

    def work(worker: int) -> None:
        registry = registries[worker % len(registries)]
        barrier.wait()
        for i in range(calls):
            text = BIG if i % 3 == 0 else "small"
            assert registry.execute("echo", {"text": text, "worker": worker}).ok

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()


def test_threads_sharing_one_audit_log_write_whole_lines_in_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    registry = Registry(layers=[AuditLog(path)])
    registry.register(echo)
    hammer([registry], threads=8, calls=40)
    assert_whole(path, 8 * 40)
    per_worker = Counter(r["arguments"]["worker"] for r in read(path))
    assert per_worker == dict.fromkeys(range(8), 40)


def test_two_audit_log_objects_on_one_file_share_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    registries = []
    for _ in range(2):
        registry = Registry(layers=[AuditLog(path)])
        registry.register(echo)
        registries.append(registry)
    hammer(registries, threads=6, calls=30)
    assert_whole(path, 6 * 30)


def test_parallel_async_calls_are_each_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    registry = Registry(layers=[AuditLog(path)])
    registry.register(aecho)

    async def main() -> None:
        results = await asyncio.gather(
            *(
                registry.aexecute("aecho", {"text": "t", "worker": n}, call_id=f"c{n}")
                for n in range(200)
            )
        )
        assert all(result.ok for result in results)

    asyncio.run(main())
    assert_whole(path, 200)
    assert sorted(r["call_id"] for r in read(path)) == sorted(f"c{n}" for n in range(200))


WRITER = """
import sys
from toolsys import Registry
from toolsys.governance import AuditLog
registry = Registry(layers=[AuditLog(sys.argv[1])])
@registry.tool
def echo(text: str, worker: int) -> int:
    '''Echo.

    Args:
        text: Anything.
        worker: Who.
    '''
    return len(text)
for i in range(int(sys.argv[2])):
    registry.execute("echo", {"text": "z" * (5000 if i % 2 else 10), "worker": int(sys.argv[3])})
"""


def test_two_processes_appending_to_one_file_share_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    env = {**os.environ, "TOOLSYS_OFFLINE": "1"}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), "150", str(n)], env=env)
        for n in range(2)
    ]
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    assert_whole(path, 300)


def _forked_writer(registry: Registry, worker: int) -> None:
    for i in range(60):
        registry.execute("echo", {"text": "w" * (4000 if i % 2 else 5), "worker": worker})


def test_forked_children_that_inherit_an_open_audit_log_share_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    registry = Registry(layers=[AuditLog(path)])
    registry.register(echo)
    registry.execute("echo", {"text": "opened before the fork", "worker": -1})
    context = multiprocessing.get_context("fork")
    children = [context.Process(target=_forked_writer, args=(registry, n)) for n in range(2)]
    for child in children:
        child.start()
    _forked_writer(registry, 9)
    for child in children:
        child.join(timeout=120)
        assert child.exitcode == 0
    assert_whole(path, 1 + 3 * 60)
