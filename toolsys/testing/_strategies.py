"""Hypothesis strategies for the JSON Schema subset that Pydantic emits, `$ref`s inlined.

Why our own, not hypothesis-jsonschema: that package (0.23, the latest) calls a hypothesis
internal (`many.more`) that hypothesis 6.170 no longer has, so it fails on its first object
schema (checked 2026-11-30). The subset a tool's schema uses is small: types, enums and const,
anyOf/oneOf/allOf, properties with required and additionalProperties, items and prefixItems,
numeric and length limits, patterns and a few formats. A generated value need not be perfect:
`assert_schema_agrees` keeps only what a JSON Schema validator accepts, so this module has to
be broad, not exact.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=8)
)
ANY_JSON = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date": st.dates().map(str),
    "date-time": st.datetimes().map(lambda d: d.isoformat() + "Z"),
    "time": st.times().map(lambda t: t.isoformat()),
    "uuid": st.uuids().map(str),
    "email": st.emails(),
}


def from_schema(node: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values that mostly fit `node` (a dict, or a boolean schema)."""
    if node is True or node == {}:
        return ANY_JSON
    if node is False or not isinstance(node, dict) or node.get("not") == {}:
        return st.nothing()
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"]) if node["enum"] else st.nothing()
    for key in ("anyOf", "oneOf"):
        if key in node:
            options = [from_schema({**_rest(node, key), **option}, depth) for option in node[key]]
            live = [option for option in options if not option.is_empty]
            return st.one_of(live) if live else st.nothing()
    if "allOf" in node:
        merged = _rest(node, "allOf")
        for member in node["allOf"]:
            merged = {**merged, **member} if isinstance(member, dict) else merged
        return from_schema(merged, depth)
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not kinds:
        return ANY_JSON if depth < 4 else _LEAVES
    live = [s for s in (_of_type(kind, node, depth) for kind in kinds) if not s.is_empty]
    return st.one_of(live) if live else st.nothing()


def _rest(node: dict[str, Any], without: str) -> dict[str, Any]:
    """The node's other keywords, which apply to each member of its anyOf/oneOf/allOf."""
    return {k: v for k, v in node.items() if k not in (without, "description", "title", "default")}


def _of_type(kind: str, node: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        return _number(kind, node)
    if kind == "string":
        return _string(node)
    if kind == "array":
        return _array(node, depth)
    if kind == "object":
        return _object(node, depth)
    return st.nothing()


def _number(kind: str, node: dict[str, Any]) -> st.SearchStrategy[Any]:
    low = node.get("minimum")
    high = node.get("maximum")
    low_open = node.get("exclusiveMinimum")
    high_open = node.get("exclusiveMaximum")
    if kind == "integer":
        lo = math.ceil(low) if low is not None else None
        hi = math.floor(high) if high is not None else None
        if low_open is not None:
            lo = max(lo, math.floor(low_open) + 1) if lo is not None else math.floor(low_open) + 1
        if high_open is not None:
            hi = min(hi, math.ceil(high_open) - 1) if hi is not None else math.ceil(high_open) - 1
        if lo is not None and hi is not None and lo > hi:
            return st.nothing()
        step = node.get("multipleOf")
        if isinstance(step, int) and step > 0:
            return st.integers(lo, hi).map(lambda n: n - n % step)
        return st.integers(lo, hi)
    return st.floats(
        min_value=low if low is not None else low_open,
        max_value=high if high is not None else high_open,
        exclude_min=low is None and low_open is not None,
        exclude_max=high is None and high_open is not None,
        allow_nan=False,
        allow_infinity=False,
    ) | st.integers(-1000, 1000)


def _string(node: dict[str, Any]) -> st.SearchStrategy[str]:
    if isinstance(node.get("pattern"), str):
        return st.from_regex(node["pattern"], fullmatch=False)
    if node.get("format") in _FORMATS:
        return _FORMATS[node["format"]]
    return st.text(min_size=node.get("minLength", 0), max_size=node.get("maxLength", 20))


def _array(node: dict[str, Any], depth: int) -> st.SearchStrategy[list[Any]]:
    low = node.get("minItems", 0)
    high = min(node.get("maxItems", 4), low + 4)
    prefix = node.get("prefixItems")
    if isinstance(prefix, list):
        parts = [from_schema(item, depth + 1) for item in prefix]
        return st.tuples(*parts).map(list)
    items = from_schema(node.get("items", True), depth + 1)
    if items.is_empty:
        return st.just([]) if low == 0 else st.nothing()
    unique = node.get("uniqueItems") is True
    return st.lists(items, min_size=low, max_size=high, unique_by=repr if unique else None)


def _object(node: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    properties = node.get("properties", {})
    required = [key for key in node.get("required", ()) if isinstance(key, str)]
    fixed = {key: from_schema(properties.get(key, True), depth + 1) for key in required}
    if any(strategy.is_empty for strategy in fixed.values()):
        return st.nothing()
    optional = {
        key: strategy
        for key, sub in properties.items()
        if key not in fixed and not (strategy := from_schema(sub, depth + 1)).is_empty
    }
    extra = node.get("additionalProperties", True)
    strategy = st.fixed_dictionaries(fixed, optional=optional)
    if extra is False or properties or depth >= 4:
        return strategy
    values = from_schema(extra, depth + 1)
    more = st.dictionaries(st.text(max_size=5), values, max_size=2)
    return st.tuples(strategy, more).map(lambda pair: {**pair[1], **pair[0]})
