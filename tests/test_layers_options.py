"""The per-tool options the robustness layers read, and a tool's own retry_after."""

from __future__ import annotations

from typing import Any

import pytest

from toolsys import Category, Param, Registry, Subprocess, ToolError, ToolSpec
from toolsys.errors import ToolDefinitionError


def noop() -> None:
    """Does nothing."""


@pytest.mark.parametrize(
    ("category", "idempotent"),
    [(Category.READ, True), (Category.WRITE, False), (Category.EXECUTE, False)],
)
def test_idempotent_defaults_to_true_only_for_read_tools(
    category: Category, idempotent: bool
) -> None:
    tool = Registry().register(noop, category=category)
    assert tool.idempotent is idempotent
    assert Registry().register(noop, category=category, idempotent=not idempotent).idempotent is (
        not idempotent
    )


def test_the_options_reach_the_tool_from_every_way_of_registering() -> None:
    registry = Registry()

    @registry.tool(category=Category.WRITE, timeout=2.0, idempotent=True, isolate="process")
    def refund(order_id: str) -> None:
        """Refund.

        Args:
            order_id: The order.
        """

    spec = ToolSpec("ping", "Ping.", [Param("host", "string", "Host.")], Category.EXECUTE)
    ping = registry.register(spec, lambda host: host, timeout=1, isolate=Subprocess(cpu_seconds=2))
    tool = registry.get("refund")
    assert (tool.timeout, tool.idempotent, tool.isolate) == (2.0, True, Subprocess())
    assert (ping.timeout, ping.idempotent, ping.isolate) == (1.0, False, Subprocess(cpu_seconds=2))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"timeout": -2}, "timeout=-2"),
        ({"idempotent": "yes"}, "idempotent='yes'"),
        ({"isolate": "docker"}, "isolate='docker'"),
    ],
)
def test_a_bad_option_is_refused_at_registration(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ToolDefinitionError, match=words):
        Registry().register(noop, **options)


def test_a_tool_error_carries_retry_after_into_the_envelope() -> None:
    registry = Registry()

    @registry.tool
    def limited() -> None:
        """Rate limited."""
        raise ToolError("RATE_LIMITED", "Slow down.", retryable=True, retry_after=1.5)

    error = registry.execute("limited").error
    assert error is not None and error.retry_after == 1.5
    assert error.to_dict()["retry_after"] == 1.5
    assert "retry_after" not in ToolError("X", "x").to_info().to_dict()


@pytest.mark.parametrize("bad", [-1, float("nan"), "soon", True])
def test_a_bad_retry_after_is_refused_with_the_value_named(bad: Any) -> None:
    with pytest.raises(ValueError, match="retry_after="):
        ToolError("X", "x", retry_after=bad)
