"""Block the network for the length of a test, and fail loudly when something tries it.

Why: a test that quietly reaches a real endpoint passes on a laptop with a key and breaks
offline, in CI, or on a student's machine (chapter 11 shows one break). Inside `no_network()`
every attempt to resolve a host name or open an internet connection raises `NetworkBlocked`,
naming where it tried to go, and is recorded on the guard. It is enforced by an audit hook
(`sys.addaudithook`, PEP 578), so the interpreter itself reports each attempt, whatever the route:
`socket.socket.connect`, `_socket.socket().connect` (no wrapper to get around), UDP `sendto` and
`sendmsg` to an address, `getaddrinfo`, `gethostbyname`, `gethostbyaddr`, `getnameinfo`, and
the same calls made by C extensions through Python's socket module. (A C library that opens its
own sockets without Python is beyond any in-process guard: run such tests without a network.)
`NetworkBlocked` is a BaseException, like KeyboardInterrupt, so the `except Exception` of an SDK's
retry loop or of an agent loop does not turn it into a polite error: the test stops at the line
that tried. The pytest fixtures also fail the test afterwards if an attempt was recorded but
swallowed (a tool's own `except BaseException`, or `Registry.execute`, which never raises).

Unix sockets (local IPC, a Jupyter kernel's plumbing) are not the network and stay open.

    with no_network() as guard:
        client = scripted(text("hi"))   # answered in-process: no socket at all
    assert not guard.attempts
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
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


_LOOKUPS = {
    "socket.getaddrinfo": lambda args: _where(args[:2]),
    "socket.gethostbyname": lambda args: str(args[0]),
    "socket.gethostbyaddr": lambda args: str(args[0]),
    "socket.getnameinfo": lambda args: _where(args[0]),
}
"""Name resolution, audited with these arguments: always blocked."""
_SENDS = ("socket.connect", "socket.sendto", "socket.sendmsg")
"""Audited with (socket, address): blocked unless the socket is a Unix one."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook: every socket operation of the interpreter reports here, also those of
    `_socket` itself and of C code, so no wrapper or saved reference gets around it."""
    if not _active or not event.startswith("socket."):
        return
    __tracebackhide__ = True
    lookup = _LOOKUPS.get(event)
    if lookup is not None:
        raise _refuse(lookup(args))
    if event in _SENDS:
        sock, address = args[0], args[-1]
        if address is None or getattr(sock, "family", None) == getattr(socket, "AF_UNIX", None):
            return
        raise _refuse(_where(address))


_installed: list[bool] = []


def _install() -> None:
    """Add the audit hook once per process (an audit hook cannot be removed; while no
    `no_network()` block is active it returns at once)."""
    if not _installed:
        sys.addaudithook(_audit)
        _installed.append(True)


@contextmanager
def no_network() -> Iterator[NetworkGuard]:
    """Block internet sockets and name resolution inside the block (nesting is fine; the block
    is process-wide: other threads are blocked too while it lasts)."""
    guard = NetworkGuard()
    with _lock:
        _install()
        _active.append(guard)
    try:
        yield guard
    finally:
        with _lock:
            _active.remove(guard)
