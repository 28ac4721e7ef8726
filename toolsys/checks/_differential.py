"""Differential cases: the student's answer and the reference, side by side on generated inputs.

Why this module exists: a check's hand-written cases are a handful of inputs its author picked,
and a wrong answer whose mistake only shows on other inputs (a boundary the cases skip, a second
key, a non-ASCII name, a nested list) passes them. Rounds of wrong answers written by people who
had not seen the checks kept finding such inputs, one round after another. Where an exercise's
answer is a function whose behaviour the reference defines on a domain the exercise text states,
the check therefore also runs both on many inputs drawn from that domain and fails at the first
disagreement, showing the call, what the reference gives and what the answer gave.

Three promises keep it fair and cheap:

- **Deterministic.** Inputs come from `random.Random(seed)` (the standard library, so the browser
  edition under Pyodide draws the same ones): the same answer gets the same verdict on every run.
- **Smallest first.** Inputs are sorted by their size (characters and items, see `weight`) before
  they run, so the disagreement shown is the smallest one generated: `f(0, 1)`, not a 40-key dict.
- **Bounded.** At most `count` inputs (each exercise picks its own, 60 to 250) and at most
  `seconds` of this process's CPU time running them (or ten times that by the wall clock, for an
  answer that sleeps). The time bound is a guard against a pathologically slow answer, far
  above what the reference or an ordinary answer takes; if it is reached, the inputs run so far
  decide (a correct answer is never failed by it). CPU time, not wall time, so that a busy
  machine does not cut the pass short: other processes' load does not use it up, and the same
  answer meets the same inputs (under load the whole check's wall-clock timeout comes first).

A generator stays inside what the exercise text promises: an input the text does not promise is
not a student's mistake. Each input is deep-copied for each call, so an answer that changes its
argument cannot change what the reference sees.
"""

from __future__ import annotations

import contextlib
import copy
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolsys import _platform
from toolsys.checks._core import CheckBroken, CheckFailed, Described, show_value
from toolsys.checks._plain import difference
from toolsys.checks._plain import text as _text

SECONDS = 5.0 * _platform.SLOWER
"""The most CPU time a differential pass may take, whatever its count: a guard against a
pathologically slow answer, not a budget (the slowest pass, 12.4's, takes about 0.3 s; the
browser is given its usual factor)."""
_WALL_FACTOR = 10  # an answer that sleeps uses no CPU time: the wall clock stops it at 10x


class _Guard:
    """Whether a pass has run long enough to stop: `seconds` of this process's CPU time, or
    `_WALL_FACTOR` times that by the wall clock."""

    __slots__ = ("cpu", "wall")

    def __init__(self, seconds: float) -> None:
        self.cpu = time.process_time() + seconds
        self.wall = time.monotonic() + _WALL_FACTOR * seconds

    def over(self) -> bool:
        return time.process_time() > self.cpu or time.monotonic() > self.wall


# Characters a text generator draws from: ASCII first (small inputs stay readable), then the
# non-ASCII text where hashing, sorting, comparing or escaping goes wrong: accents (é both
# precomposed and as e + combining accent), ß (which upper-cases to SS), dotted İ, CJK, an emoji
# outside the BMP, a right-to-left letter, and the quotes, backslash and control characters JSON
# must escape.
ASCII = "abcxyz019 _-."
NON_ASCII = "éßİ中🙂ש\u0301ñ"
ESCAPED = '"\\\n\t/'
ALPHABET = ASCII + NON_ASCII + ESCAPED


@dataclass(frozen=True)
class Call:
    """One generated input: the positional and keyword arguments of one call."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)

    def shown(self, name: str) -> str:
        """The call as Python, e.g. `wilson(3, 7, z=1.645)`, each argument cut to a readable size
        (a `name` holding "{args}" is a sentence to put the arguments in instead)."""
        parts = [show_value(arg) for arg in self.args]
        parts += [f"{key}={show_value(value)}" for key, value in self.kwargs.items()]
        if "{args}" in name:
            return name.replace("{args}", ", ".join(parts))
        return f"{name}({', '.join(parts)})"


def weight(value: Any) -> int:
    """How big an input is: characters of its text, items of its containers, digits of numbers."""
    if isinstance(value, Call):
        return weight(value.args) + weight(value.kwargs)
    if isinstance(value, str):
        return len(value) + 1
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, int):
        return len(str(abs(value)))
    if isinstance(value, float):
        return len(repr(abs(value)))
    if isinstance(value, dict):
        return 1 + sum(weight(k) + weight(v) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return 1 + sum(weight(item) for item in value)
    return 2


class calls(Sequence[Call]):
    """`fixed` inputs (boundaries worth always trying) and `count` generated ones, smallest
    first, made on first use (a chapter's checks import quickly) and kept.

    `generate(rng, size)` makes one input of roughly `size` (0 upwards: sizes grow with the
    index, so the small inputs come first and the large ones are still tried). Inputs that
    read the same are kept once.
    """

    def __init__(
        self,
        generate: Callable[[random.Random, int], Call],
        *,
        seed: int,
        count: int,
        fixed: Iterable[Call] = (),
    ) -> None:
        self.generate, self.seed, self.wanted, self.fixed = generate, seed, count, list(fixed)
        self._made: list[Call] | None = None

    def _inputs(self) -> list[Call]:
        if self._made is None:
            rng = random.Random(self.seed)
            made = list(self.fixed)
            made += [self.generate(rng, i * 12 // max(self.wanted, 1)) for i in range(self.wanted)]
            unique: dict[str, Call] = {}
            for call in made:
                unique.setdefault(_spelled(call), call)
            # the smaller first; between two as big, the shorter text, then the text's order
            order = sorted(
                unique, key=lambda spelled: (weight(unique[spelled]), len(spelled), spelled)
            )
            self._made = [unique[spelled] for spelled in order]
        return self._made

    def __len__(self) -> int:
        return len(self._inputs())

    def __getitem__(self, index: Any) -> Any:
        return self._inputs()[index]

    def __iter__(self) -> Iterator[Call]:
        return iter(self._inputs())


def _spelled(value: Any) -> str:
    """`repr(value)` with every set's items sorted: the same text in every process (a set's
    order follows PYTHONHASHSEED), so the same inputs are kept everywhere."""
    if isinstance(value, Call):
        return f"Call({_spelled(value.args)}, {_spelled(value.kwargs)})"
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(_spelled(item) for item in value)) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_spelled(k)}: {_spelled(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        inside = ", ".join(_spelled(item) for item in value)
        return f"[{inside}]" if isinstance(value, list) else f"({inside},)"
    return repr(value)


Compare = Callable[[Any, Any, str], "str | None"]
"""`compare(got, expected, what)`: the difference in words, or None when they agree."""


def agree(
    student: Callable[..., Any],
    reference: Callable[..., Any],
    inputs: Sequence[Call],
    *,
    name: str,
    compare: Compare = difference,
    hint: str | None = None,
    wrong: str = "returned a wrong value: {problem}",
    errors: Callable[[BaseException, BaseException, Call], str | None] | None = None,
    seconds: float = SECONDS,
) -> None:
    """Fail at the first (smallest) input where `student` and `reference` disagree.

    They agree when both return values that `compare` calls equal (plain data, exact types, by
    default), or both raise and the answer's error is an instance of the standard exception the
    reference's is (a toolsys subclass of ValueError asks for a ValueError) and, when given,
    `errors(got_error, expected_error, call)` finds nothing more to say (what the text asks of
    the error beyond its kind: a message that names something). `wrong` says what a wrong value
    means, around compare's `{problem}`. A `NotImplementedError` from the answer passes through,
    so a stub is still "not done yet". Code of the check's own that raises (the comparator, the
    generator, a reference that is not implemented) is reported as the check's internal error
    (`CheckBroken`), never as the student's.
    """
    inputs = _made(inputs)
    guard = _Guard(seconds)
    for call in inputs:
        if guard.over():
            return
        expected, expected_error = _outcome(reference, call)
        got, got_error = _outcome(student, call, student=True)
        with _ours("the check's comparison of the two results"):
            problem = _disagreement(got, got_error, expected, expected_error, compare, wrong)
            if problem is None and got_error is not None and errors is not None:
                said = errors(got_error, expected_error, call)
                problem = None if said is None else (said, expected_error, got_error)
        if problem is None:
            continue
        with _ours("the check's display of the input"):
            what = call.shown(name)
        said, shown_expected, shown_got = problem
        raise CheckFailed(
            f"{what} {said} (the smallest of {len(inputs)} generated inputs on which your "
            "answer and the reference disagree).",
            expected=shown_expected,
            got=shown_got,
            hint=(hint + " " if hint else "")
            + "Run that call yourself and compare what it gives with the exercise text.",
        )


def _outcome(func: Callable[..., Any], call: Call, *, student: bool = False) -> tuple[Any, Any]:
    """(value, None) or (None, the exception) of one call on a fresh copy of its arguments."""
    with _ours("the check's copy of the input"):
        args, kwargs = copy.deepcopy(call.args), copy.deepcopy(call.kwargs)
    try:
        return func(*args, **kwargs), None
    except NotImplementedError as exc:
        if student:
            raise
        raise CheckBroken("the check's reference (not implemented)", exc) from exc
    except CheckBroken:  # a reference (or the check's wrapper around it) that found itself wrong
        raise
    except Exception as exc:
        return None, exc


@contextlib.contextmanager
def _ours(what: str) -> Iterator[None]:
    """Code of the check's own (a comparator, a reference, a generator) that raises is the
    check's failure, reported as such: never "your code raised" to a student who did nothing
    wrong. A CheckFailed (a comparator's verdict) goes through."""
    try:
        yield
    except (CheckFailed, CheckBroken):
        raise
    except Exception as exc:
        raise CheckBroken(what, exc) from exc


def _made(inputs: Sequence[Call]) -> list[Call]:
    """The inputs, generated now (a generator that raises is the check's failure)."""
    with _ours("the check's generator of inputs"):
        return list(inputs)


def _builtin_kind(error: BaseException) -> type[BaseException]:
    """The standard exception a reference's error is (ValueError for toolsys's StrictSchemaError):
    the one the exercise text names, so the one an answer must raise."""
    return next(kind for kind in type(error).__mro__ if kind.__module__ == "builtins")


def _disagreement(
    got: Any, got_error: Any, expected: Any, expected_error: Any, compare: Compare, wrong: str
) -> tuple[str, Any, Any] | None:
    """What differs, in words, with the expected and the got to show, or None."""
    if expected_error is not None:
        kind = _builtin_kind(expected_error)
        if isinstance(got_error, kind):
            return None
        if got_error is not None:
            return "raised the wrong kind of error", Described(kind.__name__), got_error
        return (
            f"should raise {kind.__name__} (as the exercise says) but returned normally",
            Described(kind.__name__),
            Described(f"returned {show_value(got)}"),
        )
    if got_error is not None:
        return (
            f"raised {type(got_error).__name__}: {_text(got_error)}",
            expected,
            got_error,
        )
    problem = compare(got, expected, "the result")
    if problem is None:
        return None
    return wrong.format(problem=problem), expected, got


# --- generators' building blocks -------------------------------------------------------------


def text(rng: random.Random, size: int, alphabet: str = ALPHABET, *, least: int = 0) -> str:
    """A string of `least` to about `size` characters; ASCII mostly, the rest of `alphabet` too."""
    length = rng.randint(least, max(least, size))
    ascii_only = [c for c in alphabet if c.isascii()] or list(alphabet)
    return "".join(
        rng.choice(alphabet) if rng.random() < 0.3 else rng.choice(ascii_only)
        for _ in range(length)
    )


def name(rng: random.Random, size: int, *, least: int = 1) -> str:
    """An identifier-like name: lower-case letters, digits after the first, underscores."""
    first = rng.choice("abcdefxyz")
    rest = text(rng, max(0, size - 1), "abcdefxyz0129_", least=max(0, least - 1))
    return first + rest


def scalar(rng: random.Random, size: int) -> Any:
    """A JSON scalar: None, a bool, an int (boundaries included), a float, a string."""
    pick = rng.randrange(6)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice([0, 1, -1, 2, 10**size, -(10**size), rng.randint(-100, 100)])
    if pick == 3:
        return rng.choice([0.0, 0.5, -1.5, 1e-9, 1e20, round(rng.uniform(-100, 100), 3)])
    return text(rng, size)


def plain(rng: random.Random, size: int, depth: int = 0) -> Any:
    """Plain JSON data (dicts with str keys, lists, scalars), nested up to 3 levels."""
    pick = rng.randrange(5) if depth < 3 and size > 0 else 0
    if pick <= 2:
        return scalar(rng, size)
    if pick == 3:
        return [plain(rng, size // 2, depth + 1) for _ in range(rng.randint(0, min(size, 4)))]
    return mapping(rng, size // 2, depth + 1)


def mapping(rng: random.Random, size: int, depth: int = 0) -> dict[str, Any]:
    """A dict of 0 to a few str keys (non-ASCII ones too), each holding plain data."""
    return {
        text(rng, 6, least=1): plain(rng, size, depth + 1)
        for _ in range(rng.randint(0, min(size + 1, 5)))
    }


def agree_on_sameness(
    student: Callable[..., Any],
    reference: Callable[..., Any],
    inputs: Sequence[Call],
    *,
    name: str,
    hint: str | None = None,
    seconds: float = SECONDS,
) -> None:
    """Fail unless `student` gives two inputs the same result exactly when `reference` does.

    For answers whose value is free but whose equalities are not (a key, an id, a digest): the
    text says which calls must share a key and which must not, and the reference's keys say
    the same. Both are called once per input, in order; the first input that the answer puts
    with another than the reference does (or apart from one it puts it with) fails, shown with
    that other input.
    """
    inputs = _made(inputs)
    guard = _Guard(seconds)
    theirs: dict[Any, int] = {}
    mine: dict[Any, int] = {}
    given: list[Any] = []
    for index, call in enumerate(inputs):
        if guard.over():
            return
        with _ours("the check's reference"):
            expected = reference(*copy.deepcopy(call.args), **copy.deepcopy(call.kwargs))
        got = student(*copy.deepcopy(call.args), **copy.deepcopy(call.kwargs))
        given.append(got)
        first_theirs = theirs.setdefault(_hashable(expected), index)
        first_mine = mine.setdefault(_hashable(got), index)
        if first_theirs == first_mine:
            continue
        # The inputs before agreed, so the answer's first input with this value is the
        # reference's first with it exactly when the answer gave the same value as that one.
        if first_theirs < index:
            other, relation, meaning = inputs[first_theirs], "another result than", "the same call"
        else:
            other, relation, meaning = inputs[first_mine], "the same result as", "another call"
        raise CheckFailed(
            f"{call.shown(name)} gave {relation} {other.shown(name)}, but the exercise counts it "
            f"as {meaning} (the first of {len(inputs)} generated calls, smallest first, on which "
            "your answer and the reference disagree).",
            expected=given[first_theirs]
            if meaning == "the same call"
            else Described(f"a result other than {show_value(got)}"),
            got=got,
            hint=(hint + " " if hint else "")
            + "Run both calls yourself and compare them with the exercise text.",
        )


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def close(got: Any, expected: Any, what: str) -> str | None:
    """`difference`, but two floats (or a float and an int) agree to 1e-9, relatively: the same
    share or mean computed in another order."""
    numbers = (int, float)
    if type(got) in numbers and type(expected) in numbers:
        if math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return difference(got, expected, what)
    if type(got) is dict and type(expected) is dict and got.keys() == expected.keys():
        for key, value in expected.items():
            problem = close(got[key], value, f"{what}[{key!r}]")
            if problem:
                return problem
        return None
    if type(got) in (list, tuple) and type(got) is type(expected) and len(got) == len(expected):
        for index, (mine, theirs) in enumerate(zip(got, expected, strict=True)):
            problem = close(mine, theirs, f"{what}[{index}]")
            if problem:
                return problem
        return None
    return difference(got, expected, what)
