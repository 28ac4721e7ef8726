"""Imperfect mode: seeded, documented mistakes whose rates depend on the schema."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from toolsys.models import BASE_RATES, OfflineModel, first_call_success
from toolsys.models._imperfect import param_rates


def event_tool(date_schema):
    return {
        "name": "create_event",
        "description": "Create a calendar event.",
        "parameters": {
            "type": "object",
            "required": ["title", "date"],
            "properties": {
                "title": {"type": "string", "description": "Event title."},
                "date": date_schema,
            },
        },
    }


BARE = {"type": "string"}
STATED = {"type": "string", "description": "Day of the event, YYYY-MM-DD."}
RICH = {
    "type": "string",
    "format": "date",
    "description": "Day of the event, YYYY-MM-DD, e.g. 2025-01-31.",
}
PROMPT = "Schedule 'Review' tomorrow"


def first_calls(date_schema, n=300, seed=0):
    model = OfflineModel(imperfect=True, seed=seed)
    c = model.client()
    tools = [{"type": "function", "function": event_tool(date_schema)}]
    sent = []
    for _ in range(n):
        response = c.chat.completions.create(
            model=model.name, tools=tools, messages=[{"role": "user", "content": PROMPT}]
        )
        call = response.choices[0].message.tool_calls[0]
        sent.append((call.function.name, call.function.arguments))
    return sent, model.mistakes


def correct(sent):
    expected = ("create_event", json.dumps({"title": "Review", "date": "2025-01-16"}))
    return sum(s == expected for s in sent) / len(sent)


def test_same_seed_same_mistakes_other_seed_other_mistakes():
    assert first_calls(BARE, 50, seed=1) == first_calls(BARE, 50, seed=1)
    assert first_calls(BARE, 50, seed=1) != first_calls(BARE, 50, seed=2)


def test_a_better_date_schema_means_fewer_mistakes():
    rates = [correct(first_calls(schema)[0]) for schema in (BARE, STATED, RICH)]
    assert rates[0] < rates[1] < rates[2]
    for schema, measured in zip((BARE, STATED, RICH), rates, strict=True):
        assert measured == pytest.approx(
            first_call_success(event_tool(schema), {"title": "Review", "date": "x"}), abs=0.08
        )


def test_mistakes_are_the_documented_kinds():
    _, mistakes = first_calls(BARE, 200)
    kinds = Counter(m.split(":")[0] for m in mistakes)
    assert set(kinds) <= set(BASE_RATES)
    assert kinds["freeform_date"] > kinds["missing_required"] > 0


def test_rate_formula_rewards_enums_formats_examples_and_descriptions():
    assert param_rates("unit", {"type": "string", "enum": ["c", "f"]}, True)[
        "invented_enum"
    ] == pytest.approx(0.03)
    assert param_rates("unit", {"type": "string", "description": "One of 'c' or 'f'."}, True)[
        "invented_enum"
    ] == pytest.approx(0.3)
    assert param_rates("date", BARE, True)["freeform_date"] == pytest.approx(0.6)
    assert param_rates("date", RICH, True)["freeform_date"] == pytest.approx(
        0.6 * 0.25 * 0.25 * 0.5
    )
    assert param_rates("n", {"type": "integer"}, False) == {"number_as_string": 0.15}


def test_rates_are_settable_and_zero_rates_make_no_mistakes():
    model = OfflineModel(imperfect=True, rates=dict.fromkeys(BASE_RATES, 0.0))
    c, sent = model.client(), []
    for _ in range(20):
        response = c.chat.completions.create(
            model=model.name,
            messages=[{"role": "user", "content": PROMPT}],
            tools=[{"type": "function", "function": event_tool(BARE)}],
        )
        sent.append(response.choices[0].message.tool_calls[0].function.arguments)
    assert model.mistakes == [] and len(set(sent)) == 1


@pytest.mark.parametrize("rates", [{"typo": 0.1}, {"malformed_json": "x"}, {"malformed_json": -1}])
def test_bad_rates_are_refused_with_the_rule(rates):
    with pytest.raises(ValueError, match=r"Unknown mistake|give a base rate >= 0"):
        OfflineModel(imperfect=True, rates=rates)
