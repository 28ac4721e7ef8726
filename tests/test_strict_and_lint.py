"""OpenAI strict mode: what `make_strict` produces, where it refuses, and what `lint` reports."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from tests.schema_cases import CASES
from toolsys import Param, Registry, StrictSchemaError, ToolSpec
from toolsys.export import make_strict
from toolsys.tool import tool_from_function

FORBIDDEN = {"allOf", "oneOf", "not", "prefixItems", "patternProperties", "default"}
NOT_STRICTABLE = {"containers": ("$.scores", "free-form object")}


def assert_strict_compliant(node: Any, path: str = "$") -> None:
    """An independent reading of OpenAI's strict-mode rules, applied to every node."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            assert_strict_compliant(item, f"{path}[{i}]")
        return
    if not isinstance(node, dict):
        return
    assert not FORBIDDEN & node.keys(), f"{path}: {FORBIDDEN & node.keys()}"
    if "properties" in node:
        assert node.get("additionalProperties") is False, path
        assert sorted(node["required"]) == sorted(node["properties"]), path
    for key, value in node.items():
        if key == "properties":
            for name, sub in value.items():
                assert_strict_compliant(sub, f"{path}.{name}")
        elif isinstance(value, dict | list):
            assert_strict_compliant(value, f"{path}.{key}")


@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_every_golden_signature_is_made_strict_or_refused_with_path_and_rule(fn) -> None:
    tool = tool_from_function(fn)
    if fn.__name__ in NOT_STRICTABLE:
        path, rule = NOT_STRICTABLE[fn.__name__]
        with pytest.raises(StrictSchemaError) as info:
            make_strict(tool.parameters, tool.name)
        assert info.value.path == path and rule in info.value.rule
        return
    strict = make_strict(tool.parameters, tool.name)
    assert_strict_compliant(strict)


def test_tuple_is_refused_with_its_path() -> None:
    def pair(p: tuple[int, str]) -> None:
        """Pair.

        Args:
            p: A pair.
        """

    with pytest.raises(StrictSchemaError, match=r"at \$\.p: keyword 'prefixItems'"):
        make_strict(tool_from_function(pair).parameters, "pair")


def test_optional_fields_become_required_and_nullable() -> None:
    registry = Registry()
    spec = ToolSpec(
        "search",
        "Search.",
        [
            Param("query", "string", "Keywords."),
            Param("limit", "integer", "Max results.", required=False, default=5),
            Param("mode", "string", "Mode.", required=False, enum=["a", "b"]),
        ],
    )
    registry.register(spec, lambda query, limit, mode=None: (query, limit, mode))
    function = registry.export("openai", strict=True)[0]["function"]
    assert function["strict"] is True
    parameters = function["parameters"]
    assert parameters["required"] == ["query", "limit", "mode"]
    assert parameters["properties"]["limit"] == {
        "type": ["integer", "null"],
        "description": "Max results.",
    }
    assert parameters["properties"]["mode"] == {
        "anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}],
        "description": "Mode.",
    }
    # What a strict-mode model sends for "left out" is null, and it means the default:
    assert registry.execute("search", {"query": "x", "limit": None, "mode": None}).value == (
        "x",
        5,
        None,
    )


def test_strict_export_does_not_change_the_plain_export() -> None:
    registry = Registry()
    registry.register(CASES[2])  # blank_line_after_args: has an optional parameter
    before = registry.export("openai")[0]["function"]["parameters"]
    registry.export("openai", strict=True)
    assert registry.export("openai")[0]["function"]["parameters"] == before
    assert before["required"] == ["query"]


def test_lint_finds_what_strict_mode_would_reject_before_any_request() -> None:
    registry = Registry()
    for fn in CASES:
        registry.register(fn)
    errors = [i for i in registry.lint("openai", strict=True) if i.severity == "error"]
    assert [(i.tool, i.path) for i in errors] == [("containers", "$.scores")]
    assert "free-form object" in errors[0].rule


def test_lint_reports_diagnostics_as_warnings() -> None:
    registry = Registry()
    registry.register(next(fn for fn in CASES if fn.__name__ == "undocumented"))
    warnings = [str(i) for i in registry.lint("anthropic")]
    assert any("no type hint" in w for w in warnings)
    assert all(w.startswith("warning: undocumented diagnostics:") for w in warnings)


def test_lint_counts_tools_against_openais_limit() -> None:
    registry = Registry()
    for i in range(129):
        registry.register(CASES[1], name=f"tool_{i}")
    assert any("at most 128" in i.rule for i in registry.lint("openai"))
    assert not registry.lint("anthropic")


def test_lint_rejects_an_unknown_target() -> None:
    with pytest.raises(ValueError, match="Unknown lint target 'gemini'"):
        Registry().lint("gemini")


def info(version: str | None = "latest", note: str = "", mode: Literal["a", "b"] | None = "a"):
    """Show docs info.

    Args:
        version: Docs version; null for no version filter.
        note: Free text.
        mode: Display mode
    """
    return (version, note, mode)


def test_strict_null_means_none_and_the_default_is_written_where_the_model_reads() -> None:
    registry = Registry()
    registry.register(info)
    strict = registry.export("openai", strict=True)[0]["function"]["parameters"]["properties"]
    assert strict["version"] == {
        "type": ["string", "null"],
        "description": 'Docs version; null for no version filter. Default: "latest"; to get the '
        'default, send "latest" (null means no value).',
    }
    assert strict["mode"]["description"] == (
        'Display mode. Default: "a"; to get the default, send "a" (null means no value).'
    )
    assert strict["note"] == {"type": ["string", "null"], "description": "Free text."}
    # Every outcome of the plain schema stays reachable for a strict-mode model:
    sent = {"version": None, "note": None, "mode": None}
    assert registry.execute("info", sent).value == (None, "", None)  # null: None; left out: ""
    sent = {"version": "latest", "note": None, "mode": "a"}
    assert registry.execute("info", sent).value == ("latest", "", "a")  # the defaults, sent
    assert registry.execute("info", {}).value == ("latest", "", "a")  # plain mode: left out


def test_a_nullable_spec_parameter_with_a_declared_default_reads_the_same() -> None:
    registry = Registry()
    spec = ToolSpec(
        "resize",
        "Resize.",
        [Param("scale", "number", "Factor.", required=False, default=1.0, nullable=True)],
    )
    registry.register(spec, lambda scale=2.0: scale)
    strict = registry.export("openai", strict=True)[0]["function"]["parameters"]
    assert strict["properties"]["scale"]["description"].endswith(
        "Default: 1.0; to get the default, send 1.0 (null means no value)."
    )
    assert registry.execute("resize", {"scale": None}).value is None
    assert registry.execute("resize", {}).value == 1.0


def test_no_default_note_when_null_already_means_the_default() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["integer", "null"], "default": None},
            "b": {"type": "integer", "default": 3},
            "c": {"type": ["integer", "null"]},
        },
    }
    strict = make_strict(schema)["properties"]
    assert strict == {
        "a": {"type": ["integer", "null"]},
        "b": {"type": ["integer", "null"]},
        "c": {"type": ["integer", "null"]},
    }


def test_strict_nested_nulls_mean_the_nested_defaults() -> None:
    registry = Registry()
    nested = next(fn for fn in CASES if fn.__name__ == "nested_model")
    registry.register(nested)
    strict = registry.export("openai", strict=True)[0]["function"]["parameters"]
    item = strict["properties"]["items"]["items"]
    assert item["required"] == ["sku", "quantity"]
    assert item["properties"]["quantity"]["type"] == ["integer", "null"]
    address = {"street": "S", "city": "C", "country": None}
    sent = {
        "items": [{"sku": "A", "quantity": None}],
        "customer": {"name": "N", "address": address},
    }
    model = registry.get("nested_model").validate(sent)
    assert model.items[0].quantity == 1 and model.customer.address.country == "FR"
