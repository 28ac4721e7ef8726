"""BM25 over short, fielded documents: the ranker behind `Registry.search`.

Why our own ~100 lines and not a library: `rank-bm25` (0.2.2, numpy) has had no release since
2022 and `bm25s` (0.3, numpy; stemming and speed through optional extras) is built for corpora of
millions; neither weighs fields, and a tool's name says more than its fourth parameter's
description. At a few hundred tools a pure-Python inverted index answers in well under a
millisecond, adds no dependency to `import toolsys`, and is short enough for the chapter to build
by hand and compare with this one.

The formula (Robertson's BM25, with BM25F's idea of weighting a term by the field it is in):

    score(q, d) = sum over distinct query terms t of
        idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * len(d) / avg_len))

where tf(t, d) = sum over fields f of weight(f) * count of t in field f of d, len(d) the same
weighted sum over all terms, and idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)).

Tokens: camelCase, snake_case, kebab-case and digits are split ("getHTTPStatus2" -> get http
status 2), text is case-folded, a short list of stop words is dropped, and a light stemmer maps
the forms users and descriptions mix ("cancelled", "cancels", "cancelling" -> "cancel"). The
stemmer is deliberately small (plural and -ed/-ing endings, final -e, doubled consonants): Porter's
full algorithm is ten times longer and conflates words a tool catalog keeps apart
("organization"/"organ"); what matters is that documents and queries go through the same function.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_DIGITS = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
_WORD = re.compile(r"[^\W_]+")
MAX_QUERY_CHARS = 2000  # a longer query is cut: its cost stays bounded, whatever a model sends
_STOP_TEXT = (
    "about all an and any are as at be by can could did do does don for from get give has have "
    "how in into is it its just let me much my need now of on or our please should so some that "
    "the their them then there these this to up us want was we what when where which will with "
    "would yet you your"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())


class Hit(NamedTuple):
    """One search result: a tool's name and its score (higher is better)."""

    name: str
    score: float


def stem(word: str) -> str:
    """A light, consistent stemmer: plural and -ed/-ing endings, final e, doubled consonants."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "ches", "shes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiousy":
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Words of `text` as index terms: split at case, digit and punctuation changes, case-folded,
    stop words and single letters dropped, stemmed. Anything but a str gives no terms."""
    if not isinstance(text, str):
        return []
    text = _DIGITS.sub(" ", _CAMEL.sub(" ", text[:MAX_QUERY_CHARS]))
    words = _WORD.findall(text.casefold())
    return [stem(w) for w in words if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())]


class BM25:
    """An inverted index over documents made of weighted fields; `rank` returns the best hits.

    `documents` maps a name to its fields' texts; `weights` gives each field's weight (a field
    not listed weighs 1). Ties in score are broken by name, so a ranking is deterministic.
    """

    def __init__(
        self,
        documents: Mapping[str, Mapping[str, str]],
        weights: Mapping[str, float] | None = None,
        *,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        self.k1, self.b = k1, b
        weights = weights or {}
        self.names = sorted(documents)
        self._postings: dict[str, list[tuple[int, float]]] = {}
        lengths: list[float] = []
        for i, name in enumerate(self.names):
            tf: dict[str, float] = {}
            for field, text in documents[name].items():
                weight = weights.get(field, 1.0)
                for term in tokenize(text):
                    tf[term] = tf.get(term, 0.0) + weight
            lengths.append(sum(tf.values()))
            for term, count in tf.items():
                self._postings.setdefault(term, []).append((i, count))
        self._lengths = lengths
        self._average = (sum(lengths) / len(lengths)) if lengths else 1.0
        count = len(self.names)
        self._idf = {
            term: math.log(1 + (count - len(docs) + 0.5) / (len(docs) + 0.5))
            for term, docs in self._postings.items()
        }

    def scores(self, terms: Iterable[str]) -> dict[int, float]:
        """Each matching document's score for the query terms (distinct terms count once)."""
        scores: dict[int, float] = {}
        k1, b, average = self.k1, self.b, self._average or 1.0
        for term in dict.fromkeys(terms):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for doc, tf in self._postings[term]:
                norm = k1 * (1 - b + b * self._lengths[doc] / average)
                scores[doc] = scores.get(doc, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
        return scores

    def rank(self, query: str, k: int = 5) -> list[Hit]:
        """The `k` best-scoring documents for `query`, best first, ties by name; no match, []."""
        scores = self.scores(tokenize(query))
        best = sorted(scores.items(), key=lambda item: (-round(item[1], 9), self.names[item[0]]))
        return [Hit(self.names[doc], round(score, 4)) for doc, score in best[:k]]


def overlap_rank(query: str, documents: Mapping[str, str], k: int = 5) -> list[Hit]:
    """The baseline: how many distinct query words (lowercased, split at non-letters) appear in
    each document: unweighted, no stemming, no IDF; ties by name. A plain keyword match."""
    words = set(re.findall(r"[^\W_]+", query.lower())) if isinstance(query, str) else set()
    counted = []
    for name, text in documents.items():
        found = len(words & set(re.findall(r"[^\W_]+", text.lower())))
        if found:
            counted.append(Hit(name, float(found)))
    return sorted(counted, key=lambda hit: (-hit.score, hit.name))[:k]


def recall_at(ranked: Sequence[Sequence[Hit]], expected: Sequence[str], k: int) -> float:
    """Share of queries whose expected name is among their first `k` hits."""
    if not expected:
        return 0.0
    found = sum(
        name in [hit.name for hit in hits[:k]] for hits, name in zip(ranked, expected, strict=True)
    )
    return found / len(expected)
