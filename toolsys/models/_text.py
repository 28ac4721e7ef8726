"""Words, and which tool a sentence is about.

The offline model picks a tool the way a search engine ranks documents, with a vocabulary built
for each request from the tools offered: the user's words, after dropping stop words and light
stemming ("cities" -> "city", "booking" -> "book"), are matched against each tool's name (weight
3), description (weight 1) and parameters (weight 0.5: names, descriptions, enum values), with
names split at underscores and camelCase. A word found in several tools counts less (divided by
how many tools contain it). Everyday synonyms and a few phrases map to one concept ("fly" ->
flight, "... in French" -> translate; see `_synonyms`), and a sentence that contains arithmetic
("17 * 38", "2 plus 2") favours tools about calculating (and arithmetic synonyms meet only
tools that take numbers). In a date, "next" is the date's word, not a tool's ("next Saturday").
A tool is chosen when its score, with the points `_shapes` adds for values of the right shape,
reaches `THRESHOLD`. `score_tools` keeps the evidence: which word met which, where, and why.

This is why good tool names and descriptions matter even to a toy model, and it is the first
thing chapter 02 lets a student break on purpose.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from toolsys.models._dates import find_dates
from toolsys.models._synonyms import CONCEPTS, PHRASES, STOP_WORDS

THRESHOLD = 1.5
NAME_WEIGHT, DESCRIPTION_WEIGHT, PARAMETER_WEIGHT = 3.0, 1.0, 0.5
ARITHMETIC_BONUS = 3.0


@dataclass(frozen=True)
class Term:
    """A word of a text and the concept it is compared by ("flights" -> "flight")."""

    word: str
    concept: str
    via: str = ""  # "synonym" (from the synonym table), "phrase", or "" (the word or its stem)


@dataclass(frozen=True)
class Source:
    """Where a concept appears in a tool: the word as written, the place, and its weight."""

    word: str
    where: str  # "name", "description" or "parameter <name>"
    weight: float


@dataclass(frozen=True)
class Match:
    """One word of the request found in a tool, shared by `shared` of the tools offered."""

    term: Term
    source: Source
    shared: int

    @property
    def points(self) -> float:
        return self.source.weight / self.shared

    @property
    def how(self) -> str:
        """Why the two words meet: the same word, the same stem, synonyms, or a phrase."""
        if self.term.via == "phrase":
            return "phrase"
        if self.term.word.lower() == self.source.word.lower():
            return "same word"
        if stem(self.term.word) == stem(self.source.word):
            return "same stem"
        return "synonyms"


@dataclass(frozen=True)
class Shape:
    """A value in the request that fits one of the tool's parameters: a tracking number that its
    `pattern` accepts, '10 km' for a parameter whose allowed values are units (see `_shapes`)."""

    parameter: str
    excerpt: str
    why: str
    points: float


@dataclass(frozen=True)
class ToolScore:
    """A tool's score for a request, with the evidence it is the sum of."""

    tool: str
    score: float
    matches: tuple[Match, ...]
    bonus: float = 0.0  # ARITHMETIC_BONUS when the request calculates and the tool does
    shapes: tuple[Shape, ...] = ()


def _strip(w: str) -> str:
    """One suffix off: 'cities' -> 'city', 'converting' -> 'convert', 'planned' -> 'plan'."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            if suffix == "es" and not re.search(r"(s|x|z|ch|sh)es$", w):
                continue
            w = w[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls":
                w = w[:-1]
            break
    return w


@lru_cache(maxsize=8192)
def _forms(word: str) -> tuple[str, ...]:
    """The word and its shorter forms, longest first: 'bookings' -> bookings, booking, book."""
    forms = [word.lower().removesuffix("'s")]
    if _strip(forms[-1]) != forms[-1]:
        forms.append(_strip(forms[-1]))
    if forms[0].endswith("ings") and _strip(forms[-1]) != forms[-1]:  # 'meetings' -> 'meet'
        forms.append(_strip(forms[-1]))
    last = forms[-1]
    if len(last) >= 4 and last.endswith("e") and not last.endswith("ee"):  # 'shuffle' ~ 'shuffled'
        forms.append(last[:-1])
    return tuple(forms)


def stem(word: str) -> str:
    """Light suffix stripping: enough to make 'cities'/'city', 'bookings'/'booking' meet."""
    return _forms(word)[-1]


@lru_cache(maxsize=8192)
def _term(word: str) -> Term:
    forms = _forms(word)
    known = next((CONCEPTS[f] for f in [word.lower(), *forms] if f in CONCEPTS), None)
    return Term(word, known, "synonym") if known else Term(word, forms[-1])


def concept(word: str) -> str:
    """The canonical form of a word: its concept if it has one, else its stem."""
    return _term(word).concept


def terms(text: str) -> list[Term]:
    """Content words of `text`, in order, stop words removed; camelCase is split."""
    tokens = re.findall(r"[a-zA-Z][a-zA-Z'-]*", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))
    return [_term(t) for t in tokens if t.lower() not in STOP_WORDS and len(t) > 1]


def words(text: str) -> list[str]:
    """Content words of `text` as concepts, in order, stop words removed."""
    return [t.concept for t in terms(text)]


def name_words(name: str) -> list[str]:
    """'get_weather' / 'getWeather' -> ['weather'] (stop words such as 'get' removed)."""
    return words(_spaced(name))


def _spaced(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").replace(".", " ")


_NEXT_SPAN = re.compile(
    r"\b(?:next|coming|past|last)"
    r"(?=\s+(?:\d+|few|couple of|two|three)\s+(?:days?|weeks?|hours?|months?)\b)",
    re.I,
)


def request_terms(text: str) -> list[Term]:
    """The request's terms, each concept once (first mention), then the phrases' concepts.

    In a date, 'next' is about the date: 'next Saturday' does not ask for `next_departure`.
    """
    text = _NEXT_SPAN.sub(lambda m: " " * len(m.group()), text)  # 'the next 3 days'
    for start, end, _ in find_dates(text):
        blanked = re.sub(
            r"\b(?:next|this|coming|over)\b",
            lambda m: " " * len(m.group()),
            text[start:end],
            flags=re.I,
        )
        text = text[:start] + blanked + text[end:]
    found = terms(text) + [
        Term(m.group(), name, "phrase") for pattern, name in PHRASES for m in pattern.finditer(text)
    ]
    first: dict[str, Term] = {}
    for term in found:
        first.setdefault(term.concept, term)
    return list(first.values())


_OPERATOR_WORDS = [
    (r"\bmultiplied by\b|\btimes\b|(?<=\d)\s*[x×]\s*(?=\d)", " * "),
    (r"\bdivided by\b|÷", " / "),
    (r"\bplus\b", " + "),
    (r"\bminus\b", " - "),
    (r"\bto the power of\b|\braised to\b|\^", " ** "),
    (r"\bsquared\b", " ** 2"),
    (r"\bcubed\b", " ** 3"),
    (r"\bmod(?:ulo)?\b", " % "),
    (r"\bsquare root of\b", " sqrt "),
]
_EXPRESSION_TOKEN = r"sqrt|\d+(?:\.\d+)?|\*\*|//|[-+*/%()]"


def expression(text: str) -> str | None:
    """The arithmetic in `text`, normalised: 'What is 17 times 38?' -> '17 * 38'; None if none.

    The longest run of numbers and operators wins; it must contain an operator.
    """
    lowered = re.sub(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:]+)?|\d{1,2}:\d{2}", " ", text.lower())
    for pattern, replacement in _OPERATOR_WORDS:
        lowered = re.sub(pattern, replacement, lowered)
    best: list[str] = []
    for m in re.finditer(rf"(?:(?:{_EXPRESSION_TOKEN})\s*)+", lowered):
        tokens = re.findall(_EXPRESSION_TOKEN, m.group())
        if any(t[0].isdigit() for t in tokens) and len(tokens) > len(best):
            best = tokens
    while best and best[-1] in "+-*/%(":
        best.pop()
    while best and best[0] in "+*/%":  # '+44 7700 900123' is a phone number, not a sum
        best.pop(0)
    if len(best) < 2 or all(t[0].isdigit() for t in best):
        return None
    out = " ".join(best)
    out = re.sub(r"\( ", "(", re.sub(r" \)", ")", out))
    out = re.sub(r"sqrt \(", "sqrt(", out)
    out = re.sub(r"(^|[(*/+%-] )- (\d)", r"\1-\2", out)
    return re.sub(r"sqrt (\d+(?:\.\d+)?)", r"sqrt(\1)", out)


def has_arithmetic(text: str) -> bool:
    """True when `text` contains a calculation such as '17 * 38' or '2 plus 2'."""
    return expression(text) is not None


def tool_vocabulary(function: dict[str, Any]) -> dict[str, Source]:
    """Concept -> where it appears in one tool, at the best weight it appears with."""
    return dict(_vocabulary(json.dumps(function, sort_keys=True, default=str)))


@lru_cache(maxsize=512)  # a tool is scored once per clause of every request it is offered for
def _vocabulary(definition: str) -> tuple[tuple[str, Source], ...]:
    function = json.loads(definition)
    vocab: dict[str, Source] = {}

    def add(text: str, weight: float, where: str) -> None:
        for term in terms(text):
            if term.concept not in vocab or vocab[term.concept].weight < weight:
                vocab[term.concept] = Source(term.word, where, weight)

    for prop, schema in (function.get("parameters") or {}).get("properties", {}).items():
        where = f"parameter {prop}"
        add(prop.replace("_", " "), PARAMETER_WEIGHT, where)
        add(str(schema.get("description", "")), PARAMETER_WEIGHT, where)
        add(" ".join(str(v) for v in schema.get("enum", [])), PARAMETER_WEIGHT, where)
    add(function.get("description", "") or "", DESCRIPTION_WEIGHT, "description")
    for term in terms(_spaced(function["name"])):
        vocab[term.concept] = Source(term.word, "name", NAME_WEIGHT)
    return tuple(vocab.items())


def score_tools(text: str, functions: list[dict[str, Any]]) -> list[ToolScore]:
    """Every tool's score for `text` with its evidence, best first; ties keep the offered order."""
    vocabs = {f["name"]: tool_vocabulary(f) for f in functions}
    wanted = request_terms(text)
    arithmetic = has_arithmetic(text)
    ranked = []
    numeric = {f["name"]: _takes_numbers(f) for f in functions}
    for index, (name, vocab) in enumerate(vocabs.items()):
        matches = tuple(
            Match(t, vocab[t.concept], sum(t.concept in v for v in vocabs.values()))
            for t in wanted
            if t.concept in vocab
            and (numeric[name] or t.via != "synonym" or t.concept not in ARITHMETIC)
        )
        bonus = ARITHMETIC_BONUS if arithmetic and "calculate" in vocab else 0.0
        score = round(sum(m.points for m in matches) + bonus, 3)
        ranked.append((score, -index, ToolScore(name, score, matches, bonus)))
    ranked.sort(key=lambda r: r[:2], reverse=True)
    return [r[2] for r in ranked]


ARITHMETIC = frozenset({"multiply", "add", "subtract", "divide", "calculate"})
"""Concepts whose synonyms ('plus', 'times') meet only tools that take numbers: '2 plus 2' is
no request for `add_todo`."""


def _takes_numbers(function: dict[str, Any]) -> bool:
    properties = (function.get("parameters") or {}).get("properties", {})
    return any(
        _unwrapped_type(schema) in ("number", "integer")
        or re.search(r"expression|formula|arithmetic", str(schema.get("description", "")), re.I)
        for schema in properties.values()
        if isinstance(schema, dict)
    )


def _unwrapped_type(schema: dict[str, Any]) -> Any:
    options = [
        o for o in schema.get("anyOf", []) if isinstance(o, dict) and o.get("type") != "null"
    ]
    kind = options[0].get("type") if options else schema.get("type")
    return next((t for t in kind if t != "null"), None) if isinstance(kind, list) else kind


def rank_tools(text: str, functions: list[dict[str, Any]]) -> list[tuple[float, str]]:
    """(score, tool name) for every tool, best first; ties keep the order tools were offered."""
    return [(s.score, s.tool) for s in score_tools(text, functions)]


def best_tool(text: str, functions: list[dict[str, Any]]) -> str | None:
    """The best-scoring tool for `text` if it reaches the threshold, else None."""
    ranked = rank_tools(text, functions)
    return ranked[0][1] if ranked and ranked[0][0] >= THRESHOLD else None


_SPLIT = re.compile(r"\s*(?:\band\b|\bthen\b|\balso\b|,|;|\?|!|\.(?=\s|$))\s*", re.I)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")


def clause_spans(text: str) -> list[tuple[int, int]]:
    """Where the sub-requests are: split at 'and', 'then', commas, '?' (not in quotes)."""
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    parts, start = [], 0
    for m in _SPLIT.finditer(text):
        if any(a <= m.start() < b for a, b in quoted):
            continue
        parts.append((start, m.start()))
        start = m.end()
    parts.append((start, len(text)))
    spans = []
    for a, b in parts:
        part = text[a:b]
        if part.strip():
            a += len(part) - len(part.lstrip())
            spans.append((a, a + len(part.strip())))
    return spans
