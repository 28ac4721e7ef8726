"""Where values are in a sentence: numbers, quoted text, e-mails, names, symbols, lists, words.

Each finder returns `(span, value)` pairs in order of appearance, so the caller (`_arguments`)
can say exactly which part of the request a value came from, and mark it as used so that two
parameters never take the same words.
"""

from __future__ import annotations

import re
from typing import Any

from toolsys.models._dates import MONTHS, WEEKDAYS, find_dates, find_times
from toolsys.models._synonyms import PHRASES, STOP_WORDS
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
about by from into can could would will you do does how what what's whats is are it its up
something anything
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
"""Words trimmed from the start of free text: 'remind me to call mom' -> 'call mom'."""
_TRAILING_WORDS = (
    "a an the to for of on in at with and or by from into about please my our your now right later"
)
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


_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
    "a dozen": 12,
    "a couple of": 2,
    "a pair of": 2,
    "half an": 0.5,
    "half a": 0.5,
    "an": 1,
    "a": 1,
}
_WORD_NUMBER = re.compile(
    r"\b(?:"
    + "|".join(sorted((re.escape(w) for w in _NUMBER_WORDS), key=len, reverse=True))
    + r")\b",
    re.I,
)
UNITS = {
    "second": "second",
    "sec": "second",
    "minute": "minute",
    "min": "minute",
    "hour": "hour",
    "hr": "hour",
    "day": "day",
    "week": "week",
    "%": "percent",
    "percent": "percent",
}
"""The units a number can carry that a parameter's name or description may ask for."""
SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}


PHONE = re.compile(r"\+?\d+(?:[ -]\d+){2,}")
"""A phone number as people write one: three or more groups of digits ('+33 1 23 45 67 89')."""


def phones(text: str) -> list[tuple[Span, str]]:
    """Each phone number in `text`, as written: '+31 6 1234 5678', '555-0142-77'; a date
    ('2025-01-16') is not one."""
    dates = {(a, b) for a, b, _ in find_dates(text)}
    return [(m.span(), m.group()) for m in PHONE.finditer(text) if free(m.span(), dates)]


def numbers(text: str) -> list[tuple[Span, float]]:
    """Numbers not part of a date, time, id or e-mail: '17', '-3.5', '1,000', 'four'.

    A number word counts only where a number can stand ('table for four', 'an hour'); 'a' and
    'an' only right before a unit of time ('in an hour').
    """
    return [(span, value) for span, value, _ in quantities(text)]


def quantities(text: str) -> list[tuple[Span, float, str]]:
    """(span, value, unit or '') for each number: '25 minutes', '30%', 'an hour', '5-day'."""
    blocked = {(a, b) for a, b, _ in find_dates(text) + find_times(text)}
    blocked |= {m.span() for m in re.finditer(r"\S*[A-Za-z#@]\S*\d\S*|\S*\d[A-Za-z]\S*", text)}
    blocked |= {m.span() for m in PHONE.finditer(text)}
    found = []
    for m in re.finditer(
        r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])-?\d+(?:\.\d+)?", text
    ):
        if free(m.span(), blocked):
            found.append((m.span(), float(m.group().replace(",", ""))))
    for m in _WORD_NUMBER.finditer(text):
        value = _NUMBER_WORDS[m.group().lower()]
        unit = unit_after(text, m.end())
        if m.group().lower() in ("a", "an", "half an", "half a") and unit not in SECONDS:
            continue
        if free(m.span(), blocked) and free(m.span(), {s for s, _ in found}):
            found.append((m.span(), float(value)))
    return [(span, value, unit_after(text, span[1])) for span, value in sorted(found)]


def unit_after(text: str, end: int) -> str:
    """The unit right after a number: '25 minutes' -> 'minute', '30%' -> 'percent', else ''."""
    m = re.match(r"\s*-?\s*(%|[a-z]+)", text[end:], re.I)
    if not m:
        return ""
    word = m.group(1).lower()
    return UNITS.get(word) or UNITS.get(word.rstrip("s")) or ""


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
        phrase = m.group()
        following = re.match(r"\s*([A-Za-z]+)", text[m.end() :])
        if not re.search(r"['’]s$", phrase) or (
            following and following.group(1).lower() not in NAME_ENDS
        ):
            phrase = re.sub(r"['’]s?$", "", phrase)  # "Apple's share price": Apple
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


_NAME_ENDS = "at on in for to tonight today tomorrow this next and or then with by from"
NAME_ENDS = frozenset(_NAME_ENDS.split())
"""Words after "X's" that end a name rather than start what X owns: "at Luigi's tomorrow"."""


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


def _after_number(text: str, at: int) -> bool:
    """Whether a digit comes right before `at`, spaces aside (read backwards: a scan of the
    whole text before each word made long messages quadratic)."""
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at > 0 and text[at - 1].isdecimal()


def enum_mentions(text: str, values: list[Any]) -> list[tuple[Span, Any, str]]:
    """Where enum values are mentioned, and how: by name, by stem, by initial ('30 C'), or, when
    none is named, by a word of the same meaning ('urgent' for 'high', see `_synonyms`) that
    fits only one of them.

    A one-letter value ('l', 'm') counts only right after a number ('3 l'), never inside a word
    such as "I'm".
    """
    named, meant = [], []
    by_concept: dict[str, list[Any]] = {}
    for value in values:
        by_concept.setdefault(concept(str(value)), []).append(value)
    for m in re.finditer(r"°?[\w-]+", text):
        token = m.group().lstrip("°")
        lower = token.lower()
        after_number = _after_number(text, m.start())
        for value in values:
            v = str(value).lower()
            if len(v) == 1 and not after_number:
                continue
            if lower in (v, v.replace("_", " ")) or (len(v) > 1 and stem(token) == stem(v)):
                named.append((m.span(), value, "named"))
                break
            if (
                len(token) == 1
                and token.isupper()
                and v.startswith(lower)
                and sum(str(x).lower().startswith(lower) for x in values) == 1
            ):
                named.append((m.span(), value, "named by its initial"))
                break
        else:
            same = by_concept.get(concept(token), []) if len(token) > 2 else []
            if len(same) == 1 and concept(token) != stem(token):
                meant.append((m.span(), same[0], f"meant by '{token}'"))
    return named or meant


def gloss_mentions(text: str, description: str, values: list[Any]) -> list[tuple[Span, Any, str]]:
    """Values named by their meaning: "desc: newest first." lets "newest first" pick 'desc'.

    A description that glosses each allowed value ("v: words", "v = words", "'v' (words)") is
    what a real model reads to map a user's phrasing onto an enum; the offline model does the
    same when every content word of a gloss appears in the request. Returns (span, value, gloss).
    """
    found = []
    tokens = [(t.span(), stem(t.group())) for t in re.finditer(r"[\w'-]+", text)]
    for value in values:
        if str(value).lower() not in description.lower():
            continue
        pattern = rf"[\"'`]?\b{re.escape(str(value))}\b[\"'`]?\s*(?:[:=]|\(|means\b)\s*([^,;.()]+)"
        for gloss in re.findall(pattern, description, re.I):
            words = [w for w in re.findall(r"[\w'-]+", gloss) if w.lower() not in STOP_WORDS]
            first = [next((sp for sp, st in tokens if st == stem(w)), None) for w in words]
            spans = [sp for sp in first if sp is not None]
            if words and len(spans) == len(words):
                start, end = min(a for a, _ in spans), max(b for _, b in spans)
                found.append(((start, end), value, gloss.strip()))
                break
    return sorted(found, key=lambda f: f[0])


_FRAME = re.compile(
    r"(?:please\s+)?(?:(?:i|we)(?:'d|'m| would| am)?\s+)?(?:really\s+)?"
    r"(?:love|like|want|need|have|wanna|going|got)\s+to\s+"
    r"|(?:please\s+)?(?:make sure (?:that )?(?:i|we)\s+)?(?:remember|don'?t forget|do not forget)"
    r"\s+to\s+",
    re.I,
)
"""The start of a request that is not its content: "I'd love to hear ..." -> "hear ..."."""


_SUBORDINATE = re.compile(r"\s(?:while|because|since|until|unless|whereas|so that)\s", re.I)


def phrase_concepts(text: str) -> list[tuple[Span, str]]:
    """Where the phrases of `_synonyms.PHRASES` are in `text`, with their concepts."""
    return [(m.span(), name) for pattern, name in PHRASES for m in pattern.finditer(text)]


def trimmed(text: str, span: Span, tool_words: set[str], *, sentence: bool = False) -> Span | None:
    """`span` without the function words, command verbs and tool words at its ends.

    `sentence`: the span is a sentence to pass on as it is ('saying the
    meeting moved'), so only a request frame and the spaces around it go.
    """
    subordinate = _SUBORDINATE.search(text, span[0], span[1])  # "... while I work"
    if subordinate and subordinate.start() > span[0]:
        span = (span[0], subordinate.start())
    for m in phrase_concepts(text[span[0] : span[1]]):  # "... to my to-do list"
        after = text[span[0] + m[0][1] : span[1]].strip(" ,?!.")
        if m[1] in tool_words and m[0][0] > 0 and not after:
            span = (span[0], span[0] + m[0][0])
    segment = text[span[0] : span[1]]
    lead = span[0] + len(segment) - len(segment.lstrip())
    frame = _FRAME.match(text, lead)
    start = frame.end() if frame and frame.end() < span[1] else span[0]
    tokens = [m.span() for m in re.finditer(r"[\w'’@.-]*\w", text[start : span[1]])]
    tokens = [(start + a, start + b) for a, b in tokens]
    if sentence:  # as written, but not ending on a preposition: 'say hello in French'
        while tokens and text[tokens[-1][0] : tokens[-1][1]].lower() in TRAILING_WORDS:
            tokens.pop()
        return (tokens[0][0], _sentence_end(text, tokens[-1][1], span[1])) if tokens else None

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


def _sentence_end(text: str, end: int, limit: int) -> int:
    """A sentence keeps its closing punctuation: 'Dinner at 7?' stays a question."""
    m = re.match(r"[.!?]+", text[end:limit])
    return end + m.end() if m else end


_BOUNDARY_WORDS = """
to from at on in for by via with and or then but before after tomorrow today tonight this next
please now
"""
BOUNDARY_WORDS = frozenset(_BOUNDARY_WORDS.split())
"""Where a place or a name stops when it is written in lower case: 'from the station to ...'."""


def phrase_after(text: str, start: int, used: set[Span], limit: int = 4) -> Span | None:
    """The words from `start` up to the next boundary: a preposition, a date, punctuation.

    A capitalised run goes on past boundary words inside it ('King's Cross', 'Bay of Pigs' is
    not: 'of' is no boundary); at most `limit` words, else None (it is not a short phrase).
    """
    blocked = [(a, b) for a, b, _ in find_dates(text) + find_times(text)] + sorted(used)
    tokens: list[Span] = []
    for m in re.finditer(r"[\w'’.-]*\w|[,;:!?()\"]", text[start:]):
        span = (start + m.start(), start + m.end())
        word = m.group()
        if not word[0].isalnum() or not free(span, set(blocked)):
            break
        if word.lower() in BOUNDARY_WORDS and not (tokens and word[0].isupper()):
            break
        tokens.append(span)
    while tokens and text[tokens[0][0] : tokens[0][1]].lower() in ("the", "a", "an", "my", "our"):
        tokens.pop(0)
    if not tokens or len(tokens) > limit:
        return None
    return tokens[0][0], tokens[-1][1]


def pattern_matches(text: str, pattern: str) -> list[tuple[Span, str]]:
    """Stretches of `text` that the schema's `pattern` accepts whole: '+31 6 1234 5678'.

    The pattern's anchors are dropped to search, and each find is checked again, anchored,
    once trimmed; an invalid pattern finds nothing.
    """
    core = pattern.removeprefix("^").removesuffix("$")
    try:
        whole = re.compile(pattern)
        search = re.compile(rf"(?<![\w+])(?:{core})(?![\w])")
    except re.error:
        return []
    found = []
    for m in search.finditer(text):
        value = m.group().strip(" -")
        if value and whole.search(value):
            start = m.start() + m.group().index(value)
            found.append(((start, start + len(value)), value))
    return found


def regions(text: str, used: set[Span], start: int = 0, *, commas: bool = False) -> list[Span]:
    """The stretches of `text` from `start` on that no parameter has taken, split at . ; : ! ?
    (and at commas, with `commas`: leftover words after a comma are another phrase)."""
    stops = r"[;:!?,]|\.(?=\s|$)" if commas else r"[;:!?]|\.(?=\s|$)"
    cuts = sorted(used) + [(m.start(), m.end()) for m in re.finditer(stops, text)]
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
