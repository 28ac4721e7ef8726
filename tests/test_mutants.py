"""The mutation harness (tests/mutation.py) works; a sample of each proven chapter's mutants dies.

`make mutants` runs every mutant; here, within `make test`, one per exercise (the same one on
every run) must be killed by its check or listed as equivalent, and every list must name only
mutants that still exist, each with its reason. A chapter is proven once it has a list file
(`tests/mutants/chNN.toml`, empty if nothing survives).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from tests import mutation
from tests.solution_code import Solution, swap
from toolsys import checks
from toolsys.checks import exercise, expect_equal

SAMPLE = 1  # per exercise: `make mutants` (in .ci/run) runs all of them
CHAPTERS = sorted({int(e.id.split(".")[0]) for e in checks.exercises()})
PROVEN = [e.id for e in checks.exercises() if mutation.equivalents(int(e.id.split(".")[0]))]

_TOY = """\
import json


def describe(values, limit=3):
    ### BEGIN SOLUTION 99.1 Describe
    if not values or len(values) < limit:
        raise ValueError("too few values")
    values.sort(reverse=True)
    try:
        total = sum(values, 0)
    except TypeError:
        return None
    return json.dumps({"total": total, "top": max(values[:limit])}, sort_keys=True)
    ### END SOLUTION
"""


def _toy() -> Solution:
    return Solution("99.1", Path("99_toy.ipynb"), (_TOY,), 0, "describe")


def test_the_operators_make_the_mistakes_the_harness_promises() -> None:
    keys = [m.key for m in mutation.mutate(_toy())]
    operators = {key.split(" | ")[2].split(":")[0] for key in keys}
    assert operators >= {
        "compare",
        "boolean",
        "condition dropped",
        "not dropped",
        "constant",
        "slice",
        "keyword dropped",
        "keyword added",
        "arguments swapped",
        "call not made",
        "name",
        "entry dropped",
        "except widened",
        "exception swallowed",
        "condition",
        "statement dropped",
        "return",
        "raise to return",
        "try removed",
        "call made twice",
    }
    assert (
        "describe | if not values or len(values) < limit: | compare: len(values) < limit "
        "-> len(values) <= limit" in keys
    )
    assert (
        "describe | return json.dumps({'total': total, 'top': max(values[:limit… | "
        "keyword dropped: …max(values[:limit])}, sort_keys=True) -> …max(values[:limit])})"
    ) in keys
    assert len(keys) == len(set(keys))


def test_only_the_answer_between_the_markers_is_mutated() -> None:
    for mutant in mutation.mutate(_toy()):
        assert "import json" in ast.unparse(mutant.tree)
        assert mutant.tree.body[1].name == "describe"  # type: ignore[attr-defined]
        assert ast.dump(mutant.tree) != ast.dump(mutant.original)


def test_a_weak_check_lets_mutants_survive_and_the_report_names_them(clean_registry: None) -> None:
    @exercise("99.1", title="Describe")
    def _weak(student: Any) -> None:
        expect_equal(student([1, 2, 3]), '{"top": 3, "total": 6}', what="describe([1, 2, 3])")

    outcomes = mutation.run(_toy())
    survivors = {o.mutant.key for o in outcomes if o.survived}
    killed = {o.mutant.key for o in outcomes if not o.survived}
    assert any("compare: len(values) < limit -> len(values) <= limit" in k for k in killed)
    assert any("raise to return" in k for k in survivors)  # never called with too few values
    report = mutation.Report("99.1", outcomes, {}, survivors | killed, True)
    assert report.errors and all("survived, not listed" in e for e in report.errors)


def test_listed_mutants_must_survive_and_exist_and_say_why() -> None:
    outcomes = [mutation.Outcome(m, "failed") for m in mutation.mutate(_toy())[:2]]
    first, second = (o.mutant.key for o in outcomes)
    listed = {first: "equivalent because", second: " ", "gone": "was here"}
    report = mutation.Report("99.1", outcomes, listed, {first, second}, True)
    errors = "\n".join(report.errors)
    assert f"listed as equivalent but killed (failed): {first}" in errors
    assert f"listed without a reason: {second}" in errors
    assert "listed, but no such mutant any more: gone" in errors


def test_a_mutant_that_never_finishes_is_killed_with_its_process(clean_registry: None) -> None:
    source = (
        "def spin(n):\n    ### BEGIN SOLUTION 99.2 Spin\n    while n > 0:\n"
        "        n -= 1\n    return n\n    ### END SOLUTION\n"
    )

    @exercise("99.2", title="Spin", timeout=0.5)
    def _check(student: Any) -> None:
        expect_equal(student(3), 0, what="spin(3)")

    found = Solution("99.2", Path("99_toy.ipynb"), (source,), 0, "spin")
    ran = mutation.run(found, jobs=2, timeout=0.5)
    outcomes = {o.mutant.key.split(" | ")[2]: o.status for o in ran}
    assert outcomes["arithmetic: n -= 1 -> n += 1"] == "timeout"
    assert outcomes["statement dropped: n -= 1 -> (nothing)"] == "timeout"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_list_names_its_own_mutants_each_with_a_reason(chapter: int) -> None:
    listed = mutation.equivalents(chapter)
    if listed is None:
        pytest.skip(f"chapter {chapter:02d} has no list of equivalent mutants yet")
    assert all(int(e.split(".")[0]) == chapter for e in listed), "another chapter's exercise"
    for exercise_id, keys in listed.items():
        generated = {m.key for m in mutation.mutants(exercise_id)}
        assert sorted(set(keys) - generated) == [], "listed mutants that are no longer made"
        assert [k for k, why in keys.items() if len(why.split()) < 3] == [], "say why"


@pytest.mark.parametrize("exercise_id", PROVEN)
def test_a_sample_of_mutants_is_killed_or_listed(exercise_id: str) -> None:
    result = mutation.report(exercise_id, SAMPLE)
    assert result.errors == [], "\n".join(result.errors)


def test_swap_finds_a_dict_with_a_double_star_entry() -> None:
    tree = ast.parse('x = {"a": 1, **rest}\ny = {"a": 1, "b": 2}')
    swap('{"a": 1, **rest}', "{**rest}")(tree)
    assert ast.unparse(tree) == "x = {**rest}\ny = {'a': 1, 'b': 2}"
