"""Exercise 10.1, an error the model can read: the check and its reference, `to_call_result`.

`toolsys.mcp.call_result` on the same results; the cases are a failure raised (a protocol error the
model never reads) or sent as a success, and a suggestion dropped.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal, expect_plain
from toolsys.checks._differential import Call, agree, calls, plain, text


def to_call_result(envelope: dict[str, Any]) -> dict[str, Any]:
    """Reference for 10.1: `toolsys.mcp.call_result` on the same envelope, as plain JSON data.

    The exercise puts the error dict under _meta exactly as it came; `call_result` writes the
    package's full error (an absent suggestion as ""), so the reference keeps the one given.
    """
    from toolsys.errors import ErrorInfo
    from toolsys.mcp import call_result
    from toolsys.result import ToolResult

    if envelope.get("ok") is True:
        result = ToolResult(True, envelope.get("value"))
    else:
        error = envelope["error"]
        info = ErrorInfo(
            error["code"],
            error["message"],
            error.get("suggestion", ""),
            error.get("retryable", False),
            error.get("details") or {},
        )
        result = ToolResult(False, None, info)
    data = call_result(result).model_dump(mode="json", by_alias=True, exclude_none=True)
    if "_meta" in data:
        data["_meta"] = {"toolsys/error": copy.deepcopy(envelope["error"])}
    return {key: data[key] for key in ("content", "isError", "_meta") if key in data}


def _failure(code: str, message: str, suggestion: str, **more: Any) -> dict[str, Any]:
    error = {"code": code, "message": message, "suggestion": suggestion, "retryable": False}
    return {"ok": False, "error": {**error, **more}}


_NOT_FOUND = _failure(
    "ORDER_NOT_FOUND", "No order 'ORD-9'.", "Ask the user for the id printed on the receipt."
)
_BAD_ARGS = _failure(
    "INVALID_ARGUMENTS",
    "Invalid arguments for 'get_order': order_id: got 9, expected a string.",
    "Fix these arguments and call get_order again: order_id must be a string.",
    details={"problems": [{"path": "order_id", "expected": "a string"}]},
)
_SILENT = _failure("UPSTREAM_DOWN", "The order service did not answer.", "")
_UNSAID = {"ok": False, "error": {"code": "LOCKED", "message": "Order ORD-7 is locked."}}
_RESULT_WHY = {
    "dict": "A value that is not a string is sent as JSON text: json.dumps(value, "
    "ensure_ascii=False).",
    "str": "A string value is already text: send it as it is. json.dumps would add quotes the "
    "model then reads as part of the answer.",
    "number": "A number is sent as JSON text too: json.dumps(646) is '646'.",
    "none": "None is a value: its JSON text is 'null'.",
    "unicode": "Non-ASCII text stays as it is: json.dumps(value, ensure_ascii=False). The default "
    "escapes 'ë' as '\\u00eb', which the model then reads (and pays for) as six characters.",
    "failure": "A failure is a result too: isError True, the text `message + ' ' + "
    "suggestion`, and the whole error under _meta['toolsys/error']. Raising instead becomes a "
    "JSON-RPC protocol error, and the model never sees why the call failed.",
    "details": "Pass the error on whole (details included) under _meta['toolsys/error']: a "
    "toolsys client restores the envelope from it.",
    "silent": "With an empty suggestion (or none at all, or None: error.get('suggestion') or '') "
    "the text is the message alone, without a trailing space or a 'None'.",
    "order": "The text is json.dumps(value, ensure_ascii=False) as it is: the value's keys in "
    "their own order (no sort_keys).",
}
_RESULT_CASES: list[tuple[dict[str, Any], str]] = [
    ({"ok": True, "value": {"id": "ORD-42", "status": "shipped"}}, "dict"),
    ({"ok": True, "value": "cancelled ORD-42"}, "str"),
    ({"ok": True, "value": 646}, "number"),
    ({"ok": True, "value": [1, 2.5, True]}, "dict"),
    ({"ok": True, "value": None}, "none"),
    ({"ok": True, "value": {"name": "Zoë", "note": "colis abîmé 📦"}}, "unicode"),
    ({"ok": True, "value": "Zoë's parcel"}, "str"),
    (_NOT_FOUND, "failure"),
    (_BAD_ARGS, "details"),
    (_SILENT, "silent"),
    (_UNSAID, "silent"),
    (
        {
            "ok": False,
            "error": {"code": "LOCKED", "message": "Order ORD-7 is locked.", "suggestion": None},
        },
        "silent",
    ),
    ({"ok": True, "value": {"status": "shipped", "id": "ORD-42"}}, "order"),
]
_RESULT_SHAPE = "a dict with keys content and isError (and _meta for a failure)"


def _envelope_call(rng: random.Random, size: int) -> Call:
    """A success holding plain data (a string, non-ASCII text, nested values) or a failure
    whose suggestion is text, "", None or missing, with more keys (retryable, details) or not."""
    if rng.random() < 0.5:
        return Call(({"ok": True, "value": plain(rng, size)},))
    error: dict[str, object] = {"code": rng.choice(["ORDER_NOT_FOUND", "TIMEOUT"])}
    error["message"] = text(rng, size, least=1)
    pick = rng.randrange(4)
    if pick < 3:
        error["suggestion"] = [text(rng, size, least=1), "", None][pick]
    if rng.random() < 0.4:
        error["retryable"] = rng.random() < 0.5
    if rng.random() < 0.2:
        error["details"] = {"order": "Zoë-1"}
    return Call(({"ok": False, "error": error},))


_GENERATED = calls(_envelope_call, seed=101, count=200)


@exercise(
    "10.1",
    title="An error the model can read",
    hints=[
        "Two shapes in, two out. Success: {'content': [{'type': 'text', 'text': ...}], "
        "'isError': False}. Failure: the same with 'isError': True and a '_meta' key.",
        "Never raise for a failed call: a raise becomes a JSON-RPC error, which hosts show as "
        "'Error executing tool' (or crash on), so the model never reads the suggestion.",
        "The text of a failure is error['message'] + ' ' + error['suggestion'] (only the "
        "message when the suggestion is empty); a success's text is the value itself when it "
        "is a string, json.dumps(value, ensure_ascii=False) otherwise.",
    ],
    reference=lambda: to_call_result,
)
def _check_to_call_result(student: Callable[..., Any]) -> None:
    for envelope, why in _RESULT_CASES:
        what = f"to_call_result({json.dumps(envelope)})"
        got = call_student(
            student,
            copy.deepcopy(envelope),
            what=what,
            returns="an MCP tools/call result",
            hint=_RESULT_WHY[why],
        )
        expect_plain(got, what=what, shape=_RESULT_SHAPE, hint=_RESULT_WHY[why])
        expected = to_call_result(envelope)
        expect_equal(got, expected, what=what, hint=_result_hint(got, expected, why))
    agree(
        student,
        to_call_result,
        _GENERATED,
        name="to_call_result",
        hint="A success: one text block, the value itself if a str, else json.dumps(value, "
        "ensure_ascii=False), isError False. A failure: message + ' ' + suggestion (just the "
        "message when the suggestion is empty, None or missing), isError True, the error dict "
        "in _meta['toolsys/error'].",
    )


def _result_hint(got: Any, expected: dict[str, Any], why: str) -> str:
    """The case's hint, unless the difference is elsewhere: isError, or _meta on a success."""
    if type(got) is dict:
        if got.get("isError", None) is not expected["isError"]:
            flag = expected["isError"]
            return (
                f"Every result says isError, a bool: {flag} here ("
                + (
                    "the call failed"
                    if flag
                    else "a success says isError False too, not only a failure True"
                )
                + "). The host reads that flag, not the text, to tell a failure."
            )
        if "_meta" in got and "_meta" not in expected:
            return (
                "Only a failure carries _meta['toolsys/error']; a success has content and "
                "isError only."
            )
    return _RESULT_WHY[why]
