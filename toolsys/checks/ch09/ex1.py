"""Exercise 9.1, a conditional composite: the check and its reference, `refund_or_escalate`.

The reference is `toolsys.compose.when`; the cases are a 'tool that calls tools' that reads as READ
and hides its inner calls from the layers.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal, expect_true
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks.ch09._shared import Recorder
from toolsys.errors import ToolError
from toolsys.registry import Registry
from toolsys.spec import Category, Param, ToolSpec
from toolsys.tool import Tool


def refund_or_escalate(registry: Registry) -> Tool:
    """Reference for 9.1: `when` over the registry's own tools."""
    from toolsys.compose import when

    def small(arguments: dict[str, Any]) -> bool:
        """the amount is at most 100"""
        return arguments["amount"] <= 100

    return when(
        "refund_or_escalate", small, then=registry.get("refund"), otherwise=registry.get("escalate")
    )


def _shop(
    escalate_category: Category = Category.EXECUTE,
) -> tuple[Registry, Recorder, list[tuple[str, str, float]]]:
    recorder, ran = Recorder(), []
    registry = Registry(layers=[recorder])

    def refund(order_id: str, amount: float) -> str:
        if order_id == "A-0":
            raise ToolError("ORDER_NOT_FOUND", "No order 'A-0'.", suggestion="Ask for the id.")
        ran.append(("refund", order_id, amount))
        return f"refunded {amount:g} on {order_id}"

    def escalate(order_id: str, amount: float) -> str:
        ran.append(("escalate", order_id, amount))
        return f"{order_id} handed to a human"

    string, number = Param("order_id", "string", "The order id."), Param("amount", "number", "")
    registry.register(
        ToolSpec("refund", "Refund an order.", [string, number], Category.WRITE), refund
    )
    registry.register(
        ToolSpec("escalate", "Hand an order to a human.", [string, number], escalate_category),
        escalate,
    )
    return registry, recorder, ran


_CALLER = {"user": "sam", "roles": ["agent"]}


def _amount_call(rng: random.Random, size: int) -> Call:
    """An order and an amount: an int or a float, around 100 (99.99, 100, 100.0, 100.000001,
    101) or anywhere from 0 to far above."""
    amount = rng.choice(
        [0, 0.0, 1, 99, 99.99, 100, 100.0, 100.000001, 100.01, 101, 1e6, rng.uniform(0, 200),
         rng.randint(0, 10 ** (1 + size // 3))]
    )  # fmt: skip
    return Call((rng.choice(["A-7", "B-1", "Zoë-3"]), amount))


_GENERATED = calls(_amount_call, seed=91, count=60)


_OVER = re.compile(
    r"\b(?:over|above|more than|greater than|larger than|bigger than|exceeds?|exceeding)\b|>(?!=)",
    re.IGNORECASE,
)
"""Words that put refund above the limit."""
_AT_MOST = re.compile(
    r"\b(?:at most|no more than|up to|or less|or under|or below|under|below|less than|within|"
    r"unless|not (?:more|greater|larger|bigger|over|above|exceed)|does(?:n't| not) exceed)\b|<|≤",
    re.IGNORECASE,
)
"""Words that put refund at or below it (a negated 'over' included)."""


def _branch(make: Callable[..., Any]) -> Callable[..., Any]:
    """The tools that ran when the composite `make(registry)` built is called with an amount."""
    registry, _, ran = _shop()
    registry.add(make(registry))

    def run(order_id: str, amount: float) -> Any:
        ran.clear()
        result = registry.execute(
            "refund_or_escalate", {"order_id": order_id, "amount": amount}, context=_CALLER
        )
        return [name for name, _, _ in ran] if result.ok else str(result.error)

    return run


_HAND_CHAINED = (
    "Build it with toolsys.compose.when from registry.get('refund') and "
    "registry.get('escalate'): a function of your own that calls them is a READ tool to every "
    "policy, and its inner calls pass no layer."
)


@exercise(
    "9.1",
    title="A conditional composite",
    hints=[
        "toolsys.compose.when(name, condition, then=..., otherwise=...) returns a Tool.",
        "The condition is a named function of the call's arguments (a dict): return "
        "arguments['amount'] <= 100. The branches are registry.get('refund') and "
        "registry.get('escalate').",
        "100 itself is refunded: <=, not <.",
    ],
    reference=lambda: refund_or_escalate,
    timeout=30,
)
def _check_refund_or_escalate(student: Callable[..., Any]) -> None:
    registry, recorder, ran = _shop()
    built = call_student(
        student, registry, what="refund_or_escalate(registry)", returns="a Tool", hint=None
    )
    if not isinstance(built, Tool):
        raise CheckFailed(
            "refund_or_escalate(registry) should return a Tool.",
            expected=Described("a Tool (what when(...) returns)"),
            got=built,
            hint=_HAND_CHAINED,
        )
    expect_equal(built.name, "refund_or_escalate", what="the composite's name")
    expect_equal(
        built.category.value,
        "execute",
        what="the composite's category",
        hint="A composite's category is the highest of its children's: escalate is EXECUTE. "
        + _HAND_CHAINED,
    )
    registry.add(built)
    for amount, branch in (
        (30.0, "refund"),
        (100.0, "refund"),
        (100, "refund"),
        (100.5, "escalate"),
    ):
        ran.clear()
        recorder.seen.clear()
        recorder.users.clear()
        result = registry.execute(
            "refund_or_escalate", {"order_id": "A-7", "amount": amount}, context=_CALLER
        )
        what = f"refund_or_escalate(order_id='A-7', amount={amount:g})"
        message = result.error.message if result.error else str(result)
        expect_true(
            result.ok,
            f"{what} failed: {message}",
            hint="The condition must return a bool: `arguments['amount'] <= 100`, not 1 or 0 "
            "(when() refuses anything but True or False)."
            if "condition" in message and "not True or False" in message
            else "Both branches take order_id and amount: pass the arguments on unchanged.",
        )
        expect_equal(
            [run[0] for run in ran],
            [branch],
            what=f"the tools that ran for {what}",
            hint="Refund when the amount is at most 100 (100 included), escalate above it.",
        )
        expect_equal(
            recorder.seen,
            ["refund_or_escalate", branch],
            what=f"the calls a layer saw for {what}",
            hint=_HAND_CHAINED,
        )
        expect_equal(
            recorder.users,
            ["sam", "sam"],
            what=f"the caller (context['user']) a layer saw on each call of {what} by sam",
            hint="The inner call must carry the caller's context, so that a policy judges it "
            "for the same person: a function that calls registry.execute(...) itself drops it. "
            + _HAND_CHAINED,
        )
    failed = registry.execute("refund_or_escalate", {"order_id": "A-0", "amount": 10.0})
    expect_equal(
        failed.error.code if failed.error else "ok",
        "ORDER_NOT_FOUND",
        what="the error code of refund_or_escalate(order_id='A-0', amount=10)",
        hint="The refund failed with ORDER_NOT_FOUND: a composite passes its child's error on. "
        + _HAND_CHAINED,
    )
    writes, _, _ = _shop(escalate_category=Category.WRITE)
    rebuilt = call_student(
        student, writes, what="refund_or_escalate(registry)", returns="a Tool", hint=None
    )
    expect_equal(
        rebuilt.category.value if isinstance(rebuilt, Tool) else rebuilt,
        "write",
        what="the composite's category on a registry where escalate is a WRITE tool too",
        hint="The category comes from the children (the highest of theirs), not from a constant "
        "of yours. " + _HAND_CHAINED,
    )
    if "its condition holds" in str(built.description):
        raise CheckFailed(
            f"The composite's description is {built.description!r}: it does not say when it "
            "refunds, and the model picks the tool by those words.",
            expected=Described(
                "a description naming the rule, e.g. 'Runs refund when the amount "
                "is at most 100, else escalate.'"
            ),
            got=built.description,
            hint="when() writes the description from the condition's docstring: give the named "
            'condition one, def small(arguments): """the amount is at most 100""" (a '
            "lambda has none).",
        )
    if "100" not in str(built.description):
        raise CheckFailed(
            f"The composite's description is {built.description!r}: it does not say the rule "
            "(where the limit is, 100), and the model picks the tool by those words.",
            expected=Described(
                "a description naming the limit, e.g. 'Runs refund when the "
                "amount is at most 100, else escalate.'"
            ),
            got=built.description,
            hint="Say the rule in the first line of the condition's docstring, the number "
            'included: """the amount is at most 100""". when() writes that line into the '
            "composite's description; 'small amounts' does not tell the model which are.",
        )
    if _OVER.search(str(built.description)) and not _AT_MOST.search(str(built.description)):
        raise CheckFailed(
            f"The composite's description is {built.description!r}: it says refund runs for "
            "amounts over the limit, the opposite of what the condition does, and the model "
            "picks the tool by those words.",
            expected=Described(
                "a description saying refund is for amounts up to the limit, e.g. 'Runs refund "
                "when the amount is at most 100, else escalate.'"
            ),
            got=built.description,
            hint="The condition's docstring says when it is true, that is when refund runs: "
            '"""the amount is at most 100""".',
        )
    agree(
        _branch(student),
        _branch(refund_or_escalate),
        _GENERATED,
        name="refund_or_escalate: the tools that ran for (order_id, amount) {args}",
        wrong="were {problem}",
        compare=lambda got, expected, what: None if got == expected else f"{got!r}",
        hint="Refund when the amount is at most 100 (100 included, as an int or a float), "
        "escalate above it.",
    )
