"""A tool registered again with the same signature reuses its model; nothing else does.

Registering builds a Pydantic model (validator and serializer): the largest cost. A notebook cell
run twice registers the same tools again, so models are kept by tool name and fields. The key
must tell apart what Python calls equal but a schema shows differently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from toolsys import schema
from toolsys.schema import json_schema
from toolsys.spec import Param, ToolSpec
from toolsys.tool import tool_from_function, tool_from_spec


def search(query: str, limit: int = 5) -> list[str]:
    """Search.

    Args:
        query: Words.
        limit: At most.
    """
    return [query] * limit


def test_the_same_function_registered_again_reuses_its_model() -> None:
    first, again = tool_from_function(search), tool_from_function(search)
    assert again.model is first.model
    assert again.parameters is first.parameters  # read-only, so shared


def test_another_name_gets_its_own_model() -> None:
    assert tool_from_function(search, name="find").model is not tool_from_function(search).model


def _uncached(build: Callable[[], Any]) -> Any:
    """What `build` returns with no model kept from before (and none kept after)."""
    saved = dict(schema._MODELS)
    schema._MODELS.clear()
    try:
        return build()
    finally:
        schema._MODELS.clear()
        schema._MODELS.update(saved)


def _fresh(name: str, fields: dict[str, Any]) -> str:
    return _shown(_uncached(lambda: json_schema(schema._create(name, fields))))


def _shown(value: Any) -> str:
    """As the model reads it: `1 == True` and `1 == 1.0` in Python, not in JSON text."""
    return json.dumps(value)


EQUAL_BUT_SHOWN_APART = [
    (int, 1, int, True),
    (float, 1.0, float, 1),
    (int | str, 1, str | int, 1),
    (Literal[1, 2], 1, Literal[2, 1], 1),
    (Literal["a", "b"], "a", Literal["b", "a"], "a"),
]


def test_values_python_calls_equal_but_a_schema_shows_apart_get_their_own_models() -> None:
    for first, first_default, second, second_default in EQUAL_BUT_SHOWN_APART:
        a = {"x": (first, Field(first_default, description="x"))}
        b = {"x": (second, Field(second_default, description="x"))}
        assert _shown(json_schema(schema._create("t", a))) == _fresh("t", a)
        assert _shown(json_schema(schema._create("t", b))) == _fresh("t", b)


def test_spec_bounds_and_enums_are_part_of_the_key() -> None:
    def build(minimum: float | None, enum: list[Any] | None) -> dict[str, Any]:
        param = Param("n", "integer", "A number.", minimum=minimum, maximum=10, enum=enum)
        spec = ToolSpec("bounded", "A bounded tool.", [param])
        return tool_from_spec(spec, lambda n: n).parameters

    shown = set()
    for minimum, enum in [(0, None), (1, None), (2, None), (None, [1, 2]), (None, [2, 1])]:
        parameters = build(minimum, enum)
        assert _shown(parameters) == _shown(_uncached(lambda m=minimum, e=enum: build(m, e)))
        shown.add(_shown(parameters))
    assert len(shown) == 5


KINDS = st.sampled_from([int, float, bool, str, int | None, Literal[1, 2], Literal[2, 1], Any])
DEFAULTS = st.one_of(
    st.just(...), st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 0.0, "a"])
)


@given(
    st.lists(st.lists(st.tuples(KINDS, DEFAULTS), min_size=1, max_size=3), min_size=2, max_size=4)
)
def test_a_cached_model_has_the_schema_a_fresh_one_would(signatures: list[Any]) -> None:
    for fields in signatures:
        definitions = {
            f"f{i}": (kind, Field(d, description="d")) for i, (kind, d) in enumerate(fields)
        }
        try:
            fresh = _fresh("cached", definitions)
        except Exception as exc:  # the same refusal either way
            fresh = type(exc).__name__
        try:
            cached = _shown(json_schema(schema._create("cached", definitions)))
        except Exception as exc:
            cached = type(exc).__name__
        assert cached == fresh
