"""The differential layer of the checks (toolsys/checks/_differential.py) keeps its promises.

Deterministic inputs, smallest first, a verdict that names the smallest disagreeing input, a stub
still "not done yet"; and, for the exercises that use it, wrong answers that only inputs beyond
the hand-written cases show, each rejected, while correct answers written differently pass.
"""

from __future__ import annotations

import random
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import BaseModel, model_validator

from tests.solution_code import answer, swap, verdict
from toolsys.checks import CheckBroken, CheckFailed, Status
from toolsys.checks._differential import (
    Call,
    agree,
    agree_on_sameness,
    calls,
    close,
    weight,
)


def _numbers(rng: random.Random, size: int) -> Call:
    return Call((rng.randint(0, 10 * (size + 1)),))


def test_inputs_are_the_same_every_time_and_smallest_first() -> None:
    first, again = calls(_numbers, seed=1, count=50), calls(_numbers, seed=1, count=50)
    assert list(first) == list(again)
    weights = [weight(call) for call in first]
    assert weights == sorted(weights)
    assert len({repr(call) for call in first}) == len(first)  # each input once


def test_sets_are_spelled_alike_in_every_process() -> None:
    """Which inputs are kept must not follow PYTHONHASHSEED (a set's order does)."""
    code = (
        "from toolsys.checks._differential import Call, _spelled;"
        "print(_spelled(Call(({'zeta', 'alpha', 'mu', 'beta'},))))"
    )
    spelled = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "TOOLSYS_OFFLINE": "1"},
        ).stdout
        for seed in ("0", "1", "2", "3")
    }
    assert len(spelled) == 1, spelled


def test_the_smallest_disagreement_is_reported() -> None:
    def reference(n: int) -> int:
        return n * 2

    def wrong(n: int) -> int:
        return n * 2 if n < 7 else n * 2 + 1

    inputs = calls(_numbers, seed=3, count=200)
    smallest = min(call.args[0] for call in inputs if call.args[0] >= 7)
    with pytest.raises(CheckFailed) as failed:
        agree(wrong, reference, inputs, name="double")
    assert failed.value.message.startswith(f"double({smallest}) returned a wrong value")
    assert failed.value.expected == 2 * smallest and failed.value.got == 2 * smallest + 1
    assert "smallest" in failed.value.message


def test_an_error_where_the_reference_returns_is_reported_with_its_input() -> None:
    def fragile(n: int) -> int:
        if n == 3:
            raise KeyError("n")
        return n

    with pytest.raises(CheckFailed, match=r"^same\(3\) raised KeyError"):
        agree(fragile, lambda n: n, calls(_numbers, seed=3, count=200), name="same")


def test_a_stub_is_still_not_done() -> None:
    def stub(n: int) -> int:
        raise NotImplementedError

    with pytest.raises(NotImplementedError):
        agree(stub, lambda n: n, calls(_numbers, seed=3, count=20), name="same")


def _verdict_of(body: Any) -> Any:
    """The verdict `check` gives for a throwaway exercise whose check is `body`."""
    from toolsys.checks._core import Exercise, run_check

    return run_check(Exercise("99.1", "A check of our own", body), None, 10)


def test_a_comparator_that_raises_is_the_checks_failure_not_the_students() -> None:
    def broken(got: Any, expected: Any, what: str) -> str | None:
        raise KeyError("a bug of ours")

    result = _verdict_of(
        lambda student: agree(
            lambda n: n, lambda n: n, calls(_numbers, seed=3, count=20), name="same",
            compare=broken,
        )
    )  # fmt: skip
    assert result.status is Status.ERROR
    assert "Your code" not in result.message
    assert result.message.startswith("The check itself failed (an internal error in the check")
    assert "comparison" in result.message and "KeyError: 'a bug of ours'" in result.message
    assert "not your fault" in (result.hint or "") and "report" in (result.hint or "")


def test_a_reference_or_generator_that_breaks_is_the_checks_failure() -> None:
    def unfinished(n: int) -> int:
        raise NotImplementedError

    def generator(rng: random.Random, size: int) -> Call:
        raise ValueError("no inputs today")

    def sameness_reference(n: int) -> int:
        raise ZeroDivisionError("division by zero")

    def self_doubting(n: int) -> int:  # a reference that finds itself wrong: not an error to ask
        raise CheckBroken("the reference's own reading", ValueError("it disagrees"))

    inputs = calls(_numbers, seed=3, count=20)
    for body, says in (
        (lambda s: agree(lambda n: n, unfinished, inputs, name="f"), "reference"),
        (lambda s: agree(lambda n: n, lambda n: n, calls(generator, seed=1, count=3), name="f"),
         "generator"),
        (lambda s: agree_on_sameness(lambda n: n, sameness_reference, inputs, name="f"),
         "reference"),
        (lambda s: agree(lambda n: n, self_doubting, inputs, name="f"), "own reading"),
    ):  # fmt: skip
        result = _verdict_of(body)
        assert result.status is Status.ERROR, result
        assert result.message.startswith("The check itself failed"), result.message
        assert says in result.message and "not your fault" in (result.hint or "")


def test_the_students_own_errors_are_still_theirs() -> None:
    """The student's exception in a differential pass is still "your code" (a wrong answer),
    and a stub still "not done yet"."""

    def stub(n: int) -> int:
        raise NotImplementedError

    inputs = calls(_numbers, seed=3, count=20)
    assert _verdict_of(lambda s: agree(stub, lambda n: n, inputs, name="f")).status is (
        Status.NOT_DONE
    )
    result = _verdict_of(lambda s: agree_on_sameness(lambda n: 1 // 0, abs, inputs, name="f"))
    assert result.message.startswith("Your code raised ZeroDivisionError"), result.message


def test_an_answer_that_changes_its_argument_cannot_change_what_the_reference_sees() -> None:
    def greedy(items: list[int]) -> int:
        total = sum(items)
        items.clear()
        return total

    inputs = [Call(([1, 2, 3],)), Call(([4],))]
    agree(greedy, sum, inputs, name="total")  # the reference gets its own copy: they agree


def test_sameness_reports_the_pair_the_answer_puts_together_wrongly() -> None:
    inputs = [Call(("a", 1)), Call(("b", 1)), Call(("a", 2))]
    with pytest.raises(CheckFailed) as failed:
        agree_on_sameness(lambda x, y: x, lambda x, y: (x, y), inputs, name="key")
    assert "key('a', 2) gave the same result as key('a', 1)" in failed.value.message
    with pytest.raises(CheckFailed) as failed:
        agree_on_sameness(lambda x, y: (x, y), lambda x, y: y, inputs, name="key")
    assert "key('b', 1) gave another result than key('a', 1)" in failed.value.message


def test_close_allows_rounding_only() -> None:
    assert close({"a": [0.1 + 0.2]}, {"a": [0.3]}, "r") is None
    assert close({"a": [0.31]}, {"a": [0.3]}, "r") is not None
    assert close({"a": True}, {"a": 1}, "r") is not None  # a bool is never a number here


def test_every_exercises_inputs_stay_few() -> None:
    """The cost bound: no exercise generates more than 250 inputs."""
    from toolsys import checks

    for exercise in checks.exercises():
        module = sys.modules[exercise.run.__module__]
        generated = getattr(module, "_GENERATED", None)
        if generated is not None:
            assert len(generated) <= 250, exercise.id


# -- wrong answers only generated inputs show, rejected ------------------------------------------


class _FixedOffset(BaseModel):
    """5.2 with Paris read as +01:00 all year: right in January, an hour off in summer."""

    title: str
    start: datetime
    end: datetime

    @model_validator(mode="after")
    def end_after_start(self) -> _FixedOffset:
        paris = timezone(timedelta(hours=1))
        start = self.start if self.start.tzinfo else self.start.replace(tzinfo=paris)
        end = self.end if self.end.tzinfo else self.end.replace(tzinfo=paris)
        if end <= start:
            raise ValueError(
                f"end ({self.end}) must be after start ({self.start}); send a later end"
            )
        return self


def test_a_validator_that_reads_paris_as_plus_one_all_year_is_rejected() -> None:
    result = verdict("5.2", _FixedOffset)
    assert "generated inputs" in result.message and "2025-07" in result.message


def test_a_ranking_that_lowercases_the_terms_is_rejected() -> None:
    lowered = answer("9.3", swap("set(query)", "{term.lower() for term in query}"))
    assert "generated inputs" in verdict("9.3", lowered).message


def test_a_rule_that_counts_reships_per_reason_is_rejected() -> None:
    def per_reason() -> str:
        return """
            SELECT r.order_id FROM reships r JOIN orders o ON o.id = r.order_id
            GROUP BY r.order_id, r.reason HAVING COUNT(*) > 1 OR o.status != 'delivered'
        """

    assert "generated inputs" in verdict("12.1", per_reason).message


# -- correct answers written differently pass the generated inputs too --------------------------


def test_a_validator_that_compares_in_utc_passes() -> None:
    from zoneinfo import ZoneInfo

    class MeetingTimes(BaseModel):
        title: str
        start: datetime
        end: datetime

        @model_validator(mode="after")
        def end_after_start(self) -> Any:
            home = ZoneInfo("Europe/Paris")
            start, end = (
                (t if t.tzinfo else t.replace(tzinfo=home)).astimezone(UTC)
                for t in (self.start, self.end)
            )
            if not start < end:
                raise ValueError(
                    "start and end: the end must come after the start; send a later end"
                )
            return self

    verdict("5.2", MeetingTimes, Status.PASSED)


def test_a_key_from_another_hash_and_layout_passes() -> None:
    import hashlib
    import json

    def call_key(run_id: str, call_id: str, tool: str, arguments: dict) -> str:
        body = json.dumps({"r": run_id, "t": tool, "a": arguments}, sort_keys=True)
        return "k-" + hashlib.blake2b(body.encode(), digest_size=20).hexdigest()

    verdict("7.3", call_key, Status.PASSED)


def test_a_gate_written_as_one_expression_passes() -> None:
    def may_retry(
        result: dict, attempt: int, max_attempts: int, idempotent: bool, key: Any
    ) -> bool:
        error = result.get("error") if result.get("ok") is False else None
        return bool(
            isinstance(error, dict)
            and attempt < max_attempts
            and error.get("retryable") is True
            and (idempotent or (isinstance(key, str) and key != ""))
        )

    verdict("7.2", may_retry, Status.PASSED)


def test_a_rule_written_with_a_subquery_passes() -> None:
    def reship_rule() -> str:
        return """
            SELECT o.id AS order_id FROM orders o
            WHERE (SELECT COUNT(*) FROM reships r WHERE r.order_id = o.id) > 1
               OR (o.status <> 'delivered' AND o.id IN (SELECT order_id FROM reships))
        """

    verdict("12.1", reship_rule, Status.PASSED)


def test_the_bm25_reference_is_toolsys_bm25_on_the_chapters_documents() -> None:
    """9.3's reference is the text's formula on the terms as given; on the chapter's documents
    (already tokens) it ranks as `toolsys.search.BM25` does."""
    from toolsys.checks.ch09 import DOCUMENTS
    from toolsys.checks.ch09.ex3 import rank
    from toolsys.search import BM25

    index = BM25({name: {"text": " ".join(terms)} for name, terms in DOCUMENTS.items()})
    for query in (["refund", "order"], ["order"], ["parcel", "status"], ["weather", "city"]):
        ours = [(name, round(score, 4)) for name, score in rank(query, DOCUMENTS, 6)]
        theirs = [(hit.name, hit.score) for hit in index.rank(" ".join(query), 6)]
        assert ours == theirs, query


# -- 1.1, 1.2, 1.3, 2.1, 6.4, 10.3 ---------------------------------------------------------------


def _without_differential(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check as it was before its differential cases: `agree` a no-op in its module."""
    monkeypatch.setattr(f"{module}.agree", lambda *args, **kwargs: None)


def _starts_with_a_brace(table: dict, name: str, arguments: Any = None) -> Any:
    """1.1 decoding JSON text only when it starts with "{": ' {}' is not read."""
    import json

    if name not in table:
        raise KeyError(f"unknown tool {name!r}")
    if isinstance(arguments, str) and arguments.startswith("{"):
        arguments = json.loads(arguments)
    return table[name](**(arguments or {}))


def _catches_three_kinds(table: dict, name: str, arguments: Any = None) -> str:
    """1.3 catching TypeError, ValueError and KeyError only: a tool's RuntimeError escapes."""
    import json

    if name not in table:
        return f"Error: unknown tool {name!r}. Available tools: {', '.join(sorted(table))}."
    try:
        decoded = json.loads(arguments) if isinstance(arguments, str) and arguments else arguments
    except json.JSONDecodeError:
        return f"Error: the arguments for {name!r} are not valid JSON."
    try:
        value = table[name](**(decoded or {}))
        return value if isinstance(value, str) else json.dumps(value)
    except (TypeError, ValueError, KeyError) as exc:
        return f"Error: tool {name!r} failed: {exc}"


def _summary_swap(old: str, new: str) -> Any:
    return answer("6.4", swap(old, new))


_CONTENT_MAX = 'max(len(m.get("content") or "") for m in transcript.messages)'
_CALLS_SUM = 'sum(len(m.get("tool_calls") or []) for m in transcript.messages)'
_ONLY_DIFFERENTIAL = [
    ("1.1", "toolsys.checks.ch01.ex1", lambda: _starts_with_a_brace),
    ("1.3", "toolsys.checks.ch01.ex3", lambda: _catches_three_kinds),
    (  # one problem per parameter: a required mismatch hides a type mismatch
        "1.2",
        "toolsys.checks.ch01.ex2",
        lambda: answer(
            "1.2",
            swap(
                'drift.append((name, "required_mismatch"))',
                'drift.append((name, "required_mismatch"))\ncontinue',
                statements=True,
            ),
        ),
    ),
    (  # the system prompt is no message to it
        "6.4",
        "toolsys.checks.ch06.ex4",
        lambda: _summary_swap(
            _CONTENT_MAX,
            'max(len(m.get("content") or "") for m in transcript.messages '
            'if m["role"] != "system")',
        ),
    ),
    (  # a call's assistant message has no content, it assumes
        "6.4",
        "toolsys.checks.ch06.ex4",
        lambda: _summary_swap(
            _CALLS_SUM,
            'sum(len(m.get("tool_calls") or []) for m in transcript.messages '
            'if not m.get("content"))',
        ),
    ),
]


@pytest.mark.parametrize(
    ("exercise_id", "module", "wrong"),
    _ONLY_DIFFERENTIAL,
    ids=[
        "1.1-brace-first",
        "1.3-three-kinds",
        "1.2-one-problem-each",
        "6.4-no-system",
        "6.4-calls-without-content",
    ],
)
def test_wrong_answers_only_the_generated_inputs_show_are_rejected(
    exercise_id: str, module: str, wrong: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = verdict(exercise_id, wrong())
    assert "generated inputs" in result.message, result.text()
    _without_differential(module, monkeypatch)
    verdict(exercise_id, wrong(), Status.PASSED)  # the hand-written cases alone passed it


def test_an_unknown_names_key_error_must_name_it() -> None:
    def nameless(table: dict, name: str, arguments: Any = None) -> Any:
        import json

        if name not in table:
            raise KeyError("no such tool")
        if isinstance(arguments, str) and arguments:
            arguments = json.loads(arguments)
        return table[name](**(arguments or {}))

    assert "no such tool" in verdict("1.1", nameless).text()  # the hand-written cases first
    from toolsys.checks.ch01._shared import on_table
    from toolsys.checks.ch01.ex1 import _GENERATED, _same_error, dispatch

    unknown = next(call for call in _GENERATED if call.args[1] not in call.args[0])
    with pytest.raises(CheckFailed, match="without naming"):
        agree(on_table(nameless), on_table(dispatch), [unknown], name="d", errors=_same_error)


def test_a_dispatcher_written_with_get_and_a_conditional_passes() -> None:
    import json

    def dispatch(table: dict, name: str, arguments: Any = None) -> Any:
        tool = table.get(name)
        if tool is None:
            raise KeyError(f"{name} is not a tool; the tools are {sorted(table)}")
        given = json.loads(arguments) if isinstance(arguments, str) and arguments else arguments
        return tool(**dict(given or {}))

    verdict("1.1", dispatch, Status.PASSED)


def test_a_drift_finder_written_with_sets_passes() -> None:
    import inspect
    import typing

    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    names |= {list: "array", dict: "object"}

    def kind(annotation: Any) -> str | None:
        if typing.get_origin(annotation) in (typing.Union, __import__("types").UnionType):
            rest = [a for a in typing.get_args(annotation) if a is not type(None)]
            return kind(rest[0]) if len(rest) == 1 else None
        return names.get(typing.get_origin(annotation) or annotation)

    def find_drift(definition: dict, fn: Any) -> set[tuple[str, str]]:
        schema = definition["function"]["parameters"]
        props, required = schema["properties"], set(schema.get("required") or ())
        params = {
            p.name: p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        }
        hints = typing.get_type_hints(fn)
        found = {(n, "not_in_function") for n in set(props) - set(params)}
        found |= {(n, "not_in_schema") for n in set(params) - set(props)}
        for n in set(params) & set(props):
            if (params[n].default is params[n].empty) is not (n in required):
                found.add((n, "required_mismatch"))
            want = kind(hints[n]) if n in hints else None
            if want and props[n].get("type") != want:
                found.add((n, "type_mismatch"))
        return found

    verdict("1.2", find_drift, Status.PASSED)


def test_a_safe_dispatch_with_its_own_messages_and_escaped_json_passes() -> None:
    import json

    def safe_dispatch(table: dict, name: str, arguments: Any = None) -> str:
        if name not in table:
            return f"Error: there is no tool {json.dumps(name)}; try one of {list(table)}"
        if arguments is None or arguments == "":
            arguments = {}
        elif isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError as exc:
                return f"Error: {name}: arguments are not valid JSON ({exc})"
        try:
            value = table[name](**arguments)
            return value if type(value) is str else json.dumps(value, indent=1)
        except Exception as exc:
            return f"Error: {name} raised {exc!r}"

    verdict("1.3", safe_dispatch, Status.PASSED)


def test_a_registry_that_keeps_one_dict_of_normal_forms_passes() -> None:
    class SafeRegistry:
        def __init__(self) -> None:
            self.by_form: dict[str, tuple[str, Any]] = {}

        def register(self, name: str, fn: Any) -> None:
            form = name.replace("-", "_").casefold()
            if form in self.by_form:
                old = self.by_form[form][0]
                raise ValueError(
                    f"{name!r} collides with the registered {old!r}: pick a different name"
                )
            self.by_form[form] = (name, fn)

        def get(self, name: str) -> Any:
            return next(fn for n, fn in self.by_form.values() if n == name)

        def names(self) -> list[str]:
            return [n for n, _ in self.by_form.values()]

    verdict("2.1", SafeRegistry, Status.PASSED)


def test_a_summary_with_a_counter_and_a_loop_passes() -> None:
    import json
    from collections import Counter

    def summarize(transcript: Any) -> dict:
        failed = calls = largest = 0
        for message in transcript.messages:
            calls += len(message.get("tool_calls") or ())
            largest = max(largest, len(message.get("content") or ""))
            if message["role"] != "tool":
                continue
            try:
                envelope = json.loads(message["content"])
            except ValueError:
                envelope = None
            if type(envelope) is dict and envelope.get("ok") is False:
                failed += 1
        usage = transcript.usage
        return {
            "status": transcript.status,
            "steps": transcript.steps,
            "messages": len(transcript.messages),
            "by_role": Counter(m["role"] for m in transcript.messages),
            "tool_calls": calls,
            "failed_calls": failed,
            "tokens": None if usage is None else usage["total_tokens"],
            "largest_message": largest,
        }

    verdict("6.4", summarize, Status.PASSED)


def test_the_10_3_differential_reference_is_the_packages_import() -> None:
    """10.3's differential reference is the text's rule (the package's import runs an MCP
    session per import); on the generated inputs, every one the package accepts, it gives what
    `toolsys.mcp.import_server` gives, clashes and their messages included."""
    from toolsys.checks.ch10.ex3 import (
        _GENERATED,
        _imported,
        _names_a_clash,
        by_the_text,
        import_with_prefix,
    )

    sample = list(_GENERATED)[::6]
    agree(
        _imported(import_with_prefix),
        _imported(by_the_text),
        sample,
        name="import",
        errors=_names_a_clash,
        seconds=120,
    )
    refused = 0
    for call in sample:
        try:
            _imported(by_the_text)(*call.args)
        except ValueError:
            refused += 1
    assert 0 < refused < len(sample)  # clashes among them, and imports


@pytest.mark.parametrize("by", ["values", "sameness"])
def test_a_busy_machine_does_not_cut_a_pass_short(by: str, monkeypatch) -> None:
    """The time guard counts CPU time: a wall clock that runs 0.4 s per look (a machine so busy
    that every input takes that long) still meets the wrong value at the 46th input."""
    import itertools
    import time
    import types

    from toolsys.checks import _differential

    wall = itertools.count(0, 0.4)
    clock = types.SimpleNamespace(monotonic=lambda: next(wall), process_time=time.process_time)
    monkeypatch.setattr(_differential, "time", clock)
    inputs = [Call((i,)) for i in range(60)]

    def wrong(x: int) -> int:
        return 44 if x == 45 else x

    check = agree if by == "values" else agree_on_sameness
    with pytest.raises(CheckFailed, match=r"f\(45\)"):
        check(wrong, lambda x: x, inputs, name="f")
