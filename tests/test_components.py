"""Class-based tools and toolkits: built by the same generator, run through the same path."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, Field

from toolsys import BaseTool, Category, Registry, ToolDefinitionError, Toolkit, ToolResult
from toolsys.execution import Call, Next


class Outbox:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []


class SendEmail(BaseTool):
    """Send an e-mail to one recipient."""

    category = Category.WRITE

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def run(self, to: str, subject: str) -> str:
        """Args:
        to: The recipient's address.
        subject: The subject line.
        """
        self.outbox.sent.append((to, subject))
        return f"sent to {to}"


def send_email(to: str, subject: str) -> str:
    """Send an e-mail to one recipient.

    Args:
        to: The recipient's address.
        subject: The subject line.
    """
    return f"sent to {to}"


def test_a_class_tool_registers_with_its_dependency_and_runs() -> None:
    outbox = Outbox()
    registry = Registry()
    tool = registry.add(SendEmail(outbox))
    assert (tool.name, tool.category, tool.idempotent) == ("send_email", Category.WRITE, False)
    result = registry.execute("send_email", {"to": "a@x.org", "subject": "Hi"})
    assert result.ok and result.value == "sent to a@x.org"
    assert outbox.sent == [("a@x.org", "Hi")]


@pytest.mark.parametrize("target", ["openai", "anthropic", "mcp"])
def test_a_class_tool_exports_exactly_like_the_same_function(target: str) -> None:
    by_class, by_function = Registry(), Registry()
    by_class.add(SendEmail(Outbox()))
    by_function.register(send_email, category=Category.WRITE)
    assert by_class.export(target) == by_function.export(target)


def test_a_class_tool_failure_is_the_same_envelope() -> None:
    class Broken(BaseTool):
        """Always fails."""

        def run(self) -> None:
            raise RuntimeError("disk full")

    registry = Registry()
    registry.add(Broken())
    result = registry.execute("broken", {})
    assert not result.ok and result.error is not None
    assert result.error.code == "EXECUTION_ERROR" and "disk full" in result.error.message


def test_a_class_tool_goes_through_the_layers() -> None:
    seen: list[str] = []

    async def audit(call: Call, call_next: Next) -> ToolResult:
        seen.append(call.name)
        return await call_next(call)

    registry = Registry(layers=[audit])
    registry.add(SendEmail(Outbox()))
    assert registry.execute("send_email", {"to": "a", "subject": "b"}).ok
    assert seen == ["send_email"]


def test_an_async_run_is_awaited() -> None:
    class Slow(BaseTool):
        """Wait, then answer."""

        async def run(self, n: int) -> int:
            """Args:
            n: A number.
            """
            await asyncio.sleep(0)
            return n * 2

    registry = Registry()
    assert registry.add(Slow()).is_async
    assert registry.execute("slow", {"n": 21}).value == 42


class Refund(BaseModel):
    """Refund an order."""

    order_id: str = Field(description="The order.")
    cents: int = Field(ge=1, description="How much.")


class RefundOrder(BaseTool):
    name = "refund"
    description = "Refund part of an order."
    category = "write"
    args = Refund
    timeout = 5.0

    def run(self, args: Refund) -> str:
        return f"{args.order_id}: {args.cents}"


def test_a_class_tool_with_an_args_model_receives_the_model() -> None:
    registry = Registry()
    tool = registry.add(RefundOrder())
    assert (tool.name, tool.description, tool.timeout) == (
        "refund",
        "Refund part of an order.",
        5.0,
    )
    assert registry.execute("refund", {"order_id": "A1", "cents": 5}).value == "A1: 5"
    refused = registry.execute("refund", {"order_id": "A1", "cents": 0, "extra": 1})
    assert refused.error is not None and refused.error.code == "INVALID_ARGUMENTS"


def test_the_description_falls_back_to_run_and_the_name_to_the_class() -> None:
    class LookUpCustomer(BaseTool):
        def run(self, email: str) -> str:
            """Find a customer by e-mail.

            Args:
                email: Their address.
            """
            return email

    tool = LookUpCustomer().as_tool()
    assert (tool.name, tool.description) == ("look_up_customer", "Find a customer by e-mail.")


@pytest.mark.parametrize(
    ("given", "match"),
    [
        (SendEmail, "that is the class"),
        (Toolkit(), "toolkit registers itself"),
        (42, "not int"),
        (send_email, "registry.register"),
    ],
)
def test_add_refuses_what_is_not_a_tool_with_what_to_do(given: Any, match: str) -> None:
    with pytest.raises(ToolDefinitionError, match=match):
        Registry().add(given)


def test_a_class_without_run_or_with_a_bad_category_or_name_is_refused() -> None:
    class NoRun(BaseTool):
        """Nothing to run."""

    class BadCategory(BaseTool):
        category = "delete"

        def run(self) -> None: ...

    class BadName(BaseTool):
        name = "send email!"

        def run(self) -> None: ...

    with pytest.raises(ToolDefinitionError, match="no run method"):
        Registry().add(NoRun())
    with pytest.raises(ToolDefinitionError, match="not a category"):
        Registry().add(BadCategory())
    with pytest.raises(ToolDefinitionError, match="cannot be exported"):
        Registry().add(BadName())


class ListInbox(BaseTool):
    """List the subjects sent so far."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def run(self) -> list[str]:
        return [subject for _, subject in self.outbox.sent]


class Mail(Toolkit):
    """E-mail tools sharing one outbox."""

    prefix = "mail"

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def tools(self) -> list[BaseTool]:
        return [SendEmail(self.outbox), ListInbox(self.outbox)]


def test_a_toolkit_registers_its_tools_under_its_prefix_sharing_dependencies() -> None:
    outbox = Outbox()
    registry = Registry()
    added = Mail(outbox).register(registry)
    assert [tool.name for tool in added] == ["mail__send_email", "mail__list_inbox"]
    registry.execute("mail__send_email", {"to": "a", "subject": "Hello"})
    assert registry.execute("mail__list_inbox", {}).value == ["Hello"]


def test_a_toolkit_is_unregistered_as_a_group_and_leaves_other_tools() -> None:
    registry = Registry()
    registry.register(send_email)
    kit = Mail(Outbox())
    kit.register(registry, prefix="m-")
    assert kit.unregister(registry) == ["m-__send_email", "m-__list_inbox"]
    assert registry.names() == ["send_email"]
    assert kit.unregister(registry) == []


def test_a_toolkit_registers_all_or_nothing() -> None:
    registry = Registry()
    registry.register(send_email, name="mail__list_inbox")
    with pytest.raises(ToolDefinitionError, match="already registered"):
        Mail(Outbox()).register(registry)
    assert registry.names() == ["mail__list_inbox"]


def test_a_listed_toolkit_holds_classes_functions_and_tools() -> None:
    def ping() -> str:
        """Answer pong."""
        return "pong"

    prebuilt = RefundOrder().as_tool()
    kit = Toolkit(SendEmail(Outbox()), ping, prebuilt, prefix="ops")
    registry = Registry()
    kit.register(registry)
    assert registry.names() == ["ops__send_email", "ops__ping", "ops__refund"]
    assert registry.execute("ops__ping").value == "pong"
    assert registry.execute("ops__refund", {"order_id": "B", "cents": 2}).value == "B: 2"


@pytest.mark.parametrize("prefix", ["crm.", "a b_", "crm_", "x" * 64, 7])
def test_a_prefix_that_is_not_wire_safe_is_refused(prefix: Any) -> None:
    with pytest.raises(ToolDefinitionError, match="prefix"):
        Mail(Outbox()).register(Registry(), prefix=prefix)


def test_a_prefix_that_makes_a_name_too_long_is_refused_by_name() -> None:
    with pytest.raises(ToolDefinitionError, match="1-64 characters"):
        Mail(Outbox()).register(Registry(), prefix="p" * 60)


def test_a_toolkit_with_two_tools_of_one_name_is_refused() -> None:
    kit = Toolkit(SendEmail(Outbox()), SendEmail(Outbox()))
    with pytest.raises(ToolDefinitionError, match="two tools named 'send_email'"):
        kit.register(Registry())


def test_a_toolkit_holding_nonsense_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="holds BaseTool"):
        Toolkit(42).register(Registry())  # type: ignore[arg-type]
