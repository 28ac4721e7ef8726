"""One MCP session that any event loop or thread can use, kept open between calls.

An imported tool is called from wherever the registry runs: `await registry.aexecute(...)` on a
notebook's loop, `registry.execute(...)` on a private loop in the same thread (toolsys/_sync.py),
the agent loop. An `mcp` session belongs to the loop it was opened on, so it lives on a loop of
its own, in a daemon thread; each call hops there and back. One task on that loop opens the
session and, when it is closed or has failed, closes it (anyio wants both in the same task); a
call that finds it broken is reported as a transport failure, and the next call opens a new one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, suppress
from typing import TypeVar

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

T = TypeVar("T")
_TRANSPORT = (
    OSError,
    EOFError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
)
Opener = Callable[[], AbstractAsyncContextManager[Client]]


class Unavailable(Exception):
    """The server could not be reached, or the connection broke during the call."""


class Connection:
    """A session opened by `open_client()` on a private loop, reopened after a failure."""

    def __init__(self, open_client: Opener, label: str) -> None:
        self.label = label
        self._open_client = open_client
        self._client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None
        self._opening: asyncio.Lock | None = None
        self._closed = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="toolsys-mcp", daemon=True)
        self._thread.start()

    def _run_loop(self) -> None:
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    @property
    def closed(self) -> bool:
        return self._closed

    async def run(self, use: Callable[[Client], Awaitable[T]], timeout: float | None = None) -> T:
        """`use(client)` on the session's loop, awaited from this one.

        Transport failures are `Unavailable`; anything else (a protocol error from the server,
        an answer the client refused) is raised as it is.
        """
        if self._closed:
            raise Unavailable("the connection was closed; import the server's tools again")
        future = asyncio.run_coroutine_threadsafe(self._use(use, timeout), self._loop)
        return await asyncio.wrap_future(future)

    async def _use(self, use: Callable[[Client], Awaitable[T]], timeout: float | None) -> T:
        client = await self._session(timeout)
        try:
            return await asyncio.wait_for(use(client), timeout)
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                raise
            self._drop()
            raise Unavailable(f"the connection closed ({exc})") from exc
        except TimeoutError as exc:  # the session may still be fine: keep it
            raise Unavailable(_late(timeout)) from exc
        except _TRANSPORT as exc:  # a stream closed, the process died...
            self._drop()
            raise Unavailable(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc

    async def _session(self, timeout: float | None) -> Client:
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:  # calls that arrive together share one new session
            if self._client is not None and self._holder is not None and not self._holder.done():
                return self._client
            return await self._open(timeout)

    async def _open(self, timeout: float | None) -> Client:
        if self._closed:
            raise Unavailable("the connection was closed; import the server's tools again")
        ready: asyncio.Future[Client] = self._loop.create_future()
        self._stop = asyncio.Event()
        self._holder = self._loop.create_task(self._hold(ready, self._stop))
        try:
            self._client = await asyncio.wait_for(asyncio.shield(ready), timeout)
        except TimeoutError as exc:
            self._drop()
            raise Unavailable(f"could not connect: {_late(timeout)}") from exc
        except Exception as exc:
            raise Unavailable(f"could not connect: {type(exc).__name__}: {exc}") from exc
        return self._client

    async def _hold(self, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        """Open the session, keep it until `stop`, close it: all in this one task."""
        try:
            async with self._open_client() as client:
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else Unavailable("cancelled"))
            elif not isinstance(exc, Exception):
                raise

    def _drop(self) -> None:
        self._client = None
        if self._stop is not None:
            self._stop.set()

    async def aclose(self) -> None:
        """Close the session (the server process, for stdio) and stop the private loop."""
        if self._closed:
            return
        self._closed = True
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        await asyncio.wrap_future(future)
        self._loop.call_soon_threadsafe(self._loop.stop)

    def close(self) -> None:
        """`aclose` for synchronous code."""
        if self._closed:
            return
        self._closed = True
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)

    async def _shutdown(self) -> None:
        self._drop()
        holder = self._holder
        if holder is not None and not holder.done():
            with suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(holder, 5)


def _late(timeout: float | None) -> str:
    return "no answer in time" if timeout is None else f"no answer within {timeout:g} s"
