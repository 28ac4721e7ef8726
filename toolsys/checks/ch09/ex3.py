"""Exercise 9.3, a BM25 ranking function: the check and its reference, `rank`.

`toolsys.search.BM25` on the same documents; the cases are an idf that goes to zero for common words
and documents changed by the ranking.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal

DOCUMENTS: dict[str, list[str]] = {
    "refund_order": ["refund", "order", "customer", "card"],
    "cancel_order": ["cancel", "order"],
    "order_status": ["order", "status", "order", "carrier", "parcel", "customer"],
    "track_parcel": ["track", "parcel", "carrier", "status"],
    "weather_now": ["weather", "city", "forecast"],
    "weather_copy": ["weather", "city", "forecast"],
}


def rank(query: list[str], documents: dict[str, list[str]], k: int) -> list[tuple[str, float]]:
    """Reference for 9.3: `toolsys.search.BM25` on one field (the terms are already tokens)."""
    from toolsys.search import BM25

    index = BM25({name: {"text": " ".join(terms)} for name, terms in documents.items()})
    return [(hit.name, hit.score) for hit in index.rank(" ".join(query), k)]


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
