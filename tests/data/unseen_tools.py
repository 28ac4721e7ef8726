"""Sixteen tools that are not in toolsys, written the way a learner writes their own, and loaders.

The offline model is measured on them (`benchmarks/bench_model.py`, `tests/test_offline_model_
unseen.py`): none of their names is a package tool's, and the requests for them were written
before the model was tuned, in `unseen_requests.jsonl`; a second batch, written after tuning
and never tuned on, is `unseen_requests_later.jsonl`. The fixed clock is Wednesday 2025-01-15
09:00 Europe/Paris, so "tomorrow" is 2025-01-16.

A request line: {"prompt": ..., "calls": [{"tool": ..., "arguments": {...}}], "kind": ...}.
`calls` is empty when no tool fits; an expected value {"any_of": [...]} accepts any of several
answers a careful real model could give (free text), every other value must be equal.
`kind`: "direct", "paraphrase", "indirect", "none" or "two".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TUNED = HERE / "unseen_requests.jsonl"
LATER = HERE / "unseen_requests_later.jsonl"


def fn(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


UNITS = ["km", "mi", "m", "ft", "kg", "lb", "l", "gal"]

TOOLS = [
    fn(
        "play_music",
        "Play music: a song, an artist, an album or a genre.",
        {
            "query": {"type": "string", "description": "Song, artist, album or genre to play."},
            "shuffle": {"type": "boolean", "description": "Play in random order."},
        },
        ["query"],
    ),
    fn(
        "define_word",
        "Look up the dictionary definition of an English word.",
        {"word": {"type": "string", "description": "The word to define."}},
        ["word"],
    ),
    fn(
        "track_package",
        "Track a parcel's delivery status by its tracking number.",
        {
            "tracking_number": {
                "type": "string",
                "pattern": "^[A-Z0-9]{10,22}$",
                "description": "The carrier's tracking number.",
            },
            "carrier": {
                "type": "string",
                "enum": ["ups", "fedex", "dhl", "usps"],
                "description": "Shipping company, if known.",
            },
        },
        ["tracking_number"],
    ),
    fn(
        "book_table",
        "Reserve a table at a restaurant.",
        {
            "restaurant": {"type": "string", "description": "Name of the restaurant."},
            "party_size": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "description": "Number of guests.",
            },
            "time": {"type": "string", "description": "Reservation time, ISO 8601."},
        },
        ["restaurant", "party_size", "time"],
    ),
    fn(
        "get_forecast",
        "Weather forecast for the coming days.",
        {
            "location": {"type": "string", "description": "Where, e.g. a city."},
            "days": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
                "description": "How many days ahead.",
            },
        },
        ["location"],
    ),
    fn(
        "next_departure",
        "Find the next public transport departure between two stops.",
        {
            "origin": {"type": "string", "description": "Stop or station to leave from."},
            "destination": {"type": "string", "description": "Stop or station to go to."},
            "mode": {
                "type": "string",
                "enum": ["bus", "train", "tram", "ferry"],
                "description": "Kind of transport.",
            },
        },
        ["origin"],
    ),
    fn(
        "set_timer",
        "Start a countdown timer.",
        {
            "minutes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 720,
                "description": "Length of the timer in minutes.",
            },
            "label": {"type": "string", "description": "What the timer is for."},
        },
        ["minutes"],
    ),
    fn(
        "add_todo",
        "Add an item to the to-do list.",
        {
            "task": {"type": "string", "description": "What needs doing."},
            "due": {"type": "string", "format": "date", "description": "Due date."},
            "priority": {"type": "string", "enum": ["low", "normal", "high"]},
        },
        ["task"],
    ),
    fn(
        "send_text_message",
        "Send an SMS text message to a phone number.",
        {
            "phone_number": {
                "type": "string",
                "pattern": r"^\+?[0-9][0-9 -]{6,16}$",
                "description": "The recipient's phone number.",
            },
            "message": {"type": "string", "description": "The text to send."},
        },
        ["phone_number", "message"],
    ),
    fn(
        "find_books",
        "Search the library catalogue for books by title, author or subject.",
        {
            "query": {"type": "string", "description": "Title, author or subject."},
            "max_results": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "description": "How many books to list.",
            },
        },
        ["query"],
    ),
    fn(
        "set_thermostat",
        "Set the heating thermostat to a target temperature.",
        {
            "temperature": {
                "type": "number",
                "minimum": 10,
                "maximum": 30,
                "description": "Target temperature in degrees Celsius.",
            },
            "room": {"type": "string", "description": "Room, if not the whole house."},
        },
        ["temperature"],
    ),
    fn(
        "control_lights",
        "Switch the lights in a room on or off, optionally dimmed.",
        {
            "room": {"type": "string", "description": "Which room."},
            "state": {"type": "string", "enum": ["on", "off"]},
            "brightness": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "Brightness in percent.",
            },
        },
        ["room", "state"],
    ),
    fn(
        "get_sports_score",
        "Latest score of a team's most recent game.",
        {"team": {"type": "string", "description": "Team name."}},
        ["team"],
    ),
    fn(
        "order_taxi",
        "Book a taxi ride.",
        {
            "pickup": {"type": "string", "description": "Pick-up address or place."},
            "dropoff": {"type": "string", "description": "Where to go."},
            "when": {"type": "string", "format": "date-time", "description": "Pick-up time."},
        },
        ["pickup", "dropoff"],
    ),
    fn(
        "find_free_slot",
        "Find a free slot in the user's calendar on a given day.",
        {
            "date": {"type": "string", "format": "date", "description": "The day."},
            "duration_minutes": {
                "type": "integer",
                "minimum": 15,
                "maximum": 480,
                "description": "How long the slot must be.",
            },
        },
        ["date", "duration_minutes"],
    ),
    fn(
        "convert_units",
        "Convert a quantity between units of length, weight or volume.",
        {
            "value": {"type": "number", "description": "The quantity to convert."},
            "from_unit": {
                "type": "string",
                "enum": UNITS,
                "description": "km (kilometres), mi (miles), m (metres), ft (feet), "
                "kg (kilograms), lb (pounds), l (litres), gal (gallons).",
            },
            "to_unit": {"type": "string", "enum": UNITS, "description": "Unit to convert to."},
        },
        ["value", "from_unit", "to_unit"],
    ),
]


def load(path: Path) -> list[dict[str, Any]]:
    """The request lines of one batch."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def value_ok(expected: Any, got: Any) -> bool:
    """One argument: equal, or one of the `any_of` answers."""
    if isinstance(expected, dict) and set(expected) == {"any_of"}:
        return any(value_ok(e, got) for e in expected["any_of"])
    return expected == got and type(expected) is type(got)


def score(
    plan: Any, requests: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Tool choice and argument accuracy of `plan(prompt, tools) -> [(tool, args), ...]`.

    top1: the first call goes to the expected tool (or no call, when none is expected);
    tools: the whole sequence of tools is the expected one; arguments: each expected argument
    of each expected call, in a call to its tool, has the expected value (a missed call misses
    all its arguments); invented: arguments sent that the case does not expect.
    """
    tools = TOOLS if tools is None else tools
    top1 = sequence = args_ok = args_all = invented = 0
    misses = []
    for case in requests:
        got = plan(case["prompt"], tools)
        want = case["calls"]
        first_ok = (got[0][0] if got else None) == (want[0]["tool"] if want else None)
        top1 += first_ok
        sequence += [t for t, _ in got] == [w["tool"] for w in want]
        wrong = []
        for i, call in enumerate(want):
            sent = got[i][1] if i < len(got) and got[i][0] == call["tool"] else None
            for name, expected in call["arguments"].items():
                args_all += 1
                ok = sent is not None and name in sent and value_ok(expected, sent[name])
                args_ok += ok
                if not ok:
                    wrong.append(f"{name}={(sent or {}).get(name)!r}")
            if sent is not None:
                extra = set(sent) - set(call["arguments"])
                invented += len(extra)
                wrong += [f"+{name}={sent[name]!r}" for name in sorted(extra)]
        if not first_ok or wrong or len(got) != len(want):
            misses.append((case["prompt"], got, want, wrong))
    n = len(requests)
    return {
        "cases": n,
        "top1": top1 / n,
        "tools": sequence / n,
        "arguments": args_ok / args_all if args_all else 1.0,
        "arguments_count": (args_ok, args_all),
        "invented": invented,
        "misses": misses,
    }
