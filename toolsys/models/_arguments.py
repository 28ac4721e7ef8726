"""Filling a tool's arguments from a sentence, guided by the tool's JSON schema.

Each parameter is first given a `Kind` from its schema (type, enum, format) and, failing that,
from its name and description (`_kinds`). Then the sentence is searched for evidence of that
kind (`_finders`): numbers (of the schema's type, within its bounds, in its unit), quoted
strings, e-mail addresses, dates ("tomorrow", "next Monday" against the fixed clock), times,
names and places up to their natural end, upper-case codes, enum words (or their meaning). A
string with a `pattern` takes what the pattern accepts. Values of definite kinds are read
first, then names, then free text, so free text never swallows its neighbours. Optional
parameters are filled only when the sentence mentions them; a required parameter not found in
its own clause is looked for in the whole message; a value the text does not support is left
out (the model does not invent values).

Every value comes with its evidence (`Found`: the span of the text and the rule that read it),
which is what `OfflineModel.explain` prints. The richer the schema, the better this works,
which is the point of chapter 05.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from toolsys.models import _evidence as ev
from toolsys.models._evidence import Span
from toolsys.models._finders import FINDERS, Ask
from toolsys.models._kinds import Found, Kind, param_kind, unwrap_optional
from toolsys.models._text import name_words

_LATE = {Kind.PLACE: 1, Kind.PERSON: 1, Kind.TEXT: 2, Kind.QUERY: 2, Kind.LIST: 2}


def find_value(
    name: str,
    schema: dict[str, Any],
    text: str,
    used: set[Span],
    *,
    required: bool,
    tool_words: set[str],
) -> Found | None:
    """Evidence in `text` for one parameter, or None.

    A string with a `pattern` takes what the pattern accepts: the kind's own find if it fits,
    else a stretch of the text that does ('+31 6 1234 5678' for a phone number).
    """
    ask = Ask(name, unwrap_optional(schema), text, used, required, tool_words)
    found = FINDERS[param_kind(name, schema)](ask)
    pattern = ask.schema.get("pattern")
    if not isinstance(pattern, str) or ask.schema.get("type", "string") != "string":
        return found
    if found is not None and isinstance(found.value, str) and _accepts(pattern, found.value):
        return found
    fitting = [(s, v) for s, v in ev.pattern_matches(text, pattern) if ev.free(s, used)]
    telling = [(s, v) for s, v in fitting if re.search(r"[\d@+#/:]", v)]
    for span, value in telling or (fitting if required and found is None else []):
        return Found(span, value, "the text its pattern accepts")
    return found


def _accepts(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return True


# --- all parameters --------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """How one parameter was read: the value and its evidence, or nothing (and why)."""

    name: str
    kind: Kind
    required: bool
    found: Found | None
    text: str  # the text it was read from: its clause, or the whole message
    whole_message: bool = False  # required, not in its own clause, found in the whole message

    @property
    def excerpt(self) -> str:
        if self.found is None or self.found.span == (0, 0):
            return ""
        return self.text[self.found.span[0] : self.found.span[1]]


def read_arguments(function: dict[str, Any], clause: str, full_text: str) -> list[Reading]:
    """How each parameter of `function` is read from `clause` (required ones also `full_text`)."""
    params = function.get("parameters") or {}
    properties: dict[str, Any] = params.get("properties", {})
    required = set(params.get("required", []))
    tool_words = set(name_words(function["name"]))
    readings: dict[str, Reading] = {}
    used: set[Span] = set()
    # Constrained kinds claim their evidence before names, and names before free text could
    # swallow it ('turn off the kitchen lights': 'off' is the state, then 'kitchen' the room).
    order = sorted(properties, key=lambda p: _LATE.get(param_kind(p, properties[p]), 0))
    glossed = shared_glosses(properties)
    for name in order:
        schema, needed = glossed.get(name, properties[name]), name in required
        kind = param_kind(name, schema)
        found = find_value(name, schema, clause, used, required=needed, tool_words=tool_words)
        reading = Reading(name, kind, needed, found, clause)
        if found is None and needed and clause != full_text:
            found = find_value(name, schema, full_text, set(), required=True, tool_words=tool_words)
            reading = Reading(name, kind, needed, found, full_text, found is not None)
        elif found is not None and found.span != (0, 0):
            used.add(found.span)
        readings[name] = reading
    return [readings[name] for name in properties]


def shared_glosses(properties: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Enum parameters that share their list share its glosses: `to_unit` reads what
    `from_unit`'s description says "mi (miles)" means."""
    shared: dict[str, dict[str, Any]] = {}
    for name, schema in properties.items():
        values = unwrap_optional(schema).get("enum")
        if not values:
            continue
        others = [
            str(unwrap_optional(s).get("description", ""))
            for n, s in properties.items()
            if n != name and unwrap_optional(s).get("enum") == values
        ]
        if any(others):
            own = str(schema.get("description", ""))
            shared[name] = {**schema, "description": " ".join([own, *others]).strip()}
    return shared


def fill(function: dict[str, Any], clause: str, full_text: str) -> dict[str, Any]:
    """Arguments for `function` read from `clause`; required ones missing there from `full_text`.

    Parameters with no evidence are left out (the model does not invent values).
    """
    readings = read_arguments(function, clause, full_text)
    return {r.name: r.found.value for r in readings if r.found is not None}


def missing_required(function: dict[str, Any], args: dict[str, Any]) -> list[str]:
    params = function.get("parameters") or {}
    return [name for name in params.get("required", []) if name not in args]
