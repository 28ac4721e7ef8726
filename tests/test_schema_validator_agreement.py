"""The schema the model sees and the validator that checks its arguments accept the same inputs.

The judge is the `jsonschema` library: on every golden signature, on random and on schema-shaped
arguments, and on hand-written ones, whatever it accepts the validator accepts and vice versa,
through both doors (`Tool.validate` for a decoded dict, `Tool.validate_json` for raw text). The
strict export (OpenAI strict mode) is judged too: whatever it accepts, the validator accepts.

Kept out, each for a stated reason:
- `dates`: JSON Schema's `format` is only an annotation there; we validate dates for real.
- null for an omittable, non-nullable property, at any depth: the validator reads it as "left
  out" (a strict-mode model sends exactly that), where the plain schema says no. Such nulls are
  dropped before the plain schema judges; the strict schema judges them as they are.

Literals and enums of every JSON type (strings, integers, numbers, booleans, null, mixed; `Literal`,
`Enum` classes, a spec's `enum`, in lists and unions) are judged too, with booleans and 0/1 among
the values tried: `true` is never 1 and 1 never `true` (Python's `True == 1` is not JSON Schema's).
"""

from __future__ import annotations

import json
from enum import Enum, IntEnum, StrEnum
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_core import ValidationError

from tests.schema_cases import CASES
from toolsys import Param, Registry, ToolSpec
from toolsys.export import StrictSchemaError, make_strict
from toolsys.tool import Tool, tool_from_function, tool_from_spec


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


class Coats(IntEnum):
    ONE = 1
    TWO = 2
    THREE = 3


class Ratio(float, Enum):
    HALF = 0.5
    WHOLE = 1.0


class Switch(Enum):
    ON = True
    OFF = False


def literals_of_every_type(
    text: Literal["a", "b"] = "a",
    whole: Literal[1, 2, 3] = 1,
    real: Literal[0.5, 1.5] = 0.5,
    flag: Literal[True] = True,
    nothing: Literal[None] = None,
    mixed: Literal[1, "one", True] = "one",
    falsy: Literal[0, False] = 0,
    many: list[Literal[1, 2]] | None = None,
    maybe: Literal[1, 2] | None = None,
) -> None:
    """Literals of every JSON type."""


def enums_of_every_type(
    colour: Colour = Colour.RED,
    coats: Coats = Coats.ONE,
    ratio: Ratio = Ratio.HALF,
    switch: Switch = Switch.ON,
    several: list[Coats] | None = None,
) -> None:
    """Enum classes of every JSON type."""


SPEC_ENUMS = ToolSpec(
    "spec_enums",
    "A spec's enums.",
    [
        Param("level", "integer", "Level.", required=False, default=1, enum=[1, 2, 3]),
        Param("on", "boolean", "On.", required=False, default=True, enum=[True]),
        Param("ratio", "number", "Ratio.", required=False, default=0.5, enum=[0.5, 2]),
        Param("word", "string", "Word.", required=False, default="x", enum=["x", "y"]),
    ],
)
LITERALS = [
    tool_from_function(literals_of_every_type),
    tool_from_function(enums_of_every_type),
    tool_from_spec(SPEC_ENUMS, lambda level=1, on=True, ratio=0.5, word="x": None),
]
TOOLS = [tool_from_function(fn) for fn in CASES if fn.__name__ != "dates"] + LITERALS
BY_NAME = {tool.name: tool for tool in TOOLS}
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, 1.0, 2.0, -3.0, 2.5, 1e20])  # integral floats are integers to JSON
    | st.text(max_size=6)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


# -- the judges ---------------------------------------------------------------------------------


def _validator_accepts(tool: Tool, arguments: dict) -> bool:
    try:
        tool.validate(arguments)
    except ValidationError:
        return False
    return True


def _text_validator_accepts(tool: Tool, arguments: dict) -> bool:
    try:
        tool.validate_json(json.dumps(arguments))
    except ValidationError:
        return False
    return True


def _schema_accepts(schema: dict, arguments: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(arguments)


# -- the documented exceptions ------------------------------------------------------------------


def _resolve(node: Any, root: dict) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].split("/")[-1]]
    return node


def _options(node: Any, root: dict) -> list[dict]:
    node = _resolve(node, root)
    if not isinstance(node, dict):
        return []
    return [node, *(_resolve(option, root) for option in node.get("anyOf", ()))]


def _nullable(node: Any, root: dict) -> bool:
    for option in _options(node, root):
        kind = option.get("type")
        if kind == "null" or (isinstance(kind, list) and "null" in kind) or not option:
            return True
    return False


def _drop_nulls_for_defaults(value: Any, node: Any, root: dict) -> Any:
    """`value` as the validator reads it: a null for an omittable, non-nullable property dropped."""
    options = _options(node, root)
    if isinstance(value, dict):
        for option in options:
            properties = option.get("properties")
            if properties is None:
                continue
            required = set(option.get("required", ()))
            out = {}
            for key, item in value.items():
                sub = properties.get(key, option.get("additionalProperties", {}))
                omittable = key in properties and key not in required
                if item is None and omittable and not _nullable(sub, root):
                    continue
                out[key] = _drop_nulls_for_defaults(item, sub, root)
            return out
    if isinstance(value, list):
        for option in options:
            if isinstance(option.get("items"), dict):
                return [_drop_nulls_for_defaults(item, option["items"], root) for item in value]
    return value


def assert_judged_alike(tool: Tool, arguments: dict) -> None:
    schema = tool.parameters
    expected = _schema_accepts(schema, _drop_nulls_for_defaults(arguments, schema, schema))
    shown = json.dumps(arguments)
    assert _validator_accepts(tool, arguments) == expected, f"validate: {shown}"
    assert _text_validator_accepts(tool, arguments) == expected, f"validate_json: {shown}"


# -- random arguments ---------------------------------------------------------------------------


def _arguments(tool: Tool) -> st.SearchStrategy[dict]:
    """Random arguments: some real parameter names, sometimes an unknown one, random values."""
    names = [*tool.parameters["properties"], "unexpected"]
    return st.dictionaries(st.sampled_from(names), json_values, max_size=len(names))


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
@SETTINGS
@given(data=st.data())
def test_random_arguments_are_judged_alike(tool: Tool, data: st.DataObject) -> None:
    assert_judged_alike(tool, data.draw(_arguments(tool)))


def _from_schema(node: dict, defs: dict, depth: int = 0) -> st.SearchStrategy:
    """Values that mostly fit `node`, often exactly; a small stand-in for a schema generator."""
    if "$ref" in node:
        return _from_schema(defs[node["$ref"].split("/")[-1]], defs, depth + 1)
    if "enum" in node:
        values = node["enum"]
        integral = [float(v) for v in values if type(v) is int]  # 2.0 is in enum [1, 2, 3]
        crossed = [True, False, 0, 1, 1.0, 0.0]  # true is not 1 to JSON Schema
        return st.sampled_from([*values, *integral, None, *crossed])
    if "const" in node:
        return st.sampled_from([node["const"], None, True, False, 0, 1])
    if "anyOf" in node:
        return st.one_of([_from_schema(option, defs, depth) for option in node["anyOf"]])
    kinds = node.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not kinds or depth > 3:
        return json_values
    strategies = []
    for kind in kinds:
        if kind == "string":
            strategies.append(st.text(max_size=45))
        elif kind == "integer":
            strategies.append(st.integers(-5, 200) | st.integers(-5, 200).map(float))
        elif kind == "number":
            strategies.append(scalars.filter(lambda v: isinstance(v, int | float)))
        elif kind == "boolean":
            strategies.append(st.booleans())
        elif kind == "null":
            strategies.append(st.none())
        elif kind == "array":
            items = node.get("prefixItems")
            if items:
                strategies.append(
                    st.tuples(*(_from_schema(i, defs, depth + 1) for i in items)).map(list)
                )
            else:
                item = _from_schema(node.get("items", {}), defs, depth + 1)
                strategies.append(st.lists(item, max_size=3))
        elif kind == "object":
            strategies.append(_object(node, defs, depth + 1))
    return st.one_of(strategies)


def _object(node: dict, defs: dict, depth: int) -> st.SearchStrategy[dict]:
    properties = node.get("properties", {})
    if not properties:
        extra = node.get("additionalProperties", {})
        if extra is False:
            return st.just({})
        values = _from_schema(extra, defs, depth) if isinstance(extra, dict) else json_values
        return st.dictionaries(st.text(max_size=4), values, max_size=2)
    required = node.get("required", [])
    optional = {k: _from_schema(v, defs, depth) for k, v in properties.items() if k not in required}
    return st.fixed_dictionaries(
        {k: _from_schema(properties[k], defs, depth) for k in required}, optional=optional
    )


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
@SETTINGS
@given(data=st.data())
def test_schema_shaped_arguments_are_judged_alike(tool: Tool, data: st.DataObject) -> None:
    defs = tool.parameters.get("$defs", {})
    assert_judged_alike(tool, data.draw(_object(tool.parameters, defs, 0)))


def test_schema_shaped_arguments_are_mostly_valid() -> None:
    """Guard against a vacuous property test: the generator must produce accepted inputs too."""
    accepted = 0
    tool = BY_NAME["nested_model"]

    @settings(max_examples=100, deadline=None, database=None, derandomize=True)
    @given(args=_object(tool.parameters, {}, 0))
    def count(args: dict) -> None:
        nonlocal accepted
        accepted += _schema_accepts(tool.parameters, args)

    count()
    assert accepted >= 10


# -- the strict export --------------------------------------------------------------------------


def _strict(tool: Tool) -> dict | None:
    try:
        return make_strict(tool.parameters, tool.name)
    except StrictSchemaError:
        return None


STRICT = [(tool, _strict(tool)) for tool in TOOLS if _strict(tool) is not None]


@pytest.mark.parametrize(("tool", "strict"), STRICT, ids=lambda t: getattr(t, "name", "strict"))
@SETTINGS
@given(data=st.data())
def test_what_the_strict_schema_accepts_the_validator_accepts(
    tool: Tool, strict: dict, data: st.DataObject
) -> None:
    """A strict-mode model sends every key, null for "left out": all of it must validate."""
    arguments = data.draw(_object(strict, strict.get("$defs", {}), 0))
    if not _schema_accepts(strict, arguments):
        return
    assert _validator_accepts(tool, arguments), json.dumps(arguments)
    assert _text_validator_accepts(tool, arguments), json.dumps(arguments)


# -- hand-written arguments ---------------------------------------------------------------------

TREE_WITH_NULL = {"tree": {"label": "a", "children": [{"label": "b", "children": None}]}}
NESTED_OK = {"items": [{"sku": "A", "quantity": 2}], "customer": {"name": "N", "address": {}}}
NESTED_OK["customer"]["address"] = {"street": "S", "city": "C"}

HAND_WRITTEN: list[tuple[str, dict, bool]] = [
    ("google_style", {"a": 1, "b": 2.5}, True),
    ("google_style", {"a": "1", "b": 2}, False),
    ("blank_line_after_args", {"query": "q", "limit": 2.0}, True),
    ("blank_line_after_args", {"query": "q", "limit": 2.5}, False),
    ("blank_line_after_args", {"query": "q", "limit": 1e20}, True),
    ("blank_line_after_args", {"query": "q", "limit": -0.0}, True),
    ("blank_line_after_args", {"query": "q", "limit": "2"}, False),
    ("literal_enum", {"level": 2.0}, True),
    ("literal_enum", {"level": 2.5}, False),
    ("literal_enum", {"level": 4.0}, False),
    ("enum_classes", {"unit": "celsius", "priority": 2.0}, True),
    ("enum_classes", {"unit": "kelvin"}, False),
    ("containers", {"tags": [], "scores": {"a": 1}, "pair": [1.0, "x"], "fixed": [1.0, 2]}, True),
    ("containers", {"tags": [], "scores": {}, "pair": [1.5, "x"]}, False),
    ("containers", {"tags": [], "scores": {}, "pair": [1, "x", 3]}, False),
    ("union_types", {"target": 3.0}, True),
    ("union_types", {"target": 3.5}, False),
    ("union_types", {"target": "x", "value": 3.5}, True),
    ("annotated_constraints", {"name": "n", "age": 150.0}, True),
    ("annotated_constraints", {"name": "n", "age": 151.0}, False),
    ("annotated_constraints", {"name": "", "age": 1}, False),
    ("optional_versus_default", {"required_nullable": None}, True),
    ("optional_versus_default", {"required_nullable": 1.0, "omittable": 2.0}, True),
    ("optional_versus_default", {}, False),
    ("nested_model", NESTED_OK, True),
    ("nested_model", {**NESTED_OK, "items": [{"sku": "A", "quantity": 3.0}]}, True),
    ("nested_model", {**NESTED_OK, "items": [{"sku": "A", "quantity": 0}]}, False),
    ("nested_model", {**NESTED_OK, "items": [{"sku": "A", "quantity": 2.5}]}, False),
    ("recursive_model", {"tree": {"label": "a", "children": [{"label": "b"}]}}, True),
    ("recursive_model", {"tree": {"label": "a", "children": [{"label": 1}]}}, False),
    ("dataclass_param", {"origin": {"x": 1, "y": 2.0}}, True),
    ("dataclass_param", {"origin": {"x": 1, "y": 2}, "target": None}, True),
    ("dataclass_param", {"origin": {"x": 1}}, False),
    ("any_and_bool", {"payload": {"deep": [1, None, "x"]}, "dry_run": False}, True),
    ("any_and_bool", {"payload": 1, "dry_run": 1}, False),
    ("shadowing_names", {"json": "{}", "copy": True, "schema": "v2"}, True),
]


@pytest.mark.parametrize(("name", "arguments", "valid"), HAND_WRITTEN)
def test_hand_written_arguments_are_judged_alike(name: str, arguments: dict, valid: bool) -> None:
    tool = BY_NAME[name]
    assert _schema_accepts(tool.parameters, arguments) is valid  # the judge agrees with us
    assert _validator_accepts(tool, arguments) is valid
    assert _text_validator_accepts(tool, arguments) is valid


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("blank_line_after_args", {"query": "q", "limit": None}),
        ("nested_model", {**NESTED_OK, "items": [{"sku": "A", "quantity": None}]}),
        (
            "recursive_model",
            {"tree": {"label": "a", "children": [{"label": "b", "children": None}]}},
        ),
    ],
)
def test_null_for_an_omittable_argument_is_the_strict_schemas_reading(
    name: str, arguments: dict
) -> None:
    tool = BY_NAME[name]
    schema = tool.parameters
    assert not _schema_accepts(schema, arguments)
    assert _schema_accepts(schema, _drop_nulls_for_defaults(arguments, schema, schema))
    strict = make_strict(schema, tool.name)
    sent = _every_key(arguments, strict, strict)
    assert _schema_accepts(strict, sent)
    for judged in (arguments, sent):
        assert _validator_accepts(tool, judged) and _text_validator_accepts(tool, judged)


def _every_key(value: Any, node: Any, root: dict) -> Any:
    """What a strict-mode model sends: every key at every depth, null for the ones left out."""
    for option in _options(node, root):
        if isinstance(value, dict) and "properties" in option:
            return {k: _every_key(value.get(k), s, root) for k, s in option["properties"].items()}
        if isinstance(value, list) and isinstance(option.get("items"), dict):
            return [_every_key(item, option["items"], root) for item in value]
    return value


LITERAL_CASES: list[tuple[str, dict, bool]] = [
    ("literal_enum", {"level": True}, False),  # the case that used to be an exception
    ("literal_enum", {"level": 1}, True),
    ("literals_of_every_type", {"whole": True}, False),
    ("literals_of_every_type", {"whole": 1.0}, True),  # 1.0 is 1 to JSON Schema
    ("literals_of_every_type", {"real": True}, False),
    ("literals_of_every_type", {"real": 1.5}, True),
    ("literals_of_every_type", {"flag": 1}, False),
    ("literals_of_every_type", {"flag": True}, True),
    ("literals_of_every_type", {"nothing": None}, True),
    ("literals_of_every_type", {"nothing": False}, False),
    ("literals_of_every_type", {"mixed": True}, True),
    ("literals_of_every_type", {"mixed": 1}, True),
    ("literals_of_every_type", {"mixed": 1.0}, True),
    ("literals_of_every_type", {"mixed": False}, False),
    ("literals_of_every_type", {"falsy": False}, True),
    ("literals_of_every_type", {"falsy": 0}, True),
    ("literals_of_every_type", {"falsy": True}, False),
    ("literals_of_every_type", {"many": [1, True]}, False),
    ("literals_of_every_type", {"many": [1, 2.0]}, True),
    ("literals_of_every_type", {"maybe": True}, False),
    ("literals_of_every_type", {"maybe": None}, True),
    ("enums_of_every_type", {"coats": True}, False),
    ("enums_of_every_type", {"coats": 3}, True),
    ("enums_of_every_type", {"ratio": True}, False),
    ("enums_of_every_type", {"ratio": 1}, True),
    ("enums_of_every_type", {"switch": 1}, False),
    ("enums_of_every_type", {"switch": False}, True),
    ("enums_of_every_type", {"several": [2, True]}, False),
    ("enums_of_every_type", {"colour": "blue"}, True),
    ("spec_enums", {"level": True}, False),
    ("spec_enums", {"level": 3}, True),
    ("spec_enums", {"on": 1}, False),
    ("spec_enums", {"ratio": True}, False),
    ("spec_enums", {"ratio": 2.0}, True),
]


@pytest.mark.parametrize(("name", "arguments", "valid"), LITERAL_CASES)
def test_a_boolean_is_never_a_number_literal_nor_a_number_a_boolean_one(
    name: str, arguments: dict, valid: bool
) -> None:
    tool = BY_NAME[name]
    assert _schema_accepts(tool.parameters, arguments) is valid  # the judge agrees with us
    assert _validator_accepts(tool, arguments) is valid
    assert _text_validator_accepts(tool, arguments) is valid
    registry = Registry()
    registry.add(tool)  # and `execute`, for a dict and for JSON text
    for sent in (arguments, json.dumps(arguments)):
        result = registry.execute(tool.name, sent)
        assert result.ok is valid, result.error
        if not valid:
            assert result.error is not None and result.error.code == "INVALID_ARGUMENTS"
