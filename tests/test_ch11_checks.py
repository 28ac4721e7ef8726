"""Chapter 11 checks reject the careless test code a student is likely to write.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`).
The references are built from `toolsys.testing`, so passing them here also proves that the
package's helpers pass the chapter's checks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.solution_code import answer, swap, verdict
from toolsys.checks import Status

# -- 11.1 ----------------------------------------------------------------------------------------

_REQUIRED = "schema.get('required', [])"
_EXTRAS = "schema.get('additionalProperties') is False"
_SAME_BOOL = "got == want and (type(got) is bool) == (type(want) is bool)"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        # the test that misses the chapter's bug: it asks the function which fields are needed
        ([swap(_REQUIRED, "[k for k in schema['properties'] if k == 'query']")], "limit"),
        # every field left out, required or not: an optional one is rightly accepted
        ([swap(_REQUIRED, "schema['properties']")], "schema and validator agree"),
        ([swap(_EXTRAS, "False")], "extra properties"),
        # adds an extra property even where the schema allows one: harmless here, so only the
        # mutation check below (the refused sample) must still be caught
        (
            [swap("error = refusal(tool, sample)", "error = None")],
            "limit is a string",
        ),
        (
            [
                swap(
                    "error is None or error.code != 'INVALID_ARGUMENTS' "
                    "or field not in error.message",
                    "error is None or error.code != 'INVALID_ARGUMENTS'",
                )
            ],
            "does not name limit",
        ),
        (
            [
                swap(
                    "AssertionError(f'sent {mutated}; got {got}; "
                    "expected INVALID_ARGUMENTS naming {field!r}')",
                    "ValueError(f'sent {mutated}; got {got}; "
                    "expected INVALID_ARGUMENTS naming {field!r}')",
                )
            ],
            "wrong kind of error",
        ),
    ],
    ids=[
        "fields-from-the-function",
        "optional-fields-too",
        "no-extra",
        "sample-not-sent",
        "field-not-named",
        "not-an-assertion",
    ],
)
def test_a_wrong_agreement_test_is_rejected(changes: list[Any], words: str | None) -> None:
    result = verdict("11.1", answer("11.1", *changes))
    if words:
        assert words in result.text()


def test_an_agreement_test_that_empties_the_sample_is_rejected() -> None:
    # adv2: sample.pop(field) built each case by emptying the caller's sample.
    solution = answer("11.1")

    def popping(tool, sample):
        solution(tool, dict(sample))
        for field in tool.parameters.get("required", []):
            sample.pop(field, None)

    text = verdict("11.1", popping).text()
    assert "changed the sample it was given: the caller's dict is now {'limit': 3}" in text
    assert "sample.pop(field)" in text


def test_an_extra_property_that_the_schema_declares_is_named_in_the_hint() -> None:
    # adv2: the "extra" was `limit`; the hint spoke only of leaving out optional fields.
    declared = answer("11.1", swap('{**sample, "not_a_parameter": 1}', '{**sample, "limit": 1}'))
    assert "a name the schema does not declare" in verdict("11.1", declared).text()


def test_an_agreement_test_that_never_fails_is_rejected() -> None:
    def lenient(tool, sample):
        return None

    assert "returned normally" in verdict("11.1", lenient).text()


# -- 11.2 ----------------------------------------------------------------------------------------

_SAME = "return got == want and (type(got) is bool) == (type(want) is bool)"
_STRICT = "return len(made) == len(expected) and all(map(matches, made, expected))"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([swap(_SAME, "return got == want")], "true is not"),
        ([swap(_STRICT, "return all(map(matches, made, expected))")], "no extra call"),
        (
            [swap("mode == 'unordered' and len(made) != len(expected)", "False")],
            "unordered allows no extra",
        ),
        (
            [
                swap(
                    "name == want_name and all(...)",
                    "name == want_name and want_arguments == arguments or name == want_name and "
                    "all(key in arguments and same(arguments[key], value) "
                    "for key, value in want_arguments.items())",
                )
            ],
            "true is not 1",
        ),
        (
            [
                swap(
                    "return assign(0, frozenset(range(len(made))))",
                    "return all(any(matches(c, w) for c in made) for w in expected)",
                )
            ],
            "two expected calls need two calls",
        ),
    ],
    ids=[
        "true-is-one",
        "zip-forgets-extras",
        "unordered-allows-extras",
        "exact-shortcut",
        "no-own-call",
    ],
)
def test_a_wrong_trajectory_match_is_rejected(changes: list[Any], words: str | None) -> None:
    assert words in verdict("11.2", answer("11.2", *changes)).text()


def test_exact_argument_equality_is_rejected() -> None:
    def exact(made, expected, mode):
        if mode != "strict":
            return False
        return len(made) == len(expected) and all(
            m == e for m, e in zip(made, expected, strict=True)
        )

    assert "argument subsets match" in verdict("11.2", exact).text()


def test_a_greedy_matcher_is_rejected() -> None:
    def greedy(made, expected, mode):
        if mode == "strict":
            return len(made) == len(expected) and all(
                m[0] == e[0]
                and all(
                    k in m[1] and m[1][k] == v and (type(m[1][k]) is bool) == (type(v) is bool)
                    for k, v in e[1].items()
                )
                for m, e in zip(made, expected, strict=True)
            )
        free = list(range(len(made)))
        for name, arguments in expected:
            pick = next(
                (
                    j
                    for j in free
                    if made[j][0] == name
                    and all(k in made[j][1] and made[j][1][k] == v for k, v in arguments.items())
                ),
                None,
            )
            if pick is None:
                return False
            free.remove(pick)
        return mode == "subset" or not free

    assert "greedy first pick fails" in verdict("11.2", greedy).text()


# -- 11.3 ----------------------------------------------------------------------------------------

_EDGES_STRING = "['', ' ', '  ', 'a', 'a  b', 'x' * 10000, 'é🙂', '0']"
_EDGES_INT = "[0, 1, -1, 2 ** 31, -2 ** 31, 10 ** 18]"
_EDGES_NUMBER = "[0, 0.0, -1.5, 1e-300, 1e+300, -1]"
_CHOICE = "rng.choice(sub.get('enum') or edges.get(sub.get('type'), [None]))"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([swap(_EDGES_STRING, "['Ada Lovelace', 'Alan Turing']")], "initials"),
        ([swap(_EDGES_INT, "[1, 2, 3, 10]")], "average"),
        ([swap(_EDGES_NUMBER, "[1.0, 2.5, 100.0]")], "side"),
        ([swap(_CHOICE, _CHOICE.replace("rng.", "random.", 1))], "same seed"),
        ([swap('edges.get(sub.get("type"), [None])', "[True]")], "never got past validation"),
        ([swap("range(count)", "range(10)")], "must return a list of exactly"),
    ],
    ids=[
        "polite-strings",
        "polite-integers",
        "polite-numbers",
        "module-random",
        "wrong-types",
        "ignores-count",
    ],
)
def test_a_fuzzer_that_misses_the_bugs_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("11.3", answer("11.3", *changes)).text()


# -- 11.4 ----------------------------------------------------------------------------------------

_SHARE = "sum(judged) / len(judged) if judged else None"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            [
                swap(
                    'top1 += bool(made_calls) and made_calls[0][0] == case["tool"]',
                    'top1 += any(name == case["tool"] for name, _ in made_calls)',
                )
            ],
            "first call only",
        ),
        (
            [
                swap(
                    "aimed = next((args for name, args in made_calls "
                    'if name == case["tool"]), None)',
                    "aimed = made_calls[0][1] if made_calls else None",
                )
            ],
            "first call to the expected tool",
        ),
        (
            [swap(_SHARE, "sum(judged) / len(cases)")],
            "averaged over the cases",
        ),
        (
            [swap(_SHARE, "sum(judged) / len(judged) if judged else 0.0")],
            "None",
        ),
        (
            [
                swap(
                    "all(k in aimed and same(aimed[k], v) for k, v in wanted.items())",
                    "aimed == wanted",
                )
            ],
            "subset",
        ),
        # adv2: any call to the expected tool, not its first, was scored
        (
            [
                swap(
                    "judged.append(aimed is not None and all(k in aimed and same(aimed[k], v) "
                    "for k, v in wanted.items()))",
                    "judged.append(any(name == case['tool'] and all(k in args and "
                    "same(args[k], v) for k, v in wanted.items()) for name, args in made_calls))",
                )
            ],
            "a later call that corrects them does not count",
        ),
        # adv2: percentages, not shares; the hint spoke of subsets
        (
            [swap("top1 / len(cases)", "100 * top1 / len(cases)")],
            "top1 is 100.0, a percentage",
        ),
        # adv2: calls per task over the cases with calls; the hint spoke of top-1
        (
            [swap("calls / len(cases)", "calls / max(1, sum(1 for m in made if m))")],
            "calls_per_task is all the calls made divided by the number of cases",
        ),
    ],
    ids=[
        "any-call-counts",
        "first-call-arguments",
        "averaged-over-all",
        "zero-not-none",
        "exact-arguments",
        "any-call-to-the-tool",
        "percentages",
        "calls-over-busy-cases",
    ],
)
def test_a_wrong_selection_score_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("11.4", answer("11.4", *changes)).text()


def test_a_selection_score_that_judges_empty_arguments_is_rejected() -> None:
    # adv2: a case with 'arguments': {} was counted as naming arguments.
    def selection_scores(cases, made):
        def includes(got, want):
            return all(
                k in got and got[k] == v and (type(got[k]) is bool) == (type(v) is bool)
                for k, v in want.items()
            )

        judged = [
            includes(next(a for n, a in calls if n == case["tool"]), wanted)
            if any(n == case["tool"] for n, _ in calls)
            else False
            for case, calls in zip(cases, made, strict=True)
            if (wanted := case.get("arguments")) is not None
        ]
        return {
            "top1": sum(bool(m) and m[0][0] == c["tool"] for c, m in zip(cases, made, strict=True))
            / len(cases),
            "arguments": sum(judged) / len(judged) if judged else None,
            "calls_per_task": sum(map(len, made)) / len(cases),
        }

    text = verdict("11.4", selection_scores).text()
    assert "'arguments': {} names no arguments" in text


# -- defects found by the held-out trial and the mutants (issue 27) ---------------------------


def test_an_agreement_test_that_always_tries_an_extra_property_is_rejected() -> None:
    always = answer("11.1", swap(_EXTRAS, "True"))
    assert "only when the schema says additionalProperties: false" in verdict("11.1", always).text()


def test_an_agreement_test_of_the_last_required_field_only_is_rejected() -> None:
    last_only = answer(
        "11.1",
        swap(_REQUIRED, "schema.get('required', [])[-1:]"),
    )
    assert "limit (listed first)" in verdict("11.1", last_only).text()


def test_an_agreement_test_that_raises_without_a_message_is_rejected() -> None:
    solution = answer("11.1")

    def bare(tool, sample):
        try:
            solution(tool, sample)
        except AssertionError as exc:  # the message kept only where the check reads it
            raise AssertionError(str(exc) if "naming 'limit'" in str(exc) else "") from None

    assert "without a message" in verdict("11.1", bare).text()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(
                "key in arguments and same(arguments[key], value)",
                "same(arguments.get(key), value)",
            ),
            "even when its value is None",
        ),
        (
            swap(_SAME_BOOL, "got == want and (want is not True or got is True)"),
            "1 is not true either",
        ),
        (
            swap(_SAME_BOOL, "got == want and type(got) is type(want)"),
            "6.0 equals 6",
        ),
    ],
    ids=["missing-key-as-none", "true-only", "exact-types"],
)
def test_a_trajectory_match_the_held_out_answers_got_past_is_rejected(
    change: Any, words: str
) -> None:
    assert words in verdict("11.2", answer("11.2", change)).text()


def test_a_fuzzer_that_ignores_enums_is_rejected() -> None:
    no_enum = answer("11.3", swap(_CHOICE, "rng.choice(edges.get(sub.get('type'), [None]))"))
    assert "for a property with an 'enum'" in verdict("11.3", no_enum).text()


def test_a_fuzzer_with_a_generator_of_its_own_is_rejected() -> None:
    own = answer("11.3", swap("    made = []\n", "    made = []\n    rng = random.Random(0)\n"))
    assert "the rng you are given is not used" in verdict("11.3", own).text()


def test_a_fuzzer_that_ignores_count_for_small_counts_is_rejected() -> None:
    solution = answer("11.3")

    def at_least_one(schema, rng, count):
        return solution(schema, rng, max(count, 1))

    assert "exactly 0 argument dicts" in verdict("11.3", at_least_one).text()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (swap("k in aimed and same(aimed[k], v)", "k in aimed and aimed[k] == v"), "True is not 1"),
        (
            swap("k in aimed and same(aimed[k], v)", "k in aimed or same(aimed[k], v)"),
            "another value",
        ),
        (swap("top1 / len(cases)", "top1 // len(cases)"), "top-1 is 2 of 3"),
    ],
    ids=["true-is-1", "key-present-is-enough", "integer-division"],
)
def test_a_score_the_held_out_answers_got_past_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("11.4", answer("11.4", change)).text()


# -- correct answers written differently pass ------------------------------------------------


def test_an_agreement_test_written_another_way_passes() -> None:
    from toolsys.execution import validate
    from toolsys.result import ToolResult

    def check_agreement(tool, sample):
        def verdict_of(arguments):
            outcome = validate(tool, json.dumps(arguments))
            return outcome.error if isinstance(outcome, ToolResult) else None

        refused = verdict_of(sample)
        assert refused is None, f"sent {sample!r}, refused with {refused.code}; wanted accepted"
        trials = [
            (name, {k: v for k, v in sample.items() if k != name})
            for name in tool.parameters.get("required", ())
            if name in sample
        ]
        if tool.parameters.get("additionalProperties") is False:
            trials.append(("zz_extra", dict(sample, zz_extra="?")))
        for name, arguments in trials:
            error = verdict_of(arguments)
            ok = error is not None and error.code == "INVALID_ARGUMENTS" and name in error.message
            assert ok, f"sent {arguments!r}: got {error}; wanted INVALID_ARGUMENTS about {name!r}"

    verdict("11.1", check_agreement, Status.PASSED)


def test_a_trajectory_match_written_another_way_passes() -> None:
    def calls_match(made, expected, mode):
        def fits(call, want):
            if call[0] != want[0]:
                return False
            for key, value in want[1].items():
                if key not in call[1]:
                    return False
                got = call[1][key]
                if isinstance(got, bool) != isinstance(value, bool) or got != value:
                    return False
            return True

        if mode == "strict":
            return len(made) == len(expected) and all(
                fits(c, w) for c, w in zip(made, expected, strict=True)
            )
        if mode == "unordered" and len(made) != len(expected):
            return False
        # Kuhn's augmenting paths: each expected call gets its own made call.
        owner: dict[int, int] = {}

        def place(w, seen):
            for m in range(len(made)):
                if m not in seen and fits(made[m], expected[w]):
                    seen.add(m)
                    if m not in owner or place(owner[m], seen):
                        owner[m] = w
                        return True
            return False

        return all(place(w, set()) for w in range(len(expected)))

    verdict("11.2", calls_match, Status.PASSED)


def test_a_fuzzer_written_another_way_passes() -> None:
    def fuzz_arguments(schema, rng, count):
        nasty = {
            "string": ["", "  ", " x ", "\u0000", "ÿ" * 3],
            "integer": [0, -1, 1, -(10**9)],
            "number": [0.0, -0.5, -1e9, 1e-9],
            "boolean": [False, True],
        }
        properties = schema.get("properties", {})
        return [
            {
                name: rng.choice(spec["enum"])
                if "enum" in spec
                else rng.choice(nasty[spec["type"]])
                for name, spec in properties.items()
            }
            for _ in range(count)
        ]

    verdict("11.3", fuzz_arguments, Status.PASSED)


def test_scores_written_another_way_pass() -> None:
    from statistics import fmean

    def selection_scores(cases, made):
        def includes(arguments, wanted):
            return all(
                key in arguments
                and arguments[key] == value
                and isinstance(arguments[key], bool) == isinstance(value, bool)
                for key, value in wanted.items()
            )

        firsts, judged = [], []
        for case, calls in zip(cases, made, strict=True):
            firsts.append(float(bool(calls) and calls[0][0] == case["tool"]))
            if case.get("arguments"):
                aimed = [arguments for name, arguments in calls if name == case["tool"]]
                judged.append(float(bool(aimed) and includes(aimed[0], case["arguments"])))
        return {
            "top1": fmean(firsts),
            "arguments": fmean(judged) if judged else None,
            "calls_per_task": sum(map(len, made)) / len(made),
        }

    verdict("11.4", selection_scores, Status.PASSED)


def test_an_agreement_test_that_says_accepted_for_a_vague_refusal_is_rejected() -> None:
    said = answer(
        "11.1",
        swap("'accepted' if error is None else f'{error.code}: {error.message}'", "'accepted'"),
    )
    assert "does not say what came back" in verdict("11.1", said).text()


def test_a_fuzzer_that_never_sends_optional_properties_is_rejected() -> None:
    required_only = answer(
        "11.3", swap("name in required or rng.random() < 0.5", "name in required")
    )
    assert "planted bug in pages" in verdict("11.3", required_only).text()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            swap(
                "all(k in aimed and same(aimed[k], v) for k, v in wanted.items())",
                "any(k in aimed and same(aimed[k], v) for k, v in wanted.items())",
            ),
            "all, not any",
        ),
        (swap("k in aimed and same(aimed[k], v)", "same(aimed[k], v)"), "raised KeyError"),
        (
            swap(
                "(type(got) is bool) == (type(want) is bool)",
                "(got is bool) == (type(want) is bool)",
            ),
            "a boolean matches the same boolean",
        ),
    ],
    ids=["any-argument", "missing-argument-crashes", "bool-never-matches"],
)
def test_a_score_that_misreads_the_arguments_is_rejected(change: Any, words: str) -> None:
    assert words in verdict("11.4", answer("11.4", change)).text()


# -- held-out round adv3 (wrong answers nobody had written): each must fail for its real mistake


def test_scores_that_read_a_missing_key_as_none_are_rejected() -> None:
    loose = answer("11.4", swap("k in aimed and same(aimed[k], v)", "same(aimed.get(k), v)"))
    assert "even when its value is None" in verdict("11.4", loose).text()


def test_a_trajectory_that_compares_lists_with_eq_passes() -> None:
    # the prose: a top-level boolean matches only a boolean; lists compare with ==
    made = [("set_flags", {"flags": [1]})]
    assert answer("11.2")(made, [("set_flags", {"flags": [True]})], "strict") is True
