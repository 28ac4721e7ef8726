"""Worker threads for sync tools moved off the event loop: reused while idle, never waited for.

Why not `asyncio.to_thread` or a `ThreadPoolExecutor`: a deadline may leave a hung tool's thread
behind, and a fixed-size pool would then run out of workers, so the next call would wait behind
the hung one. Here a job goes to an idle worker if there is one, and to a new thread otherwise; a
worker that stays idle for `IDLE_SECONDS` ends. Starting a thread costs ~100 µs, handing a job to
an idle one a fraction of that, which is what keeps a deadline layer cheap on every call.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

IDLE_SECONDS = 30.0

Job = Callable[[], None]

_lock = threading.Lock()
_idle: list[queue.SimpleQueue[Job]] = []  # the inboxes of workers waiting for a job


def submit(job: Job) -> None:
    """Run `job` on a worker thread: an idle one, or a new one when none is idle."""
    with _lock:
        inbox = _idle.pop() if _idle else None
    if inbox is None:
        threading.Thread(target=_work, args=(job,), name="toolsys-tool", daemon=True).start()
    else:
        inbox.put(job)


def _work(job: Job) -> None:
    inbox: queue.SimpleQueue[Job] = queue.SimpleQueue()
    while True:
        job()  # a job catches its own exceptions
        with _lock:
            _idle.append(inbox)
        try:
            job = inbox.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            with _lock:
                if inbox in _idle:  # nobody claimed this worker: it ends
                    _idle.remove(inbox)
                    return
            job = inbox.get()  # claimed just as it timed out: its job is on the way
