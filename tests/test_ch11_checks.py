"""Chapter 11 checks reject the careless test code a student is likely to write.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`).
The references are built from `toolsys.testing`, so passing them here also proves that the
package's helpers pass the chapter's checks.
"""

from __future__ import annotations

import pytest

from tests.solution_code import answer, verdict

# -- 11.1 ----------------------------------------------------------------------------------------

_REQUIRED = 'for field in schema.get("required", [])'


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        # the test that misses the chapter's bug: it asks the function which fields are needed
        ([(_REQUIRED, "for field in [k for k in schema['properties'] if k == 'query']")], "limit"),
        # every field left out, required or not: an optional one is rightly accepted
        ([(_REQUIRED, "for field in schema['properties']")], "schema and validator agree"),
        ([('if schema.get("additionalProperties") is False:', "if False:")], "extra properties"),
        # adds an extra property even where the schema allows one: harmless here, so only the
        # mutation check below (the refused sample) must still be caught
        (
            [
                (
                    "    error = refusal(tool, sample)\n    if error is not None:",
                    "    error = None\n    if error is not None:",
                )
            ],
            "limit is a string",
        ),
        ([(" or field not in error.message", "")], "does not name limit"),
        (
            [
                (
                    'raise AssertionError(\n                f"sent {mutated}',
                    'raise ValueError(\n                f"sent {mutated}',
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
def test_a_wrong_agreement_test_is_rejected(
    changes: list[tuple[str, str]], words: str | None
) -> None:
    result = verdict("11.1", answer("11.1", *changes))
    if words:
        assert words in result.text()


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
        ([(_SAME, "return got == want")], "true is not"),
        ([(_STRICT, "return all(map(matches, made, expected))")], "no extra call"),
        (
            [('if mode == "unordered" and len(made) != len(expected):', "if False:")],
            "unordered allows no extra",
        ),
        (
            [
                (
                    "return name == want_name and all(",
                    "return name == want_name and want_arguments == arguments or "
                    "name == want_name and all(",
                )
            ],
            "true is not 1",
        ),
        (
            [
                (
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
def test_a_wrong_trajectory_match_is_rejected(
    changes: list[tuple[str, str]], words: str | None
) -> None:
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
                    k in m[1] and m[1][k] == v and type(m[1][k]) is type(v) for k, v in e[1].items()
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

_EDGES_STRING = '"string": ["", " ", "  ", "a", "a  b", "x" * 10_000, "é🙂", "0"],'
_EDGES_INT = '"integer": [0, 1, -1, 2**31, -(2**31), 10**18],'
_EDGES_NUMBER = '"number": [0, 0.0, -1.5, 1e-300, 1e300, -1],'


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([(_EDGES_STRING, '"string": ["Ada Lovelace", "Alan Turing"],')], "initials"),
        ([(_EDGES_INT, '"integer": [1, 2, 3, 10],')], "average"),
        ([(_EDGES_NUMBER, '"number": [1.0, 2.5, 100.0],')], "side"),
        ([("rng.choice(sub.get", "random.choice(sub.get")], "same seed"),
        ([('edges.get(sub.get("type"), [None])', "[True]")], "never got past validation"),
        ([("for _ in range(count):", "for _ in range(10):")], "exactly 300"),
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
def test_a_fuzzer_that_misses_the_bugs_is_rejected(
    changes: list[tuple[str, str]], words: str
) -> None:
    assert words in verdict("11.3", answer("11.3", *changes)).text()


# -- 11.4 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            [
                (
                    'top1 += bool(made_calls) and made_calls[0][0] == case["tool"]',
                    'top1 += any(name == case["tool"] for name, _ in made_calls)',
                )
            ],
            "first call only",
        ),
        (
            [
                (
                    "aimed = next((args for name, args in made_calls "
                    'if name == case["tool"]), None)',
                    "aimed = made_calls[0][1] if made_calls else None",
                )
            ],
            "first call to the expected tool",
        ),
        (
            [
                (
                    '"arguments": sum(judged) / len(judged) if judged else None,',
                    '"arguments": sum(judged) / len(cases),',
                )
            ],
            "averaged over the cases",
        ),
        (
            [
                (
                    '"arguments": sum(judged) / len(judged) if judged else None,',
                    '"arguments": sum(judged) / len(judged) if judged else 0.0,',
                )
            ],
            "None",
        ),
        (
            [("all(k in aimed and aimed[k] == v for k, v in wanted.items())", "aimed == wanted")],
            "subset",
        ),
    ],
    ids=[
        "any-call-counts",
        "first-call-arguments",
        "averaged-over-all",
        "zero-not-none",
        "exact-arguments",
    ],
)
def test_a_wrong_selection_score_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("11.4", answer("11.4", *changes)).text()
