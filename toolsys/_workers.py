"""Worker threads for sync tools moved off the event loop: reused while idle, never waited for.

Why not `asyncio.to_thread` or a `ThreadPoolExecutor`: a deadline may leave a hung tool's thread
behind, and a fixed-size pool would then run out of workers, so the next call would wait behind
the hung one. Here a job goes to an idle worker if there is one, and to a new thread otherwise; a
worker that stays idle for `IDLE_SECONDS` ends. Starting a thread costs ~100 µs, handing a job to
an idle one a fraction of that, which is what keeps a deadline layer cheap on every call.

Nothing one job does can stop a later one from running: a job or its notification that raises
is reported and the worker goes on, and a forked child (which has none of these threads) starts
with no idle worker, so its jobs never go to a thread that does not exist there.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable

IDLE_SECONDS = 30.0

Job = Callable[[], Callable[[], None]]
"""Work to do on the thread; it returns what to do once the worker is idle again (notify)."""

_log = logging.getLogger("toolsys")
_lock = threading.Lock()
_idle: list[queue.SimpleQueue[Job | None]] = []  # the inboxes of workers waiting for a job


def submit(job: Job) -> None:
    """Run `job` on a worker thread: an idle one, or a new one when none is idle."""
    with _lock:
        inbox = _idle.pop() if _idle else None
    if inbox is None:
        threading.Thread(target=_work, args=(job,), name="toolsys-tool", daemon=True).start()
    else:
        inbox.put(job)


def stop_idle() -> int:
    """End every worker that is idle now (tests, a process about to exit); how many there were."""
    with _lock:
        inboxes = list(_idle)
        _idle.clear()
    for inbox in inboxes:
        inbox.put(None)
    return len(inboxes)


def _work(job: Job | None) -> None:
    inbox: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
    while job is not None:
        notify = _run(job)
        with _lock:
            _idle.append(inbox)
        _run(notify)  # after the worker is idle: a caller that submits at once reuses it
        try:
            job = inbox.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            with _lock:
                if inbox in _idle:  # nobody claimed this worker: it ends
                    _idle.remove(inbox)
                    return
            job = inbox.get()  # claimed just as it timed out: its job is on the way


def _run(step: Callable[[], Callable[[], None] | None]) -> Callable[[], None]:
    """Run a job (or its notification); what it returns, or nothing to do if it raised."""
    try:
        return step() or _nothing
    except BaseException:  # a worker must survive whatever one job does
        _log.warning("a toolsys worker job failed", exc_info=True)
        return _nothing


def _nothing() -> None:
    pass


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # another thread may have held it at the fork
    _idle.clear()  # their threads do not exist here


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
