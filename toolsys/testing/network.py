"""Block the network for the length of a test, and fail loudly when something tries it.

Why: a test that quietly reaches a real endpoint passes on a laptop with a key and breaks
offline, in CI, or on a student's machine (chapter 11 shows one break). Inside `no_network()`
every attempt to resolve a host name or open an internet socket raises `NetworkBlocked`, naming
where it tried to go, and is recorded on the guard. `NetworkBlocked` is a BaseException, like
KeyboardInterrupt, so the `except Exception` of an SDK's retry loop or of an agent loop does not
turn it into a polite error: the test stops at the line that tried. The pytest fixtures also
fail the test afterwards if an attempt was recorded but swallowed (a tool's own
`except BaseException`, or `Registry.execute`, which never raises).

Unix sockets (local IPC, a Jupyter kernel's plumbing) are not the network and stay open.

    with no_network() as guard:
        client = scripted(text("hi"))   # answered in-process: no socket at all
    assert not guard.attempts
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NetworkBlocked", "NetworkGuard", "no_network"]

_BLOCKED = (
    "toolsys.testing blocked a network connection to {where}: this test runs with the network "
    "blocked (the `scripted` or `no_network` fixture, or `with no_network():`). Answer the "
    "client from a script with scripted(...) instead of a real endpoint."
)


class NetworkBlocked(BaseException):
    """A test tried to reach the network while it was blocked (`except Exception` misses it)."""


class NetworkGuard:
    """What one `no_network()` block saw: every attempt, as 'host:port' text."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def report(self) -> str:
        """One line naming the attempts, for a failing test."""
        first = ", ".join(self.attempts[:3])
        more = f" and {len(self.attempts) - 3} more" if len(self.attempts) > 3 else ""
        return _BLOCKED.format(where=first + more)


_lock = threading.Lock()
_active: list[NetworkGuard] = []
_saved: dict[str, Any] = {}


def _where(address: Any) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


def _refuse(where: str) -> NetworkBlocked:
    with _lock:
        for guard in _active:
            guard.attempts.append(where)
    return NetworkBlocked(_BLOCKED.format(where=where))


def _is_unix(sock: socket.socket) -> bool:
    return getattr(socket, "AF_UNIX", None) is not None and sock.family == socket.AF_UNIX


def _connect(original: Callable[..., Any]) -> Callable[..., Any]:
    def connect(self: socket.socket, address: Any) -> Any:
        __tracebackhide__ = True
        if _is_unix(self):
            return original(self, address)
        raise _refuse(_where(address))

    return connect


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    __tracebackhide__ = True
    raise _refuse(_where((host, port)))


def _create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
    __tracebackhide__ = True
    raise _refuse(_where(address))


def _block() -> None:
    _saved.update(
        connect=socket.socket.connect,
        connect_ex=socket.socket.connect_ex,
        getaddrinfo=socket.getaddrinfo,
        create_connection=socket.create_connection,
    )
    socket.socket.connect = _connect(_saved["connect"])  # type: ignore[method-assign]
    socket.socket.connect_ex = _connect(_saved["connect_ex"])  # type: ignore[method-assign]
    socket.getaddrinfo = _getaddrinfo
    socket.create_connection = _create_connection


def _unblock() -> None:
    socket.socket.connect = _saved["connect"]  # type: ignore[method-assign]
    socket.socket.connect_ex = _saved["connect_ex"]  # type: ignore[method-assign]
    socket.getaddrinfo = _saved["getaddrinfo"]
    socket.create_connection = _saved["create_connection"]
    _saved.clear()


@contextmanager
def no_network() -> Iterator[NetworkGuard]:
    """Block internet sockets and name resolution inside the block (nesting is fine)."""
    guard = NetworkGuard()
    with _lock:
        if not _active:
            _block()
        _active.append(guard)
    try:
        yield guard
    finally:
        with _lock:
            _active.remove(guard)
            if not _active:
                _unblock()
