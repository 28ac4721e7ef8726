"""Any tool definition a program may send gets a reply or a 400 from the offline endpoint, on
both APIs: a description or schema of the wrong type is refused in the real API's shape
(`invalid_type`, `invalid_function_parameters`), never a Python exception out of the client."""

from __future__ import annotations

import re

import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsys import models
from toolsys.models._evidence import _after_number

MODEL = "toolsys-offline-1"
PROMPTS = ["what is 2 plus 3", "play something by Ella Fitzgerald", "define 'ubiquitous'"]

_numbers = st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False)
_scalars = st.none() | st.booleans() | _numbers | st.text(max_size=6)
_keys = st.sampled_from(
    [
        "type", "description", "enum", "properties", "required", "items", "anyOf", "pattern",
        "minimum", "maximum", "exclusiveMinimum", "maxLength", "format", "default",
        "additionalProperties", "$defs", "$ref", "title", "oneOf", "const",
    ]
)  # fmt: skip
_type_names = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])
_values = st.recursive(
    _scalars | _type_names | st.lists(_type_names, max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(_keys | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
_schemas = st.dictionaries(_keys, _values, max_size=5) | _values


def _definition(name: str, description: object, parameters: object) -> dict:
    return {"name": name, "description": description, "parameters": parameters}


def _ask(api: str, prompt: str, function: dict) -> None:
    client = models.client()
    if api == "chat":
        client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": prompt}],
            tools=[{"type": "function", "function": function}],
        )
    else:
        client.responses.create(model=MODEL, input=prompt, tools=[{"type": "function", **function}])


@pytest.mark.parametrize("api", ["chat", "responses"])
@given(
    prompt=st.sampled_from(PROMPTS),
    description=st.text(max_size=30) | _scalars,
    parameters=_schemas
    | st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(st.text(max_size=5), _schemas)}
    ),
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_definition_is_answered_or_refused_with_a_400(api, prompt, description, parameters):
    try:
        _ask(api, prompt, _definition("calc", description, parameters))
    except openai.BadRequestError as error:
        assert error.status_code == 400
        assert error.code in {"invalid_type", "invalid_function_parameters", None}


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize(
    ("function", "code", "says"),
    [
        (_definition("calc", 5, {"type": "object"}), "invalid_type", "description"),
        (
            _definition("calc", "Add.", {"type": "object", "properties": [1]}),
            "invalid_function_parameters",
            "'properties' must be an object of schemas",
        ),
        (
            _definition("calc", "Add.", {"type": "object", "properties": {"a": True}}),
            "invalid_function_parameters",
            "In context=('properties', 'a'), expected a schema object, got a boolean schema",
        ),
        (
            _definition(
                "calc", "Add.", {"type": "object", "properties": {"a": {"description": 7}}}
            ),
            "invalid_function_parameters",
            "'description' must be a string",
        ),
    ],
)
def test_a_malformed_definition_says_which_part_is_wrong(api, function, code, says):
    with pytest.raises(openai.BadRequestError) as refused:
        _ask(api, "what is 2 plus 3", function)
    assert refused.value.code == code
    assert says in refused.value.message
    assert "Invalid" in refused.value.message


@pytest.mark.parametrize("role", [["user"], {"r": 1}, 3, None])
def test_a_message_whose_role_is_not_a_string_is_a_400(role):
    with pytest.raises(openai.BadRequestError) as refused:
        models.client().chat.completions.create(
            model=MODEL, messages=[{"role": role, "content": "hi"}]
        )
    assert refused.value.param == "messages[0]"


@given(text=st.text(alphabet="ab1 \t\n٣C", max_size=12), at=st.integers(0, 12))
def test_the_backward_number_test_is_the_regex_it_replaced(text, at):
    """`_evidence._after_number` reads backwards what `re.search(r"\\d\\s*$", text[:at])` read
    forwards (the forward scan per word made a long message's decision quadratic)."""
    at = min(at, len(text))
    assert _after_number(text, at) == bool(re.search(r"\d\s*$", text[:at]))
