"""Chapter 03 checks reject the careless solutions a student is likely to write, and accept
correct ones written differently.

Wrong answers are functions around a correct one, or the solution with one change written as code
(`swap`), so re-formatting a solution does not break them.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

import pytest

from tests.solution_code import answer, drop, swap, verdict
from toolsys import checks
from toolsys.checks import Status
from toolsys.export import make_strict
from toolsys.spec import Param, ToolSpec


def good_param(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": param.type}
    if param.description:
        schema["description"] = param.description
    if param.enum is not None:
        schema["enum"] = list(param.enum)
    if param.items is not None:
        schema["items"] = {"type": param.items}
    if not param.required and param.default is not None:
        schema["default"] = param.default
    for key in ("minimum", "maximum"):
        if getattr(param, key) is not None:
            schema[key] = getattr(param, key)
    return schema


def good_spec(spec: ToolSpec) -> dict[str, Any]:
    properties = {}
    for param in spec.parameters:
        prop = good_param(param)
        if param.nullable:
            prop["type"] = [prop["type"], "null"]
        properties[param.name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": [p.name for p in spec.parameters if p.required],
        "additionalProperties": False,
    }


def test_the_straightforward_solutions_pass() -> None:
    assert checks.check("3.1", good_param).passed
    assert checks.check("3.2", good_spec).passed
    assert checks.check("3.3", make_strict).passed


@pytest.mark.parametrize("exercise_id", ["3.1", "3.2", "3.3"])
def test_the_solution_and_the_reference_pass(exercise_id: str) -> None:
    exercise = checks.get_exercise(exercise_id)
    assert exercise is not None and exercise.reference is not None
    verdict(exercise_id, answer(exercise_id), Status.PASSED)
    verdict(exercise_id, exercise.reference(), Status.PASSED)


def _truthy_defaults(param: Param) -> dict[str, Any]:
    schema = good_param(param)
    if not param.default:  # drops False and 0
        schema.pop("default", None)
    return schema


def _truthy_bounds(param: Param) -> dict[str, Any]:
    schema = good_param(param)
    if not param.minimum:  # drops a minimum of 0
        schema.pop("minimum", None)
    return schema


def _null_default(param: Param) -> dict[str, Any]:
    schema = good_param(param)
    if not param.required:
        schema.setdefault("default", param.default)
    return schema


def _default_even_if_required(param: Param) -> dict[str, Any]:
    schema = good_param(param)
    if param.default is not None:
        schema["default"] = param.default
    return schema


def _empty_description(param: Param) -> dict[str, Any]:
    return {**good_param(param), "description": param.description}


def _enum_as_given(param: Param) -> dict[str, Any]:
    schema = good_param(param)
    if param.enum is not None:
        schema["enum"] = param.enum  # a tuple stays a tuple
    return schema


def _nullable_in_the_property(param: Param) -> dict[str, Any]:
    schema = good_param(param)
    if param.nullable:  # exercise 3.2's job, done one level too early
        schema["type"] = [param.type, "null"]
    return schema


@pytest.mark.parametrize(
    "wrong",
    [
        _nullable_in_the_property,
        _truthy_defaults,
        _truthy_bounds,
        _null_default,
        _default_even_if_required,
        _empty_description,
        _enum_as_given,
    ],
)
def test_careless_param_to_schema_fails(wrong) -> None:
    result = checks.check("3.1", wrong)
    assert result.status is Status.FAILED, result.text()
    assert result.hint and result.expected and result.got


def _everything_required(spec: ToolSpec) -> dict[str, Any]:
    return {**good_spec(spec), "required": [p.name for p in spec.parameters]}


def _no_additional_properties(spec: ToolSpec) -> dict[str, Any]:
    schema = good_spec(spec)
    del schema["additionalProperties"]
    return schema


def _nullable_ignored(spec: ToolSpec) -> dict[str, Any]:
    schema = good_spec(spec)
    schema["properties"] = {p.name: good_param(p) for p in spec.parameters}
    return schema


def _nullable_means_optional(spec: ToolSpec) -> dict[str, Any]:
    schema = good_spec(spec)
    schema["required"] = [p.name for p in spec.parameters if p.required and not p.nullable]
    return schema


def _null_first(spec: ToolSpec) -> dict[str, Any]:
    schema = good_spec(spec)
    for prop in schema["properties"].values():
        if isinstance(prop["type"], list):
            prop["type"] = ["null", prop["type"][0]]
    return schema


def _sorted_properties(spec: ToolSpec) -> dict[str, Any]:
    schema = good_spec(spec)
    schema["properties"] = dict(sorted(schema["properties"].items()))
    return schema


def test_properties_in_another_order_than_the_spec_fail() -> None:
    result = checks.check("3.2", _sorted_properties)
    assert result.status is Status.FAILED and "another order than the spec" in result.message


@pytest.mark.parametrize(
    "wrong",
    [
        _everything_required,
        _no_additional_properties,
        _nullable_ignored,
        _nullable_means_optional,
        _null_first,
    ],
)
def test_careless_spec_to_schema_fails(wrong) -> None:
    result = checks.check("3.2", wrong)
    assert result.status is Status.FAILED, result.text()


def test_nullable_taken_for_required_gets_a_hint_about_required() -> None:
    wrong = answer(
        "3.2",
        swap(
            "[p.name for p in spec.parameters if p.required]",
            "[p.name for p in spec.parameters if p.required or p.nullable]",
        ),
    )
    result = verdict("3.2", wrong)
    assert "['required']" in result.message
    assert "required=False" in (result.hint or "")


def test_no_hint_of_3_2_says_nullable_parameters_are_required() -> None:
    exercise = checks.get_exercise("3.2")
    assert exercise is not None
    assert not any("nullable parameters are still required" in h for h in exercise.hints)


def test_the_3_2_reference_refuses_a_model_spec_in_one_line_saying_what_to_use() -> None:
    from pydantic import BaseModel

    from toolsys.checks.ch03 import spec_to_schema

    class Args(BaseModel):
        city: str

    with pytest.raises(TypeError) as raised:
        spec_to_schema(ToolSpec("weather", "Weather.", Args))
    message = str(raised.value)
    assert "\n" not in message
    assert "'weather'" in message and "Args" in message and "tool_from_spec" in message


def test_a_schema_with_a_tuple_enum_is_told_it_is_not_a_list() -> None:
    wrong = answer("3.1", swap("list(param.enum)", "param.enum"))
    assert "is a tuple, not a list" in verdict("3.1", wrong).message


def test_a_spec_without_required_key_is_accepted_when_nothing_is_required() -> None:
    def omit_empty(spec: ToolSpec) -> dict[str, Any]:
        schema = good_spec(spec)
        if not schema["required"]:
            del schema["required"]
        return schema

    assert checks.check("3.2", omit_empty).passed


def _in_place(schema: dict[str, Any]) -> dict[str, Any]:
    strict = make_strict(schema)
    schema.clear()
    schema.update(strict)
    return schema


def _top_level_only(schema: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(schema)
    required = set(out.get("required", []))
    for name, prop in out["properties"].items():
        prop.pop("default", None)
        if name not in required and isinstance(prop.get("type"), str):
            prop["type"] = [prop["type"], "null"]
    out["required"] = list(out["properties"])
    out["additionalProperties"] = False
    return out


def _double_null(schema: dict[str, Any]) -> dict[str, Any]:
    out = make_strict(schema)
    for name, prop in out["properties"].items():
        before = schema["properties"][name].get("type")
        if name not in schema.get("required", []) and isinstance(before, list):
            prop["type"] = [*before, "null"]  # appends null even when it is there already
    return out


def _keeps_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    out = make_strict(schema)
    for name, prop in schema["properties"].items():
        if "default" in prop:
            out["properties"][name]["default"] = prop["default"]
    return out


def _accepts_free_form(schema: dict[str, Any]) -> dict[str, Any]:
    try:
        return make_strict(schema)
    except ValueError:
        return copy.deepcopy(schema)


def _vague_error(schema: dict[str, Any]) -> dict[str, Any]:
    try:
        return make_strict(schema)
    except ValueError:
        raise ValueError("cannot make this strict") from None


@pytest.mark.parametrize(
    "wrong",
    [_in_place, _top_level_only, _double_null, _keeps_defaults, _accepts_free_form, _vague_error],
)
def test_careless_make_strict_fails(wrong) -> None:
    result = checks.check("3.3", wrong)
    assert result.status is Status.FAILED, result.text()


def _leaf_name_only(tree: ast.Module) -> None:
    """The free-form error names the last part of the path only ('meta', not 'address.meta')."""
    raised = next(node for node in ast.walk(tree) if isinstance(node, ast.Raise))
    place = next(n for n in ast.walk(raised) if isinstance(n, ast.FormattedValue))
    place.value = ast.parse("path.rsplit('.', 1)[-1]", mode="eval").body


_FREE_FORM = "isinstance(extra, dict) or ('properties' not in node and extra is None)"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            [
                drop(
                    "if isinstance(kind, list) and 'null' not in kind:\n"
                    "    node['type'] = [*kind, 'null']"
                )
            ],
            "a list of types",
        ),
        ([swap("isinstance(extra, dict)", "isinstance(extra, dict) and extra")], "is {}"),
        (
            [
                swap(
                    "isinstance(node.get('items'), dict)",
                    "isinstance(node.get('items'), dict) and node['items'].get('type') == 'object'",
                )
            ],
            "arrays of objects",
        ),
        (
            [
                drop("sub = strict(sub, f'{path}.{name}')"),
                swap("nullable(sub)", "nullable(strict(sub, f'{path}.{name}'))"),
            ],
            "one required and one optional",
        ),
        ([_leaf_name_only], "'address'"),
        ([swap("copy.deepcopy(schema)", "dict(schema)")], "changed its input"),
        ([drop("node.pop('default', None)")], "default"),
        # additionalProperties read under another name: an object with properties and `true`
        # (or a schema for the other keys) passes as closed
        (
            [swap("node.get('additionalProperties')", "node.get('additional_properties')")],
            "raised ValueError",
        ),
        # adv3: an object recognised by type == 'object' only: ['object', 'null'] is skipped
        (
            [
                swap(
                    "node.get('type') == 'object' or 'properties' in node",
                    "node.get('type') == 'object'",
                )
            ],
            "already nullable (type ['object', 'null'])",
        ),
        # an object without properties refused even when it says additionalProperties: false
        (
            [swap(_FREE_FORM, "isinstance(extra, dict) or 'properties' not in node")],
            "an optional closed object without properties) raised ValueError",
        ),
    ],
    ids=[
        "type-lists-not-nullable",
        "empty-schema-allowed",
        "only-object-items",
        "required-objects-not-strict",
        "leaf-name-only",
        "shallow-copy",
        "defaults-kept",
        "extra-keys-ignored",
        "nullable-object-skipped",
        "closed-empty-refused",
    ],
)
def test_a_wrong_make_strict_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("3.3", answer("3.3", *changes)).text()


def _param_by_table(param: Param) -> dict[str, Any]:
    """A correct 3.1 written as a table of (key, value, keep it?) rows."""
    rows = [
        ("type", param.type, True),
        ("description", param.description, bool(param.description)),
        ("enum", list(param.enum or ()), param.enum is not None),
        ("items", {"type": param.items}, param.items is not None),
        ("default", param.default, not param.required and param.default is not None),
        ("minimum", param.minimum, param.minimum is not None),
        ("maximum", param.maximum, param.maximum is not None),
    ]
    return {key: value for key, value, keep in rows if keep}


def _spec_in_two_passes(spec: ToolSpec) -> dict[str, Any]:
    """A correct 3.2: the required list first, the properties by a comprehension."""
    required = [param.name for param in spec.parameters if param.required]

    def prop(param: Param) -> dict[str, Any]:
        schema = _param_by_table(param)
        return {**schema, "type": [param.type, "null"]} if param.nullable else schema

    return {
        "additionalProperties": False,
        "required": required,
        "type": "object",
        "properties": {param.name: prop(param) for param in spec.parameters},
    }


def _strict_built_anew(schema: dict[str, Any]) -> dict[str, Any]:
    """A correct 3.3 that builds new dicts bottom-up (the input is never written to) and gives
    every object a `properties`, `{}` when it has none (held-out round 5: it was refused)."""

    def is_object(node: dict[str, Any]) -> bool:
        kind = node.get("type")
        return "object" in (kind if isinstance(kind, list) else [kind]) or "properties" in node

    def nullable(node: dict[str, Any]) -> dict[str, Any]:
        kind = node.get("type")
        if isinstance(kind, str) and kind != "null":
            return {**node, "type": [kind, "null"]}
        if isinstance(kind, list) and "null" not in kind:
            return {**node, "type": [*kind, "null"]}
        return node

    def walk(node: dict[str, Any], where: str) -> dict[str, Any]:
        out = {key: value for key, value in node.items() if key != "default"}
        if is_object(node):
            extra = node.get("additionalProperties")
            if (
                extra is True
                or isinstance(extra, dict)
                or ("properties" not in node and extra is not False)
            ):
                raise ValueError(f"{where}: a free-form object is not allowed in strict mode")
            before = set(node.get("required", []))
            properties = {}
            for name, sub in node.get("properties", {}).items():
                done = walk(sub, f"{where}.{name}")
                properties[name] = done if name in before else nullable(done)
            out |= {"properties": properties, "required": list(properties)}
            out["additionalProperties"] = False
        if isinstance(node.get("items"), dict):
            out["items"] = walk(node["items"], f"{where}[]")
        return out

    return walk(copy.deepcopy(schema), "$")


def test_a_strict_schema_built_anew_with_empty_properties_passes() -> None:
    verdict("3.3", _strict_built_anew, Status.PASSED)


def _strict_with_a_stack(schema: dict[str, Any]) -> dict[str, Any]:
    """A correct 3.3 without recursion: a work list of (node, path), leaves before nullables."""
    root = copy.deepcopy(schema)
    todo = [(root, "$")]
    to_null: list[dict[str, Any]] = []
    while todo:
        node, path = todo.pop()
        node.pop("default", None)
        kind = node.get("type")
        if "object" in (kind if isinstance(kind, list) else [kind]):
            extra = node.get("additionalProperties")
            if extra is True or isinstance(extra, dict):
                raise ValueError(f"{path}: free-form object")
            if "properties" not in node and extra is not False:
                raise ValueError(f"{path}: free-form object")
            was = node.get("required", [])
            for name, sub in node.get("properties", {}).items():
                todo.append((sub, f"{path}.{name}"))
                if name not in was:
                    to_null.append(sub)
            node["required"] = list(node.get("properties", {}))
            node["additionalProperties"] = False
        if isinstance(node.get("items"), dict):
            todo.append((node["items"], f"{path}[]"))
    for node in to_null:  # after every object was recognised by its type
        kind = node["type"]
        node["type"] = (
            [kind, "null"]
            if isinstance(kind, str)
            else [*kind, "null"]
            if "null" not in kind
            else kind
        )
    return root


@pytest.mark.parametrize(
    ("exercise_id", "correct"),
    [("3.1", _param_by_table), ("3.2", _spec_in_two_passes), ("3.3", _strict_with_a_stack)],
)
def test_a_correct_answer_written_differently_passes(exercise_id: str, correct: Any) -> None:
    verdict(exercise_id, correct, Status.PASSED)


def test_a_strict_schema_that_keeps_nested_defaults_is_told_about_the_default() -> None:
    # adv2: a 'default' left in a property got the hint about a second 'null'.
    wrong = answer("3.3", drop("node.pop('default', None)"))
    text = verdict("3.3", wrong).text()
    assert "has an unexpected key 'default'" in text
    assert "A 'default' is left: remove it from every property" in text
