"""Where values are in a sentence: numbers, quoted text, e-mails, names, symbols, lists, words.

Each finder returns `(span, value)` pairs in order of appearance, so the caller (`_arguments`)
can say exactly which part of the request a value came from, and mark it as used so that two
parameters never take the same words.
"""

from __future__ import annotations

import re
from typing import Any

from toolsys.models._dates import MONTHS, WEEKDAYS, find_dates, find_times
from toolsys.models._synonyms import STOP_WORDS
from toolsys.models._text import concept, stem

Span = tuple[int, int]

_COMMON_VERBS = """
convert schedule search find send give tell show roll pick book create add look check compute
calculate email remind list get set make write draw generate call cancel refund what how is
whats please can could will would where when who which do put
"""
COMMON_VERBS = frozenset(_COMMON_VERBS.split())

_FUNCTION_WORDS = """
a an the me us to for of on in at with and or please my our your that this these those some
about by from into can could would will you do does how what what's whats is are it its
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
"""Words trimmed from the start of free text: 'remind me to call mom' -> 'call mom'."""
_TRAILING_WORDS = "a an the to for of on in at with and or by from into about please my our your"
TRAILING_WORDS = frozenset(_TRAILING_WORDS.split())
"""Words trimmed from the end of free text: 'hello in' -> 'hello' (but 'thank you' stays)."""


def free(span: Span, used: set[Span]) -> bool:
    """True when `span` overlaps no span already taken by another parameter."""
    return all(span[1] <= a or span[0] >= b for a, b in used)


def before(text: str, span: Span, n: int = 2) -> list[str]:
    """The `n` words just before `span`, lowercased."""
    return [w.lower() for w in re.findall(r"[\w°]+", text[: span[0]])[-n:]]


def quoted(text: str) -> list[tuple[Span, str]]:
    found = re.finditer(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)", text)
    return [(m.span(), next(g for g in m.groups() if g)) for m in found]


def numbers(text: str) -> list[tuple[Span, float]]:
    """Numbers not part of a date, time, id or e-mail: '17', '-3.5', '1,000'."""
    blocked = {(a, b) for a, b, _ in find_dates(text) + find_times(text)}
    blocked |= {m.span() for m in re.finditer(r"\S*[A-Za-z#@]\S*\d\S*|\S*\d[A-Za-z]\S*", text)}
    found = []
    for m in re.finditer(
        r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])-?\d+(?:\.\d+)?", text
    ):
        if free(m.span(), blocked):
            found.append((m.span(), float(m.group().replace(",", ""))))
    return found


def emails(text: str) -> list[tuple[Span, str]]:
    return [(m.span(), m.group()) for m in re.finditer(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text)]


def ids(text: str) -> list[tuple[Span, str]]:
    """Identifier-like tokens: '#1234', 'A-1042', 'ORD7', '1042'; not dates, nor '19' of '19.90'."""
    found = re.finditer(r"#?\b(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b", text)
    return [
        (m.span(), m.group().lstrip("#"))
        for m in found
        if not re.fullmatch(r"#?\d{4}-\d\d-\d\d", m.group())
        and not re.match(r"[.,]\d", text[m.end() : m.end() + 2])
        and not re.search(r"\d[.,]$", text[max(0, m.start() - 2) : m.start()])
    ]


def names(text: str, skip: set[str]) -> list[tuple[Span, str]]:
    """Capitalised phrases ('New York', 'Ada Lovelace'), minus sentence-initial verbs and such.

    A possessive is not part of a name: "Apple's" is "Apple".
    """
    found = []
    pattern = r"[A-ZÀ-Þ][\w'’-]*(?:\s+(?:(?:de|del|da|do|la|le|van|von)\s+)?[A-ZÀ-Þ][\w'’-]*)*"
    for m in re.finditer(pattern, text):
        phrase = re.sub(r"['’]s?$", "", m.group())
        end = m.start() + len(phrase)
        first = phrase.split()[0].lower()
        at_start = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1] in ".!?:"
        if at_start and (first in STOP_WORDS or first in COMMON_VERBS or concept(first) in skip):
            rest = phrase.split(None, 1)
            if len(rest) == 1:
                continue
            phrase = rest[1]
        lowered = phrase.lower()
        if (
            len(phrase) < 2
            or lowered in STOP_WORDS
            or lowered in skip
            or concept(lowered) in skip
            or lowered in WEEKDAYS
            or lowered in MONTHS
            or lowered.split()[0] in MONTHS
            or lowered == "i"
        ):
            continue
        found.append(((end - len(phrase), end), phrase))
    return found


def symbols(text: str) -> list[tuple[Span, str]]:
    """Upper-case codes such as ticker or currency symbols: 'AAPL', '$TSLA', 'EUR', 'BRK.B'."""
    found = re.finditer(r"(?<![\w$])\$?([A-Z]{2,5}(?:\.[A-Z])?)(?![\w])", text)
    return [(m.span(), m.group(1)) for m in found if m.group(1).lower() not in STOP_WORDS]


def described_examples(description: str) -> list[tuple[str, str]]:
    """(code, what it stands for) from a description: 'e.g. AAPL for Apple', 'EUR (euro)'."""
    pairs = re.findall(
        r"\b([A-Z]{1,5}(?:\.[A-Z])?)\s*(?:for|=|:|\()\s*([A-Za-z][\w&.-]*(?: [A-Z][\w&.-]*)*)",
        description,
    )
    return [(code, meaning.rstrip(".")) for code, meaning in pairs]


def word_list(text: str, used: set[Span]) -> tuple[Span, list[str]] | None:
    """Items after a cue: 'with eggs, spinach and feta' -> ['eggs', 'spinach', 'feta'].

    An item after a bare comma that the sentence then continues is not one: in 'with lentils,
    ready in 40 minutes' the list is ['lentils'].
    """
    for cue in re.finditer(r"\b(?:with|using|containing|including|of):?\s+", text, re.I):
        items: list[Span] = []
        current: list[Span] = []
        separator = ""
        for tok in re.finditer(r"[A-Za-z][\w'-]*|\S", text[cue.end() :]):
            span = (cue.end() + tok.start(), cue.end() + tok.end())
            word = tok.group().lower()
            if word in (",", "&", "and", "or"):
                if current:
                    items.append((current[0][0], current[-1][1]))
                    current, separator = [], word
                elif word != ",":  # ", and feta"
                    separator = word
            elif not current and word in ("a", "an", "the", "some"):
                continue
            elif tok.group()[0].isalpha() and word not in STOP_WORDS and free(span, used):
                current.append(span)
            else:
                if separator == "," and tok.group()[0].isalpha():
                    current = []  # 'lentils, ready in ...': the sentence goes on
                break
        items += [(current[0][0], current[-1][1])] if current else []
        if items:
            return (items[0][0], items[-1][1]), [text[a:b] for a, b in items]
    return None


def enum_mentions(text: str, values: list[Any]) -> list[tuple[Span, Any]]:
    """Where enum values are mentioned: the value itself, its stem, or its initial ('30 C')."""
    found = []
    for m in re.finditer(r"°?[\w-]+", text):
        token = m.group().lstrip("°")
        for value in values:
            v = str(value).lower()
            if (
                token.lower() in (v, v.replace("_", " "))
                or stem(token) == stem(v)
                or (
                    len(token) == 1
                    and token.isupper()
                    and v.startswith(token.lower())
                    and sum(str(x).lower().startswith(token.lower()) for x in values) == 1
                )
            ):
                found.append((m.span(), value))
                break
    return found


def gloss_mentions(text: str, description: str, values: list[Any]) -> list[tuple[Span, Any, str]]:
    """Values named by their meaning: "desc: newest first." lets "newest first" pick 'desc'.

    A description that glosses each allowed value ("v: words", "v = words", "'v' (words)") is
    what a real model reads to map a user's phrasing onto an enum; the offline model does the
    same when every content word of a gloss appears in the request. Returns (span, value, gloss).
    """
    found = []
    for value in values:
        pattern = rf"[\"'`]?\b{re.escape(str(value))}\b[\"'`]?\s*(?:[:=]|\(|means\b)\s*([^,;.()]+)"
        for gloss in re.findall(pattern, description, re.I):
            words = [w for w in re.findall(r"[\w'-]+", gloss) if w.lower() not in STOP_WORDS]
            found_words = [re.search(rf"\b{re.escape(w)}\b", text, re.I) for w in words]
            spans = [m.span() for m in found_words if m]
            if words and len(spans) == len(words):
                start, end = min(a for a, _ in spans), max(b for _, b in spans)
                found.append(((start, end), value, gloss.strip()))
                break
    return sorted(found, key=lambda f: f[0])


def trimmed(text: str, span: Span, tool_words: set[str]) -> Span | None:
    """`span` without the function words, command verbs and tool words at its ends."""
    tokens = [m.span() for m in re.finditer(r"[\w'’@.-]*\w", text[span[0] : span[1]])]
    tokens = [(span[0] + a, span[0] + b) for a, b in tokens]

    def weak(token: Span, leading: bool) -> bool:
        word = text[token[0] : token[1]].lower()
        verb = leading and word in COMMON_VERBS and before(text, token, 1) != ["to"]
        weak_word = word in (FUNCTION_WORDS if leading else TRAILING_WORDS)
        return weak_word or verb or concept(word) in tool_words

    while tokens and weak(tokens[0], True):
        tokens.pop(0)
    while tokens and weak(tokens[-1], False):
        tokens.pop()
    return (tokens[0][0], tokens[-1][1]) if tokens else None


def regions(text: str, used: set[Span], start: int = 0) -> list[Span]:
    """The stretches of `text` from `start` on that no parameter has taken, split at . ; : ! ?"""
    cuts = sorted(used) + [(m.start(), m.end()) for m in re.finditer(r"[;:!?]|\.(?=\s|$)", text)]
    found, position = [], start
    for a, b in sorted(cuts):
        if b <= position:
            continue
        if a > position:
            found.append((position, a))
        position = max(position, b)
    if position < len(text):
        found.append((position, len(text)))
    return found
