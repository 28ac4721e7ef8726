"""The providers' current tool shapes: Responses API function tools, Anthropic's strict mode,
input_examples and tool search (`toolsys.export`), checked against the SDKs' own types."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from openai.types.responses import FunctionTool, ToolSearchTool
from pydantic import BaseModel, ConfigDict, Field

from tests.schema_cases import CASES
from toolsys import Registry, StrictSchemaError, ToolDefinitionError, models
from toolsys.export import ANTHROPIC_FORMATS, deferred_export, lint, make_anthropic_strict
from toolsys.tool import tool_from_function
from toolsys.tools import registry as builtin

# anthropic-sdk-python 0.121, src/anthropic/types/tool_param.py: the keys a custom tool takes.
ANTHROPIC_TOOL_KEYS = {
    "name",
    "input_schema",
    "allowed_callers",
    "cache_control",
    "defer_loading",
    "description",
    "eager_input_streaming",
    "input_examples",
    "strict",
    "type",
}
# Keywords Anthropic's strict mode keeps (the same SDK, lib/_parse/_transform.py).
ANTHROPIC_STRICT_KEYWORDS = {
    "type",
    "description",
    "title",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "format",
}
NOT_STRICTABLE = {  # golden signature -> where Anthropic's strict mode refuses it, and why
    "containers": ("$.scores", "additionalProperties: false"),  # a dict[str, int]
    "recursive_model": ("$defs.TreeNode", "recursive"),
}


def weather_registry() -> Registry:
    registry = Registry()

    @registry.tool(examples=[{"city": "Paris"}, {"city": "Tokyo", "days": 3, "units": "imperial"}])
    def get_weather(
        city: Annotated[str, Field(min_length=2)],
        days: Annotated[int, Field(ge=1, le=7)] = 1,
        units: Literal["metric", "imperial"] = "metric",
    ) -> dict:
        """Weather forecast for a city.

        Args:
            city: City name, e.g. Paris.
            days: How many days ahead.
            units: Unit system.
        """
        return {"city": city}

    return registry


# --- openai-responses ---


@pytest.mark.parametrize("strict", [False, True])
def test_the_responses_export_is_the_flat_function_tool_the_sdk_defines(strict):
    for exported in builtin.export("openai-responses", strict=strict):
        tool = FunctionTool.model_validate(exported)
        assert tool.strict is strict  # always said: omitted, the Responses API tries strict
        chat = next(
            t["function"]
            for t in builtin.export("openai", strict=strict)
            if t["function"]["name"] == tool.name
        )
        assert exported["parameters"] == chat["parameters"]
        assert set(exported) == {"type", "name", "description", "parameters", "strict"}


def test_the_offline_responses_endpoint_takes_the_export_as_it_is():
    response = models.client().responses.create(
        model=models.default_model(),
        input="What's the weather in Paris?",
        tools=builtin.export("openai-responses"),
    )
    assert [o.name for o in response.output] == ["get_weather"]


def test_lint_knows_the_responses_target():
    assert lint(builtin, "openai-responses", strict=True) == lint(builtin, "openai", strict=True)


# --- Anthropic: input_examples ---


def test_declared_examples_are_sent_as_input_examples_and_only_to_anthropic():
    registry = weather_registry()
    (exported,) = registry.export("anthropic")
    assert set(exported) <= ANTHROPIC_TOOL_KEYS
    assert exported["input_examples"] == [
        {"city": "Paris"},
        {"city": "Tokyo", "days": 3, "units": "imperial"},
    ]
    for target in ("openai", "openai-responses", "mcp"):
        assert "input_examples" not in json.dumps(registry.export(target))
    assert registry.get("get_weather").validate({"city": "Tokyo", "days": 3, "units": "imperial"})


@pytest.mark.parametrize(
    ("examples", "says"),
    [
        ([{"city": 3}], "at city: Input should be a valid string"),
        ([{"days": 2}], "at city: Field required"),
        ([{"city": "Paris", "day": 2}], "at day: Extra inputs are not permitted"),
        ([{"city": "Paris", "days": 9}], "at days: Input should be less than or equal to 7"),
        ([{"city": "Paris", "days": "2"}], "at days: Input should be a valid integer"),
        (
            [{"city": "Paris", "units": "kelvin"}],
            "at units: Input should be 'metric' or 'imperial'",
        ),
        ([{"city": float("nan")}], "is not JSON"),
        (["Paris"], "is str, not an object of arguments"),
        ("Paris", "give a list of argument objects"),
        ([{"city": "P" * 3}] * 21, "give at most 20"),
    ],
)
def test_an_example_the_tool_would_refuse_is_refused_at_registration(examples, says):
    registry = Registry()

    def get_weather(
        city: Annotated[str, Field(min_length=2)],
        days: Annotated[int, Field(ge=1, le=7)] = 1,
        units: Literal["metric", "imperial"] = "metric",
    ) -> dict:
        """Weather.

        Args:
            city: City.
            days: Days.
            units: Units.
        """
        return {}

    with pytest.raises(ToolDefinitionError, match=r"Tool 'get_weather': \d* ?example") as caught:
        registry.register(get_weather, examples=examples)
    assert says in str(caught.value)
    assert "get_weather" not in registry


def test_an_argument_model_can_declare_its_examples_in_its_json_schema():
    class Search(BaseModel):
        model_config = ConfigDict(
            json_schema_extra={"examples": [{"query": "retry policy", "k": 3}]}
        )
        query: str = Field(description="What to look for.")
        k: int = Field(5, description="How many hits.")

    registry = Registry()

    @registry.tool(args=Search)
    def search(args: Search) -> list:
        """Search the docs."""
        return []

    (exported,) = registry.export("anthropic")
    assert exported["input_examples"] == [{"query": "retry policy", "k": 3}]
    assert "examples" not in exported["input_schema"]  # sent once, as input_examples

    class Bad(BaseModel):
        model_config = ConfigDict(json_schema_extra={"examples": [{"k": 3}]})
        query: str

    with pytest.raises(ToolDefinitionError, match="at query: Field required"):
        Registry().register(lambda args: None, name="bad", args=Bad)


def test_examples_follow_a_tool_into_a_namespace():
    registry = Registry()
    registry.include(weather_registry(), prefix="wx")
    (exported,) = registry.export("anthropic")
    assert exported["name"] == "wx__get_weather" and len(exported["input_examples"]) == 2


# --- Anthropic: strict mode ---


def assert_anthropic_strict(node: Any, path: str = "$") -> None:
    """An independent reading of the SDK's strict subset, applied to every node."""
    if isinstance(node, list):
        for item in node:
            assert_anthropic_strict(item, path)
        return
    if not isinstance(node, dict):
        return
    assert set(node) <= ANTHROPIC_STRICT_KEYWORDS, (
        f"{path}: {set(node) - ANTHROPIC_STRICT_KEYWORDS}"
    )
    if node.get("type") == "object" or "properties" in node:
        assert node["additionalProperties"] is False, path
    if "format" in node:
        assert node["format"] in ANTHROPIC_FORMATS, path
    if "minItems" in node:
        assert node["minItems"] in (0, 1), path
    for key, value in node.items():
        if key == "properties":
            for name, sub in value.items():
                assert_anthropic_strict(sub, f"{path}.{name}")
        elif key in ("items", "anyOf", "allOf"):
            assert_anthropic_strict(value, f"{path}.{key}")
        elif key == "$defs":
            for sub in value.values():
                assert_anthropic_strict(sub, path)


@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_every_golden_signature_is_made_anthropic_strict_or_refused_with_its_path(fn):
    tool = tool_from_function(fn)
    if fn.__name__ in NOT_STRICTABLE:
        with pytest.raises(StrictSchemaError) as caught:
            make_anthropic_strict(tool.parameters, tool.name)
        path, rule = NOT_STRICTABLE[fn.__name__]
        assert caught.value.path == path and rule in caught.value.rule
        return
    strict = make_anthropic_strict(tool.parameters, tool.name)
    assert_anthropic_strict(strict)
    assert strict.get("required", []) == tool.parameters.get("required", [])  # unlike OpenAI's


def test_anthropic_strict_export_keeps_required_and_moves_what_it_cannot_enforce_into_words():
    registry = weather_registry()
    (exported,) = registry.export("anthropic", strict=True)
    assert exported["strict"] is True and set(exported) <= ANTHROPIC_TOOL_KEYS
    schema = exported["input_schema"]
    assert schema["required"] == ["city"] and schema["additionalProperties"] is False
    days = schema["properties"]["days"]
    assert days == {
        "type": "integer",
        "description": "How many days ahead. Checked by the tool, not by strict mode: at least 1, "
        "at most 7. Default: 1.",
    }
    assert "at least 2 characters" in schema["properties"]["city"]["description"]
    assert schema["properties"]["units"]["enum"] == ["metric", "imperial"]
    # the tool still checks what strict mode does not
    result = registry.execute("get_weather", {"city": "Paris", "days": 9})
    assert result.error.code == "INVALID_ARGUMENTS"


def test_anthropic_strict_rewrites_one_of_and_const_and_keeps_supported_formats():
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "color": {"type": "string", "format": "hex-color"},
            "kind": {"const": "a"},
            "either": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 2,
                "uniqueItems": True,
            },
        },
        "required": ["when"],
    }
    strict = make_anthropic_strict(schema)
    props = strict["properties"]
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert props["color"]["description"].endswith('in the format "hex-color".')
    assert props["kind"] == {"enum": ["a"]}
    assert "anyOf" in props["either"] and "oneOf" not in props["either"]
    assert (
        props["tags"]["description"]
        == "Checked by the tool, not by strict mode: at least 2 items, no item twice."
    )
    assert schema["properties"]["kind"] == {"const": "a"}  # the input is not changed


@pytest.mark.parametrize(
    ("schema", "path", "rule"),
    [
        (
            {
                "type": "object",
                "properties": {
                    "m": {"type": "object", "additionalProperties": {"type": "integer"}}
                },
            },
            "$.m",
            "free-form",
        ),
        (
            {
                "type": "object",
                "properties": {"p": {"type": "array", "prefixItems": [{"type": "integer"}]}},
            },
            "$.p",
            "tuple",
        ),
        (
            {
                "type": "object",
                "properties": {"tree": {"$ref": "#/$defs/Node"}},
                "$defs": {
                    "Node": {
                        "type": "object",
                        "properties": {
                            "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                        },
                    }
                },
            },
            "$defs.Node",
            "recursive",
        ),
    ],
    ids=["dict", "tuple", "recursive"],
)
def test_what_anthropic_strict_mode_cannot_sample_is_refused_with_path_and_rule(schema, path, rule):
    with pytest.raises(StrictSchemaError) as caught:
        make_anthropic_strict(schema, "t")
    assert caught.value.path == path and rule in caught.value.rule


def test_lint_reports_anthropic_strict_errors_and_what_it_would_not_enforce():
    registry = weather_registry()

    @registry.tool
    def tally(scores: dict[str, int]) -> int:
        """Sum scores.

        Args:
            scores: Score per name.
        """
        return sum(scores.values())

    issues = registry.lint("anthropic", strict=True)
    errors = [i for i in issues if i.severity == "error"]
    assert [(i.tool, i.path) for i in errors] == [("tally", "$.scores")]
    warnings = {(i.tool, i.path) for i in issues if "strict mode does not enforce" in i.rule}
    assert warnings == {("get_weather", "$.city"), ("get_weather", "$.days")}
    assert not [i for i in registry.lint("anthropic") if "strict mode" in i.rule]


# --- the providers' tool search ---


def test_anthropics_tool_search_defers_every_tool_but_the_core_ones():
    exported = deferred_export(builtin, "anthropic", core=["calculator"])
    assert exported[0] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    loaded = {t["name"]: t.get("defer_loading", False) for t in exported[1:]}
    assert loaded == {name: name != "calculator" for name in builtin.names()}
    assert all(set(t) <= ANTHROPIC_TOOL_KEYS for t in exported[1:])
    regex = deferred_export(builtin, "anthropic", search="regex")
    assert regex[0] == {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}


def test_openais_tool_search_is_a_hosted_tool_with_deferred_functions():
    exported = deferred_export(builtin, "openai-responses")
    assert ToolSearchTool.model_validate(exported[0]).type == "tool_search"
    for tool in exported[1:]:
        assert FunctionTool.model_validate(tool).defer_loading is True


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"target": "openai"}, "registry.export(target, deferred=True)"),
        ({"target": "anthropic", "search": "fuzzy"}, "'bm25' and 'regex'"),
        ({"target": "openai-responses", "search": "regex"}, "'bm25' and 'regex'"),
        ({"target": "anthropic", "core": ["nope"]}, "no tool named 'nope'"),
    ],
)
def test_deferred_export_says_what_it_offers(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        deferred_export(builtin, **options)


@pytest.mark.parametrize("target", ["anthropic", "openai-responses"])
def test_deferred_export_lists_what_this_caller_may_use_by_the_names_its_view_runs(target):
    """The providers' shapes list what `export` lists: with `context`, only this caller's tools
    (they used to list role-restricted ones to everyone); for a namespace view, the names the
    view runs them by (they were the root's `b__...` names, which the view calls unknown)."""
    from toolsys import Category
    from toolsys.governance import Policy

    registry = Registry(layers=[Policy()])

    @registry.tool(category=Category.WRITE, roles={"support"})
    def refund(order_id: str) -> dict:
        """Refund an order."""
        return {}

    @registry.tool
    def lookup(order_id: str) -> dict:
        """Look an order up."""
        return {}

    caller = {"user": "bob", "roles": set()}
    names = [t["name"] for t in deferred_export(registry, target, context=caller)[1:]]
    assert names == [t["name"] for t in registry.export(target, context=caller)] == ["lookup"]
    support = {"user": "sue", "roles": {"support"}}
    assert len(deferred_export(registry, target, context=support)) == 3
    with pytest.raises(ValueError, match="give the registry"):
        deferred_export(list(registry), target, context=caller)
    plain = deferred_export(list(registry), target, core=["lookup"])
    assert [(t["name"], t.get("defer_loading", False)) for t in plain[1:]] == [
        ("refund", True),
        ("lookup", False),
    ]

    root = Registry()
    root.include(builtin, prefix="b")
    view = root.namespace("b")
    exported = deferred_export(view, target, core=["calculator"])
    names = [t["name"] for t in exported[1:]]
    assert names == [t["name"] for t in view.export(target)] == builtin.names()
    assert [t["name"] for t in exported[1:] if not t.get("defer_loading")] == ["calculator"]
    assert view.execute("calculator", {"expression": "1+1"}).ok
