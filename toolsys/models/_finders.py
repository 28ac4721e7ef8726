"""One small function per `Kind`: where a parameter's value is in a sentence, and how it was read.

Cue words decide between candidates ("between 1 and 6" -> min 1, max 6; "from C to F" ->
from_unit, to_unit; "from Paris to Rome" -> origin, destination). A finder returns a `Found`
(the span, the value, the rule in words) or None: a value the text does not support is left
out, never guessed ("Apple's share price" names no ticker symbol).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from toolsys.models import _evidence as ev
from toolsys.models._dates import find_dates, find_times
from toolsys.models._evidence import Span, before
from toolsys.models._kinds import Found, Kind, enum_values
from toolsys.models._synonyms import STOP_WORDS
from toolsys.models._text import concept, expression, name_words
from toolsys.models.config import FIXED_NOW

_LOWER_NAMES = {"min", "minimum", "low", "lower", "start", "from", "lo", "floor", "least", "begin"}
_UPPER_NAMES = {"max", "maximum", "high", "upper", "end", "to", "hi", "ceil", "ceiling", "most"}
_FROM_WORDS = {
    "from",
    "origin",
    "source",
    "depart",
    "departure",
    "departing",
    "leaving",
    "pickup",
    "pick",
}
_TO_WORDS = {"to", "destination", "dest", "target", "arrival", "into", "dropoff", "drop"}
_NOT_SYMBOLS = {"AM", "PM", "OK", "ID"}
_TEXT_CUES = ("about", "called", "named", "titled", "regarding")


@dataclass(frozen=True)
class Ask:
    """One parameter to look for, in one text, with the spans other parameters already took."""

    name: str
    schema: dict[str, Any]  # unwrapped
    text: str
    used: set[Span]
    required: bool
    tool_words: set[str]

    def fresh(self, found: list[tuple[Span, Any]]) -> list[tuple[Span, Any]]:
        return [(s, v) for s, v in found if ev.free(s, self.used)]

    def quote(self, span: Span) -> str:
        return self.text[span[0] : span[1]]


# --- one finder per kind -----------------------------------------------------------------------


def _enum(a: Ask) -> Found | None:
    """An allowed value named (or a word meaning it), else one the description glosses.

    With two parameters from the same list ('from_unit', 'to_unit'), the cues decide: 'to',
    'into', 'in' before a value mark the target, 'from' or a number right before it the source.
    """
    values = enum_values(a.schema)
    quotes = [span for span, _ in ev.quoted(a.text)]
    mentions = [
        (span, value, how)
        for span, value, how in ev.enum_mentions(a.text, values)
        if not how.startswith("meant")
        or not (concept(a.quote(span)) in a.tool_words or not ev.free(span, set(quotes)))
    ]  # 'Schedule' is the tool's own verb, and a quoted title means nothing: neither is a value
    glossed = ev.gloss_mentions(a.text, str(a.schema.get("description", "")), values)
    named = {m[0] for m in mentions}
    mentions += [
        (s, v, f"by the description's gloss '{g}'") for s, v, g in glossed if s not in named
    ]
    mentions = sorted((m for m in mentions if ev.free(m[0], a.used)), key=lambda m: m[0])
    side = _side(a.name) or ("upper" if re.search(r"target|into|dest", a.name) else None)

    def cue_side(span: Span) -> str | None:
        cue = before(a.text, span, 2)
        if cue[-1:] and cue[-1] in ("to", "into", "in"):
            return "upper"
        if cue[-1:] == ["from"] or re.search(r"\d\s*$", a.text[: span[0]]):
            return "lower"
        if cue == ["how", "many"]:
            return "upper"
        return None

    for span, value, how in mentions:
        cue = cue_side(span)
        if side and cue == side:
            where = " (after a number)" if re.search(r"\d\s*$", a.text[: span[0]]) else ""
            words = before(a.text, span, 1)
            after = f", after '{words[0]}'" if words and not where else where
            return Found(span, value, f"allowed value {how}{after}")
    for span, value, how in mentions:
        if not (side and cue_side(span) and cue_side(span) != side):
            return Found(span, value, f"allowed value {how}")
    return None


def _number_cue(name: str, description: str, text: str, span: Span) -> str | None:
    """'lower' / 'upper' / 'named' when the words around a number tie it to a parameter."""
    words = before(text, span, 3)
    own = set(re.split(r"[_\W]+", name.lower())) | {concept(w) for w in name_words(description)}
    if words[-2:] in (["up", "to"], ["at", "most"]) or (
        words and words[-1] in ("below", "under", "max", "maximum")
    ):
        return "upper"
    if words[-2:] == ["at", "least"] or (words and words[-1] in ("above", "over", "min")):
        return "lower"
    if words and words[-1] in ("and", "to"):
        start = text.lower().rfind("between", 0, span[0])
        if start >= 0 or (words[-1] == "to" and "from" in text.lower()[: span[0]]):
            return "upper"
    if words and words[-1] in ("between", "from"):
        return "lower"
    after = re.findall(r"\w+", text[span[1] :])[:1]
    if {concept(w) for w in words[-2:] + after} & {concept(w) for w in own}:
        return "named"
    return None


def _side(name: str) -> str | None:
    parts = set(re.split(r"[_\W]+", name.lower()))
    if parts & _LOWER_NAMES:
        return "lower"
    if parts & _UPPER_NAMES:
        return "upper"
    return None


def _as_type(value: Any) -> Any:
    """Whole numbers are sent as integers: 30, not 30.0."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _wanted_unit(name: str, description: str) -> str:
    """The unit a number parameter is counted in, from its name and description ('' if none)."""
    words = re.findall(r"[a-z%]+", f"{name.replace('_', ' ')} {description}".lower())
    for word in words:
        unit = ev.UNITS.get(word) or ev.UNITS.get(word.rstrip("s"))
        if unit and (len(word) >= 4 or word == "%"):
            return unit
    return ""


def _fits(schema: dict[str, Any], value: float) -> bool:
    """The value is of the schema's type and within its bounds."""
    if schema.get("type") == "integer" and not float(value).is_integer():
        return False
    low, high = schema.get("minimum"), schema.get("maximum")
    low_x, high_x = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    return not (
        (isinstance(low, int | float) and value < low)
        or (isinstance(high, int | float) and value > high)
        or (isinstance(low_x, int | float) and value <= low_x)
        or (isinstance(high_x, int | float) and value >= high_x)
    )


def _number(a: Ask) -> Found | None:
    """A number tied to the parameter by a cue or its unit, of its type and within its bounds.

    '2 hours' for a parameter counted in minutes is 120; a number the schema refuses (a
    fraction for an integer, one out of bounds) is not a candidate.
    """
    wanted = _wanted_unit(a.name, str(a.schema.get("description", "")))
    side = _side(a.name)
    rules = {"named": "number next to a word of its name or description"}
    rules |= {"lower": "number after a lower-bound cue", "upper": "number after an upper-bound cue"}
    candidates = []
    for span, value, unit in ev.quantities(a.text):
        if not ev.free(span, a.used):
            continue
        how = ""
        if wanted in ev.SECONDS and unit in ev.SECONDS:
            value, how = value * ev.SECONDS[unit] / ev.SECONDS[wanted], f"{unit}s as {wanted}s"
        elif wanted and unit == wanted:
            how = f"in {wanted}" + ("" if wanted == "percent" else "s")
        elif unit and wanted and (unit == "percent" or wanted == "percent"):
            continue  # '30%' is no number of minutes
        if _fits(a.schema, value):
            candidates.append((span, _as_type(value), how))
    for span, value, how in candidates:
        cue = _number_cue(a.name, a.schema.get("description", ""), a.text, span)
        if cue == "named" or (cue and cue == side):
            return Found(span, value, rules[cue] + (f" ({how})" if how else ""))
        if how:
            return Found(span, value, f"number with its unit ({how})")
    if side is None and a.required and candidates:
        span, value, how = candidates[0]
        return Found(span, value, "first free number that fits (required)")
    return None


def _expression(a: Ask) -> Found | None:
    expr = expression(a.text)
    return Found((0, 0), expr, "arithmetic in the text, normalised") if expr else None


def _date_or_datetime(a: Ask, with_time: bool) -> Found | None:
    dates = a.fresh([((s, e), v) for s, e, v in find_dates(a.text)])
    times = a.fresh([((s, e), v) for s, e, v in find_times(a.text)])
    if not dates and not (with_time and times):
        return None
    if not with_time:
        span, day = dates[0]
        return Found(span, day, "a date, on the fixed clock")
    if not dates:
        span, clock = times[0]
        day = FIXED_NOW.date().isoformat()
        return Found(span, f"{day}T{clock}:00", "a time, today on the fixed clock")
    (start, end), day = dates[0]
    if not times:
        return Found(
            (start, end), f"{day}T09:00:00", "a date, on the fixed clock; no time, so 09:00"
        )
    (t_start, t_end), clock = times[0]
    gap = a.text[min(end, t_end) : max(start, t_start)]
    if re.fullmatch(r"\s*(?:at|on|,)?\s*", gap):  # "tomorrow at 3pm": one span
        start, end = min(start, t_start), max(end, t_end)
    return Found((start, end), f"{day}T{clock}:00", "a date and a time, on the fixed clock")


def _time(a: Ask) -> Found | None:
    times = a.fresh([((s, e), v) for s, e, v in find_times(a.text)])
    return Found(times[0][0], times[0][1], "clock time") if times else None


def _email(a: Ask) -> Found | None:
    found = a.fresh(ev.emails(a.text))
    return Found(found[0][0], found[0][1], "e-mail address") if found else None


def _emails(a: Ask) -> Found | None:
    found = a.fresh(ev.emails(a.text))
    if not found:
        return None
    return Found((found[0][0][0], found[-1][0][1]), [v for _, v in found], "e-mail addresses")


def _phone(a: Ask) -> Found | None:
    """A phone number written in the text, or nothing: the words around it are never one."""
    for span, value in a.fresh(ev.phones(a.text)):
        return Found(span, value, "phone number (groups of digits)")
    return None


def _id(a: Ask) -> Found | None:
    """The first identifier, preferring one the schema's `pattern` accepts (ORD-1003, not 19)."""
    found = a.fresh(ev.ids(a.text))
    if not found:
        return None
    pattern = a.schema.get("pattern")
    if isinstance(pattern, str):
        try:
            fitting = [f for f in found if re.search(pattern, f[1])]
        except re.error:
            fitting = []
        found = fitting or found
    span, value = found[0]
    if a.schema.get("type") == "integer" and value.isdigit():
        return Found(span, int(value), "identifier (a token with a digit)")
    return Found(span, value, "identifier (a token with a digit)")


def _boolean(a: Ask) -> Found | None:
    word = re.escape(a.name.split("_")[-1])
    m = re.search(rf"\b(no|without|don't|do not|not)?\s*\b{word}\w*", a.text, re.I)
    if not m:
        return None
    return Found(m.span(), not m.group(1), "its name, negated" if m.group(1) else "its name")


def direction_of(name: str) -> str | None:
    parts = set(re.split(r"[_\W]+", name.lower()))
    return "from" if parts & _FROM_WORDS else "to" if parts & _TO_WORDS else None


def _directed(
    a: Ask, found: list[tuple[Span, Any]], to_cues: tuple[str, ...], what: str, cued_only: bool
) -> Found | None:
    """The mention that fits a 'from'/'to' parameter: cued the same way, else not the other."""
    direction = direction_of(a.name)

    def cue(span: Span) -> str:
        words = before(a.text, span, 1)
        return words[0] if words else ""

    def way(span: Span) -> str | None:
        return "from" if cue(span) == "from" else "to" if cue(span) in to_cues else None

    for span, value in found:
        if direction and way(span) == direction:
            return Found(span, value, f"{what} after '{cue(span)}'")
    if cued_only and direction:  # an optional 'from'/'to' is filled only when cued
        return None

    def after_number(span: Span) -> bool:  # '1000 CHF': the unit of an amount is its 'from'
        return bool(re.search(r"\d\s*$", a.text[: span[0]]))

    plain = [(s, v) for s, v in found if direction is None or way(s) is None]
    if direction:
        plain.sort(key=lambda m: after_number(m[0]) != (direction == "from"))
    if not plain:
        return None
    span, value = plain[0]
    how = "right after a number" if direction and after_number(span) else "no 'from'/'to' cue"
    return Found(span, value, f"{what}, {how}")


_VERBS_BEFORE_TO = {
    "going",
    "want",
    "wants",
    "need",
    "needs",
    "have",
    "has",
    "like",
    "love",
    "able",
}


def _directed_place(a: Ask, found: list[tuple[Span, Any]]) -> Found | None:
    """An origin or a destination: the place after its own cue ('from' / 'to'), as written.

    The place runs to its natural end (the next preposition, date or punctuation), so 'from
    221B Baker Street to ...' gives '221B Baker Street' and 'the next bus from Leiden' gives
    'Leiden'; with no cue, a required one takes a name no cue gives the other way.
    """
    direction = direction_of(a.name)
    cues = ("from",) if direction == "from" else ("to", "into")
    other = ("to", "into") if direction == "from" else ("from",)
    quoted = a.fresh(ev.quoted(a.text))
    for m in re.finditer(rf"\b(?:{'|'.join(cues)})\s+", a.text, re.I):
        if before(a.text, m.span(), 1) and before(a.text, m.span(), 1)[0] in _VERBS_BEFORE_TO:
            continue  # 'going to snow' names no place
        named = [(s, v) for s, v in quoted + found if s[0] == m.end()]
        if named:
            return Found(named[0][0], named[0][1], f"capitalised name after '{m.group().strip()}'")
        phrase = ev.phrase_after(a.text, m.end(), a.used)
        if phrase and _content(a, phrase):
            return Found(phrase, a.quote(phrase), f"place after '{m.group().strip()}'")
    if not a.required:
        return None
    plain = [
        (s, v) for s, v in found if not (before(a.text, s, 1) and before(a.text, s, 1)[0] in other)
    ]
    if plain:
        return Found(plain[0][0], plain[0][1], "capitalised name, no 'from'/'to' cue (required)")
    return None


def _content(a: Ask, span: Span) -> bool:
    """A phrase that can be a value: it does not start with a verb or one of the tool's words."""
    first = re.match(r"[\w'’-]+", a.text[span[0] : span[1]])
    word = first.group().lower() if first else ""
    return (
        bool(word)
        and word not in ev.COMMON_VERBS
        and word not in ("here", "there", "it", "me")
        and concept(word) not in a.tool_words
    )


def _place_or_person(a: Ask, kind: Kind) -> Found | None:
    found = a.fresh(ev.names(a.text, a.tool_words))
    what = "capitalised name"
    if kind == Kind.PLACE and direction_of(a.name):
        return _directed_place(a, found)
    for span, value in a.fresh(ev.quoted(a.text)) if kind == Kind.PLACE else []:
        cue = before(a.text, span, 1)
        if cue and cue[0] in ("in", "at", "to", "from", "into"):  # 'in "Saint-Malo"'
            return Found(span, value, f"quoted place after '{cue[0]}'")
    preferred = (
        ("in", "at", "for", "from", "to")
        if kind == Kind.PLACE
        else ("to", "for", "with", "named", "called", "from")
    )
    for span, value in found:
        words = before(a.text, span, 1)
        if words and words[0] in preferred:
            return Found(span, value, f"{what} after '{words[0]}'")
    if a.required and found:
        return Found(found[0][0], found[0][1], f"first {what} (required)")
    return _lower_case_place(a) if kind == Kind.PLACE else None


_PROPER_PLACES = (
    r"city|cities|country|town|location|destination|origin|airport|address|station|place|where"
)


def _lower_case_place(a: Ask) -> Found | None:
    """A place written in lower case: 'in the living room', 'the bedroom', 'the kitchen lights'.

    After 'in'/'at' it is the phrase up to its end; a word that contains the parameter's own
    name ('bedroom' for `room`) is one; a required place is otherwise what no other parameter
    took, without the tool's own words ('turn off the kitchen lights' -> 'kitchen'). A city,
    a country, an address is a name: in lower case it is not one ('in fahrenheit').
    """
    described = f"{a.name} {a.schema.get('description', '')}"
    if re.search(_PROPER_PLACES, described, re.I):
        return None
    for m in re.finditer(r"\b(?:in|at)\s+", a.text, re.I):
        phrase = ev.phrase_after(a.text, m.end(), a.used, limit=3)
        if phrase and _content(a, phrase) and not re.search(r"\d", a.quote(phrase)):
            return Found(phrase, a.quote(phrase), f"place after '{m.group().strip()}'")
    own = a.name.split("_")[-1].lower()
    for m in re.finditer(rf"\b(?:(\w+)\s+)?(\w*{re.escape(own)})\b", a.text, re.I):
        lead, word = m.group(1), m.group(2)
        if word.lower() == own and (not lead or lead.lower() in ev.FUNCTION_WORDS):
            continue  # 'the room' says nothing about which
        span = m.span() if word.lower() == own else m.span(2)
        if ev.free(span, a.used):
            return Found(span, a.quote(span), f"a word of its name, '{own}'")
    if not a.required:
        return None
    left = [ev.trimmed(a.text, r, a.tool_words) for r in ev.regions(a.text, a.used)]
    spans = [s for s in left if s and not re.search(r"\d", a.quote(s))]
    if not spans:
        return None
    longest = max(spans, key=lambda s: s[1] - s[0])
    return Found(longest, a.quote(longest), "the words no other parameter took")


def _place(a: Ask) -> Found | None:
    return _place_or_person(a, Kind.PLACE)


def _person(a: Ask) -> Found | None:
    return _place_or_person(a, Kind.PERSON)


def _symbol(a: Ask) -> Found | None:
    found = [(s, v) for s, v in a.fresh(ev.symbols(a.text)) if v not in _NOT_SYMBOLS]
    picked = _directed(a, found, ("to", "into", "in"), "upper-case symbol", not a.required)
    if picked:
        return picked
    for code, meaning in ev.described_examples(str(a.schema.get("description", ""))):
        m = re.search(rf"\b{re.escape(meaning)}\b", a.text, re.I)
        if m and ev.free(m.span(), a.used):
            return Found(m.span(), code, f"the description's example '{code} for {meaning}'")
    return None


def _list(a: Ask) -> Found | None:
    found = a.fresh(ev.quoted(a.text))
    if found:
        return Found((found[0][0][0], found[-1][0][1]), [v for _, v in found], "quoted strings")
    listed = ev.word_list(a.text, a.used)
    if listed:
        return Found(listed[0], listed[1], "items after 'with'/'using'/'of'")
    found = a.fresh(ev.names(a.text, a.tool_words))
    if found:
        span = (found[0][0][0], found[-1][0][1])
        return Found(span, [v for _, v in found], "capitalised names")
    return None


def _timezone(a: Ask) -> Found | None:
    """An IANA zone named outright ('Asia/Tokyo', 'UTC') or found from a city ('Tokyo')."""
    m = re.search(r"\b[A-Z][a-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?\b|\b(?:UTC|GMT)\b", a.text)
    if m:
        return Found(m.span(), m.group(), "time zone named outright")
    for span, phrase in ev.names(a.text, set()):
        zone = _zones_by_city().get(phrase.lower())
        if ev.free(span, a.used) and zone:
            return Found(span, zone, f"city '{phrase}' in the time zone database")
    return None


def _query(a: Ask) -> Found | None:
    """Search words: a quoted string, the words after 'about/for/by/called', or the content words.

    After a cue it is the phrase as written ('the history of Rome' -> 'history of Rome'); with
    no cue, the request's content words without the tool's own ('How do I add a tool to the
    registry?' -> 'add tool registry'), or the tool's words if there is nothing else ('jazz').
    """
    if not a.required:
        return None
    for span, value in a.fresh(ev.quoted(a.text)):
        return Found(span, value, "quoted string")
    named = _named_after_cue(a)
    if named:
        return named
    cues = r"about|for|on|regarding"
    for m in re.finditer(rf"\b(?:{cues})\s+", a.text, re.I):
        for region in ev.regions(a.text, a.used, m.end())[:2]:
            found = ev.trimmed(a.text, region, a.tool_words)
            if found and _content(a, found):
                return Found(found, a.quote(found), f"words after '{m.group().strip()}'")
    regions = [ev.trimmed(a.text, r, a.tool_words) for r in ev.regions(a.text, a.used, commas=True)]
    spans = [r for r in regions if r]
    if not spans:
        return None
    span = max(spans, key=lambda r: r[1] - r[0])
    if any(w[0].isupper() and w != "I" for w in re.findall(r"[\w'-]+", a.quote(span))):
        return Found(span, a.quote(span), "the words no other parameter took (a name)")
    kept = [
        w
        for w in re.findall(r"[\w'-]+", a.quote(span))
        if w.lower() not in STOP_WORDS and concept(w) not in a.tool_words
    ] or [a.quote(span)]
    return Found(span, " ".join(kept), "content words")


def _named_after_cue(a: Ask) -> Found | None:
    """'a book called Dune in the library' -> 'Dune': after 'called', 'named' or 'titled' comes
    a name, which ends where the phrase does."""
    for m in re.finditer(r"\b(?:called|named|titled)\s+", a.text, re.I):
        phrase = ev.phrase_after(a.text, m.end(), a.used, limit=8)
        if phrase:
            return Found(phrase, a.quote(phrase), f"the name after '{m.group().strip()}'")
    return None


_SENTENCE_CUES = r"saying|that says|say|tell (?:him|her|them|me)|let (?:him|her|them) know"


def _text(a: Ask) -> Found | None:
    """Free text: a quoted string, the words after a cue ('called', its own name), or the rest.

    What follows 'saying', 'tell her' or a colon is a sentence and is passed on as written;
    what follows 'called', 'about' or the parameter's name is a name, without its article.
    """
    if not a.required:
        return None
    for span, value in a.fresh(ev.quoted(a.text)):
        return Found(span, value, "quoted string")
    own = [w for w in re.split(r"[_\W]+", a.name.lower()) if w]
    message = bool(set(own) & {"message", "body", "text", "content", "note"})
    sentence = _SENTENCE_CUES + ("|that" if message else "")
    cues = [(m, True) for m in re.finditer(rf"\b(?:{sentence})\b:?\s*|:\s+", a.text, re.I)] + [
        (m, m.group().rstrip().endswith(":"))  # "task: book the car service" is a sentence
        for c in own + list(_TEXT_CUES)
        for m in re.finditer(rf"\b{re.escape(c)}\b:?\s*", a.text, re.I)
    ]
    cues.sort(key=lambda c: (c[1] != message, c[0].start()))  # a message takes the sentence
    stops = {m.start() for m, _ in cues}
    for cue, is_sentence in cues:
        for region in ev.regions(a.text, a.used, cue.end())[:1]:
            end = min([s for s in stops if s > region[0]] + [region[1]])
            after = ev.trimmed(a.text, (region[0], end), a.tool_words, sentence=is_sentence)
            if after:
                name = cue.group().strip() or ":"
                return Found(after, a.quote(after), f"words after '{name}'")
    left = [ev.trimmed(a.text, r, a.tool_words) for r in ev.regions(a.text, a.used, commas=True)]
    spans = [s for s in left if s]
    if not spans:
        return None
    longest = max(spans, key=lambda s: s[1] - s[0])
    return Found(longest, a.quote(longest), "the words no other parameter took")


FINDERS: dict[Kind, Callable[[Ask], Found | None]] = {
    Kind.ENUM: _enum,
    Kind.NUMBER: _number,
    Kind.BOOLEAN: _boolean,
    Kind.LIST: _list,
    Kind.EMAILS: _emails,
    Kind.EMAIL: _email,
    Kind.DATETIME: lambda a: _date_or_datetime(a, with_time=True),
    Kind.DATE: lambda a: _date_or_datetime(a, with_time=False),
    Kind.TIME: _time,
    Kind.TIMEZONE: _timezone,
    Kind.EXPRESSION: _expression,
    Kind.SYMBOL: _symbol,
    Kind.PHONE: _phone,
    Kind.ID: _id,
    Kind.PLACE: _place,
    Kind.PERSON: _person,
    Kind.QUERY: _query,
    Kind.TEXT: _text,
}
"""How each kind is read from the text: a new kind is one entry here and one in `param_kind`."""


@cache
def _zones_by_city() -> dict[str, str]:
    """'new york' -> 'America/New_York', from the system's time zone database.

    A city in several zones gets the longest (most specific) name: 'America/Argentina/Cordoba'.
    """
    from zoneinfo import available_timezones

    return {
        z.rsplit("/", 1)[-1].replace("_", " ").lower(): z
        for z in sorted(available_timezones(), key=lambda z: (len(z), z))
        if "/" in z and not z.startswith(("Etc/", "SystemV/", "US/"))
    }
