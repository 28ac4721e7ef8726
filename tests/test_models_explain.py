"""`explain`: the offline model says why, and what it says is what it does.

The explanation is built by the same planning code as a real request, so its calls must be the
calls the model sends through the real `openai` client, for every prompt and tool set.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.lib.pretty import pretty

from tests.test_offline_model_learner_tools import CASES, LEARNER_TOOLS
from tests.test_offline_model_table import FUNCTIONS, TABLE
from toolsys import Registry, models
from toolsys.models import Explanation, OfflineModel
from toolsys.models._finders import FINDERS
from toolsys.models._kinds import LOOKS_FOR, Kind
from toolsys.models.config import OFFLINE_MODEL
from toolsys.models.explanation import planned_call
from toolsys.tools import registry as builtin_tools


def sent(prompt, functions, **options):
    """The tool calls the offline model sends through the real client for a fresh request."""
    response = (
        OfflineModel()
        .client()
        .chat.completions.create(
            model=OFFLINE_MODEL,
            messages=[{"role": "user", "content": prompt}],
            tools=[{"type": "function", "function": f} for f in functions],
            **options,
        )
    )
    calls = response.choices[0].message.tool_calls or []
    return tuple((c.function.name, json.loads(c.function.arguments)) for c in calls)


NOTEBOOK_PROMPTS = [
    "What's the weather in Paris, and what is 17 * 38?",
    "What is 17 plus 25?",
    "What's the weather in Oslo, in fahrenheit?",
    "What is the capital of France?",
    "Roll a die with 20 faces",
]
AGREEMENT = (
    [(p, FUNCTIONS) for p, _ in TABLE]
    + [(p, LEARNER_TOOLS) for p, _, _ in CASES]
    + [(p, FUNCTIONS[:6] + LEARNER_TOOLS) for p, _, _ in CASES]
    + [(p, FUNCTIONS) for p in NOTEBOOK_PROMPTS]
)


@pytest.mark.parametrize(
    ("prompt", "functions"), AGREEMENT, ids=[f"{i}-{p}" for i, (p, _) in enumerate(AGREEMENT)]
)
def test_explained_calls_are_the_calls_sent_through_the_client(prompt, functions):
    assert models.explain(prompt, functions).calls == sent(prompt, functions)


@pytest.mark.parametrize(
    "options",
    [
        {"tool_choice": "none"},
        {"tool_choice": "required"},
        {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
        {"parallel_tool_calls": False},
    ],
    ids=["none", "required", "named", "one-per-turn"],
)
@pytest.mark.parametrize(
    "prompt", ["Tell me a joke", "weather in Paris and in Tokyo", "What is 17 times 38?"]
)
def test_explained_calls_follow_tool_choice_and_parallel_calls_as_the_client(prompt, options):
    assert models.explain(prompt, FUNCTIONS, **options).calls == sent(prompt, FUNCTIONS, **options)


_WORDS = (
    "weather in Paris Tokyo and then , fly me to from Rome tomorrow at 3pm what is 17 * 38 "
    "convert 30 C F USD EUR 100 say hello French translate 'good morning' share price AAPL "
    "Apple's remind call mom recipe with eggs rice under minutes email bob@example.com "
    "between 1 6 random number search docs for retries ? Friday noon"
)
WORDS = _WORDS.split()


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
def test_explain_agrees_with_the_client_on_any_sentence(words):
    prompt = " ".join(words)
    functions = FUNCTIONS[:6] + LEARNER_TOOLS
    explanation = models.explain(prompt, functions)
    assert explanation.calls == sent(prompt, functions)
    assert str(explanation) == str(models.explain(prompt, functions))


def test_a_new_request_for_a_learners_tool_is_explained_word_by_word():
    text = str(models.explain("fly me to Rome tomorrow", LEARNER_TOOLS[:2]))
    assert text == "\n".join(
        [
            'Request: "fly me to Rome tomorrow"',
            "Tools: book_flight, translate",
            "",
            'Clause: "fly me to Rome tomorrow"',
            "  book_flight   3.50",
            '    + 3.00  "fly" ~ "flight": synonyms, in the name (weight 3)',
            "    + 0.50  \"Rome\" fits parameter destination: a place after 'to' (argument shape)",
            "  0, no word in common: translate",
            "  -> book_flight reaches the threshold 1.5: a call to book_flight",
            "",
            'Call 1: book_flight, arguments read from "fly me to Rome tomorrow"',
            "  origin: not found (required place); looked for a place: a capitalised name, or the",
            "      words after 'from', 'to' or 'in'",
            '  destination = "Rome" <- "Rome"  (place: capitalised name after \'to\')',
            '  date = "2025-01-16" <- "tomorrow"  (date: a date, on the fixed clock)',
            "",
            "Asks instead of calling book_flight: origin is required and the message does not give",
            "    it.",
            "(Dates are read on the fixed clock: Wednesday 2025-01-15 09:00 Europe/Paris.)",
        ]
    )


def test_the_evidence_names_words_places_and_rules():
    explanation = models.explain(
        "Convert 100 USD to EUR and how do you say hello in French", LEARNER_TOOLS
    )
    first, second = explanation.steps
    best = first.scores[0]
    assert best.tool == "convert_currency" and best.score == 6.0
    assert [(m.term.word, m.source.word, m.how, m.source.where) for m in best.matches] == [
        ("Convert", "convert", "same word", "name"),
        ("USD", "currency", "synonyms", "name"),
    ]
    assert [(m.term.word, m.how) for m in second.scores[0].matches] == [
        ("French", "same word"),
        ("in French", "phrase"),
    ]
    currency, translate = explanation.planned
    assert [(r.name, r.excerpt, r.found.rule) for r in currency.readings] == [
        ("amount", "100", "number next to a word of its name or description"),
        ("from", "USD", "upper-case symbol, right after a number"),
        ("to", "EUR", "upper-case symbol after 'to'"),
    ]
    assert [(r.name, r.excerpt, r.found.rule) for r in translate.readings] == [
        ("text", "hello", "words after 'say'"),
        ("target_language", "French", "allowed value named, after 'in'"),
    ]


def test_a_missing_ticker_is_explained_as_what_was_looked_for():
    explanation = models.explain("Apple's share price", LEARNER_TOOLS)
    assert explanation.calls == ()
    (asked,) = explanation.asks
    assert asked.tool == "get_stock_quote" and asked.missing == ("ticker",)
    assert "ticker: not found (required symbol); looked for an upper-case symbol" in str(
        explanation
    )
    assert "Asks instead of calling get_stock_quote: ticker is required" in str(explanation)


def test_no_fitting_tool_is_explained_with_the_best_score():
    explanation = models.explain("a joke that lasts minutes", LEARNER_TOOLS)
    assert explanation.calls == () and explanation.planned == ()
    assert str(explanation).endswith(
        "No call: no tool reaches the threshold 1.5 (best: create_event, 0.25); it answers in"
        "\n    text."
    )
    text = str(models.explain("Tell me a joke", LEARNER_TOOLS))
    assert text.endswith("No call: no tool reaches the threshold 1.5; it answers in text.")


def test_glued_and_repeated_clauses_are_explained():
    explanation = models.explain("weather in Paris and in Tokyo", builtin_tools)
    assert [s.outcome for s in explanation.steps] == [
        "get_weather reaches the threshold 1.5: a call to get_weather",
        "it completes get_weather on its own: a call to get_weather",
    ]
    explanation = models.explain("Give me a random number between 1 and 100", builtin_tools)
    assert explanation.steps[1].outcome == (
        "no call of its own: it does not complete random_integer, so it is read together with "
        "the previous clause"
    )
    assert explanation.planned[0].source == "Give me a random number between 1 and 100"


def test_arithmetic_is_explained_as_a_bonus():
    text = str(models.explain("What is 17 times 38?", builtin_tools))
    assert "+ 3.00  the request calculates, and so does the tool" in text
    assert 'expression = "17 * 38"  (expression: arithmetic in the text, normalised)' in text


def test_a_registry_messages_and_openai_definitions_are_accepted():
    by_registry = models.explain("What is 17 times 38?", builtin_tools)
    by_definitions = models.explain("What is 17 times 38?", builtin_tools.export("openai"))
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "What is 17 times 38?"}]},
    ]
    by_messages = models.explain(messages, builtin_tools)
    assert str(by_registry) == str(by_definitions) == str(by_messages)
    assert by_registry.calls == (("calculator", {"expression": "17 * 38"}),)


def test_a_conversation_that_goes_on_says_so():
    messages = [
        {"role": "user", "content": "weather in Paris"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"ok": true, "value": 8}'},
    ]
    assert "goes on after this message with 1 tool turn(s)" in str(
        models.explain(messages, builtin_tools)
    )


def test_imperfect_mode_says_its_mistakes_come_after_the_plan():
    text = str(OfflineModel(imperfect=True).explain("What is 2+2", builtin_tools))
    assert "(Imperfect mode: first attempts may then carry the mistakes it makes.)" in text


def test_the_explanation_prints_the_same_in_ipython_and_is_deterministic():
    explanation = models.explain("Schedule a meeting called Review tomorrow at 3pm", LEARNER_TOOLS)
    assert isinstance(explanation, Explanation)
    assert pretty(explanation) == str(explanation)
    assert "0x" not in str(explanation)
    assert all(len(line) <= 88 for line in str(explanation).splitlines())


@pytest.mark.parametrize(
    ("request_", "tools", "error", "match"),
    [
        ("hi", 42, TypeError, "tools is int; give a Registry or a list of"),
        ("hi", ["get_weather"], TypeError, "tools holds 'get_weather', not a tool definition"),
        (42, [], TypeError, "request is int; give the prompt as a str"),
        ([{"content": "hi"}], [], TypeError, "request is list; give the prompt as a str"),
    ],
)
def test_bad_input_gets_a_one_line_error(request_, tools, error, match):
    with pytest.raises(error, match=match) as raised:
        models.explain(request_, tools)
    assert "\n" not in str(raised.value)


def test_a_forced_choice_of_an_unknown_tool_is_refused_by_name():
    choice = {"type": "function", "function": {"name": "get_wether"}}
    with pytest.raises(ValueError, match="tool_choice names 'get_wether'"):
        models.explain("weather in Paris", builtin_tools, tool_choice=choice)


def test_no_tools_is_explained_as_a_text_answer():
    explanation = models.explain("weather in Paris", Registry())
    assert explanation.calls == () and explanation.planned == ()
    assert "Tools: (none)" in str(explanation)


def test_every_kind_has_a_finder_and_words_for_what_it_looks_for():
    assert set(FINDERS) == set(LOOKS_FOR) == set(Kind)


def test_an_explanation_that_disagrees_with_the_plan_is_an_error_not_a_story():
    weather = builtin_tools.export("openai")[3]["function"]
    with pytest.raises(RuntimeError, match="explain read"):
        planned_call("get_weather", "weather in Paris", {"city": "Rome"}, weather, "x")
