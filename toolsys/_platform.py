"""What this Python can do: threads, child processes. In a web browser (Pyodide) it has neither.

Why one module: toolsys runs in JupyterLite, on Pyodide (CPython compiled to WebAssembly), where
`threading.Thread.start()` raises, `os.fork` exists but fails, `subprocess` cannot start anything
and `asyncio.SelectorEventLoop()` cannot make its self-pipe. Every feature that needs one of
these asks here, and says "unavailable in the browser" in words a student (or a model) can act
on, instead of hanging or failing deep inside the standard library. Nothing else in the package
tests `sys.platform` for the browser.

On import in the browser this also makes `import httpx2` work: on Emscripten httpx2 imports
`httpx2_jsfetch` for its network transport, and that package's only release is an empty
placeholder. The stand-in here has the two transport classes; sending a request through them
says that the browser edition has no network transport (the offline model needs none: it answers
through an `httpx2.MockTransport`).
"""

from __future__ import annotations

import functools
import sys
import time
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

BROWSER = sys.platform == "emscripten"
"""True in Pyodide (JupyterLite, or Node.js): CPython compiled to WebAssembly."""

THREADS = not BROWSER or bool(getattr(getattr(sys, "_emscripten_info", None), "pthreads", False))
"""Can this Python start a thread? Pyodide is built without them."""

PROCESSES = not BROWSER
"""Can this Python fork or start a child process?"""

SLOWER = 3.0 if BROWSER else 1.0
"""About how many times longer Python code takes here than in CPython: deadlines meant for a
desktop (an exercise check's) are stretched by it."""

WHERE = "in the browser (Pyodide)"


def unavailable(feature: str, instead: str) -> str:
    """The sentence for a feature this platform cannot offer: what, why, and what to do."""
    return (
        f"{feature} is unavailable {WHERE}: this Python cannot start "
        f"{'threads or child processes' if not THREADS else 'child processes'}. {instead}"
    )


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A private event loop for `toolsys._sync`: the usual selector loop, or in the browser one
    that waits by sleeping (it has no self-pipe to wake it: with no other thread, nothing
    needs to)."""
    import asyncio

    if not BROWSER:
        return asyncio.SelectorEventLoop()
    return _sleeping_loop_class()()


class _Overrun(BaseException):
    """Raised inside code that ran past its deadline (a BaseException: `except Exception` in
    the code it stops does not catch it)."""


def run_with_deadline(fn: Callable[[], object], seconds: float) -> bool:
    """Run `fn()` on this thread and stop it once `seconds` have passed; False if it was stopped.

    Where no thread can watch a call, a trace function can: at every line after the deadline
    it raises inside the running code, which stops any loop written in Python. (A call that
    blocks inside C, such as `time.sleep(600)`, is only stopped when it returns.)
    """
    end = time.monotonic() + seconds
    overran = False

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal overran
        if time.monotonic() > end:
            overran = True
            raise _Overrun
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        fn()
    except _Overrun:
        pass
    finally:
        sys.settrace(previous)
    return not overran


@functools.cache
def _sleeping_loop_class() -> type:
    import asyncio
    import selectors

    class _SleepSelector(selectors.BaseSelector):
        """No file descriptors to watch: `select` only sleeps until the next timer."""

        def register(self, fileobj: Any, events: int, data: Any = None) -> Any:
            raise OSError("toolsys's browser event loop watches no file descriptors")

        def unregister(self, fileobj: Any) -> Any:
            raise KeyError(fileobj)

        def select(self, timeout: float | None = None) -> list[Any]:
            if timeout is None:  # nothing scheduled and nothing can arrive: do not wait forever
                raise RuntimeError(
                    "the event loop would wait forever: nothing is scheduled and, "
                    f"{WHERE}, no other thread can wake it"
                )
            if timeout > 0:
                time.sleep(timeout)
            return []

        def get_map(self) -> Any:
            return {}

    class SleepingLoop(asyncio.SelectorEventLoop):
        def __init__(self) -> None:
            super().__init__(_SleepSelector())

        def _make_self_pipe(self) -> None:
            self._ssock = self._csock = None

        def _close_self_pipe(self) -> None:
            pass

        def _write_to_self(self) -> None:
            pass

        def run_in_executor(  # type: ignore[override]  # any callable, run now
            self, executor: Any, func: Any, *args: Any
        ) -> Any:
            """No thread to run it on: run it now (as Pyodide's own loop does)."""
            future = self.create_future()
            try:
                future.set_result(func(*args))
            except BaseException as exc:
                future.set_exception(exc)
            return future

    return SleepingLoop


class _NoNetworkTransport:
    """httpx2's network transport in the browser edition: it refuses to send anything."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def _refuse(self, request: Any) -> Any:
        raise RuntimeError(
            f"toolsys {WHERE} has no network transport for httpx2, so it cannot reach "
            f"{getattr(request, 'url', 'a server')}: the offline model answers without one. "
            "For a real endpoint, run the workbook on your machine or on Binder."
        )

    def handle_request(self, request: Any) -> Any:
        return self._refuse(request)

    async def handle_async_request(self, request: Any) -> Any:
        return self._refuse(request)

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        pass


def _install_httpx2_transport() -> None:
    """Give httpx2 the `httpx2_jsfetch` it imports on Emscripten, unless a real one is there."""
    try:
        import httpx2_jsfetch  # type: ignore[import-not-found]

        if hasattr(httpx2_jsfetch, "JavascriptFetchTransport"):
            return
    except ImportError:
        pass
    stub = types.ModuleType("httpx2_jsfetch", "toolsys's stand-in: no network in the browser.")
    stub.JavascriptFetchTransport = type("JavascriptFetchTransport", (_NoNetworkTransport,), {})  # type: ignore[attr-defined]
    stub.AsyncJavascriptFetchTransport = type(  # type: ignore[attr-defined]
        "AsyncJavascriptFetchTransport", (_NoNetworkTransport,), {}
    )
    sys.modules["httpx2_jsfetch"] = stub


if BROWSER:
    _install_httpx2_transport()
