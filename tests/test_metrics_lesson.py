"""Lesson 11's usage-metrics claim, checked on the lesson's own code: the vague `book_room` is the
tool with the most INVALID_ARGUMENTS, and its described version lowers that rate on the same seeded
batch, for every seed tried, not only the one the lesson prints."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolsys import Registry, models
from toolsys.loop import run_agent

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "11_testing.ipynb"
SEEDS = range(12)  # the lesson prints seed 11
INVALID = "INVALID_ARGUMENTS"


def _cells() -> list[dict[str, Any]]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict[str, Any]) -> str:
    return "".join(cell["source"])


def _cell(needle: str) -> dict[str, Any]:
    found = [cell for cell in _cells() if cell["cell_type"] == "code" and needle in _source(cell)]
    assert len(found) == 1, f"{len(found)} code cells contain {needle!r}"
    return found[0]


def _printed(cell: dict[str, Any]) -> str:
    return "".join("".join(o["text"]) for o in cell.get("outputs", []) if o.get("text"))


@pytest.fixture(scope="module")
def lesson() -> Iterator[dict[str, Any]]:
    """The namespace of the section's code: its tools, prompts, `run_batch` and both versions."""
    namespace: dict[str, Any] = {
        "Registry": Registry,
        "models": models,
        "run_agent": run_agent,
        "Path": Path,
        "json": json,
    }
    with contextlib.redirect_stdout(io.StringIO()):
        for needle in ("def run_batch(", "def book_room_described("):
            exec(compile(_source(_cell(needle)), f"<lesson 11: {needle}>", "exec"), namespace)
    yield namespace
    namespace["WORK"].cleanup()


@pytest.fixture(scope="module")
def batches(lesson: dict[str, Any]) -> dict[int, tuple[Any, Any]]:
    """(before, after) usage tables of the lesson's batch, per seed."""

    def table(version: str, seed: int) -> Any:
        log = lesson["LOGS"] / f"{seed}-{version}.jsonl"
        return lesson["usage_stats"](lesson["run_batch"](lesson[version], log, seed))

    return {seed: (table("book_room", seed), table("book_room_described", seed)) for seed in SEEDS}


def _rate(table: Any, tool: str = "book_room") -> float:
    row = table[tool]
    return row.errors.get(INVALID, 0) / row.calls


def test_the_lesson_batch_is_the_seeded_one_these_tests_run(lesson: dict[str, Any]) -> None:
    assert lesson["SEED"] in SEEDS
    assert len(lesson["PROMPTS"]) >= 40


def test_the_vague_book_room_has_the_most_invalid_arguments_on_every_seed(
    batches: dict[int, tuple[Any, Any]],
) -> None:
    worst = {seed: before.worst(INVALID).tool for seed, (before, _) in batches.items()}
    assert set(worst.values()) == {"book_room"}, worst


def test_describing_book_room_lowers_its_invalid_arguments_rate_on_every_seed(
    batches: dict[int, tuple[Any, Any]],
) -> None:
    rates = {seed: (_rate(before), _rate(after)) for seed, (before, after) in batches.items()}
    assert all(after < before for before, after in rates.values()), rates
    total_before = sum(before[0]["book_room"].errors.get(INVALID, 0) for before in batches.values())
    total_after = sum(after[1]["book_room"].errors.get(INVALID, 0) for after in batches.values())
    assert total_after * 2 <= total_before, (total_before, total_after)


def test_the_other_tools_are_unchanged_so_the_drop_is_the_description(
    lesson: dict[str, Any],
) -> None:
    vague = lesson["hotel_tools"](lesson["book_room"]).export("openai")
    described = lesson["hotel_tools"](lesson["book_room_described"]).export("openai")
    assert [t["function"]["name"] for t in vague] == [t["function"]["name"] for t in described]
    changed = [a["function"]["name"] for a, b in zip(vague, described, strict=True) if a != b]
    assert changed == ["book_room"]
    types = [
        {k: v.get("type") for k, v in t["function"]["parameters"]["properties"].items()}
        for t in (vague[1], described[1])
    ]
    assert types[0] == types[1], "only descriptions may change, not the argument types"


def test_the_saved_lesson_prints_a_drop_for_its_seed(
    lesson: dict[str, Any], batches: dict[int, tuple[Any, Any]]
) -> None:
    printed = _printed(_cell("after = usage_stats(run_batch("))
    match = re.search(r"(\d+)% of calls before, (\d+)% after", printed)
    assert match, printed
    before, after = batches[lesson["SEED"]]
    assert (int(match[1]), int(match[2])) == (round(100 * _rate(before)), round(100 * _rate(after)))
    assert int(match[1]) > int(match[2])


def test_the_lesson_never_prints_latencies() -> None:
    cells = _cells()
    section = cells[next(i for i, c in enumerate(cells) if "## 9. Usage" in _source(c)) :]
    printed = "".join(_printed(cell) for cell in section)
    assert "median" not in printed.replace("median_ms", "")
    assert not re.search(r"\d\.\d+ ?ms|\"median_ms\": \d", printed)
