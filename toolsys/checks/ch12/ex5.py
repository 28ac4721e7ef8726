"""Exercise 12.5, assemble the agent: the check and its reference, `assemble`.

The student builds the shop's agent by hand, with their own pieces in it (the reship tool of 12.2,
the split-proof rule of 12.4), taking the keywords of `toolsys.shop.agent.build` so that the
scenario runner can use it. Everything is judged by outcome, never by the code's shape: the
lesson's scenarios run through the student's agent and through the reference side by side, and
must leave the same end state, the same audit log (tool and outcome of every call, refused ones
too) and the same calls reaching the tools; then a few calls of its own show the reship tool, the
split-proof rule, the refund limit, the deadline and the retries at work, each in the database or
the result it leaves.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_equal
from toolsys.checks.ch12._shared import RESHIPS, unfinished
from toolsys.checks.ch12.ex2 import reship_order
from toolsys.checks.ch12.ex4 import split_proof_rule
from toolsys.errors import ErrorInfo
from toolsys.execution import Call, Next
from toolsys.governance import AuditLog, Hooks, Policy
from toolsys.layers import Retry
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.shop import Shop, create
from toolsys.shop.agent import GRANTS, REFUND_LIMIT, deadline, hide_personal
from toolsys.shop.scenarios import CHLOE, SCENARIOS, Scenario
from toolsys.shop.tools import tools
from toolsys.spec import Category


def assemble(
    shop: Shop,
    *,
    audit: str | Path | AuditLog | None = None,
    layers: list[Any] | None = None,
    refund_limit: float = REFUND_LIMIT,
    timeout: float = 2.0,
) -> Registry:
    """Reference for 12.5: the lesson's stack, with the reship tool and the split-proof rule."""
    with shop.transaction() as conn:
        conn.execute(RESHIPS)
    policy = Policy(rules={"refund_order": split_proof_rule(shop, refund_limit)}, grants=GRANTS)
    log = audit if isinstance(audit, AuditLog) or audit is None else AuditLog(audit)
    stack: list[Any] = [log] if log is not None else []
    stack += [Hooks(after=[hide_personal]), policy, Retry(seed=0), deadline(timeout)]
    registry = Registry(layers=stack + list(layers or []))
    registry.provide(shop=shop)
    for fn, options in tools():
        registry.register(fn, **options)
    registry.register(reship_order, category=Category.WRITE)
    return registry


class _Probe:
    """Innermost layer: the name of every call that reached the tools."""

    stage = "validated"
    name = "probe"

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.seen.append(call.name)
        return await call_next(call)


class _Slow:
    """Innermost layer: every call takes `seconds` before it reaches the tool."""

    stage = "validated"
    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        await asyncio.sleep(self.seconds)
        return await call_next(call)


class _SlowOnce(_Slow):
    """Innermost layer: the first call takes `seconds` before it reaches the tool, the others
    go straight through."""

    name = "slow_once"

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.calls = 0

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.calls += 1
        if self.calls == 1:
            await asyncio.sleep(self.seconds)
        return await call_next(call)


class _BusyOnce:
    """Innermost layer: the first call fails as a retryable UPSTREAM_BUSY, the others pass."""

    stage = "validated"
    name = "busy_once"

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.calls += 1
        if self.calls == 1:
            busy = ErrorInfo("UPSTREAM_BUSY", "The order service is busy.", retryable=True)
            return ToolResult.failure(busy)
        return await call_next(call)


_RUN = (
    "customer cancels own placed order",
    "customer refunds a small amount on own order",
    "customer refund over the limit waits for approval: denied",
    "a cancelled order is refunded at most once",
    "an agent's refund always needs approval",
    "a manager refunds without asking",
    "a customer cannot send emails",
    "a customer reads own order",
    "an instruction in an order note is not obeyed without a person",
    "a model cannot give itself a role",
    "a refund that times out after writing happens once",
    "a crash while an approval is pending refunds once after resuming",
)
"""The lesson's scenarios the check runs: each layer's promise at least once (the whole suite is
`run_all`; these keep the check within seconds)."""


def scenarios() -> list[Scenario]:
    """The scenarios of `_RUN`, in the lesson's order."""
    chosen = [scenario for scenario in SCENARIOS if scenario.name in _RUN]
    missing = sorted(set(_RUN) - {scenario.name for scenario in chosen})
    if missing:
        raise LookupError(f"toolsys.shop.scenarios has no scenario {missing[0]!r}")
    return chosen


class _Run:
    """One scenario through one builder: what the runner saw, the audit log, the calls inside.

    `_Run.reference(scenario)` is the reference's run, kept once made (it never changes)."""

    _kept: ClassVar[dict[str, _Run]] = {}

    @classmethod
    def reference(cls, scenario: Scenario) -> _Run:
        if scenario.name not in cls._kept:
            cls._kept[scenario.name] = cls(assemble, scenario)
        return cls._kept[scenario.name]

    def __init__(self, builder: Callable[..., Any], scenario: Scenario) -> None:
        from toolsys.shop.runner import run_scenario

        self.probe, self.audits = _Probe(), list[Any]()

        def probing(shop: Shop, **options: Any) -> Any:
            self.audits.append(options.get("audit"))
            options["layers"] = [*(options.get("layers") or []), self.probe]
            what = f"assemble(shop, ...) for the scenario {scenario.name!r}"
            if len(self.audits) > 1:
                what += ", built again on the same shop (as after a crash)"
            return call_student(builder, shop, what=what, returns="a Registry", **options)

        with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
            self.outcome = run_scenario(scenario, Path(folder), builder=probing)
            path = next((Path(a) for a in self.audits if isinstance(a, str | Path)), None)
            self.audit = _audit(path) if path is not None else None


def _audit(path: Path) -> list[list[str]] | None:
    """[tool, outcome] of every record of the audit log at `path`, or None without a file."""
    if not path.exists():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    return [[str(r.get("tool")), str(r.get("outcome"))] for r in map(json.loads, lines)]


def _expect_scenario(student: Callable[..., Any], scenario: Scenario) -> None:
    mine, theirs = _Run(student, scenario), _Run.reference(scenario)
    what = f"The scenario {scenario.name!r}, run on assemble(shop, ...)"
    if mine.outcome.problems:
        raise CheckFailed(
            f"{what}, fails: " + "; ".join(mine.outcome.problems)[:700],
            expected=Described("the scenario passes, as on the lesson's agent"),
            got=Described(f"{len(mine.outcome.problems)} problem(s)"),
            hint="Check the layers and their order (audit, policy with your split-proof rule, "
            "retry, deadline, then the layers given; the hooks anywhere, but there) and that "
            "every shop tool is registered "
            "on a registry that provides the shop. If the model no longer calls refund_order, "
            "your reship_order's description takes its words (say 'damaged' or 'refund'): "
            "reword its docstring (12.2) so that it says what only it does.",
        )
    if mine.audit is None and theirs.audit is not None:
        raise CheckFailed(
            f"{what}, leaves no audit log: the runner passed audit=<a path>.",
            expected=Described("an audit log at the path given"),
            got=Described("no file"),
            hint="When audit is given (a path or an AuditLog), put AuditLog(audit) outermost, as "
            "build() does: AuditLog(audit) if it is a path, the AuditLog itself otherwise.",
        )
    expect_equal(
        mine.audit,
        theirs.audit,
        what=f"[tool, outcome] of each audit record of {scenario.name!r}",
        hint="The audit log is the outermost layer: it records every call, the ones the policy "
        "refuses or a person denies too. Inside the policy it would never see them.",
    )
    expect_equal(
        mine.probe.seen,
        theirs.probe.seen,
        what=f"the calls that reached the tools in {scenario.name!r} (a layer passed in `layers`)",
        hint="The layers given are the innermost, just around the tools (after the deadline): "
        "Registry(layers=[...your stack..., *layers]). Outside the policy they would see calls "
        "that never run.",
    )


@contextmanager
def _agent(student: Callable[..., Any], what: str, **options: Any) -> Iterator[tuple[Shop, Any]]:
    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        shop = create(Path(folder) / "shop.db")
        registry = call_student(student, shop, what=what, returns="a Registry", **options)
        if not isinstance(registry, Registry):
            raise CheckFailed(
                f"{what} should return a toolsys Registry.",
                expected=Described("a Registry with the shop's tools and layers"),
                got=registry,
            )
        yield shop, registry


def _code(result: ToolResult) -> str | None:
    unfinished(result)
    return None if result.ok else str(result.error.code if result.error else "")


def _expect_code(
    registry: Any,
    tool: str,
    arguments: dict[str, Any],
    context: Any,
    code: Any,
    what: str,
    hint: str,
) -> None:
    result = registry.execute(tool, arguments, context=context)
    got = _code(result)
    if got != code:
        raise CheckFailed(
            f"{what} {'succeeded' if got is None else f'was refused with {got}'}; it should "
            f"{'succeed' if code is None else f'be refused with {code}'}.",
            expected=Described(code or "success"),
            got=Described(got or "success"),
            hint=hint,
        )


def _own_calls(student: Callable[..., Any]) -> None:
    with _agent(student, "assemble(shop)") as (shop, registry):
        order = {"order_id": "ORD-1003", "reason": "broken"}
        _expect_code(
            registry,
            "reship_order",
            order,
            CHLOE,
            None,
            "reship_order('ORD-1003', 'broken') by C003 on assemble(shop)",
            "Register your reship_order (12.2) on the agent, as a WRITE tool, and create "
            "the reships table first (RESHIPS) if the shop has none.",
        )
        expect_equal(
            shop.rows("SELECT order_id, reason FROM reships"),
            [{"order_id": "ORD-1003", "reason": "broken"}],
            what="the reships table after one reship",
        )
        _expect_code(
            registry,
            "reship_order",
            {**order, "order_id": "ORD-1019"},
            {"user": "C003"},
            "APPROVAL_REQUIRED",
            "reship_order('ORD-1019', 'broken') by C003 with no role",
            "reship_order is a WRITE tool (category=Category.WRITE): a caller whose "
            "roles grant no WRITE must wait for approval. As a READ tool it would run "
            "for anyone.",
        )
        refund = {"order_id": "ORD-1003", "amount": 30, "reason": "goodwill"}
        _expect_code(
            registry,
            "refund_order",
            refund,
            CHLOE,
            None,
            "a first refund of 30 on ORD-1003 by C003",
            "A customer refunds up to 50.",
        )
        _expect_code(
            registry,
            "refund_order",
            {**refund, "reason": "damaged"},
            CHLOE,
            "APPROVAL_REQUIRED",
            "a second refund of 30 on ORD-1003 by C003",
            "The policy's rule for refund_order is your split_proof_rule(shop, "
            "refund_limit) (12.4): 30 + 30 is over the limit of 50 for the order. The "
            "lesson's refund_rule looks at one call only.",
        )
        expect_equal(
            shop.rows("SELECT order_id, amount_cents FROM refunds"),
            [{"order_id": "ORD-1003", "amount_cents": 3000}],
            what="the refunds after a refund of 30 and a second one waiting for approval",
        )
    with _agent(student, "assemble(shop, refund_limit=20.0)", refund_limit=20.0) as (_, registry):
        _expect_code(
            registry,
            "refund_order",
            {"order_id": "ORD-1003", "amount": 25, "reason": "goodwill"},
            CHLOE,
            "APPROVAL_REQUIRED",
            "a refund of 25 by C003 with refund_limit=20.0",
            "Pass refund_limit on to your rule: split_proof_rule(shop, refund_limit).",
        )
    slow = [_Slow(0.8)]
    what = "assemble(shop, layers=[a layer that takes 0.8 s], timeout=0.3)"
    with _agent(student, what, layers=slow, timeout=0.3) as (_, registry):
        _expect_code(
            registry,
            "reship_order",
            {"order_id": "ORD-1003", "reason": "broken"},
            CHLOE,
            "TIMEOUT",
            "reship_order('ORD-1003', 'broken') through a layer that takes 0.8 s, with timeout=0.3",
            "Use the shop's deadline(timeout) (toolsys.shop.agent.deadline) with the timeout "
            "given, and put the layers given after it, innermost: Registry(layers=[...your "
            "stack..., *layers]), so that the deadline covers them.",
        )
    busy = _BusyOnce()
    what = "assemble(shop, layers=[a layer that is busy once])"
    with _agent(student, what, layers=[busy]) as (shop, registry):
        _expect_code(
            registry,
            "cancel_order",
            {"order_id": "ORD-1019"},
            CHLOE,
            None,
            "cancel_order('ORD-1019') by C003, the first attempt answered "
            "UPSTREAM_BUSY (retryable)",
            "Put Retry(seed=0) in the stack, outside the deadline and the layers given: "
            "an idempotent tool's retryable failure is tried again.",
        )
        expect_equal(
            shop.rows("SELECT status FROM orders WHERE id = 'ORD-1019'"),
            [{"status": "cancelled"}],
            what="ORD-1019's status after the retried cancel",
        )
    what = "assemble(shop, layers=[a layer that takes 0.8 s once], timeout=0.3)"
    with _agent(student, what, layers=[_SlowOnce(0.8)], timeout=0.3) as (_, registry):
        _expect_code(
            registry,
            "get_order",
            {"order_id": "ORD-1003"},
            CHLOE,
            None,
            "get_order('ORD-1003') by C003 whose first attempt takes 0.8 s, with timeout=0.3",
            "Retry(seed=0) goes outside deadline(timeout): each attempt then has its own "
            "deadline, and a read that timed out once is tried again. With the deadline outside "
            "the retry, one deadline covers every attempt and the first slow one uses it up.",
        )
    with tempfile.TemporaryDirectory(prefix="toolsys-ch12-") as folder:
        log = AuditLog(Path(folder) / "own.jsonl")
        with _agent(student, "assemble(shop, audit=AuditLog(path))", audit=log) as (_, registry):
            registry.execute("get_order", {"order_id": "ORD-1003"}, context=CHLOE)
        expect_equal(
            _audit(Path(folder) / "own.jsonl"),
            [["get_order", "ok"]],
            what="[tool, outcome] of the records of an AuditLog passed as audit=",
            hint="audit may be an AuditLog already (with its own clock): use it as it is.",
        )


@exercise(
    "12.5",
    title="Assemble the agent",
    hints=[
        "Start like build() in toolsys/shop/agent.py: a Registry with the layers outermost "
        "first, then registry.provide(shop=shop) and every (fn, options) of tools() registered.",
        "Your pieces: Policy(rules={'refund_order': split_proof_rule(shop, refund_limit)}, "
        "grants=GRANTS), and registry.register(reship_order, category=Category.WRITE) after the "
        "reships table exists (shop.transaction() and RESHIPS, which says IF NOT EXISTS).",
        "The order: AuditLog (when audit is given), the policy, Retry(seed=0), "
        "deadline(timeout), then the layers given, innermost; Hooks(after=[hide_personal]) "
        "anywhere among them (the lesson puts it just inside the audit).",
    ],
    reference=lambda: assemble,
    timeout=180,
)
def _check_assemble(student: Callable[..., Any]) -> None:
    _own_calls(student)
    for scenario in scenarios():
        _expect_scenario(student, scenario)
