"""Exercise 6.5, a result in Anthropic's shape: the check and its reference, `tool_result_block`.

Anthropic's tool_result block carries the error flag itself; the cases check every key and the error
flag for a failed result. What the API accepts as the same block passes: content as text blocks,
and no is_error on a success (the API reads it as false).
"""

from __future__ import annotations

import random
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
)
from toolsys.checks._differential import Call, agree, calls, plain, text
from toolsys.checks._plain import as_str


def _block_reference() -> Any:
    from toolsys.protocols import tool_result_block

    return tool_result_block


def _read(block: dict[str, Any], result: Any) -> dict[str, Any]:
    """The block with what Anthropic's API reads the same way spelled one way: text blocks
    joined into one string, and no is_error on a success read as False."""
    read = dict(block)
    content = read.get("content")
    if type(content) is list and all(
        type(part) is dict and sorted(part) == ["text", "type"] and part["type"] == "text"
        for part in content
    ):
        read["content"] = "".join(as_str(part["text"]) or "" for part in content)
    if "is_error" not in read and result.ok:
        read["is_error"] = False
    return read


def _result_call(rng: random.Random, size: int) -> Call:
    """A block id and a result: a success holding plain data (its text mentioning errors too),
    or a failure with a code, a message and perhaps a suggestion."""
    from toolsys import ErrorInfo, ToolResult

    if rng.random() < 0.5:
        value = plain(rng, size) if rng.random() < 0.7 else {"error": "none", "ok": False}
        result = ToolResult.success(value)
    else:
        code = rng.choice(["CITY_NOT_FOUND", "TIMEOUT"])
        result = ToolResult.failure(ErrorInfo(code, text(rng, size, least=1), text(rng, size)))
    return Call((rng.choice(["toolu_01", "toolu_é"]), result))


_GENERATED = calls(_result_call, seed=65, count=120)


def _as_read(func: Any) -> Any:
    """`func`'s block as Anthropic's API reads it (text blocks joined, no is_error is false)."""

    def run(tool_use_id: str, result: Any) -> Any:
        got = func(tool_use_id, result)
        return _read(got, result) if type(got) is dict else got

    return run


@exercise(
    "6.5",
    title="A result in Anthropic's shape",
    hints=[
        'The keys: "type", "tool_use_id", "content" and "is_error" (which a success may leave '
        "out).",
        "content is result.to_message(), the same text an OpenAI tool message carries: a string, "
        'or a list of {"type": "text", "text": ...} blocks holding it.',
        "is_error is `not result.ok`: True exactly when the call failed. Decide it from the "
        "result, never from the words of its text.",
    ],
    reference=_block_reference,
)
def _check_tool_result_block(student: Any) -> None:
    from toolsys import ErrorInfo, ToolResult

    results = [
        ("a success", ToolResult.success({"city": "Paris", "temperature_c": 8})),
        ("a success whose value is None", ToolResult.success(None)),
        ("a failure", ToolResult.failure(ErrorInfo("CITY_NOT_FOUND", "No data for 'Lima'."))),
        (
            "a success whose text mentions an error",
            ToolResult.success({"log": "0 errors since 09:00", "last_error": None}),
        ),
    ]
    for index, (label, result) in enumerate(results, start=1):
        what = f"tool_result_block('toolu_0{index}', <{label}>)"
        got = call_student(student, f"toolu_0{index}", result, what=what, returns="a dict")
        expect_plain(got, what=what, shape='a dict {"type", "tool_use_id", "content", "is_error"}')
        if type(got) is not dict:
            raise CheckFailed(
                f"{what} must return a dict, the content block.",
                expected=Described('{"type": "tool_result", "tool_use_id": ..., ...}'),
                got=got,
            )
        if not result.ok and "is_error" not in got:
            raise CheckFailed(
                f"{what} leaves out is_error for a failed call: the API reads that as false, so "
                "the model takes the error for a result.",
                expected=Described('"is_error": True'),
                got=got,
                hint="is_error is `not result.ok`; a success may leave it out, a failure never.",
            )
        expect_equal(
            _read(got, result),
            {
                "type": "tool_result",
                "tool_use_id": f"toolu_0{index}",
                "content": result.to_message(),
                "is_error": not result.ok,
            },
            what=what,
            hint="is_error comes from the result (`not result.ok`), not from the words of its "
            "text: a success may mention errors."
            if result.ok and got.get("is_error") is True
            else "content is result.to_message() (a string, or text blocks holding it); "
            "is_error is not result.ok, a bool.",
        )
    agree(
        _as_read(student),
        _as_read(_block_reference()),
        _GENERATED,
        name="tool_result_block",
        hint="type 'tool_result', the tool_use_id, content result.to_message(), is_error "
        "not result.ok.",
    )
