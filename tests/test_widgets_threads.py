"""A widget's click runs where a cell would run it, whatever thread the click arrives on.

In JupyterLab 4 with ipykernel 7 a click can be handled in a kernel subshell's thread (see
toolsys/widgets/_cell.py). Here a thread running an event loop plays the kernel's main thread
(where cells run and widgets are made) and the test's own thread plays the subshell.
"""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolsys import Category, Registry
from toolsys.governance import NeedsApproval, Policy
from toolsys.loop import run_agent
from toolsys.models import ScriptedModel, calls, text
from toolsys.widgets import ApprovalPanel, Playground
from toolsys.widgets._cell import CellThread

CELL: contextvars.ContextVar[str] = contextvars.ContextVar("cell", default="none")


@pytest.fixture
def kernel() -> Iterator[Callable[[Callable[[], Any]], Any]]:
    """`in_cell(fn)`: fn's result, computed on the "main thread" inside its running loop."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="kernel-main", daemon=True)
    thread.start()

    def in_cell(fn: Callable[[], Any]) -> Any:
        async def cell() -> Any:
            CELL.set("the cell's")
            return fn()

        return asyncio.run_coroutine_threadsafe(cell(), loop).result(timeout=30)

    yield in_cell
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


def _settle(in_cell: Callable[[Callable[[], Any]], Any]) -> None:
    """Until the loop has run what was handed to it (one more cell runs after it)."""
    in_cell(lambda: None)


def test_a_call_from_another_thread_runs_on_the_cell_thread_in_the_cells_context(
    kernel: Callable[[Callable[[], Any]], Any],
) -> None:
    cell = kernel(CellThread)
    seen: list[tuple[str, str]] = []
    cell.call(lambda: seen.append((threading.current_thread().name, CELL.get())))
    _settle(kernel)
    assert seen == [("kernel-main", "the cell's")]


def test_a_call_on_the_cell_thread_or_without_a_loop_runs_at_once() -> None:
    cell = CellThread()  # no running loop here: a script, or a test clicking a button
    seen: list[str] = []
    cell.call(lambda: seen.append(threading.current_thread().name))
    assert seen == [threading.current_thread().name]


def _shop() -> tuple[Registry, sqlite3.Connection]:
    db = sqlite3.connect(":memory:")  # made on the "main thread": usable there only
    db.execute("CREATE TABLE refunds (order_id TEXT)")
    registry = Registry(layers=[Policy(rules={"refund": NeedsApproval("Refunds need a person.")})])

    def refund(order_id: str) -> str:
        """Refund an order.

        Args:
            order_id: The order.
        """
        db.execute("INSERT INTO refunds VALUES (?)", (order_id,))
        return f"refunded {order_id}"

    registry.register(refund, category=Category.WRITE)
    return registry, db


def test_approving_two_calls_from_another_thread_runs_both_tools_on_the_cell_thread(
    kernel: Callable[[Callable[[], Any]], Any],
) -> None:
    def build() -> tuple[ApprovalPanel, sqlite3.Connection]:
        registry, db = _shop()
        model = ScriptedModel(
            [
                calls(("refund", {"order_id": "A1"}), ("refund", {"order_id": "A2"})),
                text("Both refunded."),
            ]
        )
        paused = run_agent(model.client(), registry, "Refund A1 and A2")
        return ApprovalPanel(paused, client=model.client(), registry=registry), db

    panel, db = kernel(build)
    for _ in range(2):  # each click from "the subshell", the second card made by the first
        approve = panel.cards.children[0].children[1].children[0]
        approve.click()
        assert approve.disabled  # at once: one decision per card
        _settle(kernel)
    assert panel.transcript.status == "completed", panel.status.value
    assert all(r.result.ok for r in panel.transcript.results[-2:]), str(panel.transcript)
    assert kernel(lambda: db.execute("SELECT order_id FROM refunds ORDER BY 1").fetchall()) == [
        ("A1",),
        ("A2",),
    ]


def test_a_click_whose_resume_raises_shows_the_error_in_the_panel(
    kernel: Callable[[Callable[[], Any]], Any],
) -> None:
    def build() -> ApprovalPanel:
        registry, _ = _shop()
        model = ScriptedModel([calls(("refund", {"order_id": "A1"}))])
        paused = run_agent(model.client(), registry, "Refund A1")
        return ApprovalPanel(paused, client=model.client(), registry=registry)

    panel = kernel(build)

    def broken(call_id: str) -> None:
        raise RuntimeError(f"the store is down ({call_id})")

    panel.approve = broken  # type: ignore[method-assign]
    panel.cards.children[0].children[1].children[0].click()
    _settle(kernel)
    assert "The run could not resume: RuntimeError: the store is down" in panel.status.value


def test_a_playground_click_from_another_thread_runs_the_tool_on_the_cell_thread(
    kernel: Callable[[Callable[[], Any]], Any],
) -> None:
    def build() -> Playground:
        registry = Registry()

        @registry.tool
        def where() -> str:
            """Which thread runs me."""
            return threading.current_thread().name

        return Playground(registry)

    playground = kernel(build)
    playground.run_button.click()
    _settle(kernel)
    assert playground.last_result is not None and playground.last_result.value == "kernel-main"
