"""Chapter 02 checks reject plausible wrong answers: each is the solution with one change."""

from __future__ import annotations

import pytest

from tests.liars import AlwaysEqual
from tests.solution_code import answer, verdict
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
_STORE = "        self._tools[name] = fn\n"
_MESSAGE = 'f"cannot register {name!r}: a tool named {existing!r} is already registered"'


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        # the registered name as normalised, not as registered ('send_email', not 'Send-Email')
        ([("a tool named {existing!r}", "a tool named {self.normalize(name)!r}")], "'Send-Email'"),
        # only the new name normalised: works while every registered name is already normal
        (
            [
                (
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
                (
                    _LOOKUP,
                    "existing = next((n for n in self._tools if self.normalize(n) in "
                    "self.normalize(name)), None)",
                )
            ],
            "different names must register",
        ),
        ([("Choose another name, or unregister the old tool first.", "")], "what to do"),
        ([("raise ValueError(", "raise KeyError(")], "wrong kind of error"),
    ],
    ids=["normalised-name-shown", "raw-names", "substring", "no-advice", "key-error"],
)
def test_a_wrong_registry_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("2.1", answer("2.1", *changes)).text()


def test_an_overwrite_before_raising_is_a_state_change_even_with_a_vague_message() -> None:
    wrong = answer(
        "2.1",
        (_STORE, ""),
        (_LOOKUP, f"{_LOOKUP}\n{_STORE.rstrip()}"),  # stores first, then raises
        (_MESSAGE, '"duplicate"'),
    )
    result = verdict("2.1", wrong)
    assert "changed" in result.message and "name both tools" not in result.message


def test_remembering_a_refused_name_is_a_state_change_not_a_missing_word() -> None:
    remember = "self._normalized[self.normalize(name)] = name"
    wrong = answer(
        "2.1",
        (f"        {remember}\n", ""),
        (_LOOKUP, f"{_LOOKUP}\n        {remember}"),  # updated before the check raises
    )
    result = verdict("2.1", wrong)
    assert "a name refused earlier" in result.message


# -- 2.2 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([("tag in tool.tags", "any(tag in t for t in tool.tags)")], "tag='order'"),
        (
            [
                ("wanted = Category(str(category).lower())", "wanted = Category(str(category))"),
                ("if str(category).lower() not in valid:", "if str(category) not in valid:"),
            ],
            "'WRITE'",
        ),
        ([("(tag is None or tag in tool.tags)", "True")], "tag='orders'"),
        ([("return [", "return sorted(["), ("    ]\n    ### END", "    ])\n    ### END")], "[0]"),
        ([("        tool.name\n", "        tool\n")], "names (str)"),
    ],
    ids=["tag-substring", "case-sensitive", "ignores-tags", "sorted", "tools-not-names"],
)
def test_a_wrong_filter_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("2.2", answer("2.2", *changes)).text()


def test_a_filter_that_returns_nothing_for_an_unknown_category_is_rejected() -> None:
    wrong = answer("2.2", ("raise ValueError(", "return [] if True else ValueError("))
    assert "should raise ValueError" in verdict("2.2", wrong).message


# -- 2.3 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # difflib's matches are normalised: map them back to the registered names
        (("[by_normal[c] for c in close]", "close"), "'Send-Email'"),
        (("))[:3]", "))[:1]"), "'get_time'"),
        (('"message": f"Unknown tool {name!r}."', '"message": f"Unknown tool {name}."'), "quote"),
        (("n=3)", "n=3, cutoff=0.3)"), "did_you_mean"),
        (("if did_you_mean:", "if False:"), "the best match"),
        (("by_normal = {", "tools[name]\n    by_normal = {"), "raised KeyError"),
        (
            ("did_you_mean = list(dict.fromkeys(", "did_you_mean = list(tools)[:3] or list(("),
            "did_you_mean",
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
    ],
)
def test_a_wrong_execute_is_rejected(change: tuple[str, str], words: str) -> None:
    assert words in verdict("2.3", answer("2.3", change)).text()


def test_a_null_suggestion_gets_the_shape_expected_not_a_crash() -> None:
    wrong = answer(
        "2.3",
        (
            "suggestion = f\"Use one of the available tools: {', '.join(tools)}.\"",
            "suggestion = None",
        ),
    )
    result = verdict("2.3", wrong)
    assert "['suggestion'] must be a str" in result.message and "None" in result.message


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
