"""The schema writer (`toolsys._schema_writer`) writes exactly what the pydantic path writes, and a
tool it wrote builds its validator on first use, once.

Registering used to build each tool's validator and then walk the model for its schema. For a
simple signature the schema is now written directly and the validator deferred: these tests hold
the writer to pydantic's schema (key order included) over generated signatures, pin every case
that must fall back, and check that the deferred validator behaves as the built one did.
"""

from __future__ import annotations

import datetime
import enum
import json
import math
import typing
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Literal, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic_core import SchemaValidator

from tests.schema_cases import CASES
from toolsys import Registry, schema
from toolsys._hints import _plain_type_hints
from toolsys._schema_writer import drop_null_default, write_schema
from toolsys.errors import ToolDefinitionError
from toolsys.schema import field_name, json_schema, model_from_function
from toolsys.spec import Param, ToolSpec
from toolsys.tool import tool_from_function

_FORBID = ConfigDict(extra="forbid", allow_inf_nan=False)

# -- generated signatures ---------------------------------------------------------------------

SCALARS = st.sampled_from([str, int, float, bool, type(None), None, Any])
LITERAL_VALUES = st.one_of(
    st.lists(st.text(max_size=3), min_size=1, max_size=3, unique=True),
    st.lists(st.integers(-3, 3), min_size=1, max_size=3, unique=True),
    st.lists(st.booleans(), min_size=1, max_size=2, unique=True),
    st.lists(st.one_of(st.text(max_size=2), st.integers(-2, 2)), min_size=1, max_size=3),
)


def _optional(inner: Any, how: str) -> Any:
    return {"pipe": inner | None, "left": None | inner, "typing": Optional[inner]}[how]  # noqa: UP045


def _types(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda t: list[t], children),
        st.just(list),
        st.just(dict),
        st.builds(lambda t: dict[str, t], children),
        st.builds(lambda t: typing.List[t], children),  # noqa: UP006
    )


LITERALS = LITERAL_VALUES.map(lambda values: Literal[tuple(values)])
BASES = st.one_of(SCALARS, LITERALS)
NESTED = st.recursive(BASES, _types, max_leaves=3)
TYPES = st.one_of(
    NESTED,
    st.builds(
        _optional,
        NESTED.filter(lambda t: t not in (None, type(None))),
        st.sampled_from(["pipe", "left", "typing"]),
    ),
)
PLAIN_DEFAULTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)
DESCRIPTIONS = st.one_of(st.none(), st.just(""), st.text(max_size=8))
NAMES = st.sampled_from(["query", "limit", "json", "copy", "_hidden", "items", "type", "x_1"])


@st.composite
def constrained(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A type with the bounds `Field` takes for it (as Annotated or on the field)."""
    kind = draw(st.sampled_from([int, float, str, list[int], list]))
    if kind is int or kind is float:
        numbers = st.integers(-5, 5)
        if kind is float:
            numbers = st.one_of(numbers, st.floats(-5, 5))
        keys = draw(st.sets(st.sampled_from(["ge", "le", "gt", "lt"]), min_size=1))
        return kind, {key: draw(numbers) for key in keys}
    keys = draw(st.sets(st.sampled_from(["min_length", "max_length"]), min_size=1))
    return kind, {key: draw(st.integers(0, 5)) for key in keys}


@st.composite
def fields(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Field recipes; `_build` turns each into a fresh `(annotation, Field)` pair."""
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    recipes = []
    for name in names:
        recipe: dict[str, Any] = {"name": name, "description": draw(DESCRIPTIONS)}
        if draw(st.booleans()):
            recipe["annotation"], recipe["bounds"] = draw(constrained())
            recipe["annotated"] = draw(st.booleans())
            recipe["inner_description"] = draw(DESCRIPTIONS)
        else:
            recipe["annotation"] = draw(TYPES)
        if draw(st.booleans()):
            recipe["default"] = draw(PLAIN_DEFAULTS)
            recipe["drop_null"] = draw(st.booleans())
        recipes.append(recipe)
    return recipes


def _build(recipes: list[dict[str, Any]]) -> dict[str, Any]:
    built: dict[str, Any] = {}
    for recipe in recipes:
        name = recipe["name"]
        annotation, bounds = recipe["annotation"], recipe.get("bounds", {})
        options: dict[str, Any] = {"description": recipe["description"]}
        if field_name(name) != name:
            options["alias"] = name
        if recipe.get("drop_null"):
            options["json_schema_extra"] = drop_null_default
        if recipe.get("annotated"):
            inner = recipe["inner_description"]
            extra = {"description": inner} if inner is not None else {}
            annotation = Annotated[annotation, Field(**extra, **bounds)]
        else:
            options.update(bounds)
        default = recipe.get("default", ...)
        built[field_name(name)] = (annotation, Field(default, **options))
    return built


def _pydantic(fields: dict[str, Any]) -> dict[str, Any]:
    return json_schema(create_model("Arguments", __config__=_FORBID, **fields))


@given(fields())
def test_the_writer_writes_what_pydantic_writes_for_every_simple_signature(
    recipes: list[dict[str, Any]],
) -> None:
    written = write_schema(_build(recipes))
    assert written is not None, recipes
    expected = _pydantic(_build(recipes))
    # json.dumps compares key order and tells 1 from 1.0 and True.
    assert json.dumps(written) == json.dumps(expected)


# -- what falls back --------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int = 0


FALLBACKS: dict[str, tuple[Any, Any]] = {
    "an Enum": (Color, Field(...)),
    "a model": (Point, Field(...)),
    "a date": (datetime.date, Field(...)),
    "a union of two types": (int | str, Field(...)),
    "a tuple": (tuple[int, str], Field(...)),
    "a set": (set[int], Field(...)),
    "dict keys that are not str": (dict[int, str], Field(...)),
    "Literal with None": (Literal["a", None], Field(None)),
    "Literal with a float": (Literal[1.5], Field(...)),
    "a list default": (list[int], Field([1])),
    "a NaN default": (float, Field(math.nan)),
    "a default factory": (list[int], Field(default_factory=list)),
    "examples": (str, Field(..., examples=["a"])),
    "a regex pattern": (str, Field(..., pattern="^a")),
    "a bound on a string": (str, Field(..., ge=1)),
    "a float bound on an int": (int, Field(..., ge=1.5)),
    "an infinite bound": (float, Field(..., le=math.inf)),
    "a length on a dict": (dict[str, int], Field(..., min_length=1)),
    "Annotated with a plain marker": (Annotated[int, "a note"], Field(...)),
    "Annotated with a default": (Annotated[int, Field(3)], Field(...)),
    "an Optional with bounds": (Annotated[int | None, Field(ge=1)], Field(None)),
    "a json_schema_extra of its own": (str, Field(..., json_schema_extra={"x": 1})),
    "a field named default": (str, Field(..., alias="default")),
    "a field named properties": (str, Field(..., alias="properties")),
    "a bare annotation": (str, "not a FieldInfo"),
}


@pytest.mark.parametrize("case", list(FALLBACKS))
def test_a_signature_the_writer_does_not_cover_falls_back_to_pydantic(case: str) -> None:
    assert write_schema({"value": FALLBACKS[case]}) is None


def test_every_golden_case_gets_the_same_schema_written_or_built() -> None:
    for case in CASES:
        tool = tool_from_function(case)
        assert json.dumps(tool.parameters) == json.dumps(json_schema(tool.model)), case.__name__


# -- the deferred validator -------------------------------------------------------------------


def search(query: str, limit: int = 5, sort: Literal["relevance", "date"] = "relevance") -> str:
    """Search the catalog.

    Args:
        query: Words to look for.
        limit: How many results.
        sort: Order of the results.
    """
    return f"{query} {limit} {sort}"


def _fresh(name: str) -> Any:
    """A copy of `search` that no model cache has seen."""
    namespace: dict[str, Any] = {}
    exec(f"def {name}(query: str, limit: int = 5) -> str:\n    return query * limit", namespace)
    return namespace[name]


def _counting_create_model(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    created: list[str] = []
    real = schema.create_model

    def counted(name: str, **kwargs: Any) -> Any:
        created.append(name)
        return real(name, **kwargs)

    monkeypatch.setattr(schema, "create_model", counted)
    return created


def test_registering_a_simple_tool_leaves_its_model_and_validator_to_the_first_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created = _counting_create_model(monkeypatch)
    registry = Registry()
    tool = registry.register(_fresh("deferred_one"))
    registry.export("openai")
    registry.export("anthropic", strict=True)
    assert tool.diagnostics  # diagnostics, exports and null handling need neither
    assert tool.null_means_default == {"limit"}
    assert created == []
    assert not isinstance(tool.validator, SchemaValidator)
    assert registry.execute("deferred_one", {"query": "ab", "limit": 2}).value == "abab"
    assert created == ["DeferredOneArguments"]
    assert isinstance(tool.validator, SchemaValidator)
    assert tool.validator is tool.model.__pydantic_validator__
    assert registry.execute("deferred_one", '{"query": "c"}').value == "ccccc"
    assert created == ["DeferredOneArguments"]  # built once


def test_reading_the_model_of_a_simple_tool_creates_it_once_with_its_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created = _counting_create_model(monkeypatch)
    tool = tool_from_function(_fresh("read_model"))
    model = tool.model
    assert issubclass(model, BaseModel) and tool.model is model
    assert list(model.model_fields) == ["query", "limit"]
    assert json.dumps(json_schema(model)) == json.dumps(tool.parameters)
    assert created == ["ReadModelArguments"]
    assert tool_from_function(_fresh("read_model")).model is model  # the same signature again
    assert created == ["ReadModelArguments"]
    with pytest.raises(AttributeError, match="no attribute 'modle'"):
        tool.modle  # noqa: B018


def test_threads_calling_a_new_tool_at_once_share_one_model_and_validator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created = _counting_create_model(monkeypatch)
    registry = Registry()
    tool = registry.register(_fresh("raced"))

    def call(limit: int) -> Any:
        return registry.execute("raced", {"query": "a", "limit": limit})

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(call, range(8)))
    assert [r.value for r in results] == ["a" * i for i in range(8)]
    assert created == ["RacedArguments"]
    assert tool.validator is tool.model.__pydantic_validator__


def test_a_tool_that_is_not_simple_builds_its_validator_at_registration() -> None:
    def when(day: datetime.date) -> str:
        """Say the day.

        Args:
            day: The day.
        """
        return day.isoformat()

    tool = tool_from_function(when)
    assert isinstance(tool.validator, SchemaValidator)


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "q", "sort": "bogus"},
        {"query": "q", "limit": "2"},
        {"query": "q", "page": 2},
        {"limit": 2},
        '{"query": "q", "limit": 2.0}',
        '{"query": "q", "limit": NaN}',
        "not json",
        {"query": "q", "limit": None},
    ],
)
def test_a_deferred_validator_answers_as_the_built_one(arguments: Any) -> None:
    saved = dict(schema._MODELS)
    try:
        schema._MODELS.clear()  # the same name and fields would share one model
        built = Registry()
        built.register(search).validator.validate_python({"query": "warm"})
        schema._MODELS.clear()
        deferred = Registry()
        tool = deferred.register(search)
    finally:
        schema._MODELS.clear()
        schema._MODELS.update(saved)
    assert isinstance(built.get("search").validator, SchemaValidator)
    assert not isinstance(tool.validator, SchemaValidator)
    first, expected = deferred.execute("search", arguments), built.execute("search", arguments)
    assert first.to_dict() == expected.to_dict()
    assert deferred.execute("search", arguments).to_dict() == expected.to_dict()


def test_a_spec_tool_is_written_and_deferred_too(monkeypatch: pytest.MonkeyPatch) -> None:
    created = _counting_create_model(monkeypatch)
    spec = ToolSpec(
        name="lookup",
        description="Look a word up.",
        parameters=[
            Param("word", "string", "The word."),
            Param("limit", "integer", "How many.", required=False, minimum=1, maximum=9),
            Param("mode", "string", "How.", required=False, enum=["exact", "fuzzy"]),
        ],
    )
    registry = Registry()
    tool = registry.register(spec, lambda word, limit=3, mode="exact": f"{word}{limit}{mode}")
    assert created == []
    assert registry.execute("lookup", {"word": "a"}).value == "a3exact"
    assert registry.execute("lookup", {"word": "a", "limit": 10}).ok is False
    assert created == ["LookupArguments"]
    assert json.dumps(tool.parameters) == json.dumps(json_schema(tool.model))


def test_an_unsupported_type_still_fails_at_registration() -> None:
    class Opaque:
        pass

    def take(thing: Opaque) -> None:
        """Take it.

        Args:
            thing: The thing.
        """

    with pytest.raises(ToolDefinitionError, match="has no JSON Schema"):
        tool_from_function(take)


def test_positional_defaults_are_read_without_building_the_validator() -> None:
    namespace: dict[str, Any] = {}
    source = "def first(text: str = 'x', /, times: int = 1) -> str:\n    return text * times"
    exec(source, namespace)
    tool = tool_from_function(namespace["first"])
    assert not tool.model.__pydantic_complete__
    assert tool.positional == (("text", "x"),)


# -- type hints ---------------------------------------------------------------------------------


class Local:
    pass


def hinted(  # every kind of annotation the fast path reads or hands to typing
    a: str,
    b: list[dict[str, int | None]],
    c: Literal["x", "y"],
    d: Annotated[int, Field(ge=1), "note"],
    e: Local,
    f: tuple[int, ...],
    g: None,
    h: Optional[float] = None,  # noqa: UP045
) -> dict[str, Any]:
    return {}


def nested_string(a: list[Local]) -> None:
    pass


nested_string.__annotations__["a"] = list["Local"]  # a string inside a generic: typing's job


def test_plain_type_hints_equal_typings() -> None:
    fast = _plain_type_hints(hinted)
    assert fast is not None
    expected = typing.get_type_hints(hinted, include_extras=True)
    assert {k: repr(v) for k, v in fast.items()} == {k: repr(v) for k, v in expected.items()}
    assert _plain_type_hints(nested_string) is None


def test_a_name_only_an_enclosing_function_knows_still_resolves() -> None:
    class Inner(BaseModel):
        n: int = 1

    def uses(arg: Inner) -> None:
        """Use it.

        Args:
            arg: The argument.
        """

    assert _plain_type_hints(uses) is None  # "Inner" is not in the module: typing's path
    assert model_from_function(uses, "uses").model.model_fields["arg"].annotation is Inner


@pytest.mark.parametrize(
    ("annotation", "reason"),
    [
        (Annotated[int, Field(ge="a")], "'ge' must be coercible to an integer"),
        (Annotated[str, Field(max_length=-1)], "can't convert negative int to unsigned"),
    ],
)
def test_a_constraint_pydantic_cannot_check_is_a_clear_error_at_registration(
    annotation: Any, reason: str
) -> None:
    def bounded(x: int) -> int:
        """Returns x.

        Args:
            x: A number.
        """
        return x

    bounded.__annotations__["x"] = annotation
    with pytest.raises(ToolDefinitionError) as caught:
        Registry().register(bounded)
    message = str(caught.value)
    assert "Tool 'bounded': parameter \"x\" has a constraint that cannot be checked" in message
    assert reason in message and "Error building" not in message


@given(
    st.lists(st.integers(-5, 5) | st.sampled_from([0.5, 2.5]), min_size=1, max_size=5, unique=True),
    st.none() | st.integers(-5, 5),
    st.none() | st.integers(-5, 5),
)
def test_an_enum_with_bounds_lists_the_values_inside_them_and_accepts_only_those(
    values: list[Any], low: int | None, high: int | None
) -> None:
    """Pydantic writes a Literal's `ge`/`le` into the schema as keys of its own (not JSON Schema:
    `{"enum": [1, 2, 5], "ge": 1, "le": 3}`); the schema lists the values the bounds allow."""
    inside = [v for v in values if (low is None or v >= low) and (high is None or v <= high)]
    param = Param("n", "number", "A number.", enum=values, minimum=low, maximum=high)
    spec = ToolSpec(name="pick", description="Pick a number.", parameters=[param])
    registry = Registry()
    if not inside:
        with pytest.raises(ToolDefinitionError, match="no value of parameter 'n'"):
            registry.register(spec, lambda n: n)
        return
    registry.register(spec, lambda n: n)
    shown = registry.export("openai")[0]["function"]["parameters"]["properties"]["n"]
    assert not {"ge", "le", "gt", "lt"} & set(shown)
    assert shown.get("enum", [shown.get("const")]) == inside  # one value is written as const
    for value in [*values, low, high, 99]:
        result = registry.execute("pick", {"n": value})
        assert result.ok is (value in inside and type(value) is not type(None)), (value, result)
