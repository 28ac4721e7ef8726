"""Exercise 6.2, a result-size guard: the check and its reference, `fit_result`.

A result too large for the context must be cut where the model reads it, with a note saying so: the
cases are measured on the text the model reads, escapes included.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_true


def _fit_result_reference() -> Any:
    from toolsys.layers import fit_result

    return fit_result


def _numbers(text: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", text)}


def _greek(n: int) -> str:
    """`n` characters of a Greek weather report: two UTF-8 bytes to most of them."""
    report = "Αθήνα: 18 °C, ηλιοφάνεια. Θεσσαλονίκη: 12 °C, συννεφιά. "
    return (report * (n // len(report) + 1))[:n]


def _big_logs(n: int) -> list[str]:
    return [f'12:00:{i % 60:02d} node-{i} said "timeout"\tafter 30 s\n' for i in range(n)]


@exercise(
    "6.2",
    title="A result-size guard",
    hints=[
        "Measure len(result.to_message()): the text the model reads, escapes included.",
        "A message of exactly max_chars characters fits: compare with <=.",
        "Build the failure, measure its to_message(), and shorten the preview by what is over "
        "the budget until it fits.",
    ],
    reference=_fit_result_reference,
    timeout=30,
)
def _check_fit_result(student: Any) -> None:
    from toolsys import ToolResult

    def fit(result: ToolResult, budget: int, label: str) -> ToolResult:
        got = call_student(
            student,
            result,
            budget,
            what=f"fit_result({label}, {budget})",
            returns="a ToolResult",
        )
        if type(got) is not ToolResult:
            raise CheckFailed(
                f"fit_result({label}, {budget}) must return a ToolResult.",
                expected=Described("a ToolResult"),
                got=got,
                hint="Return `result` itself, or ToolResult.failure(ErrorInfo(...)).",
            )
        return got

    def fits(result: ToolResult, label: str) -> None:
        got = fit(result, 1000, label)
        if got.to_message() != result.to_message():
            size = len(result.to_message())
            raise CheckFailed(
                f"fit_result({label}, 1000) changed a result whose message is {size:,} "
                "characters, within the budget of 1,000.",
                expected=result.to_message(),
                got=got.to_message(),
                hint="A result whose message has at most max_chars characters is returned "
                "unchanged: count the characters of result.to_message() (not its UTF-8 bytes: "
                "'α' is 1 character, 2 bytes), and compare with <=.",
            )

    small = ToolResult.success({"lines": ["12:00 ok"]})
    filler = "x" * (1000 - len(ToolResult.success("").to_message()))
    fits(small, "a small result")
    fits(ToolResult.success(filler), "a result of exactly 1000")
    escaped = ToolResult.success('"\n' * 600)  # 1,200 characters, ~2,400 once JSON-escaped
    over = ToolResult.success(filler + "yy")  # its message is 1,002 characters
    cases = [
        ("a result 2 characters over", over, 1000),
        ("a result full of quotes and newlines", escaped, 2000),
        ("200 kB of log lines", ToolResult.success(_big_logs(4000)), 8000),
    ]
    for label, result, budget in cases:
        _check_too_large(fit(result, budget, label), result, budget, label)
    # characters, not bytes: 1,000 characters of Greek weather are about 1,800 UTF-8 bytes
    fits(ToolResult.success(_greek(len(filler))), "a result of exactly 1000 characters in Greek")
    label = "a result in Greek 500 characters over"
    greek = ToolResult.success(_greek(2500 - len(ToolResult.success("").to_message())))
    _check_too_large(fit(greek, 2000, label), greek, 2000, label)
    _check_in_a_run(student)


def _check_too_large(got: Any, result: Any, budget: int, label: str) -> None:
    what = f"fit_result({label}, {budget})"
    size = len(result.to_message())
    expect_true(
        not got.ok and got.error is not None and got.error.code == "RESULT_TOO_LARGE",
        f"{what}: the message is {size:,} characters, over the budget of {budget:,}; the "
        "result must become a RESULT_TOO_LARGE failure.",
        hint="Measure len(result.to_message()), not the Python value: JSON escapes quotes, "
        "backslashes and newlines.",
    )
    message = got.to_message()
    if len(message) > budget:
        raise CheckFailed(
            f"{what}: the failure's own message is {len(message):,} characters, over the budget.",
            expected=Described(f"at most {budget:,} characters"),
            got=Described(f"{len(message):,} characters"),
            hint="Measure the failure's to_message() and shorten the preview until it fits.",
        )
    found = _numbers(got.error.message)
    expect_true(
        size in found and budget in found,
        f"{what}: the error message must give the size ({size:,}) and the budget ({budget:,}) "
        f"as numbers; it says: {got.error.message!r}",
        hint="The model decides what to ask for next from these numbers.",
    )
    preview = got.error.details.get("preview")
    original = result.to_message()
    if type(preview) is not str or not preview.rstrip("…").rstrip("."):
        raise CheckFailed(
            f"{what}: details['preview'] must hold the beginning of the original message.",
            expected=Described("a non-empty string"),
            got=preview,
        )
    if not original.startswith(preview.rstrip("…").rstrip(".")):
        raise CheckFailed(
            f"{what}: details['preview'] is not the beginning of the original message.",
            expected=original[:60] + "…",
            got=preview[:60],
            hint="Take text[:n] of result.to_message().",
        )
    room = len(json.dumps(preview, ensure_ascii=False))
    expect_true(
        room >= budget // 2,
        f"{what}: the preview fills {room:,} of the {budget:,} characters; use the room, at "
        "least half of the budget.",
        hint="Start from a preview as long as the budget and shorten it only by what is over.",
    )
    _expect_longest(got, original, preview, budget, what)


def _expect_longest(got: Any, original: str, preview: str, budget: int, what: str) -> None:
    """The preview is as long as it can be: one more character of the original would not fit."""
    from dataclasses import replace

    kept = preview[:-1] if preview.endswith("…") else preview
    if len(kept) >= len(original):
        return
    longer = original[: len(kept) + 1] + preview[len(kept) :]
    error = replace(got.error, details={**got.error.details, "preview": longer})
    message = replace(got, error=error).to_message()
    size = len(message)
    if size <= budget:
        in_bytes = len(got.to_message().encode()) <= budget < len(message.encode())
        raise CheckFailed(
            f"{what}: the preview keeps {len(kept):,} characters of the original, but one more "
            f"still fits ({size:,} of {budget:,}): the preview must be as long as it can be.",
            expected=Described(
                f"a preview whose next character would take the message over {budget:,}"
            ),
            got=Described(f"a message of {len(got.to_message()):,} characters"),
            hint="The budget counts characters, len(text), not UTF-8 bytes: this preview is "
            "as long as fits in bytes ('…' or 'α' is 1 character, 2 or 3 bytes)."
            if in_bytes
            else "Shorten the preview only while the message is over the budget (compare with "
            ">, not >=), by at most half of what is over: an escaped character takes 2.",
        )


def _check_in_a_run(student: Any) -> None:
    """The guard as an execution layer in `run_agent`: no tool message over the budget."""
    from toolsys import Registry, models
    from toolsys.loop import run_agent

    registry = Registry()

    @registry.tool
    def search_logs(query: str) -> list[str]:
        """Search the service logs for lines that contain a word.

        Args:
            query: The word to look for, e.g. "timeout".
        """
        return _big_logs(4000)

    async def guard(call: Any, call_next: Any) -> Any:
        return student(await call_next(call), 4000)

    registry.use(guard)
    transcript = run_agent(models.client(), registry, "Search the logs for timeout")
    sizes = [len(m["content"]) for m in transcript.messages if m["role"] == "tool"]
    expect_true(
        transcript.status == "completed" and sizes and max(sizes) <= 4000,
        f"Used as a layer in run_agent with a budget of 4,000, the tool messages were {sizes} "
        f"characters long and the run ended {transcript.status!r}.",
        hint="registry.use(layer) with `async def layer(call, call_next): return "
        "fit_result(await call_next(call), 4000)`: every tool message must fit.",
    )
