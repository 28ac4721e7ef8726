"""Filling a tool's arguments from a sentence, guided by the tool's JSON schema.

Each parameter is first given a *kind* from its schema (type, enum, format) and, failing that,
from its name and description: a `date` named "date" or described "YYYY-MM-DD", an `email`,
a `place` ("city", "location"), an `expression`, a `timezone`, an `id`, free `text`...
Then the sentence is searched for evidence of that kind: numbers, quoted strings, e-mail
addresses, dates ("tomorrow", "next Monday" against the fixed clock), times, capitalised names,
enum words. Cue words decide between candidates ("between 1 and 6" -> min 1, max 6; "from C to F"
-> from_unit, to_unit). Optional parameters are filled only when the sentence mentions them;
a required parameter not found in its own clause is looked for in the whole message.

The richer the schema, the better this works, which is the point of chapter 05.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from toolsys.models._dates import MONTHS, WEEKDAYS, find_dates, find_times
from toolsys.models._text import STOP_WORDS, concept, expression, name_words, stem

Span = tuple[int, int]

_LOWER_NAMES = {"min", "minimum", "low", "lower", "start", "from", "lo", "floor", "least", "begin"}
_UPPER_NAMES = {"max", "maximum", "high", "upper", "end", "to", "hi", "ceil", "ceiling", "most"}
_COMMON_VERBS = {
    "convert",
    "schedule",
    "search",
    "find",
    "send",
    "give",
    "tell",
    "show",
    "roll",
    "pick",
    "book",
    "create",
    "add",
    "look",
    "check",
    "compute",
    "calculate",
    "email",
    "remind",
    "list",
    "get",
    "set",
    "make",
    "write",
    "draw",
    "generate",
    "call",
    "cancel",
    "refund",
    "what",
    "how",
    "is",
    "whats",
    "please",
    "can",
    "could",
    "will",
    "would",
    "where",
    "when",
    "who",
    "which",
    "do",
}
_CONNECTORS = {"de", "del", "da", "do", "la", "le", "van", "von", "of"}


def _unwrap(schema: dict[str, Any]) -> dict[str, Any]:
    """`Optional[X]` (anyOf X|null) -> X; a list of types -> the first non-null one."""
    for key in ("anyOf", "oneOf"):
        options = [s for s in schema.get(key, []) if s.get("type") != "null"]
        if options:
            return {**options[0], **{k: v for k, v in schema.items() if k not in (key,)}}
    if isinstance(schema.get("type"), list):
        types = [t for t in schema["type"] if t != "null"]
        return {**schema, "type": types[0] if types else "string"}
    return schema


def param_kind(name: str, schema: dict[str, Any]) -> str:
    """What kind of value a parameter wants, from its schema first, then its name and wording."""
    schema = _unwrap(schema)
    kind_type, fmt = schema.get("type"), schema.get("format", "")
    described = f"{name} {schema.get('description', '')}".lower()
    nwords = set(re.split(r"[_\W]+", name.lower()))
    if "enum" in schema:
        return "enum"
    if kind_type in ("number", "integer"):
        return "number"
    if kind_type == "boolean":
        return "boolean"
    if kind_type == "array":
        item = param_kind(name, schema.get("items", {"type": "string"}))
        return "emails" if item == "email" or "email" in described else "list"
    if fmt == "email" or re.search(r"e-?mail", described):
        return "email"
    if fmt == "date-time" or re.search(r"date-?time|yyyy-mm-ddthh", described):
        return "datetime"
    if (
        fmt == "date"
        or nwords & {"date", "day", "when"}
        or re.search(r"yyyy-mm-dd|\bdate\b", described)
    ):
        return "date"
    if fmt == "time" or nwords & {"time", "at"} or "hh:mm" in described:
        return "time"
    if described_choices(schema):
        return "enum"
    if re.search(r"time ?zone|iana", described):
        return "timezone"
    if re.search(r"expression|formula|arithmetic", described):
        return "expression"
    if nwords & {"id", "number", "code", "sku"} or re.search(r"\bid\b|identifier", described):
        return "id"
    if re.search(r"\b(city|cities|location|place|country|town|destination|where)\b", described):
        return "place"
    if (
        re.search(r"\b(person|name|recipient|user|customer|who)\b", described)
        and "title" not in nwords
    ):
        return "person"
    return "text"


def described_choices(schema: dict[str, Any]) -> list[str]:
    """Allowed values listed only in prose: "Unit: 'celsius' or 'fahrenheit'" or "one of a, b"."""
    description = str(schema.get("description", ""))
    listed = re.findall(r"[\"'`]([\w-]+)[\"'`]", description)
    if len(listed) < 2:
        m = re.search(r"\bone of:?\s+([\w-]+(?:\s*(?:,|\bor\b)\s*[\w-]+)+)", description)
        listed = re.split(r"\s*(?:,|\bor\b)\s*", m.group(1)) if m else []
    return [v for v in listed if v] if len(listed) >= 2 else []


def enum_values(schema: dict[str, Any]) -> list[Any]:
    """The values a parameter allows: its `enum`, else the choices its description lists."""
    schema = _unwrap(schema)
    return list(schema["enum"]) if "enum" in schema else described_choices(schema)


# --- evidence --------------------------------------------------------------------------------


def _free(span: Span, used: set[Span]) -> bool:
    return all(span[1] <= a or span[0] >= b for a, b in used)


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
        if _free(m.span(), blocked):
            found.append((m.span(), float(m.group().replace(",", ""))))
    return found


def emails(text: str) -> list[tuple[Span, str]]:
    return [(m.span(), m.group()) for m in re.finditer(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text)]


def ids(text: str) -> list[tuple[Span, str]]:
    """Identifier-like tokens: '#1234', 'A-1042', 'ORD7', '1042'."""
    found = re.finditer(r"#?\b(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b", text)
    return [
        (m.span(), m.group().lstrip("#"))
        for m in found
        if not re.fullmatch(r"#?\d{4}-\d\d-\d\d", m.group())
    ]


def names(text: str, skip: set[str]) -> list[tuple[Span, str]]:
    """Capitalised phrases ('New York', 'Ada Lovelace'), minus sentence-initial verbs and such."""
    found = []
    pattern = r"[A-ZÀ-Þ][\w'’-]*(?:\s+(?:(?:de|del|da|do|la|le|van|von)\s+)?[A-ZÀ-Þ][\w'’-]*)*"
    for m in re.finditer(pattern, text):
        phrase = m.group()
        first = phrase.split()[0].lower()
        at_start = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1] in ".!?:"
        if at_start and (first in STOP_WORDS or first in _COMMON_VERBS or first in skip):
            rest = phrase.split(None, 1)
            if len(rest) == 1:
                continue
            phrase = rest[1]
        lowered = phrase.lower()
        if (
            len(phrase) < 2
            or lowered in STOP_WORDS
            or lowered in skip
            or lowered in WEEKDAYS
            or lowered in MONTHS
            or lowered.split()[0] in MONTHS
            or lowered == "i"
        ):
            continue
        found.append(((m.end() - len(phrase), m.end()), phrase))
    return found


def _before(text: str, span: Span, n: int = 2) -> list[str]:
    return [w.lower() for w in re.findall(r"[\w°]+", text[: span[0]])[-n:]]


# --- one parameter ---------------------------------------------------------------------------


def _enum_mentions(text: str, values: list[Any]) -> list[tuple[Span, Any]]:
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


def _gloss_mentions(text: str, schema: dict[str, Any], values: list[Any]) -> list[tuple[Span, Any]]:
    """Values named by their meaning: "desc: newest first." lets "newest first" pick 'desc'.

    A description that glosses each allowed value ("v: words", "v = words", "'v' (words)") is
    what a real model reads to map a user's phrasing onto an enum; the offline model does the
    same when every content word of a gloss appears in the request.
    """
    description = str(_unwrap(schema).get("description", ""))
    found = []
    for value in values:
        pattern = rf"[\"'`]?\b{re.escape(str(value))}\b[\"'`]?\s*(?:[:=]|\(|means\b)\s*([^,;.()]+)"
        for gloss in re.findall(pattern, description, re.I):
            words = [w for w in re.findall(r"[\w'-]+", gloss) if w.lower() not in STOP_WORDS]
            spans = [re.search(rf"\b{re.escape(w)}\b", text, re.I) for w in words]
            if words and all(spans):
                found.append(((min(m.start() for m in spans), max(m.end() for m in spans)), value))
                break
    return sorted(found)


def _number_cue(name: str, description: str, text: str, span: Span) -> str | None:
    """'lower' / 'upper' / 'named' when the words around a number tie it to a parameter."""
    before = _before(text, span, 3)
    own = set(re.split(r"[_\W]+", name.lower())) | {concept(w) for w in name_words(description)}
    if before[-2:] in (["up", "to"], ["at", "most"]) or (
        before and before[-1] in ("below", "under", "max", "maximum")
    ):
        return "upper"
    if before[-2:] == ["at", "least"] or (before and before[-1] in ("above", "over", "min")):
        return "lower"
    if before and before[-1] in ("and", "to") and len(before) >= 1:
        start = text.lower().rfind("between", 0, span[0])
        if start >= 0 or (before[-1] == "to" and "from" in text.lower()[: span[0]]):
            return "upper"
    if before and before[-1] in ("between", "from"):
        return "lower"
    after = re.findall(r"\w+", text[span[1] :])[:1]
    if {concept(w) for w in before[-2:] + after} & {concept(w) for w in own}:
        return "named"
    return None


def _side(name: str) -> str | None:
    parts = set(re.split(r"[_\W]+", name.lower()))
    if parts & _LOWER_NAMES:
        return "lower"
    if parts & _UPPER_NAMES:
        return "upper"
    return None


def _find_number(
    name: str, schema: dict[str, Any], text: str, used: set[Span], required: bool
) -> tuple[Span, Any] | None:
    candidates = [(s, v) for s, v in numbers(text) if _free(s, used)]
    side = _side(name)
    for span, value in candidates:
        cue = _number_cue(name, schema.get("description", ""), text, span)
        if cue == "named" or (cue and cue == side):
            return span, value
    if side is None and required and candidates:
        return candidates[0]
    return None


def _as_type(value: Any) -> Any:
    """Whole numbers are sent as integers: 30, not 30.0."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _text_value(text: str, used: set[Span], tool_words: set[str]) -> tuple[Span, str] | None:
    """Free text: a quoted string, the words after 'about/for/called', or the content words."""
    for span, value in quoted(text):
        if _free(span, used):
            return span, value
    cues = r"about|for|on|called|named|titled|saying|that says|regarding"
    m = re.search(rf"\b(?:{cues})\s+(.+)$", text, re.I)
    start = m.start(1) if m else 0
    end = min([a for a, _ in used if a > start] + [len(text)])
    tail = text[start:end]
    kept = [
        w
        for w in re.findall(r"[\w'-]+", tail)
        if w.lower() not in STOP_WORDS and concept(w) not in tool_words
    ]
    if not kept:
        return None
    return (start, end), " ".join(kept)


def find_value(
    name: str,
    schema: dict[str, Any],
    text: str,
    used: set[Span],
    *,
    required: bool,
    tool_words: set[str],
) -> tuple[Span, Any] | None:
    """Evidence in `text` for one parameter, as (span, value), or None."""
    kind = param_kind(name, schema)
    fresh = lambda found: [(s, v) for s, v in found if _free(s, used)]  # noqa: E731
    if kind == "enum":
        values = enum_values(schema)
        mentions = fresh(_enum_mentions(text, values)) or fresh(
            _gloss_mentions(text, schema, values)
        )
        side = _side(name) or ("upper" if re.search(r"target|into|dest", name) else None)
        for span, value in mentions:
            cue = _before(text, span, 1)
            cue_side = {"to": "upper", "into": "upper", "in": "upper", "from": "lower"}.get(
                cue[0] if cue else ""
            )
            if side and cue_side == side:
                return span, value
        plain = [
            (s, v)
            for s, v in mentions
            if not (
                _before(text, s, 1) and _before(text, s, 1)[0] in ("to", "into") and side == "lower"
            )
        ]
        return plain[0] if plain else None
    if kind == "number":
        found = _find_number(name, schema, text, used, required)
        return (found[0], _as_type(found[1])) if found else None
    if kind == "expression":
        expr = expression(text)
        return ((0, 0), expr) if expr else None
    if kind in ("date", "datetime"):
        dates = fresh([((a, b), v) for a, b, v in find_dates(text)])
        if not dates:
            return None
        if kind == "date":
            return dates[0]
        times = [v for _, _, v in find_times(text)]
        return dates[0][0], f"{dates[0][1]}T{times[0] if times else '09:00'}:00"
    if kind == "time":
        times = fresh([((a, b), v) for a, b, v in find_times(text)])
        return times[0] if times else None
    if kind == "email":
        found = fresh(emails(text))
        return found[0] if found else None
    if kind == "emails":
        found = fresh(emails(text))
        return ((found[0][0][0], found[-1][0][1]), [v for _, v in found]) if found else None
    if kind == "timezone":
        return _timezone(text, used)
    if kind == "id":
        found = fresh(ids(text))
        if found and _unwrap(schema).get("type") == "integer" and found[0][1].isdigit():
            return found[0][0], int(found[0][1])
        return found[0] if found else None
    if kind == "boolean":
        m = re.search(
            rf"\b(no|without|don't|do not|not)?\s*\b{re.escape(name.split('_')[-1])}", text, re.I
        )
        return (m.span(), not m.group(1)) if m else None
    if kind in ("place", "person"):
        found = fresh(names(text, tool_words))
        preferred = (
            ("in", "at", "for", "from", "to")
            if kind == "place"
            else ("to", "for", "with", "named", "called", "from")
        )
        cued = [
            (s, v) for s, v in found if _before(text, s, 1) and _before(text, s, 1)[0] in preferred
        ]
        return (cued or found or [None])[0] if required or cued else None
    if kind == "list":
        found = fresh(quoted(text)) or fresh(names(text, tool_words))
        return ((found[0][0][0], found[-1][0][1]), [v for _, v in found]) if found else None
    if not required:
        return None
    return _text_value(text, used, tool_words)


@cache
def _zones_by_city() -> dict[str, str]:
    """'new york' -> 'America/New_York', from the system's time zone database."""
    from zoneinfo import available_timezones

    return {
        z.rsplit("/", 1)[-1].replace("_", " ").lower(): z
        for z in available_timezones()
        if "/" in z and not z.startswith(("Etc/", "SystemV/", "US/"))
    }


def _timezone(text: str, used: set[Span]) -> tuple[Span, str] | None:
    """An IANA zone named outright ('Asia/Tokyo', 'UTC') or found from a city ('Tokyo')."""
    m = re.search(r"\b[A-Z][a-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?\b|\b(?:UTC|GMT)\b", text)
    if m:
        return m.span(), m.group()
    for span, phrase in names(text, set()):
        if _free(span, used) and phrase.lower() in _zones_by_city():
            return span, _zones_by_city()[phrase.lower()]
    return None


# --- all parameters --------------------------------------------------------------------------


def fill(function: dict[str, Any], clause: str, full_text: str) -> dict[str, Any]:
    """Arguments for `function` read from `clause`; required ones missing there from `full_text`.

    Parameters with no evidence are left out (the model does not invent values).
    """
    params = function.get("parameters") or {}
    properties: dict[str, Any] = params.get("properties", {})
    required = set(params.get("required", []))
    tool_words = set(name_words(function["name"]))
    args: dict[str, Any] = {}
    used: set[Span] = set()
    # Constrained kinds claim their evidence before free text could swallow it.
    order = sorted(properties, key=lambda p: param_kind(p, properties[p]) in ("text", "list"))
    for name in order:
        schema = properties[name]
        found = find_value(
            name, schema, clause, used, required=name in required, tool_words=tool_words
        )
        if found is None and name in required and clause != full_text:
            found = find_value(name, schema, full_text, set(), required=True, tool_words=tool_words)
        elif found is not None and found[0] != (0, 0):
            used.add(found[0])
        if found is not None:
            args[name] = found[1]
    return {name: args[name] for name in properties if name in args}


def missing_required(function: dict[str, Any], args: dict[str, Any]) -> list[str]:
    params = function.get("parameters") or {}
    return [name for name in params.get("required", []) if name not in args]
