"""A parameter's schema without its words: what a value must look like.

Two schemas for the same parameter can differ only in their description, title, default or
examples; `shape` drops those so they compare equal. toolsys.compose uses it to refuse children
whose shared parameter differs in type, toolsys/lazy.py to check that a lazily loaded tool still
takes what its placeholder promised.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ANNOTATIONS = frozenset({"description", "title", "default", "examples"})


def shape(schema: Any) -> Any:
    """A parameter's schema without the words (description, title, default, examples): what a
    value must look like, so two children's `amount` can be compared."""
    if isinstance(schema, Mapping):
        return {k: shape(v) for k, v in schema.items() if k not in _ANNOTATIONS}
    if isinstance(schema, list):
        return [shape(item) for item in schema]
    return schema
