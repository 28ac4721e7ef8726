"""Exercise 6.5, a result in Anthropic's shape: the check and its reference, `tool_result_block`.

Anthropic's tool_result block carries the error flag itself; the cases check every key and the error
flag for a failed result.
"""

from __future__ import annotations

from typing import Any

from toolsys.checks import call_student, exercise, expect_equal, expect_plain


def _block_reference() -> Any:
    from toolsys.protocols import tool_result_block

    return tool_result_block


@exercise(
    "6.5",
    title="A result in Anthropic's shape",
    hints=[
        'Four keys: "type", "tool_use_id", "content" and "is_error".',
        "content is result.to_message(), a string, the same text an OpenAI tool message carries.",
        "is_error is `not result.ok`: True exactly when the call failed.",
    ],
    reference=_block_reference,
)
def _check_tool_result_block(student: Any) -> None:
    from toolsys import ErrorInfo, ToolResult

    results = [
        ("a success", ToolResult.success({"city": "Paris", "temperature_c": 8})),
        ("a success whose value is None", ToolResult.success(None)),
        ("a failure", ToolResult.failure(ErrorInfo("CITY_NOT_FOUND", "No data for 'Lima'."))),
    ]
    for index, (label, result) in enumerate(results, start=1):
        what = f"tool_result_block('toolu_0{index}', <{label}>)"
        got = call_student(student, f"toolu_0{index}", result, what=what, returns="a dict")
        expect_plain(got, what=what, shape='a dict {"type", "tool_use_id", "content", "is_error"}')
        expect_equal(
            got,
            {
                "type": "tool_result",
                "tool_use_id": f"toolu_0{index}",
                "content": result.to_message(),
                "is_error": not result.ok,
            },
            what=what,
            hint="content is result.to_message() (a string); is_error is not result.ok.",
        )
