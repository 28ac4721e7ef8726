"""Exercise 0.2, parse the tool calls: the check and its reference, `parse_tool_calls`.

The calls come from a real `ChatCompletionMessage`: no calls at all (None), several calls, and
arguments still as a JSON string are the cases a first parser gets wrong.
"""

from __future__ import annotations

import json
import random
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal, expect_plain, expect_true
from toolsys.checks._differential import Call, agree, calls, mapping
from toolsys.checks._differential import text as some_text
from toolsys.checks.ch00._shared import sdk_tool_call


def _message(*calls: Any, content: str | None = None) -> Any:
    from openai.types.chat import ChatCompletionMessage

    return ChatCompletionMessage(role="assistant", content=content, tool_calls=list(calls) or None)


def parse_tool_calls(message: Any) -> list[dict[str, Any]]:
    """Reference for 0.2: every tool call as {id, name, arguments, error}; never raises."""
    parsed = []
    for call in message.tool_calls or []:
        name, text = call.function.name, call.function.arguments
        arguments: dict[str, Any] | None = None
        error: str | None = None
        try:
            value = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            error = f"Arguments for {name!r} are not valid JSON ({exc.msg}): {text!r}"
        else:
            if isinstance(value, dict):
                arguments = value
            else:
                error = f"Arguments for {name!r} must be a JSON object, got {text!r}"
        parsed.append({"id": call.id, "name": name, "arguments": arguments, "error": error})
    return parsed


_CALL_SHAPE = 'a list with one dict per call: {"id", "name", "arguments", "error"}'
_NEVER_RAISE = (
    "Wrap json.loads in try/except json.JSONDecodeError: one bad call must not crash the loop "
    "that answers all of them."
)

# arguments text, the word the error must contain, what is wrong with it
_BAD_ARGUMENTS = [
    ('{"city": "Paris"', "JSON", "malformed JSON (a missing '}')"),
    ("{'city': 'Paris'}", "JSON", "single-quoted pseudo-JSON"),
    ('["Paris"]', "object", "valid JSON that is a list, not an object"),
    ('"Paris"', "object", "valid JSON that is a string, not an object"),
    ("42", "object", "valid JSON that is a number, not an object"),
    ("null", "object", "valid JSON that is null, not an object"),
]


def _parse(student: Any, message: Any, what: str, hint: str = _NEVER_RAISE) -> list[dict[str, Any]]:
    """The student's parse of `message`, checked to be a list of dicts with the four keys."""
    got = call_student(student, message, what=what, returns=_CALL_SHAPE, hint=hint)
    expect_plain(got, what=what, shape=_CALL_SHAPE)
    expect_true(type(got) is list, f"{what} must return {_CALL_SHAPE}, got {got!r}.")
    for index, item in enumerate(got):
        keys = sorted(item) if type(item) is dict else None
        expect_true(
            keys == ["arguments", "error", "id", "name"],
            f"{what}[{index}] must be a dict with exactly the keys id, name, arguments and "
            f"error (error is None when the call is fine), got {item!r}.",
            hint="Build every item the same way: {'id': ..., 'name': ..., 'arguments': ..., "
            "'error': ...}.",
        )
    return got


def _item(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments, "error": None}


def _arguments_text(rng: random.Random, size: int) -> str:
    """Arguments as a model sends them: a JSON object (nested, non-ASCII, spaced or not), empty
    or blank, broken JSON, or JSON that is no object."""
    pick = rng.randrange(6)
    if pick <= 1:
        return json.dumps(
            mapping(rng, size), ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1])
        )
    if pick == 2:
        return rng.choice(["", " ", "\n", "\t "])
    if pick == 3:
        return rng.choice(['{"city": "Paris"', "{'city': 'Paris'}", '{"a": 1} x', "{", "Paris"])
    if pick == 4:
        return rng.choice(['["Paris"]', '"Paris"', "42", "null", "true", "[]", "1.5"])
    return '{"a": 1, "a": 2}'


def _message_call(rng: random.Random, size: int) -> Call:
    """An assistant message: a text answer (tool_calls None) or 1 to 4 calls, ids sometimes
    shared, each with arguments of any of the kinds above."""
    if rng.random() < 0.1:
        return Call((_message(content=some_text(rng, size)),))
    ids = ["call_1", "call_2", "call_1"]
    made = [
        sdk_tool_call(
            rng.choice(ids), rng.choice(["get_weather", "météo"]), _arguments_text(rng, size)
        )
        for _ in range(rng.randint(1, min(4, 1 + size)))
    ]
    return Call((_message(*made),))


_GENERATED = calls(_message_call, seed=2, count=150)


def _kind_of_errors(func: Any) -> Any:
    """`func`'s list with each error sentence read as whether there is one (its words are
    free; the hand-written cases read them)."""

    def run(message: Any) -> Any:
        got = func(message)
        if type(got) is not list:
            return got
        return [
            {**item, "error": "an error sentence" if item.get("error") else item.get("error")}
            if type(item) is dict
            else item
            for item in got
        ]

    return run


@exercise(
    "0.2",
    title="Parse the tool calls",
    hints=[
        "message.tool_calls is None when the model answered in text: return [] then.",
        "Wrap json.loads in try/except json.JSONDecodeError; on failure set arguments to None "
        "and error to a sentence naming that call's tool.",
        "Valid JSON is not enough: '[1, 2]', '\"Paris\"' and 'null' decode, but a tool needs an "
        "object (a dict). An empty string means no arguments: {}.",
    ],
    reference=lambda: parse_tool_calls,
)
def _check_parse_tool_calls(student: Any) -> None:
    expect_equal(
        _parse(
            student,
            _message(content="Paris is sunny."),
            "parse_tool_calls(a text answer)",
            "A text answer has message.tool_calls == None, not []: loop over "
            "`message.tool_calls or []`, so a text answer gives [].",
        ),
        [],
        what="parse_tool_calls(a text answer)",
        hint="tool_calls is None here: return [].",
    )
    two = _message(
        sdk_tool_call("call_0001", "get_weather", '{"city": "Paris"}'),
        sdk_tool_call("call_0002", "get_time", '{"timezone": "Asia/Tokyo"}'),
    )
    expect_equal(
        _parse(student, two, "parse_tool_calls(two calls)"),
        [
            _item("call_0001", "get_weather", {"city": "Paris"}),
            _item("call_0002", "get_time", {"timezone": "Asia/Tokyo"}),
        ],
        what="parse_tool_calls(two calls)",
        hint="One item per call, in order, with error None when the arguments are fine.",
    )
    for blank in ("", "   ", "\n"):
        what = f"parse_tool_calls(a call with arguments {blank!r})"
        expect_equal(
            _parse(student, _message(sdk_tool_call("call_0003", "get_time", blank)), what),
            [_item("call_0003", "get_time", {})],
            what=what,
            hint="Empty arguments, or only whitespace, mean no arguments: {} and error None "
            "(test text.strip() before json.loads).",
        )
    what = "parse_tool_calls(two calls with arguments '', the first one's {} then filled in)"
    first, second = _parse(
        student,
        _message(
            sdk_tool_call("call_0010", "get_time", ""), sdk_tool_call("call_0011", "get_date", "")
        ),
        what,
    )
    if type(first["arguments"]) is dict:
        first["arguments"]["timezone"] = "UTC"
    expect_equal(
        second["arguments"],
        {},
        what=f"{what}[1]['arguments']",
        hint="Both calls got the same dict object, so filling in one changed the other: build a "
        "new {} for each call, not one shared dict.",
    )
    what = "parse_tool_calls(two calls that share the id 'call_0012')"
    expect_equal(
        _parse(
            student,
            _message(
                sdk_tool_call("call_0012", "get_weather", '{"city": "Oslo"}'),
                sdk_tool_call("call_0012", "get_time", "{}"),
            ),
            what,
        ),
        [
            _item("call_0012", "get_weather", {"city": "Oslo"}),
            _item("call_0012", "get_time", {}),
        ],
        what=what,
        hint="One item per call, in order, even when two calls share an id: build a list, not a "
        "dict keyed by id.",
    )
    errors: dict[str, list[tuple[str, str]]] = {"JSON": [], "object": []}
    for text, word, label in _BAD_ARGUMENTS:
        message = _message(
            sdk_tool_call("call_0004", "get_time", "{}"),
            sdk_tool_call("call_0005", "book_table", text),
            sdk_tool_call("call_0006", "get_weather", '{"city": "Rome"}'),
        )
        what = f"parse_tool_calls(three calls, the second with {label})"
        got = _parse(student, message, what)
        expect_true(
            len(got) == 3,
            f"{what} must still return all 3 calls, got {len(got)}.",
            hint="One bad call must not hide the others: the loop answers each call.",
        )
        expect_equal(got[0], _item("call_0004", "get_time", {}), what=f"{what}[0]")
        expect_equal(got[2], _item("call_0006", "get_weather", {"city": "Rome"}), what=f"{what}[2]")
        bad = got[1]
        expect_equal(
            [bad["id"], bad["name"], bad["arguments"]],
            ["call_0005", "book_table", None],
            what=f"{what}[1]: id, name and arguments",
            hint="When the arguments cannot be used, set arguments to None.",
        )
        error = bad["error"]
        expect_true(
            type(error) is str and "book_table" in error and word.lower() in error.lower(),
            f"For {label}, 'error' must be a sentence that names this call's tool "
            f"('book_table') and says what was wrong (mention {word!r}); got {error!r}.",
            hint="The model will read this text: name the tool of the call it is about "
            "(call.function.name) and what was expected.",
        )
        sentence = error.replace(repr(text), "").replace(json.dumps(text), "").replace(text, "")
        errors[word].append((sentence, label))
    for sentence, label in errors["JSON"]:
        for other, other_label in errors["object"]:
            expect_true(
                sentence != other,
                f"The error for {label} and the error for {other_label} are the same sentence, "
                f"{sentence!r}: it cannot tell the model which problem it has.",
                hint="Say which: the text is not valid JSON (it does not parse), or it parses to "
                "something that is not an object. Two different sentences.",
            )
    agree(
        _kind_of_errors(student),
        _kind_of_errors(parse_tool_calls),
        _GENERATED,
        name="parse_tool_calls",
        hint="One dict per call, in order: arguments the parsed object (a blank text is {}), "
        "error None; or arguments None and an error sentence, for broken JSON and for JSON "
        "that is not an object.",
    )
