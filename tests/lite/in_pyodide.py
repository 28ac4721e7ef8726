"""Runs inside Pyodide (loaded by pyodide.mjs): execute a notebook's code cells as a kernel would.

Each notebook gets a fresh IPython shell namespace and cwd; every output a kernel would send is
recorded: stream text, execute_result and display_data bundles, errors (name and value). The
comparison with the committed outputs happens outside, in CPython (tests/lite/compare.py).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import time
import types
from typing import Any

from IPython.core.displayhook import DisplayHook
from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell


class Recorder:
    def __init__(self) -> None:
        self.outputs: list[dict[str, Any]] = []

    def stream(self, name: str, text: str) -> None:
        if self.outputs and self.outputs[-1].get("name") == name:
            self.outputs[-1]["text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": name, "text": text})


RECORDER = Recorder()


class _AbsentModule(types.ModuleType):
    """A stand-in for matplotlib where Pyodide's core lacks it: importing it works (a lesson's
    first cell imports it with everything else), using it raises ModuleNotFoundError, and the
    cell that plots is reported as a plot cell, skipped (tests/lite/compare.py)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ModuleNotFoundError(
            f"No module named '{self.__name__}' in this Pyodide", name=self.__name__
        )


class _AbsentFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.split(".")[0] in ABSENT:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> Any:
        module = _AbsentModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: Any) -> None:
        pass


ABSENT = [name for name in ("matplotlib",) if importlib.util.find_spec(name) is None]
if ABSENT:
    sys.meta_path.append(_AbsentFinder())


class _Stream:
    def __init__(self, name: str) -> None:
        self.name = name
        self.encoding = "utf-8"

    def write(self, text: str) -> int:
        RECORDER.stream(self.name, text)
        return len(text)

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class _Publisher(DisplayPublisher):
    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kw):  # type: ignore[override]
        if update:  # update_display_data: it redraws an earlier output, which nbval ignores too
            return
        RECORDER.outputs.append({"output_type": "display_data", "data": dict(data)})

    def clear_output(self, wait: bool = False) -> None:
        RECORDER.outputs.clear()


class _Hook(DisplayHook):
    def write_output_prompt(self) -> None:
        pass

    def write_format_data(self, format_dict, md_dict=None) -> None:  # type: ignore[override]
        RECORDER.outputs.append({"output_type": "execute_result", "data": dict(format_dict)})

    def finish_displayhook(self) -> None:
        pass


def _shell() -> InteractiveShell:
    shell = InteractiveShell.instance()
    shell.display_pub = _Publisher(shell=shell)
    shell.displayhook = _Hook(shell=shell, cache_size=shell.cache_size)
    shell.display_trap.hook = shell.displayhook
    shell.display_formatter.active_types = list(shell.display_formatter.formatters)
    shell.colors = "nocolor"

    def showtraceback(*args: Any, **kwargs: Any) -> None:
        kind, value, _ = sys.exc_info()
        RECORDER.outputs.append(
            {"output_type": "error", "ename": kind.__name__ if kind else "?", "evalue": str(value)}
        )

    shell.showtraceback = showtraceback  # type: ignore[method-assign]
    shell.showsyntaxerror = lambda *a, **k: showtraceback()  # type: ignore[method-assign]
    return shell


async def run_notebook(path: str, cwd: str) -> str:
    """Execute the code cells of the notebook at `path` in `cwd`; JSON of the outputs per cell."""
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    shell = _shell()
    shell.reset(new_session=True)
    os.chdir(cwd)
    sys.stdout, sys.stderr = _Stream("stdout"), _Stream("stderr")
    cells = []
    try:
        for index, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            RECORDER.outputs = []
            started = time.monotonic()
            if "# NBVAL_SKIP" in source:
                cells.append({"index": index, "skipped": "NBVAL_SKIP", "outputs": []})
                continue
            try:
                transformed, problem = shell.transform_cell(source), None
            except Exception:
                transformed, problem = source, sys.exc_info()
            await shell.run_cell_async(
                source,
                store_history=True,
                transformed_cell=transformed,
                preprocessing_exc_tuple=problem,
            )
            cells.append(
                {
                    "index": index,
                    "outputs": RECORDER.outputs,
                    "seconds": round(time.monotonic() - started, 3),
                }
            )
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return json.dumps({"path": path, "cells": cells})
