"""Exercise 9.3, a BM25 ranking function: the check and its reference, `rank`.

The text's formula on the terms as given (what `toolsys.search.BM25` computes on its tokens); the
cases are an idf that goes to zero for common words and documents changed by the ranking.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._plain import difference

DOCUMENTS: dict[str, list[str]] = {
    "refund_order": ["refund", "order", "customer", "card"],
    "cancel_order": ["cancel", "order"],
    "order_status": ["order", "status", "order", "carrier", "parcel", "customer"],
    "track_parcel": ["track", "parcel", "carrier", "status"],
    "weather_now": ["weather", "city", "forecast"],
    "weather_copy": ["weather", "city", "forecast"],
}


def rank(query: list[str], documents: dict[str, list[str]], k: int) -> list[tuple[str, float]]:
    """Reference for 9.3: BM25 exactly as the exercise states it, on the terms as given.

    (`toolsys.search.BM25` ranks text: it tokenises again, stems, drops stop words and one-letter
    words, so on terms such as "orders", "the" or "a-b" it is not the exercise's formula; on the
    chapter's DOCUMENTS the two agree, tests/test_ch09_checks.py shows.)
    """
    if not documents:
        return []
    scores = _scores(query, documents, tf_once=False)
    matched = [name for name, terms in documents.items() if set(query) & set(terms)]
    best = sorted(matched, key=lambda name: (-round(scores[name], 9), name))
    return [(name, scores[name]) for name in best[:k]]


_RANK_CASES: list[tuple[list[str], int, str]] = [
    (["refund", "order"], 5, "A word in many documents still counts, a little."),
    (["order"], 6, "Half of the documents have 'order': idf = ln(1 + 3.5 / 3.5), not 0."),
    (["parcel", "status"], 3, "Shorter documents score higher for the same count (b)."),
    (["order", "order", "cancel"], 5, "A word repeated in the query counts once."),
    (["weather"], 5, "Equal scores are ordered by name."),
    (["customer", "card", "order", "refund"], 2, "Return at most k results."),
    (["juggle"], 5, "A query that matches nothing gives []."),
    ([], 5, "An empty query matches nothing: []."),
    (
        [f"unknown{n}" for n in range(30)] + ["parcel"],
        5,
        "A query term no document has adds nothing, and the other terms still count: skip it "
        "(continue), do not stop.",
    ),
    (["order", "parcel"], 0, "k=0 asks for no result at all: []."),
    (["order", "parcel"], 1, "k=1 is the single best document."),
]


_FORMULA = (
    " Check the formula: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avg_len)), "
    "k1 = 1.2, b = 0.75, summed over the distinct query terms."
)


def _scores(query: list[str], documents: dict[str, list[str]], tf_once: bool) -> dict[str, float]:
    """BM25 scores by hand, with each term counted once per document when `tf_once` (a common
    mistake): to name that mistake when a student's score is that one."""
    n, avg = len(documents), sum(map(len, documents.values())) / len(documents)
    scores: dict[str, float] = {}
    for name, terms in documents.items():
        total = 0.0
        for term in dict.fromkeys(query):
            tf = min(terms.count(term), 1) if tf_once else terms.count(term)
            if tf:
                df = sum(term in other for other in documents.values())
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(terms) / avg))
        scores[name] = total
    return scores


def _names_hint(query: list[str], got: list[str], expected: list[str], k: int, why: str) -> str:
    unmatched = [name for name in got if not set(query) & set(DOCUMENTS.get(name, []))]
    if unmatched:
        return (
            f"{', '.join(map(repr, unmatched))} has none of the query's terms: a document that "
            "matches no term is no result (its score is 0); drop it before taking the first k."
        )
    if len(got) > k:
        return f"Return at most k={k} results."
    return why + _FORMULA


def _score_hint(query: list[str], name: str, score: float, why: str) -> str:
    once = _scores(query, DOCUMENTS, tf_once=True).get(name)
    right = _scores(query, DOCUMENTS, tf_once=False).get(name)
    if once is not None and once != right and math.isclose(score, once, abs_tol=1e-3):
        return (
            f"tf is how many times the term appears in the document ({name!r} has it "
            "more than once), not 0 or 1: terms.count(term)." + _FORMULA
        )
    return why + _FORMULA


def _pairs(got: Any, what: str) -> list[tuple[str, float]]:
    shape = "a list of (name, score) tuples"
    if type(got) is not list or not all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and type(pair[0]) is str
        and type(pair[1]) in (int, float)
        for pair in got
    ):
        raise CheckFailed(
            f"{what} should return {shape}, best first.",
            expected=Described(shape),
            got=got,
            hint="Return e.g. [('refund_order', 1.8), ('cancel_order', 0.9)].",
        )
    return [(name, float(score)) for name, score in got]


_VOCABULARY = ["refund", "order", "card", "orders", "a", "the", "été", "中文", "a-b", "Refund"]


def _rank_call(rng: random.Random, size: int) -> Call:
    """A query of 0 to a few terms (repeats too) and 0 to 6 documents of 0 to a few terms from
    a small vocabulary (so terms are shared; non-ASCII, one letter, plural, upper case), k from
    0 to beyond the number of documents."""
    words = _VOCABULARY[: 2 + size]
    documents = {
        f"d{n}": [rng.choice(words) for _ in range(rng.randint(0, 1 + size // 2))]
        for n in rng.sample(range(9), rng.randint(0, min(6, 1 + size)))
    }
    query = [rng.choice(words) for _ in range(rng.randint(0, 1 + size // 3))]
    return Call((query, documents, rng.randint(0, len(documents) + 2)))


_GENERATED = calls(_rank_call, seed=93, count=200)


def _same_ranking(got: Any, expected: Any, what: str) -> str | None:
    """The same names in the same order and the same scores (to 0.001); documents whose scores
    are equal (to 1e-9) may come in either order, as a sum in another order may round so."""
    pairs = _pairs(got, "rank")
    names, right = [name for name, _ in pairs], [name for name, _ in expected]
    if len(names) != len(right):
        return difference(names, right, "the list of names")
    scores = dict(expected)
    for position, ((name, score), (wanted, best)) in enumerate(zip(pairs, expected, strict=True)):
        tied = name in scores and math.isclose(scores[name], best, rel_tol=1e-9, abs_tol=1e-12)
        if name != wanted and not tied:
            return difference(names, right, "the list of names")
        if not math.isclose(score, best, abs_tol=1e-3):
            return f"the score at position {position} ({name!r}) is {score!r}, not {best!r}"
    return None


@exercise(
    "9.3",
    title="A BM25 ranking function",
    hints=[
        "For each document, sum over the distinct query terms that are in it: "
        "idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avg_len)).",
        "idf = math.log(1 + (N - df + 0.5) / (df + 0.5)), where df is the number of documents "
        "containing the term: the '1 +' keeps it positive for common words.",
        "Sort by (-score, name), drop documents with no matching term, keep the first k.",
    ],
    reference=lambda: rank,
)
def _check_rank(student: Callable[..., Any]) -> None:
    for query, k, why in _RANK_CASES:
        what = f"rank({query}, DOCUMENTS, k={k})"
        documents = copy.deepcopy(DOCUMENTS)
        got = _pairs(
            call_student(student, list(query), documents, k, what=what, returns="a ranking"), what
        )
        expected = rank(query, DOCUMENTS, k)
        names, right_names = [name for name, _ in got], [name for name, _ in expected]
        expect_equal(
            names,
            right_names,
            what=f"{what}: the names",
            hint=_names_hint(query, names, right_names, k, why),
        )
        for (name, score), (_, right) in zip(got, expected, strict=True):
            if not math.isclose(score, right, abs_tol=1e-3):
                raise CheckFailed(
                    f"{what}: the score of {name!r} is wrong.",
                    expected=right,
                    got=score,
                    hint=_score_hint(query, name, score, why),
                )
        expect_equal(documents, DOCUMENTS, what="DOCUMENTS after rank", hint="Do not change them.")
    empty = (
        "No documents is no match: return []. The average length of no documents is 0 / 0: "
        "return before computing it."
    )
    expect_equal(
        call_student(
            student, ["refund"], {}, 5, what="rank(['refund'], {}, k=5)", returns="[]", hint=empty
        ),
        [],
        what="rank(['refund'], {}, k=5), with no documents at all",
        hint=empty,
    )
    agree(
        student,
        rank,
        _GENERATED,
        name="rank",
        compare=_same_ranking,
        hint="Use the terms exactly as given (no lower-casing or splitting); score only the "
        "documents that contain a distinct query term; sort by (-score, name); keep k." + _FORMULA,
    )
