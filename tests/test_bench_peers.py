"""benchmarks/bench_peers.py runs without the `bench` extra: toolsys rows always, a line for
each peer it skips. Timings are printed by the benchmark and never checked here."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _peers  # noqa: E402
import _search_tool  # noqa: E402


def test_a_peer_that_is_not_installed_becomes_a_skip_line() -> None:
    def missing() -> _peers.Peer:
        raise ImportError("No module named 'smolagents'")

    loaded, skipped = _peers.load([missing] * len(_peers.PEER_NAMES))
    assert loaded == []
    assert skipped == [
        f"skipped {name}: No module named 'smolagents' (pip install -e '.[bench]')"
        for name in _peers.PEER_NAMES
    ]


def test_an_error_other_than_a_missing_import_is_not_hidden() -> None:
    def broken() -> _peers.Peer:
        raise AttributeError("the peer's API changed")

    with pytest.raises(AttributeError):
        _peers.load([broken, *_peers.PEERS[1:]])


@pytest.mark.parametrize("is_async", [False, True])
def test_every_copy_of_the_tool_is_a_new_function_with_readable_source(is_async: bool) -> None:
    first, second = _search_tool.make_search("a", is_async=is_async), _search_tool.make_search("b")
    assert first is not second
    # Its own docstring too, so no cache keyed on the docstring answers for another copy.
    assert first.__doc__ != second.__doc__
    assert (first.__doc__ or "").replace("(a)", "(b)") == second.__doc__
    assert inspect.getsource(first).lstrip().startswith("async def a(" if is_async else "def a(")


def test_the_quick_run_prints_the_toolsys_rows_and_names_each_skipped_peer() -> None:
    env = {**os.environ, "TOOLSYS_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_peers.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "| toolsys Registry.execute | dict |" in out
    assert "| toolsys Registry.execute | JSON |" in out
    assert "| toolsys | Registry.register + export('openai') |" in out
    assert "import: pydantic + one model" in out
    for name in _peers.PEER_NAMES:
        assert f"skipped {name}: " in out or f"| {name} " in out, name
