"""`Policy`: the one place that decides whether a call may run, and the layer that enforces it.

Why one function: the same answer must be given when the tools are listed for a caller
(`registry.export(target, context=...)` shows only what this caller may use) and again when a
call arrives (defence in depth: a model, or a script, that calls a hidden tool by name gets
PERMISSION_DENIED). Two copies of the rules would drift apart; one cannot.

How a call is decided, in order (the first answer wins):

    1. the tool's category is not one we know        -> Deny (fail closed)
    2. the tool has `roles=` and the caller has none  -> Deny
    3. the tool has `available=` and it says no       -> Deny
    4. a rule for this tool (a Decision, or a function of tool, arguments, context)
    5. the category's default: READ Allow, WRITE and EXECUTE NeedsApproval, unless a role
       the caller has is granted that category (`grants={"support": {Category.WRITE}}`)

A rule that must decide and act in one step (count the refunds already made, then make this
one, with no other refund deciding in between) returns a context manager that gives the
decision: `with rule(...) as decision:` is held while the allowed call runs, and left normally
when the call succeeded, with an exception (so a transaction rolls back) when it did not run or
failed. The capstone's split-proof refund rule holds a `BEGIN IMMEDIATE` transaction this way
(toolsys/checks/ch12/ex4.py).

Anything that raises or answers nonsense along the way (a rule, `available`, a malformed
`roles` in the context) is a Deny that says what failed: a policy never fails open. Steps 1-3
are the tool's own checks (`toolsys.access`).

Listing and calling ask the same question, `decide`. When the tools are listed it is asked
with no arguments yet (`arguments=None`): what it denies, or what fails to answer, is not listed
(`visible`). So a rule must answer for `arguments=None` too, for the tool in general (Allow or
NeedsApproval lists it; the shop's `refund_rule` reads `arguments or {}`). A call is refused
before its arguments are even validated when the answer cannot depend on them (steps 1-3, a
fixed `Deny`: `refusal`), and decided on its validated arguments by the layer itself.

Inside a composite tool a person approved, a child call that would need approval runs on that
approval: the person approved the composite, whose steps are part of what it does (`decision`
"approved", with `covered_by` naming the composite). A composite the policy allowed without
asking (a grant for its category, a rule) covers nothing: a step whose own rule asks for
approval still asks (a customer granted WRITE tools cannot pass a refund over the limit through
a composite), and a child the policy denies is always denied.

Chapter 08 builds a category policy by hand first: notebooks/08_governance.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, suppress
from types import MappingProxyType
from typing import Any

from toolsys.access import screen
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.execution import Call, Next
from toolsys.governance import approval
from toolsys.governance._envelopes import decided, denied, required
from toolsys.governance.decisions import DECISIONS, Allow, Decision, Deny, NeedsApproval
from toolsys.result import ToolResult
from toolsys.spec import Category
from toolsys.tool import Tool

Rule = (
    Decision
    | Callable[
        [Tool, Mapping[str, Any] | None, Mapping[str, Any]],
        Decision | AbstractContextManager[Decision],
    ]
)
_EMPTY: Mapping[str, Any] = MappingProxyType({})
_ASK = NeedsApproval()


class Policy:
    """Defaults by category, per-tool rules and role grants; an execution layer ("validated").

    `Policy()` allows READ and asks a person before WRITE and EXECUTE. `rules` maps a tool name
    to a fixed `Decision` or to `rule(tool, arguments, context) -> Decision`. `grants` maps a
    role to the categories it may run without approval. `defaults` overrides a category's
    default decision, e.g. `defaults={Category.EXECUTE: Deny("No code runs here.")}`.
    """

    stage = "validated"
    name = "policy"

    def __init__(
        self,
        *,
        rules: Mapping[str, Rule] | None = None,
        grants: Mapping[str, Iterable[Category | str]] | None = None,
        defaults: Mapping[Category | str, Decision] | None = None,
    ) -> None:
        self.rules = dict(rules or {})
        for name, rule in self.rules.items():
            if not (isinstance(rule, DECISIONS) or callable(rule)):
                raise ValueError(
                    f"Policy(rules={{{name!r}: {rule!r}}}): a rule is Allow(), Deny(reason), "
                    "NeedsApproval(reason) or a function (tool, arguments, context) -> one."
                )
        self.grants = {role: _categories(role, cats) for role, cats in (grants or {}).items()}
        self.defaults: dict[Category, Decision] = {
            Category.READ: Allow(),
            Category.WRITE: NeedsApproval(),
            Category.EXECUTE: NeedsApproval(),
        }
        for category, decision in (defaults or {}).items():
            if not isinstance(decision, DECISIONS):
                raise ValueError(
                    f"Policy(defaults={{{category!r}: {decision!r}}}): give Allow(), "
                    "Deny(reason) or NeedsApproval(reason)."
                )
            self.defaults[_category(category)] = decision

    def __repr__(self) -> str:
        return f"Policy(rules={sorted(self.rules)}, grants={sorted(self.grants)})"

    def decide(
        self,
        tool: Tool,
        call_or_arguments: Call | Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> Decision:
        """Allow, Deny or NeedsApproval for `tool` with these arguments (None: for the tool in
        general, what a listing asks) and caller; never raises."""
        held: list[AbstractContextManager[Any]] = []
        try:
            return self._decided(tool, call_or_arguments, context, held)
        finally:
            _release(held, ok=False)  # nothing ran: a held transaction rolls back

    def _decided(
        self,
        tool: Tool,
        call_or_arguments: Call | Mapping[str, Any] | None,
        context: Mapping[str, Any] | None,
        held: list[AbstractContextManager[Any]],
    ) -> Decision:
        if context is None and isinstance(call_or_arguments, Call):
            context = call_or_arguments.context
        try:
            return self._decide(tool, call_or_arguments, context or _EMPTY, held=held)
        except Exception as exc:
            return _failed(tool, "the policy", exc)

    def visible(self, tool: Tool, context: Mapping[str, Any] | None = None) -> bool:
        """May `tool` be listed to this caller? `decide(tool, None, context)`, the question a
        call is asked too, with no arguments yet: hidden when it denies, or fails. Never raises."""
        try:
            decision = self.decide(tool, None, context)
        except Exception:  # a `decide` of a subclass that broke its promise
            return False
        return isinstance(decision, DECISIONS) and not isinstance(decision, Deny)

    def refusal(self, tool: Tool, context: Mapping[str, Any] | None = None) -> str | None:
        """Why a call to `tool` is refused whatever its arguments (steps 1-3, a fixed `Deny`
        rule or default), or None; asked before the arguments are validated. A rule that
        is a function decides later, on the validated arguments. Never raises."""
        try:
            decision = self._decide(tool, None, context or _EMPTY, ask=False)
        except Exception as exc:
            return _failed(tool, "the policy", exc).reason
        return decision.reason if isinstance(decision, Deny) else None

    def _decide(
        self,
        tool: Tool,
        call_or_arguments: Call | Mapping[str, Any] | None,
        context: Mapping[str, Any],
        *,
        ask: bool = True,
        held: list[AbstractContextManager[Any]] | None = None,
    ) -> Decision:
        name = tool.name
        refused, roles = screen(tool, context)
        if refused is not None:
            return Deny(refused)
        category = tool.category
        if type(category) is not Category:
            category = Category(category)
        rule = self.rules.get(name)
        if rule is not None and not isinstance(rule, DECISIONS):
            if not ask:
                return Allow()  # only the rule can say, and it is asked with the arguments
            arguments = (  # only a rule reads them: the dump is made for it alone
                call_or_arguments.values
                if isinstance(call_or_arguments, Call)
                else call_or_arguments
            )
            try:
                answer: Any = rule(tool, arguments, context)
                if _holds(answer) and held is not None:  # held while the call runs
                    manager, answer = answer, answer.__enter__()
                    held.append(manager)
                rule = answer
            except Exception as exc:
                return _failed(tool, "its rule", exc)
            if not isinstance(rule, DECISIONS):
                return Deny(
                    f"The rule for {name!r} answered {type(rule).__name__}, not Allow, Deny or "
                    "NeedsApproval, so the call is refused."
                )
        if rule is not None:
            return rule
        decision = self.defaults[category]
        if isinstance(decision, NeedsApproval):
            if roles and self.grants:
                granted = sorted(r for r in roles if category in self.grants.get(r, ()))
                if granted:
                    return Allow(f"The role {granted[0]!r} may run {category.value} tools.")
            if decision == _ASK:
                return NeedsApproval(
                    f"{name!r} is a {category.value} tool: it changes something, so a person "
                    "must approve these arguments first."
                )
        return decision

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        held: list[AbstractContextManager[Any]] = []
        try:
            result = await self._enforce(call, call_next, held)
        except BaseException:
            _release(held, ok=False)
            raise
        try:
            _release(held, ok=result.ok)
        except Exception as exc:
            return _unsettled(call, exc)
        return result

    async def _enforce(
        self, call: Call, call_next: Next, held: list[AbstractContextManager[Any]]
    ) -> ToolResult:
        tool = call.tool
        assert tool is not None
        decision = self._decided(tool, call, None, held)
        if isinstance(decision, Allow):
            with approval.deciding(tool.name, call.call_id, "allow"):
                return decided(await call_next(call), "allow")
        if isinstance(decision, Deny):
            return denied(tool.name, decision.reason)
        covering = approval.covering(call.call_id)
        # a step of a composite a person approved runs on that approval; a composite the policy
        # merely allowed (a grant, a rule) covers nothing: its steps' own rules still decide
        if covering is not None and covering.decision == "approved":
            with approval.deciding(tool.name, call.call_id, covering.decision, covering.by):
                result = await call_next(call)
            extra = {"covered_by": covering.tool}
            if covering.by is not None:
                extra["approved_by"] = covering.by
            return decided(result, covering.decision, **extra)
        key = approval.arguments_hash(tool.name, call.values)
        human = approval.human_decision(call.call_id, key)
        if human is None:
            return required(tool, call, decision.reason, key)
        if not human.approved:
            return denied(tool.name, human.reason, by_human=True)
        with approval.deciding(tool.name, call.call_id, "approved", human.by):
            return decided(await call_next(call), "approved", approved_by=human.by)


def decide(
    tool: Tool,
    call_or_arguments: Call | Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    *,
    policy: Policy | None = None,
) -> Decision:
    """The decision of `policy` (the default `Policy()` when None) for one call; never raises."""
    return (policy or _DEFAULT).decide(tool, call_or_arguments, context)


class _NotDone(Exception):
    """Thrown into a held rule when its call did not run or failed: roll back."""


def _holds(value: Any) -> bool:
    return hasattr(value, "__enter__") and hasattr(value, "__exit__")


def _release(held: list[AbstractContextManager[Any]], *, ok: bool) -> None:
    """Leave the held rules: normally after a success (a failure to commit raises), with
    _NotDone otherwise (a failure to roll back is left to the connection's close)."""
    while held:
        manager = held.pop()
        if ok:
            manager.__exit__(None, None, None)
            continue
        with suppress(Exception):
            manager.__exit__(_NotDone, _NotDone(), None)


def _unsettled(call: Call, exc: BaseException) -> ToolResult:
    """The call ran, but its rule could not finish what it held (a commit failed)."""
    return ToolResult.failure(
        ErrorInfo(
            ErrorCode.EXECUTION_ERROR,
            f"{call.name!r} ran, but its policy rule could not finish its transaction "
            f"({type(exc).__name__}), so nothing it wrote was kept.",
            "Check the current state before calling again.",
        )
    )


def _failed(tool: Any, what: str, exc: BaseException) -> Deny:
    return Deny(
        f"The call to {getattr(tool, 'name', '?')!r} is refused because {what} failed "
        f"({type(exc).__name__}); a policy that cannot decide says no."
    )


def _category(value: Any) -> Category:
    try:
        return Category(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not a category; use Category.READ, Category.WRITE or Category.EXECUTE."
        ) from None


def _categories(role: str, categories: Any) -> frozenset[Category]:
    if isinstance(categories, str) or not isinstance(categories, Iterable):
        categories = [categories]
    try:
        return frozenset(_category(c) for c in categories)
    except ValueError as exc:
        raise ValueError(f"Policy(grants={{{role!r}: ...}}): {exc}") from None


_DEFAULT = Policy()
