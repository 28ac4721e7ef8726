"""Compare what a notebook printed in Pyodide with its committed outputs, as nbval would.

Both sides are sanitized with tests/nbval_sanitize.cfg; images and widget views are not compared
(nbval compares neither); stream text is joined per stream, as a kernel's output may be split
into any number of writes. A cell is one of:

    same        every compared output agrees
    plot        it needs numpy/matplotlib, which the Pyodide core does not ship (skipped)
    skipped     marked NBVAL_SKIP in the notebook
    differs     anything else: the detail says what
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_MIMES = {"image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json"}
PLOT_MODULES = ("numpy", "matplotlib", "PIL")


def sanitizers() -> list[tuple[re.Pattern[str], str]]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "tests" / "nbval_sanitize.cfg")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


def sanitize(text: str) -> str:
    for pattern, replace in sanitizers():
        text = pattern.sub(replace, text)
    return text


def comparable(outputs: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(output type, stream name or mime type, sanitized text) of what nbval compares: like
    nbval, a display_data and an execute_result with the same data are the same output."""
    streams: dict[str, str] = {}
    rest: list[tuple[str, str, str]] = []
    for output in outputs:
        kind = output["output_type"]
        if kind == "stream":
            text = output["text"]
            streams[output["name"]] = streams.get(output["name"], "") + (
                text if isinstance(text, str) else "".join(text)
            )
        elif kind == "error":
            rest.append(("error", output["ename"], ""))
        else:
            for mime, value in sorted(output.get("data", {}).items()):
                if mime in SKIPPED_MIMES:
                    continue
                text = value if isinstance(value, str) else "".join(value)
                rest.append(("data", mime, sanitize(text)))  # execute_result = display_data
    return [("stream", name, sanitize(text)) for name, text in sorted(streams.items())] + rest


def needs_plotting(outputs: list[dict[str, Any]]) -> bool:
    return any(
        o["output_type"] == "error"
        and o["ename"] == "ModuleNotFoundError"
        and any(f"'{module}" in o["evalue"] for module in PLOT_MODULES)
        for o in outputs
    )


def classify(committed: dict[str, Any], fresh: dict[str, Any]) -> tuple[str, str]:
    """(kind, detail) for one code cell: see the module docstring."""
    if fresh.get("skipped"):
        return "skipped", fresh["skipped"]
    if needs_plotting(fresh["outputs"]):
        return "plot", "needs matplotlib"
    want, got = comparable(committed.get("outputs", [])), comparable(fresh["outputs"])
    if "# NBVAL_IGNORE_OUTPUT" in "".join(committed["source"]):
        want = got = [w for w in want if w[0] == "error"]
    if want == got:
        return "same", ""
    padding = [("", "", "")] * max(len(want), len(got))
    for w, g in zip(want + padding, got + padding, strict=False):
        if w != g:
            return "differs", f"expected {w[:2]} {w[2][-300:]!r}, got {g[:2]} {g[2][-300:]!r}"
    return "differs", "?"


def cells(notebook: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every code cell of `notebook` with its kind and detail."""
    fresh = {cell["index"]: cell for cell in result.get("cells", [])}
    rows = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        if index not in fresh:
            rows.append({"index": index, "kind": "differs", "detail": "not run"})
            continue
        kind, detail = classify(cell, fresh[index])
        rows.append({"index": index, "kind": kind, "detail": detail})
    return rows
