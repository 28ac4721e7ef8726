"""Which tool and arguments the offline model chooses, prompt by prompt.

The built-in tools plus a few typical lesson tools (an event, an e-mail, an order lookup). The
fixed clock is Wednesday 2025-01-15 09:00 Europe/Paris, so "tomorrow" is 2025-01-16.
"""

from __future__ import annotations

import pytest

from toolsys.models import OfflineModel
from toolsys.tools import registry


def fn(name, description, properties, required):
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


LESSON_TOOLS = [
    fn(
        "create_event",
        "Create a calendar event (meeting, appointment).",
        {
            "title": {"type": "string", "description": "Short title of the event."},
            "date": {"type": "string", "format": "date", "description": "Day, YYYY-MM-DD."},
            "start_time": {"type": "string", "description": "Start time, HH:MM (24 h)."},
            "attendees": {
                "type": "array",
                "items": {"type": "string", "format": "email"},
                "description": "E-mail addresses of the attendees.",
            },
        },
        ["title", "date"],
    ),
    fn(
        "send_email",
        "Send an e-mail message to one recipient.",
        {
            "to": {"type": "string", "format": "email", "description": "Recipient address."},
            "subject": {"type": "string", "description": "Subject line."},
            "body": {"type": "string", "description": "Message text."},
        },
        ["to", "subject", "body"],
    ),
    fn(
        "lookup_order",
        "Look up the status of a customer order.",
        {"order_id": {"type": "string", "description": "Order ID such as 'A-1001'."}},
        ["order_id"],
    ),
]
FUNCTIONS = [t["function"] for t in registry.export("openai")] + LESSON_TOOLS

TABLE = [
    # calculator
    ("What is 17 times 38?", [("calculator", {"expression": "17 * 38"})]),
    ("what is 2+2", [("calculator", {"expression": "2 + 2"})]),
    ("Calculate (12 + 8) * 3", [("calculator", {"expression": "(12 + 8) * 3"})]),
    ("How much is 144 divided by 12?", [("calculator", {"expression": "144 / 12"})]),
    ("compute 2 to the power of 10", [("calculator", {"expression": "2 ** 10"})]),
    ("What's the square root of 81?", [("calculator", {"expression": "sqrt(81)"})]),
    ("100 minus 58", [("calculator", {"expression": "100 - 58"})]),
    ("What is 7 squared?", [("calculator", {"expression": "7 ** 2"})]),
    # random_integer
    ("Give me a random number between 1 and 100", [("random_integer", {"min": 1, "max": 100})]),
    ("pick a random integer up to 50", [("random_integer", {"max": 50})]),
    (
        "random number from 10 to 20 with seed 42",
        [("random_integer", {"min": 10, "max": 20, "seed": 42})],
    ),
    ("roll a dice between 1 and 6", [("random_integer", {"min": 1, "max": 6})]),
    # get_time
    ("What time is it in Tokyo?", [("get_time", {"timezone": "Asia/Tokyo"})]),
    ("current time in America/New_York", [("get_time", {"timezone": "America/New_York"})]),
    ("What time is it in UTC?", [("get_time", {"timezone": "UTC"})]),
    ("Tell me the time in London", [("get_time", {"timezone": "Europe/London"})]),
    # convert_temperature
    (
        "convert 30 C to F",
        [("convert_temperature", {"value": 30, "from_unit": "celsius", "to_unit": "fahrenheit"})],
    ),
    (
        "What is 100 fahrenheit in celsius?",
        [("convert_temperature", {"value": 100, "from_unit": "fahrenheit", "to_unit": "celsius"})],
    ),
    (
        "Convert 300 kelvin into celsius",
        [("convert_temperature", {"value": 300, "from_unit": "kelvin", "to_unit": "celsius"})],
    ),
    (
        "convert -40 degrees celsius to fahrenheit",
        [("convert_temperature", {"value": -40, "from_unit": "celsius", "to_unit": "fahrenheit"})],
    ),
    # get_weather
    ("What's the weather in Paris?", [("get_weather", {"city": "Paris"})]),
    ("Is it raining in London?", [("get_weather", {"city": "London"})]),
    (
        "weather in New York in imperial units",
        [("get_weather", {"city": "New York", "units": "imperial"})],
    ),
    ("How's the weather in Rio de Janeiro today?", [("get_weather", {"city": "Rio de Janeiro"})]),
    ("weather forecast for Sydney", [("get_weather", {"city": "Sydney"})]),
    # search_docs
    ("Search the docs for retry backoff", [("search_docs", {"query": "retry backoff"})]),
    ("How do I add a tool to the registry?", [("search_docs", {"query": "add tool registry"})]),
    ("find documentation about MCP", [("search_docs", {"query": "MCP"})]),
    # several requests in one message
    (
        "weather in Paris and in Tokyo",
        [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})],
    ),
    (
        "convert 30 C to F and what is 2+2",
        [
            ("convert_temperature", {"value": 30, "from_unit": "celsius", "to_unit": "fahrenheit"}),
            ("calculator", {"expression": "2 + 2"}),
        ],
    ),
    (
        "What is 6 times 7, and what time is it in Tokyo?",
        [("calculator", {"expression": "6 * 7"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    ),
    (
        "Tell me the weather in Berlin, then search the docs for schemas",
        [("get_weather", {"city": "Berlin"}), ("search_docs", {"query": "schemas"})],
    ),
    # lesson tools
    (
        "Schedule 'Design review' tomorrow at 3pm with alice@example.com and bob@example.com",
        [
            (
                "create_event",
                {
                    "title": "Design review",
                    "date": "2025-01-16",
                    "start_time": "15:00",
                    "attendees": ["alice@example.com", "bob@example.com"],
                },
            )
        ],
    ),
    (
        "Book a meeting called Standup next Monday at 09:30",
        [("create_event", {"title": "Standup", "date": "2025-01-20", "start_time": "09:30"})],
    ),
    (
        'Create an event "Launch party" on 2025-02-14',
        [("create_event", {"title": "Launch party", "date": "2025-02-14"})],
    ),
    (
        "schedule an appointment called Dentist on Friday",
        [("create_event", {"title": "Dentist", "date": "2025-01-17"})],
    ),
    (
        "Put a meeting titled Budget in the calendar in 3 days",
        [("create_event", {"title": "Budget", "date": "2025-01-18"})],
    ),
    (
        'Email bob@example.com with subject "Hi" saying "See you soon"',
        [("send_email", {"to": "bob@example.com", "subject": "Hi", "body": "See you soon"})],
    ),
    ("Where is my order #A-1001?", [("lookup_order", {"order_id": "A-1001"})]),
    ("What is the status of order 42?", [("lookup_order", {"order_id": "42"})]),
    # nothing fits: a plain-text answer
    ("Tell me a joke", []),
    ("Hello!", []),
]


@pytest.fixture(scope="module")
def model():
    return OfflineModel()


def test_table_is_big_enough():
    assert len(TABLE) >= 40


@pytest.mark.parametrize(("prompt", "expected"), TABLE, ids=[p for p, _ in TABLE])
def test_offline_model_chooses_tool_and_arguments(model, prompt, expected):
    planned = [(t.tool, t.args) for t in model.plan(prompt, FUNCTIONS)]
    assert planned == expected


def test_an_enum_value_is_chosen_by_the_meaning_its_description_gives_it(model):
    list_orders = fn(
        "list_orders",
        "List the customer's orders with a status.",
        {
            "status": {"type": "string", "enum": ["open", "shipped"], "description": "Status."},
            "sort": {
                "type": "string",
                "enum": ["desc", "asc"],
                "description": "desc: newest first; asc: oldest first.",
            },
        },
        ["status"],
    )
    for prompt in (
        "List my shipped orders with the oldest first",
        "My shipped orders, oldest first",
    ):
        planned = model.plan(prompt, [list_orders])
        assert [(t.tool, t.args) for t in planned] == [
            ("list_orders", {"status": "shipped", "sort": "asc"})
        ], prompt


def test_a_trailing_clause_with_only_new_arguments_refines_the_call(model):
    roll = fn(
        "roll_dice",
        "Roll one die.",
        {"sides": {"type": "integer", "description": "How many faces the die has."}},
        [],
    )
    for prompt in ("roll dice, sides 20", "Roll a 20-sided dice", "Roll a die with 20 faces"):
        planned = model.plan(prompt, [roll])
        assert [(t.tool, t.args) for t in planned] == [("roll_dice", {"sides": 20})], prompt
