"""Values in a request that fit a tool's parameters: the second kind of evidence for a choice.

A person asking "where is 1Z999AA10123456784?" names no tool, but the value has the shape of a
tracking number, and a tool whose `tracking_number` parameter has a `pattern` that accepts it
is the one meant. So, besides the words it shares with each tool (`_text.score_tools`), a tool
scores for each parameter whose shape a value of the request has:

    a string its `pattern` accepts (with a digit or a sign in it)   PATTERN_POINTS
    an identifier for an id-like parameter ('A-1042', 'ORD7731')    ID_POINTS
    an e-mail address for an e-mail parameter                       EMAIL_POINTS
    a quantity in one of a parameter's unit values ('10 km')        QUANTITY_POINTS
    a place after a parameter's own cue ('from Leiden' -> origin)   PLACE_POINTS

Each is listed as evidence (`ToolScore.shapes`) and `explain()` prints it. A shape alone never
reaches the threshold, except a value only this tool's pattern accepts beside a word it shares.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

from toolsys.models import _evidence as ev
from toolsys.models._arguments import shared_glosses
from toolsys.models._finders import direction_of
from toolsys.models._kinds import Kind, param_kind, unwrap_optional
from toolsys.models._text import Shape, ToolScore, score_tools

PATTERN_POINTS, ID_POINTS, EMAIL_POINTS, QUANTITY_POINTS, PLACE_POINTS = 1.0, 0.75, 0.75, 1.0, 0.5


def shapes(text: str, function: dict[str, Any]) -> tuple[Shape, ...]:
    """The parameters of `function` that a value of `text` fits, at most one value each."""
    found = []
    for name, schema, kind in _parameters(json.dumps(function, sort_keys=True, default=str)):
        shape = _by_kind(name, schema, kind, text)
        if shape is None and isinstance(schema.get("pattern"), str):
            telling = _telling(ev.pattern_matches(text, schema["pattern"]))
            if telling:
                shape = Shape(name, telling[0], f"{name}'s pattern accepts it", PATTERN_POINTS)
        if shape:
            found.append(shape)
    return tuple(found)


@lru_cache(maxsize=512)
def _parameters(definition: str) -> tuple[tuple[str, dict[str, Any], Kind], ...]:
    """Each parameter's name, schema (unwrapped, glosses shared) and kind, once per tool."""
    properties = (json.loads(definition).get("parameters") or {}).get("properties", {})
    glossed = shared_glosses(properties)
    return tuple(
        (name, unwrap_optional(glossed.get(name, raw)), param_kind(name, raw))
        for name, raw in properties.items()
    )


def _telling(found: list[tuple[ev.Span, str]]) -> list[str]:
    """Finds that say something: with a digit or a sign, not any word a pattern accepts."""
    return [v for _, v in found if re.search(r"[\d@+#/:]", v)]


def _by_kind(name: str, schema: dict[str, Any], kind: Kind, text: str) -> Shape | None:
    if kind in (Kind.EMAIL, Kind.EMAILS):
        emails = ev.emails(text)
        return Shape(name, emails[0][1], "an e-mail address", EMAIL_POINTS) if emails else None
    if kind == Kind.ID and "pattern" not in schema:
        ids = [v for _, v in ev.ids(text) if _looks_like_id(v)]
        return Shape(name, ids[0], f"an identifier for {name}", ID_POINTS) if ids else None
    if kind == Kind.ENUM:
        return _quantity(name, schema, text)
    if kind == Kind.PLACE and direction_of(name):
        cues = ("from",) if direction_of(name) == "from" else ("to", "into")
        for span, value in ev.names(text, set()):
            words = ev.before(text, span, 1)
            if words and words[0] in cues:
                return Shape(name, value, f"a place after '{words[0]}'", PLACE_POINTS)
    return None


def _looks_like_id(value: str) -> bool:
    """'A-1042', 'ORD7731', '90210553': long enough, with a digit, not a plain small number."""
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 5 and digits >= 2 and (digits < len(value) or len(value) >= 8)


def _quantity(name: str, schema: dict[str, Any], text: str) -> Shape | None:
    """'10 km', '3 gallons': a number right before one of the parameter's (unit) values."""
    values = list(schema.get("enum", []))
    mentions = [(s, v) for s, v, _ in ev.enum_mentions(text, values)]
    mentions += [
        (s, v) for s, v, _ in ev.gloss_mentions(text, str(schema.get("description", "")), values)
    ]
    for span, value in mentions:
        if re.search(r"\d\s*$", text[: span[0]]):
            excerpt = text[: span[1]].rsplit(None, 2)
            return Shape(name, " ".join(excerpt[-2:]), f"a quantity in {value!r}", QUANTITY_POINTS)
    return None


def rank_tools(text: str, functions: list[dict[str, Any]]) -> list[ToolScore]:
    """`_text.score_tools` plus each tool's shapes, best first; ties keep the offered order."""
    by_name = {f["name"]: (i, f) for i, f in enumerate(functions)}
    ranked = []
    for score in score_tools(text, functions):
        index, function = by_name[score.tool]
        found = shapes(text, function)
        total = round(score.score + sum(s.points for s in found), 3)
        ranked.append((total, -index, replace(score, score=total, shapes=found)))
    ranked.sort(key=lambda r: r[:2], reverse=True)
    return [r[2] for r in ranked]
