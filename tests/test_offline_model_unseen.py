"""The offline model on sixteen tools that are not in the package (tests/data/unseen_tools.py).

Accuracy floors for both batches of requests (the one tuned on, and the one written after
tuning), then the promises around them: `explain()` accounts for every point of every score and
says exactly what the client sends; the same request gets the same reply; the decision is one
function that a second wire shape can reuse.
`python benchmarks/bench_model.py --misses` prints the figures and every miss.
"""

from __future__ import annotations

import json

import pytest

from tests.data.unseen_tools import LATER, TOOLS, TUNED, load, score, value_ok
from toolsys import models
from toolsys.models import OfflineModel
from toolsys.models._messages import Call, Conversation, from_chat
from toolsys.models.config import OFFLINE_MODEL
from toolsys.tools import registry as builtin

TUNED_CASES, LATER_CASES = load(TUNED), load(LATER)
ALL = TUNED_CASES + LATER_CASES
BUILTIN = [t["function"] for t in builtin.export("openai")]


def planner(prompt, tools):
    return [(t.tool, t.args) for t in OfflineModel().plan(prompt, tools)]


def test_the_set_is_big_and_unseen():
    assert len(TOOLS) >= 12 and not {f["name"] for f in TOOLS} & set(builtin.names())
    assert len(TUNED_CASES) >= 60 and len(LATER_CASES) >= 30
    kinds = {case["kind"] for case in ALL}
    assert {"paraphrase", "indirect", "none", "two"} <= kinds
    used = {call["tool"] for case in ALL for call in case["calls"]}
    assert used == {f["name"] for f in TOOLS}


def test_tool_choice_and_arguments_on_the_batch_it_was_tuned_on():
    result = score(planner, TUNED_CASES)
    assert result["top1"] >= 0.9 and result["arguments"] >= 0.85, result["misses"]
    assert result["invented"] <= 1


def test_tool_choice_and_arguments_on_the_batch_written_after_tuning():
    result = score(planner, LATER_CASES)
    assert result["top1"] >= 0.85 and result["arguments"] >= 0.8, result["misses"]


def test_requests_for_no_tool_get_no_call():
    names = {f["name"] for f in TOOLS}
    for case in (c for c in ALL if c["kind"] == "none"):
        assert planner(case["prompt"], TOOLS) == [], case["prompt"]
        together = planner(case["prompt"], TOOLS + BUILTIN)  # "2 plus 2" may go to calculator
        assert not [tool for tool, _ in together if tool in names], case["prompt"]


def test_the_builtin_tools_offered_alongside_change_little():
    cases = [c for c in ALL if c["kind"] != "none"]
    alone, together = score(planner, cases), score(planner, cases, TOOLS + BUILTIN)
    assert together["top1"] >= alone["top1"] - 0.02, together["misses"]


def test_value_ok_accepts_listed_answers_and_refuses_others():
    assert value_ok({"any_of": ["jazz", "some jazz"]}, "some jazz")
    assert not value_ok({"any_of": ["jazz"]}, "rock")
    assert not value_ok(4, 4.0) and value_ok(4, 4)


@pytest.mark.parametrize("case", ALL, ids=[c["prompt"] for c in ALL])
def test_explain_accounts_for_every_point_and_every_call(case):
    explanation = models.explain(case["prompt"], TOOLS)
    text = str(explanation)
    for step in explanation.steps:
        for tool_score in step.scores:
            parts = sum(m.points for m in tool_score.matches) + tool_score.bonus
            parts += sum(s.points for s in tool_score.shapes)
            assert tool_score.score == pytest.approx(parts, abs=0.01)
            for shape in tool_score.shapes:
                assert f"fits parameter {shape.parameter}" in text
    response = (
        OfflineModel()
        .client()
        .chat.completions.create(
            model=OFFLINE_MODEL,
            messages=[{"role": "user", "content": case["prompt"]}],
            tools=[{"type": "function", "function": f} for f in TOOLS],
        )
    )
    sent = [
        (c.function.name, json.loads(c.function.arguments))
        for c in response.choices[0].message.tool_calls or []
    ]
    assert sent == [(name, args) for name, args in explanation.calls]


def test_a_shape_is_evidence_the_explanation_prints():
    text = str(models.explain("where is 1Z999AA10123456784?", TOOLS))
    assert '"1Z999AA10123456784" fits parameter tracking_number' in text
    assert "(argument shape)" in text


def test_the_same_request_gets_the_same_reply():
    model = OfflineModel()
    for case in ALL[:20]:
        request = {
            "model": OFFLINE_MODEL,
            "messages": [{"role": "user", "content": case["prompt"]}],
            "tools": [{"type": "function", "function": f} for f in TOOLS],
        }
        assert model.reply(request) == model.reply(json.loads(json.dumps(request)))


def from_items(request):
    """A reader for a second wire shape (flat tools, `input` items), as a test would write it."""
    items = request["input"]
    text = next(i["content"] for i in reversed(items) if i.get("role") == "user")
    calls = [
        Call(i["call_id"], i["name"], i["arguments"]) for i in items if i.get("type") == "call"
    ]
    results = {i["call_id"]: i["output"] for i in items if i.get("type") == "output"}
    return Conversation(text, request["tools"], [(calls, results)] if calls else [])


def test_one_decision_serves_two_wire_shapes():
    model = OfflineModel()
    tools = [{"type": "function", "function": f} for f in TOOLS]
    prompt = "when's the next bus from Leiden to Haarlem?"
    chat = model.reply({"messages": [{"role": "user", "content": prompt}], "tools": tools})
    items = model.decide(
        from_items({"input": [{"role": "user", "content": prompt}], "tools": TOOLS})
    )
    assert chat == items
    (call,) = items["tool_calls"]
    done = model.decide(
        from_items(
            {
                "tools": TOOLS,
                "input": [
                    {"role": "user", "content": prompt},
                    {"type": "call", "call_id": "c1", **call},
                    {"type": "output", "call_id": "c1", "output": '{"ok": true, "value": "10:42"}'},
                ],
            }
        )
    )
    assert done["content"].startswith("next_departure(Leiden, Haarlem, bus) = 10:42.")
    assert from_chat({"messages": [{"role": "user", "content": "hi"}]}).functions == []


def fn(name, description, properties, required):
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


ISSUE_TOOLS = [
    fn(
        "define_word",
        "Get the definition of a word.",
        {"word": {"type": "string", "description": "The word."}},
        ["word"],
    ),
    fn(
        "play_music",
        "Play a song or an artist.",
        {"query": {"type": "string", "description": "What to play."}},
        ["query"],
    ),
    fn(
        "set_reminder",
        "Create a reminder.",
        {
            "text": {"type": "string", "description": "What to remember."},
            "time": {"type": "string", "description": "When, in ISO 8601."},
        },
        ["text", "time"],
    ),
    fn(
        "next_bus",
        "Next bus departure from a stop.",
        {
            "origin": {"type": "string", "description": "Where the trip starts."},
            "destination": {"type": "string"},
        },
        ["origin"],
    ),
    fn("get_weather", "Current weather and forecast.", {"city": {"type": "string"}}, ["city"]),
]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("what's the meaning of 'ubiquitous'?", ("define_word", {"word": "ubiquitous"})),
        ("play something by Ella Fitzgerald", ("play_music", {"query": "Ella Fitzgerald"})),
        (
            "make sure I remember to call mum on Sunday at 10",
            ("set_reminder", {"text": "call mum", "time": "2025-01-19T10:00:00"}),
        ),
        ("when is the next bus from Leiden?", ("next_bus", {"origin": "Leiden"})),
        ("What's the weather like in Porto this weekend?", ("get_weather", {"city": "Porto"})),
    ],
)
def test_the_failures_issue_31_names_are_gone(prompt, expected):
    """A value stops at its natural end; a `time: str` said to be ISO 8601 gets a date-time."""
    assert planner(prompt, ISSUE_TOOLS) == [expected]
