"""The offline model on tools that are not in the package: a learner's own.

Eight tools as a student would write them (none of their names or words is in toolsys), and
natural requests for them. The model must choose the tool from the tools' own words plus a small
general synonym table, and read each argument from the text or leave it out. Every case states
the exact call expected. The fixed clock is Wednesday 2025-01-15 09:00 Europe/Paris.
"""

from __future__ import annotations

import json

import pytest

from toolsys import Registry
from toolsys.models import OfflineModel, client
from toolsys.models._text import name_words, stem
from toolsys.models.config import OFFLINE_MODEL
from toolsys.tools import registry as builtin_tools


def fn(name, description, properties, required):
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


LANGUAGES = ["english", "french", "german", "spanish", "italian", "japanese"]
LEARNER_TOOLS = [
    fn(
        "book_flight",
        "Book a flight ticket for one passenger.",
        {
            "origin": {"type": "string", "description": "City or airport to depart from."},
            "destination": {"type": "string", "description": "City or airport to fly to."},
            "date": {"type": "string", "format": "date", "description": "Departure day."},
        },
        ["origin", "destination", "date"],
    ),
    fn(
        "translate",
        "Translate text into another language.",
        {
            "text": {"type": "string", "description": "The text to translate."},
            "target_language": {
                "type": "string",
                "enum": LANGUAGES,
                "description": "Language to translate into.",
            },
        },
        ["text", "target_language"],
    ),
    fn(
        "get_stock_quote",
        "Get the latest quote for a stock.",
        {"ticker": {"type": "string", "description": "Ticker symbol, e.g. AAPL."}},
        ["ticker"],
    ),
    fn(
        "create_event",
        "Add an event to the user's calendar.",
        {
            "title": {"type": "string", "description": "Short title of the event."},
            "start": {"type": "string", "format": "date-time", "description": "Start."},
            "duration_minutes": {"type": "integer", "description": "Length in minutes."},
        },
        ["title", "start"],
    ),
    fn(
        "send_email",
        "Send an email.",
        {
            "to": {"type": "string", "description": "Recipient's email address."},
            "subject": {"type": "string", "description": "Subject line."},
            "body": {"type": "string", "description": "The message itself."},
        },
        ["to", "subject", "body"],
    ),
    fn(
        "convert_currency",
        "Convert an amount of money from one currency to another.",
        {
            "amount": {"type": "number", "description": "How much money."},
            "from": {"type": "string", "description": "Currency code to convert from, e.g. USD."},
            "to": {"type": "string", "description": "Currency code to convert to, e.g. EUR."},
        },
        ["amount", "from", "to"],
    ),
    fn(
        "set_reminder",
        "Remind the user about something at a given time.",
        {
            "text": {"type": "string", "description": "What to remind the user of."},
            "when": {"type": "string", "format": "date-time", "description": "When, ISO 8601."},
        },
        ["text", "when"],
    ),
    fn(
        "search_recipes",
        "Find recipes that use the given ingredients.",
        {
            "ingredients": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Ingredients to cook with.",
            },
            "max_minutes": {"type": "integer", "description": "Longest cooking time, minutes."},
        },
        ["ingredients"],
    ),
]

CASES = [
    # book_flight: 'fly' is a flight; from/to decide origin and destination
    ("fly me to Rome tomorrow", "book_flight", {"destination": "Rome", "date": "2025-01-16"}),
    (
        "Book a flight from Paris to Rome on March 3",
        "book_flight",
        {"origin": "Paris", "destination": "Rome", "date": "2025-03-03"},
    ),
    (
        "I need a plane ticket from London to Berlin next Friday",
        "book_flight",
        {"origin": "London", "destination": "Berlin", "date": "2025-01-17"},
    ),
    (
        "Get me on a flight to Tokyo from Sydney on 2025-02-10",
        "book_flight",
        {"origin": "Sydney", "destination": "Tokyo", "date": "2025-02-10"},
    ),
    (
        "Book me a flight from Madrid to Lisbon the day after tomorrow",
        "book_flight",
        {"origin": "Madrid", "destination": "Lisbon", "date": "2025-01-17"},
    ),
    (
        "I want to fly from New York to Los Angeles on January 20",
        "book_flight",
        {"origin": "New York", "destination": "Los Angeles", "date": "2025-01-20"},
    ),
    (
        "Can you reserve a flight to Oslo for next Monday? I'm leaving from Stockholm",
        "book_flight",
        {"origin": "Stockholm", "destination": "Oslo", "date": "2025-01-20"},
    ),
    # translate: '... in <language>' asks for a translation
    (
        "how do you say hello in French",
        "translate",
        {"text": "hello", "target_language": "french"},
    ),
    (
        "Translate 'good morning' into Spanish",
        "translate",
        {"text": "good morning", "target_language": "spanish"},
    ),
    (
        "What's 'thank you' in Japanese?",
        "translate",
        {"text": "thank you", "target_language": "japanese"},
    ),
    (
        "translate I love cheese to German",
        "translate",
        {"text": "I love cheese", "target_language": "german"},
    ),
    (
        'Translate "where is the station" into German',
        "translate",
        {"text": "where is the station", "target_language": "german"},
    ),
    (
        "How would I say thank you in Italian?",
        "translate",
        {"text": "thank you", "target_language": "italian"},
    ),
    # get_stock_quote: a ticker is an upper-case symbol; a company name is not one
    ("Apple's share price", "get_stock_quote", {}),
    ("What is AAPL trading at?", "get_stock_quote", {"ticker": "AAPL"}),
    ("Get me a stock quote for MSFT", "get_stock_quote", {"ticker": "MSFT"}),
    ("How much is a share of TSLA worth?", "get_stock_quote", {"ticker": "TSLA"}),
    ("What's the stock price of NVDA?", "get_stock_quote", {"ticker": "NVDA"}),
    ("quote for $TSLA please", "get_stock_quote", {"ticker": "TSLA"}),
    # create_event
    (
        "Schedule a meeting called Design review tomorrow at 3pm for 45 minutes",
        "create_event",
        {"title": "Design review", "start": "2025-01-16T15:00:00", "duration_minutes": 45},
    ),
    (
        "Put lunch with Ana in my calendar on Friday at noon",
        "create_event",
        {"title": "lunch with Ana", "start": "2025-01-17T12:00:00"},
    ),
    (
        "Add a 30-minute event titled Standup next Monday at 9am",
        "create_event",
        {"title": "Standup", "start": "2025-01-20T09:00:00", "duration_minutes": 30},
    ),
    (
        "Create an event called Team lunch on Friday at 12:30 for 90 minutes",
        "create_event",
        {"title": "Team lunch", "start": "2025-01-17T12:30:00", "duration_minutes": 90},
    ),
    (
        "Schedule the Quarterly review on 2025-02-03 at 14:00",
        "create_event",
        {"title": "Quarterly review", "start": "2025-02-03T14:00:00"},
    ),
    # send_email
    (
        'Email bob@example.com with subject "Hi" saying "See you soon"',
        "send_email",
        {"to": "bob@example.com", "subject": "Hi", "body": "See you soon"},
    ),
    (
        'Send an email to ana@example.com, subject "Budget", body "Approved."',
        "send_email",
        {"to": "ana@example.com", "subject": "Budget", "body": "Approved."},
    ),
    (
        "Mail carl@example.com about the offsite saying we leave at 8",
        "send_email",
        {"to": "carl@example.com", "subject": "offsite", "body": "we leave at 8"},
    ),
    # convert_currency: codes are currencies; 'to'/'in'/'into' mark the target
    (
        "Convert 100 USD to EUR",
        "convert_currency",
        {"amount": 100, "from": "USD", "to": "EUR"},
    ),
    (
        "How much is 250 EUR in GBP?",
        "convert_currency",
        {"amount": 250, "from": "EUR", "to": "GBP"},
    ),
    ("change 50 CHF into JPY", "convert_currency", {"amount": 50, "from": "CHF", "to": "JPY"}),
    ("Exchange 20 GBP to USD", "convert_currency", {"amount": 20, "from": "GBP", "to": "USD"}),
    ("how many JPY is 1000 CHF", "convert_currency", {"amount": 1000, "from": "CHF", "to": "JPY"}),
    # set_reminder
    (
        "Remind me to call mom tomorrow at 5pm",
        "set_reminder",
        {"text": "call mom", "when": "2025-01-16T17:00:00"},
    ),
    (
        "Set a reminder for Friday at 10:00 to submit the report",
        "set_reminder",
        {"text": "submit the report", "when": "2025-01-17T10:00:00"},
    ),
    (
        "remind me in 3 days to water the plants",
        "set_reminder",
        {"text": "water the plants", "when": "2025-01-18T09:00:00"},
    ),
    (
        "Set an alarm for 7am tomorrow to go running",
        "set_reminder",
        {"text": "go running", "when": "2025-01-16T07:00:00"},
    ),
    (
        "Remind me at 6pm to buy milk",
        "set_reminder",
        {"text": "buy milk", "when": "2025-01-15T18:00:00"},
    ),
    # search_recipes: 'chicken and rice' is one list, not two requests
    (
        "Find a recipe with chicken and rice under 30 minutes",
        "search_recipes",
        {"ingredients": ["chicken", "rice"], "max_minutes": 30},
    ),
    (
        "What can I cook with eggs, spinach and feta?",
        "search_recipes",
        {"ingredients": ["eggs", "spinach", "feta"]},
    ),
    ("recipes using tomatoes and basil", "search_recipes", {"ingredients": ["tomatoes", "basil"]}),
    (
        "Find recipes using mushrooms and garlic",
        "search_recipes",
        {"ingredients": ["mushrooms", "garlic"]},
    ),
    (
        "I'd like a dish with lentils, ready in under 40 minutes",
        "search_recipes",
        {"ingredients": ["lentils"], "max_minutes": 40},
    ),
]
BUILTIN = [t["function"] for t in builtin_tools.export("openai")]


@pytest.fixture(scope="module")
def model():
    return OfflineModel()


def test_the_learner_tools_are_not_the_package_tools():
    assert len(LEARNER_TOOLS) >= 8 and len(CASES) >= 25
    assert not {f["name"] for f in LEARNER_TOOLS} & set(builtin_tools.names())
    assert {tool for _, tool, _ in CASES} == {f["name"] for f in LEARNER_TOOLS}


@pytest.mark.parametrize(("prompt", "tool", "args"), CASES, ids=[c[0] for c in CASES])
def test_a_natural_request_picks_the_learners_tool_and_its_arguments(model, prompt, tool, args):
    assert [(t.tool, t.args) for t in model.plan(prompt, LEARNER_TOOLS)] == [(tool, args)]


@pytest.mark.parametrize(("prompt", "tool", "args"), CASES, ids=[c[0] for c in CASES])
def test_the_builtin_tools_offered_alongside_change_nothing(model, prompt, tool, args):
    for functions in (BUILTIN + LEARNER_TOOLS, LEARNER_TOOLS + BUILTIN):
        assert [(t.tool, t.args) for t in model.plan(prompt, functions)] == [(tool, args)]


@pytest.mark.parametrize(("prompt", "tool", "args"), CASES, ids=[c[0] for c in CASES])
def test_synonyms_do_not_drag_learner_requests_onto_builtin_tools(model, prompt, tool, args):
    """Offered only the package's tools, a request picks one only by the tool's own words."""
    explanation = model.explain(prompt, BUILTIN)
    for step in explanation.steps:
        for score in step.scores:
            assert all(m.how in ("same word", "same stem") for m in score.matches), score


def test_every_text_value_is_a_span_of_the_request(model):
    """Names, symbols and free text are copied from the request, never invented or padded."""
    for prompt, *_ in CASES:
        (planned,) = model.plan(prompt, LEARNER_TOOLS)
        for name, value in planned.args.items():
            if name in ("text", "title", "subject", "body", "origin", "destination", "ticker"):
                assert value in prompt, (prompt, name, value)
            if name == "ingredients":
                assert all(item in prompt for item in value), (prompt, value)


def ask(prompt, tools, **kwargs):
    response = client().chat.completions.create(
        model=OFFLINE_MODEL,
        messages=[{"role": "user", "content": prompt}],
        tools=[{"type": "function", "function": f} for f in tools],
        **kwargs,
    )
    return response.choices[0].message


def test_a_possessive_is_not_part_of_a_ticker_so_the_model_asks(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    message = ask("Apple's share price", LEARNER_TOOLS)
    assert message.tool_calls is None
    assert "I need ticker to use get_stock_quote" in message.content


def test_a_forced_call_without_the_ticker_gets_an_actionable_validation_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def get_stock_quote(ticker: str) -> float:
        """Get the latest quote for a stock.

        Args:
            ticker: Ticker symbol, e.g. AAPL.
        """
        return 1.0

    registry = Registry()
    registry.register(get_stock_quote)
    choice = {"type": "function", "function": {"name": "get_stock_quote"}}
    (call,) = ask("Apple's share price", LEARNER_TOOLS, tool_choice=choice).tool_calls
    assert json.loads(call.function.arguments) == {}
    result = registry.execute(call.function.name, call.function.arguments)
    assert result.error.code == "INVALID_ARGUMENTS"
    assert "ticker" in result.error.message


def test_a_description_that_gives_a_code_for_a_name_lets_the_name_pick_it(model):
    glossed = fn(
        "get_stock_quote",
        "Get the latest quote for a stock.",
        {"ticker": {"type": "string", "description": "Ticker symbol, e.g. AAPL for Apple."}},
        ["ticker"],
    )
    planned = model.plan("Apple's share price", [glossed])
    assert [(t.tool, t.args) for t in planned] == [("get_stock_quote", {"ticker": "AAPL"})]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Describe Apple's business", "Apple"),
        ("Describe O'Reilly's company", "O'Reilly"),
        ("A travel guide to New York's museums", "New York"),
        ("A travel guide for Paris' old town", "Paris"),
    ],
)
def test_a_possessive_is_not_part_of_a_name(model, prompt, expected):
    tools = [
        fn(
            "describe_company",
            "Describe a company.",
            {"company": {"type": "string", "description": "Name of the company."}},
            ["company"],
        ),
        fn(
            "travel_guide",
            "A travel guide for a city, with its weather.",
            {"city": {"type": "string", "description": "The city."}},
            ["city"],
        ),
    ]
    (planned,) = model.plan(prompt, tools)
    assert list(planned.args.values()) == [expected]


def test_trigger_words_come_from_the_learners_own_name_and_description(model):
    """Invented words no synonym table could know: only the tool's text can make them match."""
    tools = [
        fn(
            "frobnicate_gadget",
            "Frobnicate a gadget.",
            {"gadget": {"type": "string", "description": "Gadget."}},
            [],
        ),
        fn("tend_garden", "Water the plants in the garden.", {}, []),
        fn("bookHotelRoom", "Reserve a room.", {}, []),
        fn("cancelBooking", "Cancel a reservation.", {}, []),
    ]
    assert [t.tool for t in model.plan("please frobnicate my gadgets", tools)] == [
        "frobnicate_gadget"
    ]
    assert [t.tool for t in model.plan("can you water my plants", tools)] == ["tend_garden"]
    assert [t.tool for t in model.plan("I need a hotel room in Rome", tools)] == ["bookHotelRoom"]
    assert [t.tool for t in model.plan("cancel my bookings", tools)] == ["cancelBooking"]
    renamed = [{**tools[1], "description": "Look after the flowers."}, tools[2]]
    assert model.plan("can you water my plants", renamed) == []


def test_names_are_split_and_words_lightly_stemmed():
    assert name_words("bookHotelRoom") == name_words("book_hotel_room") == ["book", "hotel", "room"]
    assert [stem(w) for w in ("flights", "booking", "bookings", "cities", "planned")] == [
        "flight",
        "book",
        "book",
        "city",
        "plan",
    ]


CALL_BACK = fn(
    "schedule_callback",
    "Schedule a callback to a customer.",
    {
        "phone": {"type": "string", "description": "Phone number to call."},
        "topic": {"type": "string", "description": "What the call is about."},
    },
    ["phone", "topic"],
)


@pytest.mark.parametrize(
    "number", ["+33 1 23 45 67 89", "+1 415 555 0142", "020 7946 0958", "555-0142-77"]
)
def test_a_phone_parameter_takes_the_number_as_written(monkeypatch, number):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    message = ask(f"Schedule a callback to {number} about the late parcel", [CALL_BACK])
    (call,) = message.tool_calls
    assert json.loads(call.function.arguments)["phone"] == number


@pytest.mark.parametrize(
    "prompt",
    [
        "Schedule a callback about the late parcel for 4 people",
        "Schedule a callback to Chez Marie about table 12",
        "Schedule a callback on 2025-01-16 at 10:30 about the refund",
    ],
)
def test_a_phone_the_request_does_not_give_is_asked_for_not_made_up(monkeypatch, prompt):
    """Held-out round 5 (exercise 5.4): a required phone got 'people', the words no other
    parameter took. A phone is a number written as one, or the model asks for it."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    message = ask(prompt, [CALL_BACK])
    assert message.tool_calls is None
    assert "I need phone to use schedule_callback" in message.content
