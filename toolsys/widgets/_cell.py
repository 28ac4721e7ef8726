"""Run a widget's click where a cell would run it: on the thread and event loop that built it.

Why: JupyterLab 4 sends widget messages to a kernel *subshell* (its setting "Kernel Comms over
subshells", default "perCommTarget"), and ipykernel 7 runs each subshell in a thread of its own,
with a loop of its own. A button's callback then runs in that thread, not in the kernel's main
thread where every cell runs: a tool that uses a sqlite connection made in a cell fails ("SQLite
objects created in a thread can only be used in that same thread"), and anything else a cell
left bound to its thread (toolsys's per-thread event loop, a thread-local) is not there. The
first click of a session can still arrive on the main thread (the subshell is made on first
use), so a panel worked once and broke on the second click.

`CellThread` remembers where the widget was built (a cell: the main thread, inside the
kernel's running loop). `call(fn)` runs `fn` at once when it is already there, and otherwise
hands it to that loop, which runs it after the cell that is running (if any) has finished,
exactly as the next cell would run. Outside a kernel (a script, a test calling `button.click()`)
it is the same thread, and `fn` runs at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


class CellThread:
    """The thread and running event loop this object was made in (a cell's, in a notebook)."""

    def __init__(self) -> None:
        self.thread = threading.current_thread()
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # no loop is running here: a script or a test
            self.loop = None

    def here(self) -> bool:
        return threading.current_thread() is self.thread

    def call(self, fn: Callable[[], object]) -> None:
        """Run `fn` on the cell's thread: now if this is it, else soon on the cell's loop."""
        loop = self.loop
        if self.here() or loop is None or loop.is_closed() or not loop.is_running():
            fn()
        else:
            loop.call_soon_threadsafe(fn)
