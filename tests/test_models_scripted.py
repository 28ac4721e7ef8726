"""ScriptedModel replays exact assistant turns through the same openai client interface."""

from __future__ import annotations

import json

import openai
import pytest

from toolsys.models import ScriptedModel, calls, text


def create(client, content="go"):
    return client.chat.completions.create(
        model="toolsys-scripted", messages=[{"role": "user", "content": content}]
    )


def test_script_is_replayed_in_order():
    model = ScriptedModel([calls(("add", {"a": 1, "b": 2}), ("add", '{"a": 3')), text("3")])
    c = model.client()
    first = create(c).choices[0].message
    assert [(t.id, t.function.name, t.function.arguments) for t in first.tool_calls] == [
        ("call_0001", "add", json.dumps({"a": 1, "b": 2})),
        ("call_0002", "add", '{"a": 3'),
    ]
    assert create(c).choices[0].message.content == "3"
    assert [r["messages"][0]["content"] for r in model.requests] == ["go", "go"]


def test_running_out_of_script_is_a_clear_bad_request():
    c = ScriptedModel([text("only one")]).client()
    create(c)
    with pytest.raises(openai.BadRequestError, match="ran out of script: request 2"):
        create(c)


def test_a_turn_not_made_by_text_or_calls_is_refused_at_once():
    with pytest.raises(TypeError, match=r"script\[1\] is 'hello', not a turn"):
        ScriptedModel([text("ok"), "hello"])
