"""The solution notebooks' answers as Python objects, optionally with one change applied.

A plausible wrong answer is a correct one with a single change (an off-by-one, a missing case, a
skipped step). Taking the correct one from solutions/ itself keeps each wrong answer one visible
edit away from what students are shown, and a change that no longer applies fails loudly.

A change is code, not text: `swap("n < 1", "n <= 1")` finds the expression (or statements) `old`
in the answer's cell by its syntax tree, so re-wrapping a line, renaming nothing and reformatting
the solution leave the test working; only a change to the logic it names breaks it, and then the
wrong answer has to be thought again anyway. `...` in `old` matches any code
(`swap("raise KeyError(...)", "return None")`), `drop(...)` removes statements, and any function
`(tree: ast.Module) -> None` may edit the tree itself. The old spelling, a pair `(old, new)` of
exact substrings of the cell, still works for the chapters not yet converted to `swap`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from toolsys import checks
from toolsys.checks import Status, get_exercise

ROOT = Path(__file__).resolve().parent.parent
_HIDDEN = re.compile(
    r"^\s*### BEGIN HIDDEN.*?^\s*### END HIDDEN[^\n]*\n?", re.DOTALL | re.MULTILINE
)
_CHECK = re.compile(r"""^check\(\s*["'](?P<id>\d+\.\d+)["']\s*,\s*(?P<name>\w+)\s*\)""", re.M)
_BEGIN = re.compile(r"^\s*### BEGIN SOLUTION (?P<id>\d+\.\d+) ")
_END = re.compile(r"^\s*### END SOLUTION")


@dataclass(frozen=True)
class Solution:
    """Where an exercise's answer lives: its notebook's code cells and the cell that holds it.

    `cells` are the notebook's code cells in order, demos hidden from students left out and check
    cells blank; `target` is the index of the cell with the answer, `name` what the check cell
    hands to `check(...)`.
    """

    exercise: str
    path: Path
    cells: tuple[str, ...]
    target: int
    name: str

    @property
    def source(self) -> str:
        """The answer's cell, as it runs (hidden lines left out)."""
        return self.cells[self.target]

    def blocks(self) -> list[tuple[int, int]]:
        """The (first, last) line numbers, within `source`, of this exercise's answer lines."""
        found: list[tuple[int, int]] = []
        start = None
        for number, line in enumerate(self.source.split("\n"), start=1):
            begin = _BEGIN.match(line)
            if begin and begin["id"] == self.exercise:
                start = number + 1
            elif start is not None and _END.match(line):
                found.append((start, number - 1))
                start = None
        return found

    def tree(self) -> ast.Module:
        """A fresh syntax tree of the answer's cell."""
        return ast.parse(self.source, filename=self.filename)

    @property
    def filename(self) -> str:
        return f"<{self.path.name} cell {self.target}>"

    def namespace(self) -> dict[str, Any]:
        """A namespace in which every cell before the answer's has run."""
        namespace: dict[str, Any] = {"__name__": f"solution_{self.path.name[:2]}"}
        for index, source in enumerate(self.cells[: self.target]):
            if source:
                code = compile(
                    source, f"<{self.path.name} cell {index}>", "exec", dont_inherit=True
                )
                exec(code, namespace)  # the repository's own solution notebook
        return namespace

    def build(self, tree: ast.Module, namespace: dict[str, Any]) -> Any:
        """Run the answer's cell, as `tree`, in `namespace`; the object its check receives."""
        ast.fix_missing_locations(tree)
        exec(compile(tree, self.filename, "exec", dont_inherit=True), namespace)
        return namespace[self.name]


@cache
def solution(exercise_id: str) -> Solution:
    """The solution notebook's cells for `exercise_id` and which one holds its answer."""
    chapter = exercise_id.split(".")[0].zfill(2)
    (path,) = (ROOT / "solutions").glob(f"{chapter}_*.ipynb")
    cells = [
        "".join(cell["source"])
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]
    target = next(i for i, c in enumerate(cells) if f"BEGIN SOLUTION {exercise_id} " in c)
    name = next(m["name"] for c in cells for m in _CHECK.finditer(c) if m["id"] == exercise_id)
    runnable = tuple("" if _CHECK.search(c) else _HIDDEN.sub("", c) for c in cells)
    return Solution(exercise_id, path, runnable, target, name)


Change = tuple[str, str] | Callable[[ast.Module], None]
"""A text change (old, new) of the answer's cell, or a function that edits its syntax tree."""


def answer(exercise_id: str, *changes: Change) -> Any:
    """The object the solution notebook checks for `exercise_id`, after `changes`.

    The notebook's code cells run in order up to the one holding the answer (demos hidden from
    students are left out, check cells skipped). A change is a `swap(...)`/`drop(...)` (or any
    function editing the cell's syntax tree), or a pair (old, new) where `old` must occur exactly
    once in the cell's text.
    """
    found = solution(exercise_id)
    source = found.source
    for change in changes:
        if isinstance(change, tuple):
            old, new = change
            count = source.count(old)
            assert count == 1, f"{old!r} occurs {count} times in the answer to {exercise_id}"
            source = source.replace(old, new)
    tree = ast.parse(source, filename=found.filename)
    for change in changes:
        if not isinstance(change, tuple):
            change(tree)
    return found.build(tree, found.namespace())


def _same(node: ast.AST | None, pattern: ast.AST | None) -> bool:
    """Whether `node` has the syntax of `pattern`, where `...` stands for any one node, and a
    `...` that ends a list (`f(...)`, `f(a, ...)`) for the rest of it, keywords too."""
    if pattern is None or node is None:  # a list's holes: the key of `**rest` in a dict
        return node is pattern
    if _dots(pattern):
        return True
    if type(node) is not type(pattern):
        return False
    open_call = isinstance(pattern, ast.Call) and bool(pattern.args) and _dots(pattern.args[-1])
    for name, want in ast.iter_fields(pattern):
        if name == "ctx":  # `x['k']` matches where it is assigned to (Store) as well as read
            continue
        if name == "keywords" and open_call and not want:
            continue  # `f(a, ...)`: any further arguments, keywords too
        got = getattr(node, name, None)
        if isinstance(want, list):
            if want and _dots(want[-1]):  # `[a, ...]`: these first, then anything
                want = want[:-1]
                got = got[: len(want)] if isinstance(got, list) and len(got) >= len(want) else None
            if not isinstance(got, list) or len(got) != len(want):
                return False
            if not all(_same(g, w) for g, w in zip(got, want, strict=True)):
                return False
        elif isinstance(want, ast.AST):
            if not (isinstance(got, ast.AST) and _same(got, want)):
                return False
        elif got != want:
            return False
    return True


def _dots(pattern: ast.AST) -> bool:
    if isinstance(pattern, ast.Expr):
        pattern = pattern.value
    return isinstance(pattern, ast.Constant) and pattern.value is Ellipsis


def _bodies(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every list of statements in `tree` (bodies, else branches, handlers...)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def _parse(code: str) -> ast.expr | list[ast.stmt]:
    """`code` as one expression if it is one, else as statements ("" is no statements)."""
    try:
        return ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return ast.parse(_dedent(code)).body


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).strip("\n")


def swap(
    old: str, new: str, *, nth: int | None = None, statements: bool = False
) -> Callable[[ast.Module], None]:
    """A change: the expression or statements `old` (found by syntax, not by text) become `new`.

    `old` must occur exactly once in the answer's cell, or name its `nth` occurrence (0-based) in
    the order the tree is walked; `...` in it matches anything (`raise KeyError(...)`,
    `JSON_TYPES = ...`). `new` is an expression where `old` is one, else statements (an empty
    `new` removes them); `statements=True` reads a call such as `f(x)` as the statement, not
    the expression.
    """
    pattern = ast.parse(_dedent(old)).body if statements else _parse(old)

    def apply(tree: ast.Module) -> None:
        if isinstance(pattern, ast.expr):
            replacement = ast.parse(new.strip(), mode="eval").body
            sites = [
                (parent, field, node)
                for parent in ast.walk(tree)
                for field, node in _children(parent)
                if isinstance(node, ast.expr) and _same(node, pattern)
            ]
            parent, field, node = _one(sites, old, nth)
            ast.copy_location(replacement, node)
            _take_context(replacement, node)
            _put(parent, field, node, replacement)
            return
        statements = ast.parse(_dedent(new)).body if new.strip() else []
        size = len(pattern)
        runs = [
            (body, start)
            for body in _bodies(tree)
            for start in range(len(body) - size + 1)
            if all(_same(body[start + i], pattern[i]) for i in range(size))
        ]
        body, start = _one(runs, old, nth)
        for statement in statements:
            ast.copy_location(statement, body[start])
        body[start : start + size] = statements or [ast.copy_location(ast.Pass(), body[start])]

    return apply


def _take_context(new: ast.AST, old: ast.AST) -> None:
    """`new` is assigned to (or deleted) where `old` was: give it, and its items, that context."""
    context = getattr(old, "ctx", None)
    if context is None or not hasattr(new, "ctx"):
        return
    new.ctx = type(context)()
    for item in getattr(new, "elts", []):
        _take_context(item, old)
    if isinstance(new, ast.Starred):
        _take_context(new.value, old)


def drop(old: str, *, nth: int | None = None) -> Callable[[ast.Module], None]:
    """A change: the statements `old` are left out (a `pass` stands in for an emptied body)."""
    return swap(old, "", nth=nth, statements=True)


def _children(parent: ast.AST) -> Iterator[tuple[tuple[str, int | None], ast.AST]]:
    for name, value in ast.iter_fields(parent):
        if isinstance(value, ast.AST):
            yield (name, None), value
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield (name, index), item


def _put(parent: ast.AST, field: tuple[str, int | None], old: ast.AST, new: ast.AST) -> None:
    name, index = field
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


def _one(found: list[Any], old: str, nth: int | None) -> Any:
    if nth is not None:
        assert nth < len(found), f"{old!r} occurs {len(found)} times, there is no #{nth}"
        return found[nth]
    assert len(found) == 1, f"{old!r} occurs {len(found)} times in the answer (pass nth=)"
    return found[0]


def verdict(exercise_id: str, student: Any, status: Status = Status.FAILED) -> checks.CheckResult:
    """The check's verdict on `student`, asserted to be `status`; a failure must say why."""
    result = checks.check(exercise_id, student)
    assert result.status is status, result.text()
    if status is Status.FAILED:
        assert result.message and (result.expected or result.hint), result.text()
    return result


def reference(exercise_id: str) -> Any:
    """The package's own answer to an exercise, which must pass the same check."""
    exercise = get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    return exercise.reference()
