"""The offline model's general knowledge of words: stop words, synonyms, a few phrases.

Which tool a request is about is decided by the tools' own words (their names, descriptions and
parameters, see `_text`); this module only adds what any speaker of English knows and a tool's
author cannot be expected to write down: that "fly" is about a flight, "shares" about stocks,
"EUR" about a currency, and that "... in French" asks for a translation. Each group maps its
words to one *concept*; a request and a tool meet when they share a concept.

The table is everyday English, a few words per concept (media, messages, getting about, the
home, sport...): it is not tuned to the tools in this package, and a tool that is only findable
through it has a description worth improving (chapter 02). It is also where the offline model
is weakest: a word that is in no group and in no tool's text ("how did Arsenal do?") finds
nothing, where a real model knows that Arsenal is a team.
"""

from __future__ import annotations

import re

_STOP_WORDS = """
a about above after again all also am an and any are as at be been before being below between
both but by can could did do does doing done for from further get give had has have having he
her here hers him his how i if in into is it its itself just know let like me more most my need
no nor not now of off on once only or other our out over own please quick same she should show so
some such tell than that the their them then there these they this those through to too under
until up us use using very want was way we were what when where which while who whom why will
with would you your yours whats what's hello hi hey thanks thank current currently right
"""
STOP_WORDS = frozenset(_STOP_WORDS.split())

# concept: the words (or stems, see `_text.stem`) that mean it
_GROUPS = {
    # arithmetic
    "multiply": "multiply times multipli product",
    "add": "add plus sum addition addend",
    "subtract": "subtract minus difference",
    "divide": "divide divid quotient division",
    "calculate": "calculate calculator calculat compute comput arithmetic math evaluate evaluat "
    "expression",
    # everyday topics
    "weather": "weather forecast rain raining rainy sunny umbrella snow snowing windy storm "
    "stormy cloudy",
    "time": "time clock hour",
    "random": "random dice die roll",
    "number": "number integer int",
    "convert": "convert conversion convers",
    "doc": "doc documentation document manual",
    "email": "email mail e-mail",
    "event": "event meeting appointment calendar schedule",
    "flight": "flight fly flying flie flew plane airplane airline airfare",
    "book": "book reserve reserv reservation novel",
    "translate": "translate translat translation translator",
    "stock": "stock share ticker trading nasdaq equity",
    "price": "price quote cost worth",
    "currency": "currency money dollar euro pound yen franc usd eur gbp jpy chf cad aud cny",
    "remind": "remind reminder alarm remember forget",
    "recipe": "recipe cook dish meal",
    # media, words, messages
    "play": "play spin queue listen hear stream",
    "music": "music song tune album artist band singer playlist",
    "define": "define definition meaning mean meant dictionary",
    "message": "message sms text texting",
    "call": "call phone dial ring",
    "news": "news headline article",
    "photo": "photo picture pic image",
    "volume": "volume louder quieter mute",
    "note": "note memo jot",
    "todo": "todo to-do task chore errand checklist",
    "timer": "timer countdown stopwatch",
    # getting about
    "parcel": "parcel package delivery shipment shipping ship courier",
    "track": "track tracking trace whereabouts",
    "transit": "transport transit bus train tram metro subway underground ferry",
    "depart": "depart departure leave leaving departing",
    "taxi": "taxi cab ride",
    "route": "route direction navigate navigation",
    "hotel": "hotel accommodation lodging",
    "restaurant": "restaurant dinner brunch dine dining eatery",
    "guest": "guest people person diner",
    # at home
    "light": "light lamp dim dimmer brighten brightness lighting dark",
    "heat": "heat heating heater thermostat warm warmer freezing chilly degree",
    # sport, shopping, money
    "score": "score win won winning lose lost beat",
    "game": "game match fixture",
    "free": "free available availability slot gap opening",
    "buy": "buy purchase",
    "pay": "pay payment transfer",
    "library": "library catalogue catalog author literature",
    # how much it matters
    "high": "high urgent important critical asap",
    "low": "low minor",
}
CONCEPTS = {word: name for name, group in _GROUPS.items() for word in group.split()}

_LANGUAGES = """
english french german spanish italian portuguese dutch swedish norwegian danish finnish polish
russian ukrainian greek turkish arabic hebrew hindi chinese mandarin japanese korean
"""
LANGUAGES = _LANGUAGES.split()

_NUMBER_WORDS = "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d+"

PHRASES: list[tuple[re.Pattern[str], str]] = [
    # "how do you say hello in French", "'thank you' in Japanese", "... into Spanish"
    (re.compile(rf"\b(?:in|into|to) (?:{'|'.join(LANGUAGES)})\b", re.I), "translate"),
    # "what does 'ubiquitous' mean?", "what's the meaning of ...", "what is meant by ..."
    (
        re.compile(r"\bwhat (?:does|do|did) .{1,40}? mean\b|\bmeaning of\b|\bmeant by\b", re.I),
        "define",
    ),
    (re.compile(r"\bput on\b", re.I), "play"),  # "put on some jazz"
    (re.compile(r"\b(?:on|to|onto) (?:my|the|our) (?:to-?do |shopping )?list\b", re.I), "todo"),
    (re.compile(r"\bcount ?down\b", re.I), "timer"),
    (re.compile(r"\b(?:tell|text|let) (?:him|her|them)\b", re.I), "message"),
    (re.compile(r"\bwhere(?:'s| is| are) my\b", re.I), "track"),
    (re.compile(r"\bmake sure I\b|\bdon'?t (?:let me )?forget\b", re.I), "remind"),
    (
        re.compile(
            rf"\b(?:table|party|reservation|booking|dinner|lunch|brunch) (?:for|of) "
            rf"(?:{_NUMBER_WORDS})\b",
            re.I,
        ),
        "guest",
    ),
]
"""Phrases that name a concept no single word of them names: (pattern, concept)."""
