"""Run a widget's click where a cell would run it: on the thread and event loop that built it.

Why: JupyterLab 4 tags widget messages with a kernel *subshell* (its setting "Kernel Comms over
subshells", default "perCommTarget"), and ipykernel 7 runs each subshell in a thread of its own,
with a loop of its own. ipykernel sends a widget's messages to the subshell its last update was
sent under: a widget made in a cell answers on the main thread, but a widget made while a click
was handled (the ApprovalPanel's next card, after the first decision) answers in the subshell's
thread. Its callback then runs there, not where every cell runs: a tool that uses a sqlite
connection made in a cell fails ("SQLite objects created in a thread can only be used in that
same thread"), and anything else a cell left bound to its thread (toolsys's per-thread event
loop, a thread-local) is not there. So the first Approve worked and the second failed.

`CellThread` remembers where the widget was built: a cell's thread, its running loop and its
context (ipykernel keeps the message being answered in a context variable). `call(fn)` runs
`fn` at once when it is already there, and otherwise hands it to that loop, in a copy of that
context, which runs it after the cell that is running (if any) has finished, exactly as the next
cell would run; widgets it makes then answer on the main thread too. Outside a kernel (a script,
a test calling `button.click()`) it is the same thread, and `fn` runs at once.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable


class CellThread:
    """The thread, running event loop and context this was made in (a cell's, in a notebook)."""

    def __init__(self) -> None:
        self.thread = threading.current_thread()
        self.context = contextvars.copy_context()
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
            loop.call_soon_threadsafe(fn, context=self.context.copy())
