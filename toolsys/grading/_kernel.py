"""Run a notebook in a kernel: as is for authors (`execute`), sandboxed for grading (`run_graded`).

Why: authors re-execute lessons in place and want the real environment; grading runs untrusted
code and wants the opposite. Both share nbclient and the output clean-up that makes re-runs
byte-identical. A graded kernel starts with a generous timeout and, on a loaded machine where a
first start can fail ("Kernel died before replying to kernel_info"), once more; the retry is
noted in the gradebook. The notebook's own timeout counts from the moment the kernel answers.
"""

from __future__ import annotations

import logging
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsys.grading._jail import SAYS
from toolsys.grading._sandbox import Sandbox

if TYPE_CHECKING:
    from nbclient import NotebookClient
    from nbformat import NotebookNode

STARTUP_TIMEOUT = 120
"""Seconds a kernel may take to answer its first message (each of the two attempts)."""
OUTPUT_BUDGET = 4_000_000
"""Characters of cell output kept per graded notebook; a submission may print forever."""
_QUIET = logging.getLogger("toolsys.grading.kernel")
_QUIET.setLevel(logging.CRITICAL)  # failures are reported by the caller, once


class KernelStartError(RuntimeError):
    """The kernel did not start, twice."""


def execute(
    notebook: NotebookNode,
    folder: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    allow_errors: bool = False,
) -> NotebookNode:
    """Run every cell of `notebook` in a fresh python3 kernel started in `folder` (authors).

    `timeout` bounds the whole notebook. Raises nbclient's CellTimeoutError, DeadKernelError or
    (unless allow_errors) CellExecutionError.
    """
    from nbclient import NotebookClient

    deadline = time.monotonic() + timeout
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout_func=lambda _cell: max(1, int(deadline - time.monotonic())),
        allow_errors=allow_errors,
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
        log=_QUIET,
    )
    kernel_env = {**os.environ, "PYTHONHASHSEED": "0", **(env or {})}
    # The kernel's own stderr (start-up warnings, tracebacks of a dying kernel) is noise here.
    try:
        return client.execute(env=kernel_env, stderr=subprocess.DEVNULL)
    finally:
        _coalesce_streams(notebook)
        _renumber_widgets(notebook)


def run_graded(notebook: NotebookNode, box: Sandbox, *, timeout: float) -> tuple[str, str]:
    """Run `notebook` in `box`; return (status, problem). Raises KernelStartError only."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    deadline = [math.inf]
    client = _start(notebook, box, deadline)
    deadline[0] = time.monotonic() + timeout
    status, problem = "ran", ""
    try:
        client.execute()
    except CellTimeoutError:
        status = "timeout"
        problem = f"stopped after {timeout:g} s: the notebook did not finish in time"
    except DeadKernelError:
        status, problem = "crashed", "the kernel died while running the notebook"
        said = _jail_says(box)
        problem += f" ({said})" if said else ""
    except Exception as exc:  # whatever nbclient meets: report it, grade the others
        status, problem = "crashed", f"{type(exc).__name__}: {exc}"
    finally:
        _stop(client, client.km, box)
        _coalesce_streams(notebook)
    if client.dropped:
        box.notes.append(f"output beyond {OUTPUT_BUDGET:,} characters was dropped")
    return status, problem


def _client(notebook: NotebookNode, box: Sandbox, deadline: list[float]) -> Any:
    from jupyter_client.kernelspec import KernelSpec
    from jupyter_client.manager import AsyncKernelManager

    # ipc sockets live in the submission's own folder: no TCP port to race for, no network.
    manager = AsyncKernelManager(
        kernel_name="python3",
        transport="ipc",
        ip=str(box.run / "k"),
        connection_file=str(box.connection_file),
    )
    kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    manager._kernel_spec = KernelSpec(
        argv=box.command(kernel), display_name="Python 3 (graded)", language="python"
    )
    client = _bounded_client(deadline)(
        notebook,
        km=manager,
        timeout_func=lambda _cell: max(1, int(deadline[0] - time.monotonic())),
        startup_timeout=STARTUP_TIMEOUT,
        allow_errors=True,
        record_timing=False,
        resources={"metadata": {"path": str(box.work)}},
        log=_QUIET,
    )
    return client


def _start(notebook: NotebookNode, box: Sandbox, deadline: list[float]) -> Any:
    """A ready kernel client; a failed start is retried once and noted."""
    first = ""
    for attempt in (1, 2):
        client = _client(notebook, box, deadline)
        manager = client.km
        box.diagnostics.seek(0)
        box.diagnostics.truncate()  # what this attempt's jail and kernel say, only
        try:
            client.start_new_kernel(env=box.env(), stdout=box.diagnostics, stderr=box.diagnostics)
            box.started(manager.provisioner.process)
            client.start_new_kernel_client()
            return client
        except Exception as exc:  # died before replying, timed out, could not launch
            _stop(client, manager, box)
            reason = _reason(exc, box)
        if attempt == 1:
            first = reason
            box.notes.append(f"kernel start retried once (first attempt: {reason})")
    raise KernelStartError(f"the kernel did not start, twice: {first}; then {reason}")


def _reason(exc: Exception, box: Sandbox) -> str:
    """The error, and the last line the jail or kernel wrote before dying, if any."""
    text = f"{type(exc).__name__}: {exc}"
    box.diagnostics.seek(0, os.SEEK_END)
    box.diagnostics.seek(max(0, box.diagnostics.tell() - 2000))
    lines = box.diagnostics.read().decode("utf-8", "replace").strip().splitlines()
    return f"{text} ({lines[-1][:300]})" if lines else text


def _jail_says(box: Sandbox) -> str:
    """The last thing the jail said (why it stopped the submission), or ""."""
    box.diagnostics.seek(0, os.SEEK_END)
    box.diagnostics.seek(max(0, box.diagnostics.tell() - 4000))
    lines = box.diagnostics.read().decode("utf-8", "replace").splitlines()
    said = [line.removeprefix(SAYS).strip() for line in lines if line.startswith(SAYS)]
    return said[-1][:300] if said else ""


def _stop(client: NotebookClient, manager: Any, box: Sandbox) -> None:
    """End the submission's processes while its jail still lives, then the kernel manager."""
    from jupyter_core.utils import run_sync

    box.stop()
    try:
        if client.kc is not None:
            client.kc.stop_channels()
        if manager is not None and manager.has_kernel:
            run_sync(manager.shutdown_kernel)(now=True)
    except Exception:  # already dead or half started: nothing is left to stop
        pass


def _bounded_client(deadline: list[float]) -> type[NotebookClient]:
    """A client class whose cells stop at `deadline[0]` (the list `run_graded` moves on)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError

    class BoundedClient(NotebookClient):
        """Keeps at most OUTPUT_BUDGET characters of output, runs no cell after the deadline."""

        spent = 0
        dropped = False

        def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
            if msg["msg_type"] != "status":
                self.spent += len(str(msg.get("content", "")))
                if self.spent > OUTPUT_BUDGET:
                    self.dropped = True
                    return None
            return super().process_message(msg, cell, cell_index)

        async def async_execute_cell(
            self, cell: Any, cell_index: int, *args: Any, **kw: Any
        ) -> Any:
            if time.monotonic() > deadline[0]:  # 100,000 quick cells must not run forever
                raise CellTimeoutError(f"the notebook's time ran out before cell {cell_index + 1}")
            return await super().async_execute_cell(cell, cell_index, *args, **kw)

    return BoundedClient


_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _renumber_widgets(notebook: NotebookNode) -> None:
    """Give widget models ids by order of creation, so a re-run does not rewrite the file.

    ipywidgets names each model with a random uuid; the saved widget state and each output that
    shows a widget refer to it. The order in which a notebook creates its widgets is stable.
    """
    state = notebook.metadata.get("widgets", {}).get(_WIDGET_STATE, {}).get("state")
    if not state:
        return
    import nbformat

    text = nbformat.writes(notebook)
    for number, old in enumerate(list(state), start=1):
        text = text.replace(old, f"{number:032x}")
    renumbered = nbformat.reads(text, as_version=4)
    notebook.metadata = renumbered.metadata
    notebook.cells = renumbered.cells


def _coalesce_streams(notebook: NotebookNode) -> None:
    """Merge consecutive stdout (or stderr) outputs: how prints are chunked depends on timing."""
    for cell in notebook.cells:
        merged: list[Any] = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                output.get("output_type") == "stream"
                and previous is not None
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")
            ):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged
