"""toolsys in the browser (toolsys._platform), proven on CPython by taking threads away.

Pyodide has no threads and no child processes; `make test-lite` runs the lessons there. These
tests pin the promises on every route, quickly: what needs a thread or a process says
"unavailable in the browser" at once (never a hang, never a traceback), and what can do without
(run_sync's loop, a check's deadline, asyncio.to_thread) does.
"""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from toolsys import Category, Registry, ToolDefinitionError, _platform, _sync
from toolsys.layers import Timeout


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """This Python, as Pyodide: no threads, no processes (a fresh private loop for the test)."""
    monkeypatch.setattr(_platform, "BROWSER", True)
    monkeypatch.setattr(_platform, "THREADS", False)
    monkeypatch.setattr(_platform, "PROCESSES", False)
    monkeypatch.setattr(_sync._local, "private", None, raising=False)


def test_run_with_deadline_stops_a_python_loop_and_lets_a_quick_call_finish() -> None:
    def forever() -> None:
        while True:
            pass

    started = time.monotonic()
    assert _platform.run_with_deadline(forever, 0.2) is False
    assert time.monotonic() - started < 5
    seen = []
    assert _platform.run_with_deadline(lambda: seen.append(1), 5) is True
    assert seen == [1]
    assert sys.gettrace() is None  # the trace function is gone again


def test_run_with_deadline_is_not_caught_by_except_exception() -> None:
    def stubborn() -> None:
        while True:
            try:
                while True:
                    pass
            except Exception:
                pass

    assert _platform.run_with_deadline(stubborn, 0.2) is False


def test_a_sync_tool_behind_a_timeout_is_refused_at_once_and_not_run(browser: None) -> None:
    ran = []

    def slow(n: int) -> int:
        """Sleep.

        Args:
            n: Seconds.
        """
        ran.append(n)
        time.sleep(n)
        return n

    registry = Registry(layers=[Timeout(seconds=0.1)])
    registry.register(slow, category=Category.WRITE)
    started = time.monotonic()
    result = registry.execute("slow", {"n": 30})
    assert time.monotonic() - started < 2 and ran == []
    assert not result.ok and result.error.code == "EXECUTION_ERROR"
    assert "unavailable in the browser (Pyodide)" in result.error.message
    assert result.error.details["unavailable"] == "threads"
    assert result.error.details["side_effects"] == "none" and not result.error.retryable


def test_async_and_cooperative_tools_keep_their_deadline_in_the_browser(browser: None) -> None:
    async def hang() -> str:
        """Wait forever."""
        await asyncio.sleep(60)
        return "never"

    def quick() -> str:
        """Answer at once."""
        return "ok"

    registry = Registry(layers=[Timeout(seconds=0.1, cooperative={"quick"})])
    registry.register(hang)
    registry.register(quick)
    started = time.monotonic()
    assert registry.execute("hang", {}).error.code == "TIMEOUT"
    assert time.monotonic() - started < 5
    assert registry.execute("quick", {}).value == "ok"


def test_process_isolation_is_refused_at_registration_with_the_reason(browser: None) -> None:
    registry = Registry()
    with pytest.raises(ToolDefinitionError, match=r"unavailable in the browser \(Pyodide\)"):

        @registry.tool(isolate="process")
        def run(command: str) -> str:
            """Run a command.

            Args:
                command: The command.
            """
            return command


def test_the_grader_says_it_needs_processes(browser: None) -> None:
    from toolsys.grading import UsageError, grade

    with pytest.raises(UsageError, match=r"Grading .* unavailable in the browser"):
        grade([])


def test_a_check_that_hangs_is_a_timeout_without_a_thread(browser: None) -> None:
    from toolsys.checks import Status, check

    def forever(*args: object, **kwargs: object) -> None:
        while True:
            pass

    started = time.monotonic()
    result = check("2.1", forever, timeout=0.1)
    assert result.status == Status.TIMEOUT
    assert time.monotonic() - started < 10


def test_the_browser_loop_sleeps_runs_executors_inline_and_never_waits_forever() -> None:
    loop = _platform._sleeping_loop_class()()
    try:
        started = time.monotonic()
        loop.run_until_complete(asyncio.sleep(0.05))
        assert time.monotonic() - started >= 0.04
        assert loop.run_until_complete(asyncio.to_thread(lambda: 42)) == 42
        with pytest.raises(RuntimeError, match="wait forever"):
            loop.run_until_complete(loop.create_future())
    finally:
        loop.close()


def test_a_layered_call_inside_a_layered_call_runs_without_a_thread(browser: None) -> None:
    inner = Registry(layers=[lambda call, call_next: call_next(call)])

    @inner.tool
    def add(a: int, b: int) -> int:
        """Add.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    outer = Registry(layers=[Timeout(seconds=5, cooperative={"twice"})])

    @outer.tool
    def twice(n: int) -> int:
        """Double via another registry.

        Args:
            n: The number.
        """
        return inner.execute("add", {"a": n, "b": n}).value

    assert outer.execute("twice", {"n": 21}).value == 42


def test_httpx2_gets_a_transport_that_refuses_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "httpx2_jsfetch", raising=False)
    _platform._install_httpx2_transport()
    stub = sys.modules["httpx2_jsfetch"]
    monkeypatch.delitem(sys.modules, "httpx2_jsfetch")
    with pytest.raises(RuntimeError, match=r"no network transport .* offline model"):
        stub.JavascriptFetchTransport().handle_request(type("R", (), {"url": "https://x.test"}))
    with pytest.raises(RuntimeError, match="no network transport"):
        asyncio.run(stub.AsyncJavascriptFetchTransport().handle_async_request(None))


def test_on_this_python_nothing_is_switched_off() -> None:
    assert not _platform.BROWSER and _platform.THREADS and _platform.PROCESSES
    assert _platform.SLOWER == 1.0


def test_a_stream_without_threads_runs_to_the_end_and_yields_every_event(browser: None) -> None:
    from toolsys import models
    from toolsys.loop import run_agent
    from toolsys.streaming import stream_agent
    from toolsys.tools import registry

    prompt = "What is 2 + 2?"
    stream = stream_agent(models.client(), registry, prompt)  # would wait for a consumer
    events = list(stream)
    assert events and stream.transcript is not None
    assert stream.transcript.messages == run_agent(models.client(), registry, prompt).messages
