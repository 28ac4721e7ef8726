"""MCP 2026-07-28: which revision toolsys speaks, and approval asked through the client.

A call the Policy holds for approval is answered, to a client that can ask its user, with an
`InputRequiredResult` (multi round-trip requests); the SDK's own client driver asks through its
`elicitation_callback` and retries. Everything else (no elicitation declared, an older protocol)
gets the APPROVAL_REQUIRED envelope as an `isError` result, as before.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import mcp
import pytest
from mcp_types import ElicitResult, InputRequiredResult
from mcp_types.version import LATEST_PROTOCOL_VERSION

from toolsys import Registry
from toolsys.governance import AuditLog, Policy
from toolsys.mcp import to_server
from toolsys.mcp._approval import INPUT_KEY, MRTR_VERSION
from toolsys.spec import Category


def shop() -> tuple[Registry, list[float]]:
    refunded: list[float] = []
    registry = Registry(layers=[Policy()])

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order.

        Args:
            order_id: The order.
            amount: Euros to refund.
        """
        refunded.append(amount)
        return {"refunded": amount}

    @registry.tool
    def lookup(order_id: str) -> dict:
        """Look an order up.

        Args:
            order_id: The order.
        """
        return {"order_id": order_id}

    return registry, refunded


def answering(action: str, content: dict[str, Any] | None = None, asked: list | None = None):
    async def callback(context: Any, params: Any) -> ElicitResult:
        if asked is not None:
            asked.append(params)
        return ElicitResult(action=action, content=content)

    return callback


def call(server, callback=None, arguments=None, **options):
    async def run():
        async with mcp.Client(server, elicitation_callback=callback, **options) as client:
            return client.protocol_version, await client.call_tool(
                "refund", arguments or {"order_id": "A1", "amount": 20}
            )

    return asyncio.run(run())


def test_the_sdk_and_toolsys_speak_revision_2026_07_28():
    assert LATEST_PROTOCOL_VERSION == MRTR_VERSION == "2026-07-28"
    version, _ = call(to_server(shop()[0]))
    assert version == "2026-07-28"


def test_an_approval_is_asked_through_the_client_and_the_call_runs_once():
    registry, refunded = shop()
    asked: list = []
    _, result = call(to_server(registry), answering("accept", {"approve": True}, asked))
    assert not result.is_error and json.loads(result.content[0].text) == {"refunded": 20.0}
    assert refunded == [20.0]
    (question,) = asked
    assert question.message.startswith('Approve refund(order_id="A1", amount=20.0)?')
    assert question.requested_schema["required"] == ["approve"]


@pytest.mark.parametrize(
    ("action", "content", "reason"),
    [
        ("accept", {"approve": False, "reason": "Over budget."}, "Over budget."),
        ("accept", {"approve": False}, "declined in the client"),
        ("accept", {}, "declined in the client"),
        ("decline", None, "'decline'"),
        ("cancel", None, "'cancel'"),
    ],
)
def test_anything_but_an_explicit_yes_is_a_denial_and_nothing_runs(action, content, reason):
    registry, refunded = shop()
    _, result = call(to_server(registry), answering(action, content))
    assert result.is_error and refunded == []
    envelope = result.meta["toolsys/error"]
    assert envelope["code"] == "APPROVAL_DENIED" and reason in envelope["message"]


def test_a_client_that_cannot_ask_gets_the_approval_required_result_as_before():
    registry, refunded = shop()
    _, result = call(to_server(registry))  # no elicitation_callback: the capability is not declared
    assert result.is_error and refunded == []
    assert result.meta["toolsys/error"]["code"] == "APPROVAL_REQUIRED"


def test_an_older_protocol_gets_the_approval_required_result_too():
    registry, refunded = shop()
    version, result = call(
        to_server(registry), answering("accept", {"approve": True}), mode="legacy"
    )
    assert version != MRTR_VERSION
    assert result.meta["toolsys/error"]["code"] == "APPROVAL_REQUIRED" and refunded == []


def test_a_read_tool_needs_no_question():
    registry, _ = shop()

    async def run():
        async with mcp.Client(
            to_server(registry), elicitation_callback=answering("decline")
        ) as client:
            return await client.call_tool("lookup", {"order_id": "A1"})

    assert not asyncio.run(run()).is_error


def by_hand(server, *rounds):
    """Drive the rounds ourselves: each is (arguments, input_responses, request_state or 'keep')."""

    async def run():
        async with mcp.Client(
            server, elicitation_callback=answering("accept", {"approve": True})
        ) as client:
            answers, state = [], None
            for arguments, responses, given in rounds:
                answer = await client.session.call_tool(
                    "refund",
                    arguments,
                    input_responses=responses,
                    request_state=state if given == "keep" else given,
                    allow_input_required=True,
                )
                answers.append(answer)
                state = getattr(answer, "request_state", None)
            return answers

    return asyncio.run(run())


YES = {INPUT_KEY: ElicitResult(action="accept", content={"approve": True})}
A20, A9999 = {"order_id": "A1", "amount": 20}, {"order_id": "A1", "amount": 9999}


def refused(exc: BaseException) -> list[str]:
    """The messages of an error and of everything it groups (the client runs a task group)."""
    if isinstance(exc, BaseExceptionGroup):
        return [m for inner in exc.exceptions for m in refused(inner)]
    return [str(exc)]


def test_an_approval_cannot_be_carried_to_other_arguments():
    """The SDK's seal binds the state to the request: a retry with other arguments is refused
    before toolsys sees it (and the Policy would ask again anyway: approvals bind to a hash)."""
    registry, refunded = shop()
    with pytest.raises(BaseException) as caught:
        by_hand(to_server(registry), (A20, None, None), (A9999, YES, "keep"))
    assert "Invalid or expired requestState" in refused(caught.value)
    assert refunded == []


def test_the_retry_with_the_same_arguments_and_a_yes_runs_the_call():
    registry, refunded = shop()
    first, retry = by_hand(to_server(registry), (A20, None, None), (A20, YES, "keep"))
    assert isinstance(first, InputRequiredResult) and INPUT_KEY in first.input_requests
    assert not retry.is_error and refunded == [20.0]


def test_a_forged_request_state_is_refused_by_the_sdks_seal():
    registry, refunded = shop()
    forged = json.dumps({"call_id": "mcp-x", "tool": "refund", "hash": "0" * 64})
    with pytest.raises(BaseException) as caught:
        by_hand(to_server(registry), (A20, YES, forged))
    assert "Invalid or expired requestState" in refused(caught.value)
    assert refunded == []


def test_every_round_reaches_the_audit_log():
    log = io.StringIO()
    refunded: list[float] = []
    registry = Registry(layers=[AuditLog(log), Policy()])

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> dict:
        """Refund an order.

        Args:
            order_id: The order.
            amount: Euros.
        """
        refunded.append(amount)
        return {"refunded": amount}

    call(to_server(registry), answering("accept", {"approve": True}))
    records = [json.loads(line) for line in log.getvalue().splitlines()]
    assert refunded == [20.0] and len(records) == 2  # the question, then the approved run


def test_over_stdio_the_child_speaks_2026_07_28_and_asks_the_same_question():
    import sys
    from pathlib import Path

    from mcp import StdioServerParameters, stdio_client

    root = Path(__file__).parent.parent
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from toolsys.cli import main; main()",
            "mcp",
            "serve",
            "tests.mcp_servers:policed",
        ],
        env={"PYTHONPATH": str(root), "TOOLSYS_OFFLINE": "1", "PYTHONHASHSEED": "0"},
        cwd=str(root),
    )
    asked: list = []

    async def run():
        async with mcp.Client(
            stdio_client(params, errlog=sys.stderr),
            elicitation_callback=answering("accept", {"approve": True}, asked),
        ) as client:
            return client.protocol_version, await client.call_tool(
                "refund", {"order_id": "A1", "amount": 5}
            )

    version, result = asyncio.run(run())
    assert version == "2026-07-28" and len(asked) == 1
    assert not result.is_error and json.loads(result.content[0].text) == {"refunded": 5.0}
