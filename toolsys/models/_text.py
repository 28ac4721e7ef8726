"""Words, and which tool a sentence is about.

The offline model picks a tool the way a search engine ranks documents: the user's words, after
dropping stop words and light stemming ("cities" -> "city"), are matched against each tool's
name (weight 3), description (weight 1) and parameters (weight 0.5: names, descriptions, enum
values). A word found in several tools counts less (divided by how many tools contain it). A
few everyday synonyms map to one concept ("times", "multiply" -> "multiply"), and a sentence that
contains arithmetic ("17 * 38", "2 plus 2") favours tools about calculating. A tool is chosen
when its score reaches `THRESHOLD`.

This is why good tool names and descriptions matter even to a toy model, and it is the first
thing chapter 02 lets a student break on purpose.
"""

from __future__ import annotations

import re
from typing import Any

THRESHOLD = 1.5
NAME_WEIGHT, DESCRIPTION_WEIGHT, PARAMETER_WEIGHT = 3.0, 1.0, 0.5
ARITHMETIC_BONUS = 3.0

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

CONCEPTS = {
    "multiply": "multiply",
    "times": "multiply",
    "multipli": "multiply",
    "product": "multiply",
    "add": "add",
    "plus": "add",
    "sum": "add",
    "addition": "add",
    "addend": "add",
    "subtract": "subtract",
    "minus": "subtract",
    "difference": "subtract",
    "divide": "divide",
    "divid": "divide",
    "quotient": "divide",
    "division": "divide",
    "calculate": "calculate",
    "calculator": "calculate",
    "calculat": "calculate",
    "compute": "calculate",
    "comput": "calculate",
    "arithmetic": "calculate",
    "math": "calculate",
    "evaluate": "calculate",
    "evaluat": "calculate",
    "expression": "calculate",
    "weather": "weather",
    "forecast": "weather",
    "rain": "weather",
    "sunny": "weather",
    "clock": "time",
    "hour": "time",
    "time": "time",
    "random": "random",
    "dice": "random",
    "die": "random",
    "roll": "random",
    "integer": "number",
    "number": "number",
    "int": "number",
    "convert": "convert",
    "conversion": "convert",
    "convers": "convert",
    "doc": "doc",
    "documentation": "doc",
    "document": "doc",
    "manual": "doc",
    "email": "email",
    "mail": "email",
    "e-mail": "email",
    "meeting": "event",
    "event": "event",
    "appointment": "event",
    "calendar": "event",
    "schedule": "event",
}


def stem(word: str) -> str:
    """Light suffix stripping: enough to make 'cities'/'city', 'converting'/'convert' meet."""
    w = word.lower().removesuffix("'s")
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            if suffix == "es" and not re.search(r"(s|x|z|ch|sh)es$", w):
                continue
            w = w[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls":
                w = w[:-1]
            break
    return w


def concept(word: str) -> str:
    """The canonical form of a word: its concept if it has one, else its stem."""
    lowered = word.lower()
    return CONCEPTS.get(lowered) or CONCEPTS.get(stem(lowered)) or stem(lowered)


def words(text: str) -> list[str]:
    """Content words of `text` as concepts, in order, stop words removed."""
    tokens = re.findall(r"[a-zA-Z][a-zA-Z'-]*", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))
    return [concept(t) for t in tokens if t.lower() not in STOP_WORDS and len(t) > 1]


def name_words(name: str) -> list[str]:
    """'get_weather' / 'getWeather' -> ['weather'] (stop words such as 'get' removed)."""
    return words(name.replace("_", " ").replace("-", " ").replace(".", " "))


_OPERATOR_WORDS = [
    (r"\bmultiplied by\b|\btimes\b|(?<=\d)\s*[x×]\s*(?=\d)", " * "),
    (r"\bdivided by\b|÷", " / "),
    (r"\bplus\b", " + "),
    (r"\bminus\b", " - "),
    (r"\bto the power of\b|\braised to\b|\^", " ** "),
    (r"\bsquared\b", " ** 2"),
    (r"\bcubed\b", " ** 3"),
    (r"\bmod(?:ulo)?\b", " % "),
    (r"\bsquare root of\b", " sqrt "),
]
_EXPRESSION_TOKEN = r"sqrt|\d+(?:\.\d+)?|\*\*|//|[-+*/%()]"


def expression(text: str) -> str | None:
    """The arithmetic in `text`, normalised: 'What is 17 times 38?' -> '17 * 38'; None if none.

    The longest run of numbers and operators wins; it must contain an operator.
    """
    lowered = re.sub(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:]+)?|\d{1,2}:\d{2}", " ", text.lower())
    for pattern, replacement in _OPERATOR_WORDS:
        lowered = re.sub(pattern, replacement, lowered)
    best: list[str] = []
    for m in re.finditer(rf"(?:(?:{_EXPRESSION_TOKEN})\s*)+", lowered):
        tokens = re.findall(_EXPRESSION_TOKEN, m.group())
        if any(t[0].isdigit() for t in tokens) and len(tokens) > len(best):
            best = tokens
    while best and best[-1] in "+-*/%(":
        best.pop()
    if len(best) < 2 or all(t[0].isdigit() for t in best):
        return None
    out = " ".join(best)
    out = re.sub(r"\( ", "(", re.sub(r" \)", ")", out))
    out = re.sub(r"sqrt \(", "sqrt(", out)
    out = re.sub(r"(^|[(*/+%-] )- (\d)", r"\1-\2", out)
    return re.sub(r"sqrt (\d+(?:\.\d+)?)", r"sqrt(\1)", out)


def has_arithmetic(text: str) -> bool:
    """True when `text` contains a calculation such as '17 * 38' or '2 plus 2'."""
    return expression(text) is not None


def tool_vocabulary(function: dict[str, Any]) -> dict[str, float]:
    """Concept -> weight for one tool: the best weight at which it appears in the tool's text."""
    vocab: dict[str, float] = {}

    def add(text: str, weight: float) -> None:
        for w in words(text):
            vocab[w] = max(vocab.get(w, 0.0), weight)

    for prop, schema in (function.get("parameters") or {}).get("properties", {}).items():
        add(prop.replace("_", " "), PARAMETER_WEIGHT)
        add(str(schema.get("description", "")), PARAMETER_WEIGHT)
        add(" ".join(str(v) for v in schema.get("enum", [])), PARAMETER_WEIGHT)
    add(function.get("description", "") or "", DESCRIPTION_WEIGHT)
    for w in name_words(function["name"]):
        vocab[w] = NAME_WEIGHT
    return vocab


def rank_tools(text: str, functions: list[dict[str, Any]]) -> list[tuple[float, str]]:
    """(score, tool name) for every tool, best first; ties keep the order tools were offered."""
    vocabs = {f["name"]: tool_vocabulary(f) for f in functions}
    wanted = set(words(text))
    arithmetic = has_arithmetic(text)
    ranked = []
    for index, (name, vocab) in enumerate(vocabs.items()):
        score = sum(vocab[w] / sum(w in v for v in vocabs.values()) for w in wanted if w in vocab)
        if arithmetic and "calculate" in vocab:
            score += ARITHMETIC_BONUS
        ranked.append((round(score, 3), -index, name))
    ranked.sort(reverse=True)
    return [(score, name) for score, _, name in ranked]


def best_tool(text: str, functions: list[dict[str, Any]]) -> str | None:
    """The best-scoring tool for `text` if it reaches the threshold, else None."""
    ranked = rank_tools(text, functions)
    return ranked[0][1] if ranked and ranked[0][0] >= THRESHOLD else None


_SPLIT = re.compile(r"\s*(?:\band\b|\bthen\b|\balso\b|,|;|\?|!|\.(?=\s|$))\s*", re.I)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")


def clauses(text: str) -> list[str]:
    """Split a request into candidate sub-requests at 'and', 'then', commas, '?' (not in quotes)."""
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    parts, start = [], 0
    for m in _SPLIT.finditer(text):
        if any(a <= m.start() < b for a, b in quoted):
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]
