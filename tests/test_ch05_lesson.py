"""Lesson 05 as saved: it fits the page, runs the A/B/C experiment at the promised size, and
keeps the seed's figures a claim and the simulation a simulation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "05_argument_design.ipynb"
COLUMNS = 100
# Formats the package owns (a run's transcript, `models.describe()`), as in test_browser.py.
PACKAGE_FORMATS = re.compile(r"^(ToolCall|Result|Answer) |^offline teaching model|^None of the")


def _cells() -> list[dict[str, Any]]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict[str, Any]) -> str:
    return "".join(cell["source"])


def _printed(cell: dict[str, Any]) -> str:
    return "".join("".join(o["text"]) for o in cell.get("outputs", []) if o.get("text"))


def _cell(needle: str) -> dict[str, Any]:
    found = [cell for cell in _cells() if needle in _source(cell)]
    assert found, f"no cell contains {needle!r}"
    return found[0]


def test_no_code_line_runs_past_the_editor() -> None:
    long = [
        f"cell {i}: {line[:60]}"
        for i, cell in enumerate(_cells())
        if cell["cell_type"] == "code"
        for line in _source(cell).splitlines()
        if len(line) > COLUMNS
    ]
    assert not long, long


def test_every_line_the_lesson_prints_fits_the_output_area() -> None:
    long = [
        f"cell {i}: {line[:60]}"
        for i, cell in enumerate(_cells())
        for line in _printed(cell).splitlines()
        if len(line) > COLUMNS and not PACKAGE_FORMATS.search(line)
    ]
    assert not long, long


def test_the_experiment_runs_at_least_30_requests_and_100_episodes_per_design() -> None:
    printed = _printed(_cell("ABC = run_eval(")).splitlines()
    rows = [line for line in printed if re.match(r"[ABC] \w+\s+\d+ ", line)]
    assert [row[0] for row in rows] == ["A", "B", "C"]
    assert all(int(row.split()[2]) >= 100 for row in rows), rows
    requests = int(re.match(r"(\d+) requests", _printed(_cell("CASES = ["))).group(1))
    assert requests >= 30


def test_the_assumptions_are_printed_before_the_results() -> None:
    sources = [_source(cell) for cell in _cells()]
    table = next(i for i, s in enumerate(sources) if "evals.mistake_table()" in s)
    results = next(i for i, s in enumerate(sources) if "ABC = run_eval(" in s)
    assert table < results
    assert _printed(_cells()[table]).startswith("mistake ")


def test_the_seed_s_figures_are_its_claim_and_ours_a_simulation() -> None:
    prose = [_source(c) for c in _cells() if c["cell_type"] == "markdown"]
    for text in prose:
        if "62 %" in text or "62 / 78 / 96" in text:
            assert "claim" in text, text[:200]
    assert any("neither confirm nor refute" in text for text in prose)
    assert "(simulation, model toolsys-offline-1" in _printed(_cell("ABC = run_eval("))
    figure = _cell("figure = ABC.plot()")["outputs"][0]["data"]
    assert "image/png" in figure and "Figure" in "".join(figure["text/plain"])


def test_the_real_model_cell_is_skipped_by_the_tests_and_guarded_by_the_environment() -> None:
    source = _source(_cell("REAL = run_eval("))
    assert source.startswith("# NBVAL_SKIP")
    assert "if config.real_endpoint() is not None:" in source


def test_the_reader_is_asked_to_predict_before_the_cells_that_matter() -> None:
    prose = " ".join(_source(c) for c in _cells() if c["cell_type"] == "markdown")
    assert len(re.findall(r"\*\*(Before you run the next cell, )?[Pp]redict", prose)) >= 4
