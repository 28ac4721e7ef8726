"""Shared fixtures: a notebook writer and a clean exercise registry per test.

Hypothesis runs derandomized (the same examples on every run), so `make test` cannot fail by
chance on a loaded machine; health checks that only measure speed or how much a strategy filters
are off on purpose, because a busy 2-core CI machine trips them without any bug.
`HYPOTHESIS_PROFILE=explore` searches with fresh random examples and more of them.

Spreading the run over workers (`make test`: two per core, pytest-xdist `--dist loadgroup`):
every test file and every notebook is one group that one worker runs whole (a notebook's cells
share a kernel; a file's module fixtures are set up once), except the files in `SPLIT`, whose
tests are slow and independent, so each of them may run on any worker. Groups start longest first
(`LONG_FIRST`, then collection order), so no long file is left to run alone at the end.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

_SLOW_MACHINE = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=_SLOW_MACHINE, print_blob=True
)
settings.register_profile(
    "explore", max_examples=2_000, deadline=None, suppress_health_check=_SLOW_MACHINE
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

NOTEBOOK_CELL_TIMEOUT = 600  # seconds: a kernel start on a loaded machine plus nbval's 300 s


# -- no test leaves a running event loop behind ---------------------------------------------------
# A loop marked as running on the main thread (asyncio.events._set_running_loop, as toolsys._sync
# and playwright's sync API do) makes `asyncio.run` fail in every later test of the same worker
# ("cannot be called from a running event loop"), far from its cause. The test, or the fixture,
# that leaves one is failed instead, and the loop unset so the tests after it run as they would.
_LOOP_FIRST_LEFT: dict[str, str] = {}  # the module's items: where the loop was first left set


def _running_loop() -> asyncio.AbstractEventLoop | None:
    return asyncio.events._get_running_loop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    before = _running_loop()
    try:
        return (yield)
    finally:
        if before is None and _running_loop() is not None:  # a fixture this test set up
            _LOOP_FIRST_LEFT.setdefault("where", f"while setting up {item.nodeid}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    before = _running_loop()
    passed = False
    try:
        result = yield
        passed = True
        return result
    finally:
        left = _running_loop()
        if left is not before:
            asyncio.events._set_running_loop(before)
            if passed:
                pytest.fail(
                    f"the test left {left!r} set as the running event loop of its thread (it was "
                    f"{before!r}): asyncio.run() would fail in every later test of this worker",
                    pytrace=False,
                )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        last_of_module = nextitem is None or nextitem.path != item.path
        left = _running_loop()
        if last_of_module and left is not None:
            where = _LOOP_FIRST_LEFT.pop("where", "by a fixture")
            asyncio.events._set_running_loop(None)
            pytest.fail(
                f"{left!r} is still set as the running event loop after the last test of this "
                f"module (first left set {where}): asyncio.run() would fail in every later test "
                "of this worker. A fixture that keeps a loop marked as running (playwright's "
                "sync API does while it runs) must end with its module, not the session.",
                pytrace=False,
            )
        if last_of_module:
            _LOOP_FIRST_LEFT.clear()


LONG_FIRST = (
    "tests/test_browser.py",
    "tests/test_grading_nbgrader.py",
    "tests/test_grading_adversarial.py",
    "tests/test_grading_gradescope.py",
    "notebooks/11_testing.ipynb",
    "tests/test_grading.py",
    "tests/test_lint.py",  # mypy: ~30 s without a cache (a fresh clone)
    "tests/test_bench_peers.py",
    "tests/test_ch05_checks.py",
    "tests/test_metrics_lesson.py",
)
"""The groups that take longest (measured with --durations=0), longest first: handed out first."""
SPLIT = frozenset(
    {
        "tests/test_exercise_checks.py",
        "tests/test_testing_helpers.py",
        "tests/test_schema_validator_agreement.py",
        "tests/test_mutants.py",
        "tests/test_ch12_checks.py",
    }
)
"""Files whose tests are slow and share no module or session fixture: one test, one unit."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup`: one unit per file or notebook, one per test in the `SPLIT` files.

    pytest-xdist's own loadgroup reads `xdist_group` marks by renaming each test's node id,
    which pytest 9 (structured node ids) ignores; grouping by path here needs no marks.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            where = nodeid.split("::")[0]
            return nodeid if where in SPLIT else where

    return ByFile(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Notebook cells (nbval items, in notebooks/ and solutions/ too) get a longer timeout; the
    long groups come first, since the scheduler hands out units in collection order."""
    for item in items:
        if type(item).__name__ == "IPyNbCell" and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(NOTEBOOK_CELL_TIMEOUT))

    def rank(item: pytest.Item) -> int:
        where = item.nodeid.split("::")[0]
        return LONG_FIRST.index(where) if where in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture
def write_notebook() -> Callable[..., Path]:
    """Write a notebook: a str is a code cell, ("markdown", text) a markdown cell."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from toolsys._kernelspec import stamp

    def write(path: Path, cells: list[str | tuple[str, str]]) -> Path:
        notebook = new_notebook()
        for index, cell in enumerate(cells):
            new = new_code_cell(cell) if isinstance(cell, str) else new_markdown_cell(cell[1])
            new.id = f"cell-{index}"
            notebook.cells.append(new)
        stamp(notebook)  # as JupyterLab writes it, so the notebook opens unmodified
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        return path

    return write


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Exercises registered during a test are forgotten after it; the chapters' own stay. They
    are found first: found inside the test, they would be forgotten, and never found again."""
    from toolsys.checks import _core

    _core.exercises()
    saved = dict(_core._REGISTRY.exercises)
    hints = dict(_core._REGISTRY.hints_shown)
    yield
    _core._REGISTRY.exercises.clear()
    _core._REGISTRY.exercises.update(saved)
    _core._REGISTRY.hints_shown.clear()
    _core._REGISTRY.hints_shown.update(hints)
