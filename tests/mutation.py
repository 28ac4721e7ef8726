"""Mutation testing of the exercise checks: every small mistake in a solution must fail its check.

Why: a check is only as good as the wrong answers it rejects, and the ones its author thought of
are not the ones students write. Here each solution's answer (the lines between `### BEGIN
SOLUTION id` and `### END SOLUTION`) is mutated one change at a time, by operators on its syntax
tree (the standard library's `ast`, the parser the interpreter itself uses, so a mutant is exactly
the code that runs): a flipped comparison or boundary, a constant moved by one or replaced by a
plausible other, a dropped statement, condition, argument or dict entry, swapped arguments, `and`
for `or`, a removed `return` or `raise`, an exception swallowed into success, a call made twice
or not at all. Each mutant is handed to its check in a forked child process (a mutant that loops
forever or breaks global state is killed with its process, never seen by the next one); the
parent has run the notebook's earlier cells and the check once, so a child only runs the answer's
cell and the check.

A mutant the check passes *survives*. It is either a gap in the check (add a case), or it cannot
change behaviour on the inputs the exercise promises: then it is listed, with one line saying why,
in `tests/mutants/chNN.toml` (one file per chapter):

    ["5.1"]
    "wilson | return max(0.0, centre - half), ... | number: 0.0 -> 1.0" = "why it is equivalent"

A chapter with such a file is enforced: an unlisted survivor, or a listed mutant that is killed
or no longer generated, is an error. `python -m tests.mutation [chapter or exercise ...]` (what
`make mutants` runs) mutates everything, prints the score per exercise and exits 1 on an error;
`--sample N` runs N mutants per exercise; `--toml` prints the survivors as lines to paste (after
deciding they are equivalent). tests/test_mutants.py runs a small deterministic sample within
`make test`.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import functools
import hashlib
import io
import itertools
import json
import os
import select
import signal
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.solution_code import ROOT, Solution, solution

LISTS = ROOT / "tests" / "mutants"
MIN_TIMEOUT = 2.0
"""Seconds a mutant's check may take at least; otherwise 5x the solution's own check plus 1 s."""
SLOW = 10.0
"""Seconds a mutant that timed out gets on its second run (the exercise's timeout, if less):
slower than that, it is counted as killed ("timeout"), and may still be listed as equivalent."""

_COMPARE_FLIPS: dict[type[ast.cmpop], list[type[ast.cmpop]]] = {
    ast.Lt: [ast.LtE],
    ast.LtE: [ast.Lt],
    ast.Gt: [ast.GtE],
    ast.GtE: [ast.Gt],
    ast.Eq: [ast.NotEq],
    ast.NotEq: [ast.Eq],
    ast.In: [ast.NotIn],
    ast.NotIn: [ast.In],
    ast.Is: [ast.IsNot],
    ast.IsNot: [ast.Is],
}
_BINOP_SWAPS: dict[type[ast.operator], list[type[ast.operator]]] = {
    ast.Add: [ast.Sub],
    ast.Sub: [ast.Add],
    ast.Mult: [ast.Div],
    ast.Div: [ast.Mult, ast.FloorDiv],
    ast.FloorDiv: [ast.Div],
    ast.Mod: [ast.FloorDiv],
    ast.Pow: [ast.Mult],
}
_NAME_SWAPS = {
    "max": "min",
    "min": "max",
    "any": "all",
    "all": "any",
    "lower": "upper",
    "upper": "lower",
    "startswith": "endswith",
    "endswith": "startswith",
    "append": "extend",
    "gather": "wait",
}
# (callable's last name, keyword) -> the value a mistaken call would add when the keyword is absent
_ADDED_KEYWORDS: dict[tuple[str, str], Any] = {
    ("dumps", "ensure_ascii"): True,
    ("dumps", "sort_keys"): True,
    ("Thread", "daemon"): True,
    ("sorted", "reverse"): True,
    ("zip", "strict"): False,
}
_BROAD = {"Exception", "BaseException"}
# Calls that only compute a value: doing one twice changes nothing, so it is no mutant worth
# making. Any other call (a tool, a client, a registry, a method that appends) may act.
_PURE_FUNCTIONS = set(
    [
        "abs",
        "all",
        "any",
        "bool",
        "callable",
        "chr",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "hasattr",
        "hash",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "next",
        "ord",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "type",
        "zip",
    ]
)
_PURE_MODULES = set(
    [
        "base64",
        "collections",
        "copy",
        "dataclasses",
        "datetime",
        "difflib",
        "functools",
        "hashlib",
        "inspect",
        "itertools",
        "json",
        "math",
        "operator",
        "re",
        "string",
        "textwrap",
        "types",
        "typing",
        "unicodedata",
    ]
)
_PURE_METHODS = set(
    [
        "casefold",
        "count",
        "decode",
        "encode",
        "endswith",
        "errors",
        "find",
        "findall",
        "finditer",
        "format",
        "fullmatch",
        "get",
        "group",
        "hexdigest",
        "index",
        "isoformat",
        "items",
        "join",
        "keys",
        "lower",
        "lstrip",
        "match",
        "model_dump",
        "partition",
        "replace",
        "rsplit",
        "rstrip",
        "search",
        "split",
        "splitlines",
        "startswith",
        "strftime",
        "strip",
        "sub",
        "timestamp",
        "title",
        "to_dict",
        "to_message",
        "upper",
        "values",
    ]
)


@dataclass(frozen=True)
class Mutant:
    """One changed copy of an answer: `key` names it (stable across re-formatting the solution)."""

    exercise: str
    key: str
    make: Callable[[], ast.Module] = field(repr=False, compare=False)
    original: ast.Module = field(repr=False, compare=False)

    @functools.cached_property
    def tree(self) -> ast.Module:
        """The changed syntax tree of the answer's cell (made when first asked for)."""
        return self.make()


@dataclass(frozen=True)
class Outcome:
    """What the check said of one mutant: its status (or "broken", "timeout") and its message."""

    mutant: Mutant
    status: str
    message: str = ""

    @property
    def survived(self) -> bool:
        return self.status == "passed"


# -- generating mutants ------------------------------------------------------------------------


class _Site:
    """A node of the original tree and where it sits; edits apply to the same node in a copy."""

    def __init__(self, index: int, node: ast.AST, function: str, statement: ast.stmt | None):
        self.index, self.node, self.function, self.statement = index, node, function, statement


def _one_line(node: ast.AST, limit: int | None = None) -> str:
    """The node's first line, unparsed (so the layout of the solution does not matter)."""
    text = " ".join(ast.unparse(node).split("\n")[0].split())
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def _change(before: str, after: str, limit: int = 60) -> str:
    """`before -> after`, long texts cut to the part that differs (with a little context)."""
    if len(before) <= limit and len(after) <= limit:
        return f"{before} -> {after}"
    prefix = _common(before, after)
    suffix = _common(before[prefix:][::-1], after[prefix:][::-1])
    start = max(0, prefix - 20)

    def cut(text: str) -> str:
        end = len(text) - max(0, suffix - 10)
        middle = text[start:end]
        if len(middle) > limit:
            middle, end = middle[: limit - 1], start + limit - 1
        return ("…" if start else "") + middle + ("…" if end < len(text) else "")

    return f"{cut(before)} -> {cut(after)}"


def _common(a: str, b: str) -> int:
    """How many first characters `a` and `b` share."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _parent(tree: ast.AST, node: ast.AST) -> tuple[ast.AST, str, int | None]:
    """Where `node` sits in `tree`: (parent, field, index in the field's list or None)."""
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is node:
                return parent, name, None
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is node:
                        return parent, name, index
    raise LookupError("the node is not in the tree")


def _replace(tree: ast.AST, node: ast.AST, new: ast.AST | list[ast.stmt]) -> None:
    """Put `new` where `node` is in `tree` (a list of statements splices into a body)."""
    parent, name, index = _parent(tree, node)
    if index is None:
        assert not isinstance(new, list)
        setattr(parent, name, new)
        return
    items = getattr(parent, name)
    if isinstance(new, list):
        if not new and name in ("body", "orelse", "finalbody") and len(items) == 1:
            new = [ast.Pass()]  # an emptied body still needs a statement
        items[index : index + 1] = new
    else:
        items[index] = new


Edit = Callable[[ast.Module, ast.AST], None]
"""Change the copy's node (its tree is given, to find the parent) in place."""


def _sites(solution: Solution) -> Iterator[_Site]:
    """Every node inside the exercise's answer blocks, with its function and statement."""
    tree = solution.tree()
    blocks = solution.blocks()
    skip: set[int] = set()  # docstrings and f-string text are not code to mutate

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for local in _locals(node):  # a local's annotation is never evaluated
                skip.update(id(n) for n in ast.walk(local.annotation))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values if isinstance(v, ast.Constant))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.update({id(first), id(first.value)})

    def inside(node: ast.AST, parent_inside: bool) -> bool:
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if first is None or last is None:  # e.g. a comprehension: where its parent is
            return parent_inside
        return any(a <= first and last <= b for a, b in blocks)

    order = {id(node): index for index, node in enumerate(ast.walk(tree))}

    def visit(
        node: ast.AST, function: str, statement: ast.stmt | None, parent_inside: bool
    ) -> Iterator[_Site]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            function = node.name
        if isinstance(node, ast.stmt):
            statement = node
        here = inside(node, parent_inside)
        if here and id(node) not in skip:
            yield _Site(order[id(node)], node, function, statement)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, function, statement, here)

    yield from visit(tree, "<cell>", None, False)


@dataclass
class _Known:
    """What the answer's notebook defines up to its cell: imported modules and functions."""

    modules: set[str]
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]

    def pure(self, call: ast.Call, seen: frozenset[str] = frozenset()) -> bool:
        """Whether `call` only computes a value: a guess from its name, or from the body of a
        function the notebook defines (no assignment into a parameter or global, only pure
        calls). Doing a pure call twice changes nothing, so no mutant does that."""
        func = call.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if isinstance(func, ast.Name) and (func.id in _PURE_FUNCTIONS or func.id[:1].isupper()):
            return True  # a builtin that computes, or a class: a new value
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and (
                func.value.id in _PURE_MODULES or func.value.id[:1].isupper()
            ):
                return True  # a module's function, or a class's constructor (ToolResult.failure)
            if func.attr in _PURE_METHODS:
                return True
        if name in self.functions:
            return name in seen or self._pure_body(self.functions[name], seen | {name})
        return False

    def _pure_body(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, seen: frozenset[str]
    ) -> bool:
        arguments = function.args
        outside = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
        outside |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
        local = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For)
            for target in ast.walk(node.targets[0] if isinstance(node, ast.Assign) else node.target)
            if isinstance(target, ast.Name)
        } - outside
        for node in ast.walk(function):
            if isinstance(node, ast.Global | ast.Nonlocal | ast.Await | ast.Yield):
                return False
            if isinstance(node, ast.Call) and not self.pure(node, seen):
                return False
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            for target in targets:
                base = target
                while isinstance(base, ast.Attribute | ast.Subscript):
                    base = base.value
                changes_outside = base is not target and not (
                    isinstance(base, ast.Name) and base.id in local
                )
                if changes_outside:
                    return False
        return True


def _locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AnnAssign]:
    """The annotated assignments of a function's own locals (not a nested class's fields)."""
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.AnnAssign):
            yield node
        if not isinstance(node, ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))


def _known(solution: Solution) -> _Known:
    """Modules imported and functions defined in the answer's notebook up to its cell."""
    known = _Known(set(), {})
    for source in solution.cells[: solution.target + 1]:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                known.modules.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                known.functions[node.name] = node
    return known


def _edits(site: _Site, known: _Known) -> Iterator[tuple[str, str, str, Edit]]:
    """(operator, before, after, edit) for every mutation of one node."""
    node = site.node
    if isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            for flip in _COMPARE_FLIPS.get(type(op), []):
                yield "compare", *_compare_texts(node, position, flip), _set_op(position, flip)
    elif isinstance(node, ast.BoolOp):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield "boolean", _one_line(node), _one_line(_with(node, op=other())), _set("op", other)
        for position in range(len(node.values)):
            kept = [v for i, v in enumerate(node.values) if i != position]
            after = kept[0] if len(kept) == 1 else ast.BoolOp(op=node.op, values=kept)
            yield "condition dropped", _one_line(node), _one_line(after), _drop_operand(position)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not dropped", _one_line(node), _one_line(node.operand), _to_child("operand")
    elif isinstance(node, ast.BinOp):
        for swap in _BINOP_SWAPS.get(type(node.op), []):
            after = _one_line(_with(node, op=swap()))
            yield "arithmetic", _one_line(node), after, _set("op", swap)
    elif isinstance(node, ast.AugAssign):
        for swap in _BINOP_SWAPS.get(type(node.op), [])[:1]:
            after = _one_line(_with(node, op=swap()))
            yield "arithmetic", _one_line(node), after, _set("op", swap)
        plain = ast.Assign(targets=[node.target], value=node.value, lineno=0)
        yield "assignment", _one_line(node), _one_line(plain), _aug_to_assign
    elif isinstance(node, ast.Constant):
        yield from _constant_edits(node)
    elif isinstance(node, ast.Slice):
        for bound in ("lower", "upper"):
            value = getattr(node, bound)
            if value is not None and not isinstance(value, ast.Constant):
                for delta in (1, -1):
                    shifted = ast.BinOp(
                        value, ast.Add() if delta > 0 else ast.Sub(), ast.Constant(1)
                    )
                    after = _one_line(_with(node, **{bound: shifted}))
                    yield "slice", _one_line(node), after, _shift_bound(bound, delta)
    elif isinstance(node, ast.Call):
        yield from _call_edits(node, known)
    elif isinstance(node, ast.Name | ast.Attribute):
        name = node.id if isinstance(node, ast.Name) else node.attr
        if name in _NAME_SWAPS and isinstance(node.ctx, ast.Load):
            swapped = _NAME_SWAPS[name]
            yield "name", name, swapped, _rename(swapped)
    elif isinstance(node, ast.Dict) and node.keys:
        for position in range(len(node.keys)):
            key = node.keys[position]
            label = "**" + _one_line(node.values[position]) if key is None else _one_line(key)
            yield "entry dropped", _one_line(node), f"without {label}", _drop_item(position)
    elif isinstance(node, ast.List | ast.Tuple | ast.Set) and len(node.elts) > 1:
        if isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            for position in range(len(node.elts)):
                label = _one_line(node.elts[position])
                yield "item dropped", _one_line(node), f"without {label}", _drop_item(position)
    elif isinstance(node, ast.comprehension):
        for position in range(len(node.ifs)):
            label = _one_line(node.ifs[position])
            yield "condition dropped", f"if {label}", "(always)", _drop_comprehension_if(position)
    elif isinstance(node, ast.ExceptHandler):
        yield from _handler_edits(node)
    if isinstance(node, ast.If | ast.IfExp | ast.While):
        yield from _condition_edits(node)
    if isinstance(node, ast.stmt):
        yield from _statement_edits(site, known)


def _with(node: ast.AST, **changes: Any) -> ast.AST:
    new = copy.copy(node)
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def _compare_texts(node: ast.Compare, position: int, flip: type[ast.cmpop]) -> tuple[str, str]:
    ops = list(node.ops)
    ops[position] = flip()
    return _one_line(node), _one_line(_with(node, ops=ops))


def _set_op(position: int, flip: type[ast.cmpop]) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.Compare)
        node.ops[position] = flip()

    return edit


def _set(name: str, kind: type[ast.AST]) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        setattr(node, name, kind())

    return edit


def _drop_operand(position: int) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.BoolOp)
        del node.values[position]
        if len(node.values) == 1:
            _replace(tree, node, node.values[0])

    return edit


def _to_child(name: str) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        _replace(tree, node, getattr(node, name))

    return edit


def _aug_to_assign(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.AugAssign)
    target = copy.deepcopy(node.target)
    _replace(tree, node, ast.Assign(targets=[target], value=node.value))


def _constant_edits(node: ast.Constant) -> Iterator[tuple[str, str, str, Edit]]:
    value = node.value
    before = repr(value)
    others: list[Any] = []
    if isinstance(value, bool):
        others = [not value]
    elif isinstance(value, int | float):
        others = [value + 1, value - 1]
    elif isinstance(value, str) and not any(c.isspace() for c in value):
        # Identifier-like text (a key, a code, a role); prose in messages is free to vary.
        others = ["XX" + value if value else "XX"]
    for other in others:
        yield "constant", before, repr(other), _set_value(other)


def _set_value(value: Any) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.Constant)
        node.value = value

    return edit


def _shift_bound(bound: str, delta: int) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        value = getattr(node, bound)
        op = ast.Add() if delta > 0 else ast.Sub()
        setattr(node, bound, ast.BinOp(value, op, ast.Constant(1)))

    return edit


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _call_edits(node: ast.Call, known: _Known) -> Iterator[tuple[str, str, str, Edit]]:
    before = _one_line(node)
    for position, keyword in enumerate(node.keywords):
        if keyword.arg is not None:
            kept = [k for i, k in enumerate(node.keywords) if i != position]
            yield (
                "keyword dropped",
                before,
                _one_line(_with(node, keywords=kept)),
                _drop_keyword(position),
            )
    name = _call_name(node)
    present = {k.arg for k in node.keywords}
    for (callee, keyword), value in _ADDED_KEYWORDS.items():
        if name == callee and keyword not in present:
            added = [*node.keywords, ast.keyword(keyword, ast.Constant(value))]
            yield (
                "keyword added",
                before,
                _one_line(_with(node, keywords=added)),
                _add_keyword(keyword, value),
            )
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args):
        for position in range(len(node.args) - 1):
            a, b = node.args[position], node.args[position + 1]
            if ast.dump(a) != ast.dump(b):
                args = list(node.args)
                args[position], args[position + 1] = b, a
                after = _one_line(_with(node, args=args))
                yield "arguments swapped", before, after, _swap_args(position)
    func = node.func
    plain_function = (isinstance(func, ast.Name) and not func.id[:1].isupper()) or (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in known.modules
    )
    if plain_function and node.args and not isinstance(node.args[0], ast.Starred):
        yield "call not made", before, _one_line(node.args[0]), _call_to_argument
    elif (
        isinstance(func, ast.Attribute)
        and not node.args
        and not node.keywords
        and not (isinstance(func.value, ast.Name) and func.value.id in known.modules)
    ):
        yield "call not made", before, _one_line(func.value), _call_to_receiver


def _drop_keyword(position: int) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.Call)
        del node.keywords[position]

    return edit


def _add_keyword(keyword: str, value: Any) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.Call)
        node.keywords.append(ast.keyword(keyword, ast.Constant(value)))

    return edit


def _swap_args(position: int) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.Call)
        args = node.args
        args[position], args[position + 1] = args[position + 1], args[position]

    return edit


def _call_to_argument(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.Call)
    _replace(tree, node, node.args[0])


def _call_to_receiver(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    _replace(tree, node, node.func.value)


def _rename(name: str) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            node.id = name
        else:
            assert isinstance(node, ast.Attribute)
            node.attr = name

    return edit


def _drop_item(position: int) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        if isinstance(node, ast.Dict):
            del node.keys[position]
            del node.values[position]
        else:
            assert isinstance(node, ast.List | ast.Tuple | ast.Set)
            del node.elts[position]

    return edit


def _drop_comprehension_if(position: int) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.comprehension)
        del node.ifs[position]

    return edit


def _handler_edits(node: ast.ExceptHandler) -> Iterator[tuple[str, str, str, Edit]]:
    caught = "except" if node.type is None else f"except {_one_line(node.type)}"
    if node.type is not None and _one_line(node.type) not in _BROAD:
        yield "except widened", caught, "except Exception", _set_handler("Exception")
    elif node.type is not None:
        yield "except narrowed", caught, "except ValueError", _set_handler("ValueError")
    if not (len(node.body) == 1 and isinstance(node.body[0], ast.Pass)):
        yield "exception swallowed", caught, f"{caught}: pass", _swallow


def _set_handler(name: str) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.ExceptHandler)
        node.type = ast.Name(name, ast.Load())

    return edit


def _swallow(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.ExceptHandler)
    node.body = [ast.Pass()]


def _condition_edits(node: ast.If | ast.IfExp | ast.While) -> Iterator[tuple[str, str, str, Edit]]:
    test = _one_line(node.test)
    if isinstance(node.test, ast.Constant):
        return
    values = [False] if isinstance(node, ast.While) else [True, False]  # `while True` never ends
    for value in values:
        yield "condition", test, repr(value), _set_test(value)


def _set_test(value: bool) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        assert isinstance(node, ast.If | ast.IfExp | ast.While)
        node.test = ast.Constant(value)

    return edit


def _statement_edits(site: _Site, known: _Known) -> Iterator[tuple[str, str, str, Edit]]:
    node = site.node
    assert isinstance(node, ast.stmt)
    if isinstance(node, ast.Pass | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    before = _one_line(node)
    yield "statement dropped", before, "(nothing)", _drop_statement
    returns_none = isinstance(node, ast.Return) and (
        node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)
    )
    if isinstance(node, ast.Return) and not returns_none:
        yield "return", before, "return None", _return_none
    if isinstance(node, ast.Raise):
        yield "raise to return", before, "return None", _return_none
    if isinstance(node, ast.Try):
        yield "try removed", before, "(its body alone)", _untry
    if isinstance(node, ast.Break | ast.Continue):
        other = ast.Continue if isinstance(node, ast.Break) else ast.Break
        yield "loop jump", before, _one_line(other()), _to(other)
    calls = any(isinstance(n, ast.Call) and not known.pure(n) for n in ast.walk(node))
    simple = isinstance(node, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign)
    if calls and simple:
        yield "call made twice", before, "(twice)", _twice
    elif calls and isinstance(node, ast.Return) and node.value is not None:
        yield "call made twice", before, "(its value computed once before)", _compute_first


def _drop_statement(tree: ast.Module, node: ast.AST) -> None:
    _replace(tree, node, [])


def _return_none(tree: ast.Module, node: ast.AST) -> None:
    _replace(tree, node, ast.Return(value=None))


def _untry(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.Try)
    _replace(tree, node, [*node.body, *node.orelse, *node.finalbody])


def _to(kind: type[ast.stmt]) -> Edit:
    def edit(tree: ast.Module, node: ast.AST) -> None:
        _replace(tree, node, kind())

    return edit


def _twice(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.stmt)
    _replace(tree, node, [node, copy.deepcopy(node)])


def _compute_first(tree: ast.Module, node: ast.AST) -> None:
    assert isinstance(node, ast.Return) and node.value is not None
    _replace(tree, node, [ast.Expr(copy.deepcopy(node.value)), node])


@functools.cache
def mutants(exercise_id: str) -> tuple[Mutant, ...]:
    """Every mutant of the answer to `exercise_id`, in a fixed order, each with a unique key."""
    return tuple(mutate(solution(exercise_id)))


def mutate(found: Solution) -> list[Mutant]:
    """Every mutant of the answer `found` describes (see `mutants`).

    Only names are made here; a mutant's tree is made when it runs, so sampling a few is cheap.
    A mutant that turns out to be the same program as the solution, or as an earlier mutant,
    is reported "same" by `run` and counts for nothing.
    """
    original = found.tree()
    known = _known(found)
    result: list[Mutant] = []
    seen_keys: dict[str, int] = {}
    for site in _sites(found):
        for operator, before, after, edit in _edits(site, known):
            where = _one_line(site.statement, 60) if site.statement is not None else ""
            key = f"{site.function} | {where} | {operator}: {_change(before, after)}"
            count = seen_keys[key] = seen_keys.get(key, 0) + 1
            key = key if count == 1 else f"{key} #{count}"
            result.append(Mutant(found.exercise, key, _maker(found, site.index, edit), original))
    return result


def _maker(found: Solution, index: int, edit: Edit) -> Callable[[], ast.Module]:
    def make() -> ast.Module:
        tree = found.tree()  # parsing again is 4x as fast as a deep copy, and the same tree
        edit(tree, next(itertools.islice(ast.walk(tree), index, None)))
        return tree

    return make


def diff(mutant: Mutant) -> str:
    """The mutant as a unified diff of the answer's cell (both unparsed, so layout is the same)."""
    import difflib

    before = ast.unparse(mutant.original).splitlines()
    after = ast.unparse(mutant.tree).splitlines()
    lines = difflib.unified_diff(before, after, "solution", "mutant", n=1, lineterm="")
    return "\n".join("    " + line for line in lines)


def sample(found: list[Mutant] | tuple[Mutant, ...], size: int) -> list[Mutant]:
    """`size` of `found`, always the same ones for the same keys (chosen by a hash of the key)."""

    def rank(mutant: Mutant) -> str:
        return hashlib.sha256(mutant.key.encode()).hexdigest()

    return sorted(sorted(found, key=rank)[:size], key=found.index)


# -- running them --------------------------------------------------------------------------


def _reset_after_fork() -> None:
    """The child has none of the parent's threads: forget the idle tool workers they were."""
    from toolsys import _workers

    _workers._idle.clear()


def _child(found: Solution, namespace: dict[str, Any], mutant: Mutant, timeout: float) -> dict:
    from toolsys import checks

    os.environ.pop(checks.LOG_ENV, None)  # a mutant's verdict is no grade
    try:
        student = found.build(mutant.tree, namespace)
    except BaseException as exc:  # the mutant does not even define its answer
        return {"status": "broken", "message": f"{type(exc).__name__}: {exc}"[:300]}
    result = checks.check(found.exercise, student, timeout=timeout)
    return {"status": result.status.value, "message": result.text()[:300]}


def _fork(found: Solution, namespace: dict[str, Any], mutant: Mutant, timeout: float) -> tuple:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run one mutant, say what the check said, and leave at once
        os.close(read)
        code = 0
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            _reset_after_fork()
            os.write(write, json.dumps(_child(found, namespace, mutant, timeout)).encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _baseline(found: Solution) -> tuple[dict[str, Any], float]:
    """The namespace the answer's cell runs in, and how long the solution's check takes."""
    from toolsys import checks

    with contextlib.redirect_stdout(io.StringIO()):  # what the earlier cells print
        namespace = found.namespace()
    start = time.perf_counter()
    result = checks.check(found.exercise, found.build(found.tree(), dict(namespace)))
    took = time.perf_counter() - start
    if not result.passed:
        raise RuntimeError(f"the solution of {found.exercise} fails its own check:\n{result}")
    return namespace, took


def run(
    found: Solution | str,
    chosen: Iterable[Mutant] | None = None,
    *,
    jobs: int = 1,
    timeout: float | None = None,
    again: bool = True,
) -> list[Outcome]:
    """Each mutant of an answer (or those `chosen`) through its check, `jobs` at a time.

    A mutant's check may take `timeout` seconds; by default 5x the solution's (at least
    MIN_TIMEOUT), and a mutant that times out then runs again with the exercise's own timeout
    (what a student gets, at most SLOW), so a merely slow mutant is not counted as killed. Its
    process is killed 10 s after the timeout if the check itself does not return. With
    `again=False` there is no second run (a sample: a timeout there counts as killed).
    """
    if isinstance(found, str):
        found = solution(found)
    todo = list(mutate(found) if chosen is None else chosen)
    if not todo:
        return []
    namespace, took = _baseline(found)
    outcomes: dict[int, Outcome] = {}
    seen = {ast.dump(found.tree())}
    queue = []
    for index, mutant in enumerate(todo):
        code = ast.dump(mutant.tree)
        if code in seen:  # the same program as the solution or as an earlier mutant
            outcomes[index] = Outcome(mutant, "same", "the same program as one before it")
        else:
            seen.add(code)
            queue.append((index, mutant))
    quick = timeout if timeout is not None else max(MIN_TIMEOUT, 5 * took + 1.0)
    outcomes.update(_schedule(found, namespace, queue, quick, jobs))
    if timeout is None and again:
        from toolsys import checks

        exercise = checks.get_exercise(found.exercise)
        full = min((exercise.timeout if exercise else None) or SLOW, SLOW)
        slow = [(i, m) for i, m in queue if outcomes[i].status == "timeout"]
        if slow and full > quick:
            outcomes.update(_schedule(found, namespace, slow, full, jobs))
    return [outcomes[i] for i in range(len(todo))]


def _schedule(
    found: Solution,
    namespace: dict[str, Any],
    queue: list[tuple[int, Mutant]],
    timeout: float,
    jobs: int,
) -> dict[int, Outcome]:
    """Run the mutants of `queue` in forked children, `jobs` at a time: {index: outcome}."""
    queue = list(queue)
    outcomes: dict[int, Outcome] = {}
    running: dict[int, tuple[int, Mutant, int, float, bytearray]] = {}  # fd -> its child
    while queue or running:
        while queue and len(running) < jobs:
            index, mutant = queue.pop(0)
            pid, fd = _fork(found, namespace, mutant, timeout)
            running[fd] = (index, mutant, pid, time.monotonic() + timeout + 10.0, bytearray())
        first = min(deadline for *_, deadline, _ in running.values())
        ready, _, _ = select.select(list(running), [], [], max(0.0, first - time.monotonic()))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                running[fd][4].extend(chunk)
                continue
            index, mutant, pid, _, out = running.pop(fd)
            os.close(fd)
            os.waitpid(pid, 0)
            told = json.loads(out) if out else {"status": "broken", "message": "no verdict"}
            outcomes[index] = Outcome(mutant, told["status"], told["message"])
        now = time.monotonic()
        for fd, (index, mutant, pid, deadline, _) in list(running.items()):
            if now > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(fd)
                del running[fd]
                outcomes[index] = Outcome(mutant, "timeout", "killed at the deadline")
    return outcomes


# -- the lists of equivalent mutants -------------------------------------------------------------


def list_path(chapter: int) -> Path:
    return LISTS / f"ch{chapter:02d}.toml"


def equivalents(chapter: int) -> dict[str, dict[str, str]] | None:
    """{exercise: {mutant key: why it is equivalent}} of a chapter, or None if it has no list."""
    path = list_path(chapter)
    if not path.exists():
        return None
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {exercise: dict(keys) for exercise, keys in data.items()}


@dataclass
class Report:
    """One exercise's mutants, outcomes and what is wrong with its list, if anything."""

    exercise: str
    outcomes: list[Outcome]
    listed: dict[str, str]
    generated: set[str]
    enforced: bool

    @property
    def survivors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.survived and o.mutant.key not in self.listed]

    @property
    def killed_but_listed(self) -> list[Outcome]:
        return [
            o
            for o in self.outcomes
            if not o.survived
            and o.status not in ("same", "timeout")  # a slow machine proves nothing
            and o.mutant.key in self.listed
        ]

    @property
    def same(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "same"]

    @property
    def stale(self) -> list[str]:
        return sorted(key for key in self.listed if key not in self.generated)

    @property
    def unexplained(self) -> list[str]:
        return sorted(key for key, why in self.listed.items() if not why.strip())

    @property
    def errors(self) -> list[str]:
        if not self.enforced:
            return []
        return (
            [f"{self.exercise}: survived, not listed: {o.mutant.key}" for o in self.survivors]
            + [
                f"{self.exercise}: listed as equivalent but killed ({o.status}): {o.mutant.key}"
                for o in self.killed_but_listed
            ]
            + [f"{self.exercise}: listed, but no such mutant any more: {k}" for k in self.stale]
            + [
                f"{self.exercise}: listed, but the same program as an earlier one: {o.mutant.key}"
                for o in self.same
                if o.mutant.key in self.listed
            ]
            + [f"{self.exercise}: listed without a reason: {k}" for k in self.unexplained]
        )

    def row(self) -> str:
        total = len(self.outcomes) - len(self.same)
        equivalent = sum(1 for o in self.outcomes if o.survived and o.mutant.key in self.listed)
        killed = sum(1 for o in self.outcomes if not o.survived and o.status != "same")
        timeouts = sum(1 for o in self.outcomes if o.status == "timeout")
        judged = total - equivalent
        score = f"{100 * killed / judged:5.1f} %" if judged else "    - "
        return (
            f"{self.exercise:>6} {total:8} {killed:7} {timeouts:8} {equivalent:10} "
            f"{len(self.survivors):9}   {score}"
        )


def report(exercise_id: str, size: int | None = None, *, jobs: int = 1) -> Report:
    """Run the mutants of one exercise (all, or a sample of `size`) and judge them by its list."""
    chapter = int(exercise_id.split(".")[0])
    lists = equivalents(chapter)
    listed = (lists or {}).get(exercise_id, {})
    found = mutants(exercise_id)
    chosen = found if size is None else sample(found, size)
    outcomes = run(solution(exercise_id), chosen, jobs=jobs, again=size is None)
    return Report(exercise_id, outcomes, listed, {m.key for m in found}, lists is not None)


def _exercise_ids(selectors: list[str]) -> list[str]:
    from toolsys import checks

    every = [e.id for e in checks.exercises()]
    if not selectors:
        return every
    chosen = []
    for selector in selectors:
        if "." in selector:
            chosen += [e for e in every if e == selector]
        else:
            chosen += [e for e in every if int(e.split(".")[0]) == int(selector)]
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__)
    parser.add_argument("select", nargs="*", help="chapters (5) or exercises (5.1); default all")
    parser.add_argument("--sample", type=int, help="mutants per exercise (default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--toml", action="store_true", help="print survivors as list lines")
    parser.add_argument("--verbose", action="store_true", help="show each survivor's mutant")
    args = parser.parse_args(argv)
    os.environ.pop("TOOLSYS_CHECK_LOG", None)
    start = time.perf_counter()
    errors: list[str] = []
    print("exercise  mutants  killed  timeout  equivalent  survived   score")
    for exercise_id in _exercise_ids(args.select):
        result = report(exercise_id, args.sample, jobs=args.jobs)
        flag = "" if result.enforced else "   (no list for this chapter yet: not enforced)"
        print(result.row() + flag, flush=True)
        errors += result.errors
        if args.verbose:
            for outcome in result.survivors:
                print(f"  survived: {outcome.mutant.key}")
                print(diff(outcome.mutant))
        if args.toml and result.survivors:
            print(f'["{exercise_id}"]')
            for outcome in result.survivors:
                print(f'{json.dumps(outcome.mutant.key, ensure_ascii=False)} = ""')
    print(f"{time.perf_counter() - start:.1f} s")
    for error in errors:
        print(error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
