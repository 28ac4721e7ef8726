"""Chapter 02 checks reject plausible wrong answers and accept correct ones written differently.

Each wrong answer is the solution with one change, written as code (`swap`, or a function around
the solution's answer), so re-formatting a solution does not break it.
"""

from __future__ import annotations

import ast
import difflib
from typing import Any

import pytest

from tests.liars import AlwaysEqual
from tests.solution_code import answer, drop, swap, verdict
from toolsys import checks
from toolsys.checks import Status


@pytest.mark.parametrize("exercise_id", ["2.1", "2.2", "2.3"])
def test_the_solution_and_the_reference_pass(exercise_id: str) -> None:
    exercise = checks.get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    verdict(exercise_id, answer(exercise_id), Status.PASSED)
    verdict(exercise_id, exercise.reference(), Status.PASSED)


# -- 2.1 -----------------------------------------------------------------------------------------

_LOOKUP = "existing = self._normalized.get(self.normalize(name))"
_STORE = "self._tools[name] = fn"
_REMEMBER = "self._normalized[self.normalize(name)] = name"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        # the registered name as normalised, not as registered ('send_email', not 'Send-Email')
        (
            [
                swap(
                    "f'cannot register {name!r}: a tool named {existing!r} is already registered'",
                    "f'cannot register {name!r}: a tool named {self.normalize(name)!r} is already "
                    "registered'",
                )
            ],
            "'Send-Email'",
        ),
        # only the new name normalised: works while every registered name is already normal
        (
            [
                swap(
                    _LOOKUP,
                    "existing = self.normalize(name) if self.normalize(name) in self._tools "
                    "else None",
                )
            ],
            "register('send_email', ...)",
        ),
        # a new name that merely contains a registered one is not a duplicate
        (
            [
                swap(
                    _LOOKUP,
                    "existing = next((n for n in self._tools if self.normalize(n) in "
                    "self.normalize(name)), None)",
                )
            ],
            "different names must register",
        ),
        (
            [swap("'. Choose another name, or unregister the old tool first.'", "'.'")],
            "what to do",
        ),
    ],
    ids=["normalised-name-shown", "raw-names", "substring", "no-advice"],
)
def test_a_wrong_registry_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("2.1", answer("2.1", *changes)).text()


def test_a_registry_raising_key_error_is_rejected() -> None:
    class KeyErrorRegistry(answer("2.1")):  # type: ignore[misc]
        def register(self, name: str, fn: Any) -> None:
            try:
                super().register(name, fn)
            except ValueError as exc:
                raise KeyError(str(exc)) from None

    assert "wrong kind of error" in verdict("2.1", KeyErrorRegistry).text()


def test_an_overwrite_before_raising_is_a_state_change_even_with_a_vague_message() -> None:
    wrong = answer(
        "2.1",
        drop(_STORE),
        swap(_LOOKUP, f"{_LOOKUP}\n{_STORE}"),  # stores first, then raises
        swap("raise ValueError(...)", "raise ValueError('duplicate')"),
    )
    result = verdict("2.1", wrong)
    assert "changed" in result.message and "name both tools" not in result.message


def test_remembering_a_refused_name_is_a_state_change_not_a_missing_word() -> None:
    # the normalised name is remembered before the check raises
    wrong = answer("2.1", drop(_REMEMBER), swap(_LOOKUP, f"{_LOOKUP}\n{_REMEMBER}"))
    assert "a name refused earlier" in verdict("2.1", wrong).message


class _ListRegistry:
    """A correct answer written differently: one list of (name, fn), a loop to find a clash."""

    def __init__(self) -> None:
        self._entries: list[tuple[str, Any]] = []

    def register(self, name: str, fn: Any) -> None:
        def key(text: str) -> str:
            return text.replace("-", "_").casefold()

        for old, _ in self._entries:
            if key(old) == key(name):
                raise ValueError(
                    f"{name!r} clashes with the registered tool {old!r}: rename the new one"
                )
        self._entries.append((name, fn))

    def get(self, name: str) -> Any:
        return dict(self._entries)[name]

    def names(self) -> list[str]:
        return [name for name, _ in self._entries]


def test_a_registry_that_drops_every_dash_and_underscore_is_rejected() -> None:
    # adv2: 'getweather' was refused as a collision with 'get_weather'.
    def strip_all(self, name, fn):
        key = name.lower().replace("-", "").replace("_", "")
        for known in self._tools:
            if known.lower().replace("-", "").replace("_", "") == key:
                raise ValueError(f"{name!r} collides with {known!r}; choose another name.")
        self._tools[name] = fn
        self._normalized[self.normalize(name)] = name

    registry = answer("2.1")
    wrong = type("StripAll", (registry,), {"register": strip_all})
    text = verdict("2.1", wrong).text()
    assert "register('getweather', ...) raised ValueError" in text


def test_a_correct_registry_written_differently_passes() -> None:
    verdict("2.1", _ListRegistry, Status.PASSED)


# -- 2.2 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([swap("tag in tool.tags", "any(tag in t for t in tool.tags)")], "tag='order'"),
        (
            [
                swap("Category(str(category).lower())", "Category(str(category))"),
                swap("str(category).lower() not in valid", "str(category) not in valid"),
            ],
            "'WRITE'",
        ),
        ([swap("tag is None or tag in tool.tags", "True")], "tag='orders'"),
        ([swap("tool.name", "tool")], "names (str)"),
        # adv2: a tag in any letter case, and '' read as "any category"
        (
            [swap("tag in tool.tags", "tag.lower() in [t.lower() for t in tool.tags]")],
            "tag='Orders'",
        ),
        ([swap("category is not None", "category")], "list_by_category(registry, '')"),
        # adv3: '' read as "any tag"
        ([swap("tag is None or tag in tool.tags", "not tag or tag in tool.tags")], "tag=''"),
    ],
    ids=[
        "tag-substring",
        "case-sensitive",
        "ignores-tags",
        "tools-not-names",
        "tag-any-case",
        "empty-category-is-any",
        "empty-tag-is-any",
    ],
)
def test_a_wrong_filter_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("2.2", answer("2.2", *changes)).text()


def test_a_filter_that_sorts_the_names_is_rejected() -> None:
    solution = answer("2.2")
    result = verdict("2.2", lambda *args, **kwargs: sorted(solution(*args, **kwargs)))
    assert "[0]" in result.text()


def test_a_filter_that_returns_nothing_for_an_unknown_category_is_rejected() -> None:
    wrong = answer("2.2", swap("raise ValueError(...)", "return []"))
    assert "should raise ValueError" in verdict("2.2", wrong).message


def _filter_by_value(registry: Any, category: Any = None, tag: Any = None) -> list[str]:
    from toolsys import Category

    names = {c.value for c in Category}
    if category is not None and f"{category}".casefold() not in names:
        raise ValueError(f"{category!r} is no category; pick read, write or execute")
    keep = []
    for tool in registry.list():
        if category is not None and tool.category.value != f"{category}".casefold():
            continue
        if tag is not None and tag not in tool.tags:
            continue
        keep.append(tool.name)
    return keep


def test_a_correct_filter_written_differently_passes() -> None:
    verdict("2.2", _filter_by_value, Status.PASSED)


# -- 2.3 -----------------------------------------------------------------------------------------

_DID_YOU_MEAN = "list(dict.fromkeys(exact + [by_normal[c] for c in close]))[:3]"
_CLOSE = "difflib.get_close_matches(normalize(name), list(by_normal), n=3)"


def _never_says_best(tree: ast.Module) -> None:
    """`if did_you_mean:` (which picks the suggestion naming the best match) never taken."""
    branch = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "did_you_mean"
    )
    branch.test = ast.Constant(False)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # difflib's matches are normalised: map them back to the registered names
        (swap("[by_normal[c] for c in close]", "close"), "'Send-Email'"),
        (swap(_DID_YOU_MEAN, _DID_YOU_MEAN.replace("[:3]", "[:1]")), "'get_time'"),
        (swap("f'Unknown tool {name!r}.'", "f'Unknown tool {name}.'"), "quote"),
        (swap(_CLOSE, _CLOSE.replace("n=3", "n=3, cutoff=0.3")), "did_you_mean"),
        (_never_says_best, "the best match"),
        (
            swap(
                "by_normal = {normalize(n): n for n in tools}",
                "tools[name]\nby_normal = {normalize(n): n for n in tools}",
            ),
            "raised KeyError",
        ),
        (swap("did_you_mean = ...", "did_you_mean = list(tools)[:3]"), "did_you_mean"),
        # at most three close names is three when there are three, not two
        (swap(_DID_YOU_MEAN, _DID_YOU_MEAN.replace("[:3]", "[:2]")), "'set_forecast'"),
        # the registered names compared as they are: 'LIST-ORDERS' is never close to anything
        (swap("{normalize(n): n for n in tools}", "{n: n for n in tools}"), "'LIST-ORDERS'"),
        # the tool runs twice: once for the envelope, once before it
        (
            swap(
                "return {'ok': True, 'value': tools[name](**arguments)}",
                "tools[name](**arguments)\nreturn {'ok': True, 'value': tools[name](**arguments)}",
            ),
            "notes filed by one",
        ),
    ],
    ids=[
        "normalised-names",
        "only-the-best",
        "unquoted",
        "low-cutoff",
        "never-says-best",
        "raises",
        "suggests-every-tool",
        "two-of-three",
        "registered-names-raw",
        "runs-twice",
    ],
)
def test_a_wrong_execute_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("2.3", answer("2.3", change)).text()


def test_an_execute_suggesting_more_than_three_names_is_rejected() -> None:
    # adv3: difflib's n raised to 5 and the [:3] left out
    wrong = answer(
        "2.3",
        swap(_CLOSE, _CLOSE.replace("n=3", "n=5")),
        swap(_DID_YOU_MEAN, _DID_YOU_MEAN.replace("[:3]", "")),
    )
    result = verdict("2.3", wrong)
    assert "lists 5 names" in result.message and "at most three" in result.message


def test_a_null_suggestion_gets_the_shape_expected_not_a_crash() -> None:
    # the second `suggestion = ...`: the one for a name with nothing close
    wrong = answer("2.3", swap("suggestion = ...", "suggestion = None", nth=1))
    result = verdict("2.3", wrong)
    assert "['suggestion'] must be a str" in result.message and "None" in result.message


def _execute_with_a_ranking(tools: dict, name: str, arguments: dict) -> dict:
    """Known names first; an unknown one ranked by difflib over a normal-form index."""
    if name in tools:
        value = tools[name](**arguments)
        return {"ok": True, "value": value}
    index: dict[str, str] = {}
    for registered in tools:
        index.setdefault(registered.lower().replace("-", "_"), registered)
    wanted = name.lower().replace("-", "_")
    best = [index[m] for m in difflib.get_close_matches(wanted, index.keys())]
    if best:
        suggestion = f"Try {best[0]!r}. All tools: {sorted(tools)}"
    else:
        suggestion = "No tool is close; the tools are: " + ", ".join(tools)
    error = {"code": "UNKNOWN_TOOL", "message": f"There is no tool {name!r}."}
    error.update(suggestion=suggestion, details={"did_you_mean": best})
    return {"ok": False, "error": error}


def test_a_correct_execute_written_differently_passes() -> None:
    verdict("2.3", _execute_with_a_ranking, Status.PASSED)


def test_an_always_equal_answer_does_not_pass_2_2() -> None:
    def liar(registry, category=None, tag=None):
        if category == "delete":
            raise ValueError("use read, write or execute")
        return AlwaysEqual()

    assert "is an AlwaysEqual, not plain data" in verdict("2.2", liar).message


def test_a_value_that_claims_to_equal_the_result_does_not_pass_2_3() -> None:
    def liar(tools, name, arguments):
        if name in tools:
            return {"ok": True, "value": AlwaysEqual()}
        return checks.get_exercise("2.3").reference()(tools, name, arguments)

    assert "AlwaysEqual" in verdict("2.3", liar).message
