"""After a tool result, the offline model's answer says what happened: one test per error code.

Each failure is produced by the real tool layer where it can be (an unknown tool, bad JSON,
bad arguments, a raising tool, a deadline, a result over budget, a policy, a person saying no),
sent back as the tool message, and the final answer must name what happened in words that fit
the code: an EXECUTION_ERROR is not "declined", a PERMISSION_DENIED is not "timed out". A
partial success says which part failed.
"""

from __future__ import annotations

import json
import time

import pytest

from toolsys import Registry, ToolError
from toolsys.errors import ErrorInfo
from toolsys.layers import Timeout, fit_result
from toolsys.models import OfflineModel
from toolsys.models._answers import WHAT_HAPPENED
from toolsys.models.config import OFFLINE_MARK, OFFLINE_MODEL
from toolsys.partial import Partial
from toolsys.result import ToolResult


def lookup_order(order_id: str) -> dict:
    """Look up the status of a customer order.

    Args:
        order_id: The order's id, e.g. A-1001.
    """
    return {"order_id": order_id, "status": "shipped"}


def count_items(count: int) -> int:
    """Count items in the warehouse.

    Args:
        count: How many to count.
    """
    return count


def registry() -> Registry:
    r = Registry()
    r.register(lookup_order)
    r.register(count_items)
    return r


def answer_after(name: str, arguments: str, content: str, prompt: str = "order A-1001") -> str:
    """The model's text answer after one call and its tool message (no retries allowed)."""
    tools = registry().export("openai")
    messages = [
        {"role": "user", "content": prompt},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": content},
    ]
    client = OfflineModel(max_retries=0).client()
    response = client.chat.completions.create(model=OFFLINE_MODEL, messages=messages, tools=tools)
    message = response.choices[0].message
    assert message.tool_calls is None, message.tool_calls
    assert message.content.endswith(OFFLINE_MARK)
    return message.content


def failed(code: str, message: str, suggestion: str = "", retryable: bool = False) -> str:
    return ToolResult.failure(ErrorInfo(code, message, suggestion, retryable)).to_message()


ARGS = json.dumps({"order_id": "A-1001"})


def test_unknown_tool():
    content = registry().execute("lookup_ordr", ARGS).to_message()
    text = answer_after("lookup_ordr", ARGS, content)
    assert "could not complete lookup_ordr(A-1001): there is no tool by that name" in text
    assert "(UNKNOWN_TOOL)" in text


def test_invalid_json():
    content = registry().execute("lookup_order", "{order_id: A-1001").to_message()
    assert json.loads(content)["error"]["code"] == "INVALID_JSON"
    text = answer_after("lookup_order", "{order_id: A-1001", content)
    assert "my arguments were not valid JSON, so it did not run (INVALID_JSON)" in text


def test_invalid_arguments():
    bad = json.dumps({"count": "lots"})
    content = registry().execute("count_items", bad).to_message()
    assert json.loads(content)["error"]["code"] == "INVALID_ARGUMENTS"
    text = answer_after("count_items", bad, content, prompt="count the items")
    assert "it refused the arguments, so it did not run (INVALID_ARGUMENTS)" in text
    assert "count" in text


def test_execution_error_is_reported_as_a_failure_never_as_declined():
    r = Registry()

    @r.tool
    def lookup_order(order_id: str) -> dict:
        """Look up an order."""
        raise RuntimeError("database is down")

    content = r.execute("lookup_order", ARGS).to_message()
    text = answer_after("lookup_order", ARGS, content)
    assert "it ran and failed with an error (EXECUTION_ERROR)" in text
    assert "database is down" in text
    assert "declined" not in text and "not permitted" not in text


def test_timeout():
    r = Registry(layers=[Timeout(seconds=0.05)])

    @r.tool
    def lookup_order(order_id: str) -> dict:
        """Look up an order."""
        time.sleep(0.5)
        return {}

    content = r.execute("lookup_order", ARGS).to_message()
    assert json.loads(content)["error"]["code"] == "TIMEOUT"
    text = answer_after("lookup_order", ARGS, content)
    assert "it timed out (TIMEOUT)" in text


def test_cancelled():
    content = failed("CANCELLED", "The run's deadline passed before this call finished.")
    text = answer_after("lookup_order", ARGS, content)
    assert "it was cancelled before it finished (CANCELLED)" in text
    assert "deadline passed" in text


def test_permission_denied():
    content = failed(
        "PERMISSION_DENIED",
        "Not allowed: refunds need the 'admin' role. The call to 'lookup_order' did not run.",
        "Do not retry this call.",
    )
    text = answer_after("lookup_order", ARGS, content)
    assert "it is not permitted here, so it did not run (PERMISSION_DENIED)" in text
    assert "could not work out a corrected call" not in text  # retrying it would never help


def test_approval_required():
    content = failed("APPROVAL_REQUIRED", "The call needs a person's approval before it runs.")
    text = answer_after("lookup_order", ARGS, content)
    assert "waiting for a person's approval and has not run (APPROVAL_REQUIRED)" in text


def test_approval_denied():
    content = failed(
        "APPROVAL_DENIED",
        "A person declined this call to 'lookup_order'; it did not run. Their reason: not today",
    )
    text = answer_after("lookup_order", ARGS, content)
    assert "a person declined it, so it did not run (APPROVAL_DENIED)" in text
    assert "not today" in text


def test_result_too_large():
    big = ToolResult.success("x" * 5000, tool="lookup_order")
    content = fit_result(big, 600, tool="lookup_order").to_message()
    assert json.loads(content)["error"]["code"] == "RESULT_TOO_LARGE"
    text = answer_after("lookup_order", ARGS, content)
    assert "it ran, but its result was too large to send back (RESULT_TOO_LARGE)" in text


def test_a_tools_own_code_is_quoted_with_its_message():
    r = Registry()

    @r.tool
    def lookup_order(order_id: str) -> dict:
        """Look up an order."""
        raise ToolError("ORDER_NOT_FOUND", f"No order {order_id!r}.")

    content = r.execute("lookup_order", ARGS).to_message()
    text = answer_after("lookup_order", ARGS, content)
    assert "could not complete lookup_order(A-1001): it failed with ORDER_NOT_FOUND" in text
    assert "No order 'A-1001'" in text


def test_a_plain_text_error_is_quoted():
    text = answer_after("lookup_order", ARGS, "Error: the shop is closed")
    assert "could not complete lookup_order(A-1001): it failed: Error: the shop is closed" in text


def test_a_retryable_failure_given_up_says_how_many_attempts():
    content = failed("TIMEOUT", "Timed out after 1 s.", "Try again.", retryable=True)
    text = answer_after("lookup_order", ARGS, content)
    assert "it timed out (TIMEOUT)" in text and "I gave up after 1 attempt)" in text


@pytest.mark.parametrize("code", sorted(WHAT_HAPPENED))
def test_every_code_of_the_tool_layer_has_its_own_words(code):
    text = answer_after("lookup_order", ARGS, failed(code, "Something specific."))
    assert f"{WHAT_HAPPENED[code]} ({code}): Something specific" in text
    others = [w for c, w in WHAT_HAPPENED.items() if c != code and w not in WHAT_HAPPENED[code]]
    assert not [w for w in others if w in text]


def test_a_partial_success_says_which_part_failed():
    value = Partial(
        done=["A-1"],
        failed=[{"item": "A-2", "error": ToolError("NOT_FOUND", "No order A-2.")}],
    )
    content = ToolResult.success(value).to_message()
    arguments = json.dumps({"order_ids": ["A-1", "A-2"]})
    text = answer_after("refund_orders", arguments, content)
    assert "partly succeeded: 1 of 2 done (A-1); failed: A-2 (NOT_FOUND: No order A-2)" in text


def test_a_success_and_a_failure_in_one_turn_are_both_told():
    r = Registry()

    @r.tool
    def get_weather(city: str) -> str:
        """Get the weather for a city.

        Args:
            city: The city.
        """
        if city == "Atlantis":
            raise ToolError("CITY_NOT_FOUND", "No weather data for 'Atlantis'.")
        return f"{city}: sunny"

    from toolsys.loop import run_agent

    transcript = run_agent(
        OfflineModel().client(), r, "weather in Paris and in Atlantis", max_steps=4
    )
    assert "get_weather(Paris) = Paris: sunny." in transcript.answer
    assert "could not complete get_weather(Atlantis): it failed with CITY_NOT_FOUND" in (
        transcript.answer
    )


def test_the_same_conversation_gets_the_same_answer():
    content = registry().execute("lookup_ordr", ARGS).to_message()
    assert answer_after("lookup_ordr", ARGS, content) == answer_after("lookup_ordr", ARGS, content)
