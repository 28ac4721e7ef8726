"""toolsys.checks: a check reports passed / failed / not done / error / timeout and never raises."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolsys import checks
from toolsys.checks import CheckFailed, Described, Status, expect_equal, expect_raises


def _good(a: float, b: float) -> float:
    if b == 0:
        raise ValueError("b must not be 0")
    return a / b


@pytest.fixture
def demo(clean_registry: None) -> str:
    @checks.exercise(
        "99.1",
        title="Divide safely",
        hints=["Division by zero must not pass silently.", "Raise ValueError when b == 0."],
        reference=lambda: _good,
    )
    def _(student):
        expect_equal(student(6, 3), 2, what="safe_div(6, 3)")
        expect_raises(
            ValueError, student, 1, 0, what="safe_div(1, 0)", hint="Check b before dividing."
        )

    return "99.1"


def test_a_stub_is_reported_not_done(demo: str) -> None:
    def stub(a, b):
        raise NotImplementedError("Exercise 99.1: Divide safely")

    result = checks.check(demo, stub)
    assert result.status is Status.NOT_DONE
    assert "not done yet" in result.text()


def test_a_wrong_answer_shows_expected_got_and_hint(demo: str) -> None:
    result = checks.check(demo, lambda a, b: a / b if b else 0)
    assert result.status is Status.FAILED
    assert result.expected == "ValueError"
    assert result.got == "returned 0"
    assert result.hint == "Check b before dividing."
    assert result.text().startswith("✗ Exercise 99.1 (Divide safely): failed")


def test_a_wrong_value_shows_both_values(demo: str) -> None:
    result = checks.check(demo, lambda a, b: a * b)
    assert (result.status, result.expected, result.got) == (Status.FAILED, "2", "18")
    assert "hint(" in (result.hint or "")


def test_a_right_answer_passes(demo: str) -> None:
    result = checks.check(demo, _good)
    assert result.passed
    assert repr(result) == "✓ Exercise 99.1 (Divide safely): passed"


def test_a_hanging_answer_times_out(demo: str) -> None:
    started = time.monotonic()
    result = checks.check(demo, lambda a, b: time.sleep(5), timeout=0.2)
    assert result.status is Status.TIMEOUT
    assert time.monotonic() - started < 2
    assert "0.2 s" in result.message


def test_an_exception_from_student_code_is_reported_not_raised(demo: str) -> None:
    result = checks.check(demo, lambda a, b: {}["missing"])
    assert result.status is Status.ERROR
    assert result.message == "Your code raised KeyError: 'missing'"


def test_a_wrong_kind_of_error_is_a_failure(demo: str) -> None:
    def wrong(a, b):
        return a / b

    result = checks.check(demo, wrong)
    assert result.status is Status.FAILED
    assert result.got == "ZeroDivisionError('division by zero')"


def test_an_unknown_exercise_id_says_which_ones_exist(demo: str) -> None:
    result = checks.check("42.7", _good)
    assert result.status is Status.ERROR
    assert "no exercise '42.7'" in result.message
    assert "99.1" in result.message


def test_hints_come_one_more_per_call(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    checks.hint(demo)
    first = capsys.readouterr().out
    checks.hint(demo)
    second = capsys.readouterr().out
    assert "Hint 1/2" in first and "Hint 2/2" not in first
    assert "Hint 2/2" in second and "last hint" in second


def test_verdicts_are_appended_to_the_log(
    demo: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv(checks.LOG_ENV, str(log))
    checks.check(demo, _good)
    checks.check(demo, lambda a, b: a * b)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["status"] for line in lines] == ["passed", "failed"]
    assert lines[1]["expected"] == "2"


def test_an_unwritable_log_is_a_note_on_stdout_and_the_verdict_still_comes_back(
    demo: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(checks.LOG_ENV, str(tmp_path / "no" / "such" / "folder.jsonl"))
    result = checks.check(demo, _good)
    assert result.passed
    out, err = capfd.readouterr()
    assert "cannot append the verdict" in out and err == ""


def _noisy(a: float, b: float) -> float:
    """A correct answer that talks: a print to stderr, a warning, a thread that crashes."""
    import sys
    import threading
    import warnings

    print("debugging: dividing", a, "by", b, file=sys.stderr)
    warnings.warn("b is a float", RuntimeWarning, stacklevel=1)

    def crash() -> None:
        raise RuntimeError("a helper thread failed")

    helper = threading.Thread(target=crash)
    helper.start()
    helper.join()
    return _good(a, b)


@pytest.mark.parametrize("student", [_noisy, lambda a, b: _noisy(a, b) + 1], ids=["ok", "wrong"])
def test_a_check_never_writes_to_stderr_and_notes_what_the_code_said(
    demo: str, student: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    """nbgrader scores a cell with any stderr output as 0: a check's output is its verdict."""
    result = checks.check(demo, student)
    out, err = capfd.readouterr()
    assert err == "" and out == ""
    assert result.note is not None
    for said in ("debugging: dividing", "RuntimeWarning: b is a float", "a helper thread failed"):
        assert said in result.note, result.note
    assert "note:" in result.text()
    assert "note" not in result.to_dict()  # the log keeps the fields the grader reads


def test_a_quiet_answer_has_no_note(demo: str) -> None:
    result = checks.check(demo, _good)
    assert result.note is None and "note:" not in result.text()


def test_a_check_can_raise_check_failed_directly(clean_registry: None) -> None:
    @checks.exercise("99.2", title="Return a list")
    def _(student):
        got = student()
        if not isinstance(got, list):
            raise CheckFailed(
                "student() must return a list.", expected=Described("a list"), got=got
            )

    result = checks.check("99.2", lambda: (1, 2))
    assert (result.expected, result.got) == ("a list", "(1, 2)")


def test_registering_another_check_under_a_taken_id_fails(demo: str) -> None:
    with pytest.raises(ValueError, match="already registered"):

        @checks.exercise("99.1", title="Other")
        def other(student):
            pass


def test_a_malformed_exercise_id_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"CHAPTER\.NUMBER"):
        checks.exercise("two", title="x")


def test_chapter_modules_are_discovered_on_first_use(
    tmp_path: Path, clean_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsys.checks import _core

    (tmp_path / "ch98.py").write_text(
        "from toolsys.checks import exercise\n"
        "@exercise('98.1', title='Found')\n"
        "def _(student):\n    pass\n"
    )
    (tmp_path / "helpers.py").write_text("raise RuntimeError('only ch*.py are imported')\n")
    monkeypatch.setattr(checks, "__path__", [*checks.__path__, str(tmp_path)])
    monkeypatch.setattr(_core._REGISTRY, "discovered", False)
    monkeypatch.delitem(sys.modules, "toolsys.checks.ch98", raising=False)
    assert checks.get_exercise("98.1") is not None
    sys.modules.pop("toolsys.checks.ch98", None)


def test_an_id_written_as_a_number_finds_the_exercise(demo: str) -> None:
    assert checks.check(float(demo), _good).passed


def test_an_error_in_student_code_says_which_call_of_the_check_was_running(demo: str) -> None:
    cell = "def divide(a, b):\n    return {'a': a}[b]  # a bug that only shows for some inputs\n"
    namespace: dict = {}
    exec(compile(cell, "<notebook cell>", "exec"), namespace)  # student code lives elsewhere
    result = checks.check(demo, namespace["divide"])
    assert result.status is Status.ERROR
    assert result.message.endswith(
        'while the check ran: expect_equal(student(6, 3), 2, what="safe_div(6, 3)")'
    )


# -- call_student, expect_plain and comparisons that cannot be fooled -----------------------------


@pytest.fixture
def never_raises(clean_registry: None) -> str:
    @checks.exercise("99.3", title="Never raise")
    def _(student):
        got = checks.call_student(student, "x", what="safe('x')", returns="a string")
        checks.expect_plain(got, what="safe('x')", shape="a string")
        expect_equal(got, "X", what="safe('x')")

    return "99.3"


def test_call_student_turns_an_exception_into_a_wrong_answer_naming_the_call(
    never_raises: str,
) -> None:
    result = checks.check(never_raises, lambda text: {}[text])
    assert result.status is Status.FAILED
    assert result.message == "safe('x') raised KeyError: 'x'. It must return a string, never raise."
    assert (result.expected, result.got) == ("a string", "KeyError(\"'x'\")")


def test_call_student_lets_a_half_finished_stub_be_not_done(never_raises: str) -> None:
    def half_done(text):
        if text == "x":
            raise NotImplementedError("this path is still to write")
        return text.upper()

    assert checks.check(never_raises, half_done).status is Status.NOT_DONE


def test_expect_plain_names_the_shape_and_where_the_value_stops_being_plain(
    never_raises: str,
) -> None:
    result = checks.check(never_raises, lambda text: [{"a": {1, 2}}])
    assert result.status is Status.FAILED
    assert result.message == (
        "safe('x') must be a string: safe('x')[0]['a'] is a set, not plain data "
        "(dict, list, str, int, float, bool or None)."
    )


class _AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


class _SameStr(str):
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


@pytest.mark.parametrize(
    ("got", "expected", "words"),
    [
        (_AlwaysEqual(), 2, "is a _AlwaysEqual, not an int"),
        (_SameStr("y"), "x", "is a _SameStr (a subclass of str), not a str"),
        ([1, _AlwaysEqual()], [1, 2], "add(2, 3)[1] is a _AlwaysEqual"),
        ({"a": 1, _SameStr("b"): 2}, {"a": 1, "b": 2}, "has a key that is a _SameStr"),
        (True, 1, "is a bool, not an int"),
        ((1, 2), [1, 2], "is a tuple, not a list"),
    ],
    ids=["always-equal", "str-subclass", "nested", "key-subclass", "bool-for-int", "tuple"],
)
def test_expect_equal_compares_exact_types_first(got: object, expected: object, words: str) -> None:
    with pytest.raises(CheckFailed) as failure:
        expect_equal(got, expected, what="add(2, 3)")
    assert words in failure.value.message


def test_expect_equal_accepts_equal_plain_values_and_numbers_by_value() -> None:
    expect_equal({"a": [1, 2.0, None, "x"]}, {"a": [1.0, 2, None, "x"]}, what="f()")
    expect_equal(len, len, what="the function")


def test_a_value_that_contains_itself_is_reported_not_followed() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(CheckFailed, match="nested more than 60 levels deep"):
        checks.expect_plain(loop, what="f()", shape="a list")


def test_expect_raises_reads_the_message_as_a_plain_str(demo: str) -> None:
    class Says(str):
        def __contains__(self, item: object) -> bool:
            return True

    class Sly(ValueError):
        def __str__(self) -> str:
            return Says("nothing useful")

    with pytest.raises(CheckFailed, match="does not mention 'b'"):
        expect_raises(ValueError, lambda: (_ for _ in ()).throw(Sly()), what="f()", match="b")


def test_an_exception_whose_str_raises_is_still_reported(demo: str) -> None:
    class Broken(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no text")

    def student(a, b):
        raise Broken

    result = checks.check(demo, student)
    assert result.status is Status.ERROR
    assert result.message.startswith("Your code raised Broken: <unprintable Broken: RuntimeError>")


def test_system_exit_from_student_code_is_an_error_not_a_timeout(demo: str) -> None:
    result = checks.check(demo, lambda a, b: sys.exit(3))
    assert result.status is Status.ERROR
    assert result.message.startswith("Your code raised SystemExit: 3")
