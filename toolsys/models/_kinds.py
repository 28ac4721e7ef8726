"""What kind of value a parameter wants, read from its JSON schema, its name and its wording.

A `date` named "date" or described "YYYY-MM-DD", an `email`, a `place` ("city", "location"), a
`symbol` ("ticker symbol", "currency code"), an `expression`, a `timezone`, an `id`, search
`query` words, free `text`... Each kind has a finder in `_finders`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, NamedTuple

from toolsys.models._evidence import Span

_SYMBOL_WORDS = r"\b(ticker|symbol|(currency|airport|country|language|iata) code|iso ?4217)\b"
_PLACE_WORDS = (
    r"\b(city|cities|location|place|country|town|destination|where|station|airport|venue|room)\b"
)
_PLACE_NAMES = {"origin", "destination", "pickup", "dropoff", "location", "city", "town", "room"}
_TIME_NAMES = {"time", "when", "at", "start", "end", "due", "deadline", "datetime"}


class Kind(StrEnum):
    """What kind of value a parameter wants; each has a finder in `_finders.FINDERS`."""

    ENUM = "enum"
    NUMBER = "number"
    BOOLEAN = "boolean"
    LIST = "list"
    EMAILS = "emails"
    EMAIL = "email"
    DATETIME = "datetime"
    DATE = "date"
    TIME = "time"
    TIMEZONE = "timezone"
    EXPRESSION = "expression"
    SYMBOL = "symbol"
    PHONE = "phone"
    ID = "id"
    PLACE = "place"
    PERSON = "person"
    QUERY = "query"
    TEXT = "text"


class Found(NamedTuple):
    """A value read from the text: where (`span`; (0, 0) for the whole text), what, and how."""

    span: Span
    value: Any
    rule: str


def unwrap_optional(schema: dict[str, Any]) -> dict[str, Any]:
    """`Optional[X]` (anyOf X|null) -> X; a list of types -> the first non-null one."""
    for key in ("anyOf", "oneOf"):
        options = [s for s in schema.get(key, []) if s.get("type") != "null"]
        if options:
            return {**options[0], **{k: v for k, v in schema.items() if k not in (key,)}}
    if isinstance(schema.get("type"), list):
        types = [t for t in schema["type"] if t != "null"]
        return {**schema, "type": types[0] if types else "string"}
    return schema


def param_kind(name: str, schema: dict[str, Any]) -> Kind:
    """What kind of value a parameter wants, from its schema first, then its name and wording."""
    schema = unwrap_optional(schema)
    kind_type, fmt = schema.get("type"), schema.get("format", "")
    described = f"{name} {schema.get('description', '')}".lower()
    nwords = set(re.split(r"[_\W]+", name.lower()))
    if "enum" in schema:
        return Kind.ENUM
    if kind_type in ("number", "integer"):
        return Kind.NUMBER
    if kind_type == "boolean":
        return Kind.BOOLEAN
    if kind_type == "array":
        item = param_kind(name, schema.get("items", {"type": "string"}))
        return Kind.EMAILS if item == Kind.EMAIL or "email" in described else Kind.LIST
    if fmt == "email" or re.search(r"e-?mail", described):
        return Kind.EMAIL
    if fmt == "date-time" or re.search(r"date-?time|yyyy-mm-ddthh", described):
        return Kind.DATETIME
    if re.search(r"iso[ -]?8601", described) and (
        nwords & _TIME_NAMES
        or re.search(r"\btime\b|hh:mm", described)
        or not re.search(r"yyyy-mm-dd|\bdate\b|\bday\b", described)
    ):  # "time: Reservation time, ISO 8601" wants a date and a time; "Arrival day" a date
        return Kind.DATETIME
    if (
        fmt == "date"
        or nwords & {"date", "day", "when"}
        or re.search(r"yyyy-mm-dd|\bdate\b", described)
    ):
        return Kind.DATE
    if fmt == "time" or nwords & {"time", "at"} or "hh:mm" in described:
        return Kind.TIME
    if described_choices(schema):
        return Kind.ENUM
    if re.search(r"time ?zone|iana", described):
        return Kind.TIMEZONE
    if re.search(r"expression|formula|arithmetic", described):
        return Kind.EXPRESSION
    if re.search(_SYMBOL_WORDS, described):
        return Kind.SYMBOL
    if nwords & {"phone", "telephone", "mobile"} or re.search(r"\b(?:tele)?phone\b", described):
        return Kind.PHONE
    if nwords & {"id", "number", "code", "sku"} or re.search(r"\bid\b|identifier", described):
        return Kind.ID
    if nwords & _PLACE_NAMES or re.search(_PLACE_WORDS, described):
        return Kind.PLACE
    if re.search(r"\b(person|name|recipient|user|customer|who)\b", described) and not nwords & {
        "title",
        "text",
        "message",
        "body",
        "subject",
    }:
        return Kind.PERSON
    if re.search(r"\b(query|keywords?|search)\b", described):
        return Kind.QUERY
    return Kind.TEXT


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
    schema = unwrap_optional(schema)
    return list(schema["enum"]) if "enum" in schema else described_choices(schema)


LOOKS_FOR: dict[Kind, str] = {
    Kind.ENUM: "one of its allowed values, by name or by the description's gloss",
    Kind.NUMBER: "a number tied to it by a cue word (or any number, if required)",
    Kind.BOOLEAN: "its name, possibly negated",
    Kind.LIST: "quoted strings, items after 'with'/'using'/'of', or capitalised names",
    Kind.EMAILS: "e-mail addresses",
    Kind.EMAIL: "an e-mail address",
    Kind.DATETIME: "a date and/or a time",
    Kind.DATE: "a date ('tomorrow', 'next Monday', 'March 3', '2025-01-31')",
    Kind.TIME: "a clock time ('3pm', '15:30', 'noon')",
    Kind.TIMEZONE: "an IANA zone or a city in the time zone database",
    Kind.EXPRESSION: "arithmetic ('17 * 38', '2 plus 2')",
    Kind.SYMBOL: "an upper-case symbol such as AAPL, or a name the description gives a code for",
    Kind.PHONE: "a phone number (three or more groups of digits, '+33 1 23 45 67 89')",
    Kind.ID: "an identifier (a token with a digit)",
    Kind.PLACE: "a place: a capitalised name, or the words after 'from', 'to' or 'in'",
    Kind.PERSON: "a capitalised name (a person)",
    Kind.QUERY: "search words (required only)",
    Kind.TEXT: "quoted text or words left after a cue (required only)",
}
"""What each kind looks for, to explain a value that was not found."""
