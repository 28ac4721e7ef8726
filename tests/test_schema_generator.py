"""Our JSON Schema generator (`_schema_json.Generator`) writes exactly what pydantic's writes.

It skips two costs of pydantic's generator (a method table rebuilt per schema, a TypeAdapter per
default); these tests hold it to pydantic's own output over many field types and defaults.
"""

from __future__ import annotations

import datetime
import enum
from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, create_model
from pydantic.json_schema import GenerateJsonSchema

from tests.schema_cases import CASES
from toolsys._schema_json import Generator
from toolsys.tool import tool_from_function


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int = 0
    y: float = 1.5


ANNOTATIONS: list[Any] = [
    str,
    int,
    float,
    bool,
    int | None,
    str | None,
    Literal["a", "b"],
    Literal[1, 2, True],
    list[str],
    dict[str, int],
    tuple[int, str],
    set[int],
    Color,
    Point,
    datetime.date,
    Any,
]
DEFAULTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**20, max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.lists(st.integers(), max_size=3),
    st.frozensets(st.integers(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=3)),
    st.dates(),
    st.sampled_from(list(Color)),
    st.builds(Point, x=st.integers(), y=st.floats(allow_nan=False)),
    st.just(...),  # required
)


def _schema(model: type[BaseModel], generator: type[GenerateJsonSchema]) -> object:
    try:
        return model.model_json_schema(by_alias=True, schema_generator=generator)
    except Exception as exc:  # the same refusal counts as the same answer
        return type(exc).__name__


@given(st.lists(st.tuples(st.sampled_from(ANNOTATIONS), DEFAULTS), min_size=1, max_size=4))
def test_our_generator_writes_what_pydantics_writes(fields: list[tuple[Any, Any]]) -> None:
    model = create_model(
        "Arguments",
        **{
            f"f{i}": (kind, Field(default, description=f"d{i}"))
            for i, (kind, default) in enumerate(fields)
        },
    )
    assert _schema(model, Generator) == _schema(model, GenerateJsonSchema)


def test_every_golden_case_gets_pydantics_schema() -> None:
    for case in CASES:
        model = tool_from_function(case).model
        assert _schema(model, Generator) == _schema(model, GenerateJsonSchema), case.__name__
