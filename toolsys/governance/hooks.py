"""`Hooks`: code of yours that runs before and after calls, as one execution layer.

Why a layer and not a wrapper around each tool: hooks then see every kind of tool (function,
spec, composite, MCP-imported) the same way, with the validated arguments, and a hook that
fails is contained like any layer failure: the call fails as data, the run goes on.

    def no_big_refunds(call):                     # before: None, Deny(reason) or new arguments
        if call.values.get("amount", 0) > 100:
            return Deny("Refunds over 100 need a manager.")

    def hide_email(call, result):                 # after: None, or the ToolResult to return
        if result.ok:
            return ToolResult.success({**result.value, "email": "[hidden]"})

    registry = Registry(layers=[Hooks(before=[no_big_refunds], after=[hide_email]), Policy()])

Put `Hooks` before (outside) `Policy`: new arguments are validated again and then decided by
the policy. A hook inside the policy that rewrites arguments the policy already decided on is
refused (PERMISSION_DENIED), so a rewrite can never slip past an approval.
`Hook(fn, tools={...}, categories={...})` limits one hook; `Hooks(..., tools=, categories=)`
limits them all. A hook may be sync or async.

Chapter 08 redacts a result with an after-hook: notebooks/08_governance.ipynb.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolsys import failures
from toolsys.errors import ErrorCode, ErrorInfo
from toolsys.execution import Call, Next, failure, validate
from toolsys.governance import approval
from toolsys.governance.decisions import Deny
from toolsys.result import ToolResult
from toolsys.spec import Category

_log = logging.getLogger("toolsys")


@dataclass(frozen=True)
class Hook:
    """A hook limited to some tools (by name) and/or categories; None means all."""

    fn: Callable[..., Any]
    tools: frozenset[str] | None = None
    categories: frozenset[Category] | None = None

    def applies(self, call: Call) -> bool:
        tool = call.tool
        assert tool is not None
        return (self.tools is None or tool.name in self.tools) and (
            self.categories is None or tool.category in self.categories
        )


class Hooks:
    """Before-call and after-call hooks, at the "validated" stage."""

    stage = "validated"
    name = "hooks"

    def __init__(
        self,
        *,
        before: Iterable[Callable[..., Any] | Hook] = (),
        after: Iterable[Callable[..., Any] | Hook] = (),
        tools: Iterable[str] | None = None,
        categories: Iterable[Category | str] | None = None,
    ) -> None:
        self.before = [_hook(h, tools, categories) for h in before]
        self.after = [_hook(h, tools, categories) for h in after]

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        tool = call.tool
        assert tool is not None
        for hook in self.before:
            if not hook.applies(call):
                continue
            try:
                answer = await _run(hook.fn, call)
            except Exception as exc:
                return _hook_failed(hook, call, exc, ran=False)
            if isinstance(answer, Deny):
                error = ErrorInfo(
                    ErrorCode.PERMISSION_DENIED,
                    f"Not allowed: {answer.reason} The call to {tool.name!r} did not run.",
                    "Do not retry this call as it is; tell the user why, or change it.",
                )
                return ToolResult.failure(error, decision="deny", hook=_name(hook.fn))
            if isinstance(answer, Mapping):
                rewritten = _rewrite(call, dict(answer), hook)
                if isinstance(rewritten, ToolResult):
                    return rewritten
                call = rewritten
            elif answer is not None:
                return _hook_failed(hook, call, TypeError(f"returned {answer!r}"), ran=False)
        result = await call_next(call)
        for hook in self.after:
            if not hook.applies(call):
                continue
            try:
                answer = await _run(hook.fn, call, result)
            except Exception as exc:
                return _hook_failed(hook, call, exc, ran=True)
            if isinstance(answer, ToolResult):
                result = ToolResult(
                    answer.ok,
                    answer.value,
                    answer.error,
                    {**result.meta, **answer.meta},
                    answer.exception,
                    answer.notice,
                )
            elif answer is not None:
                return _hook_failed(hook, call, TypeError(f"returned {answer!r}"), ran=True)
        return result


def _rewrite(call: Call, arguments: dict[str, Any], hook: Hook) -> Call | ToolResult:
    """The call with the hook's arguments, validated again; refused inside a decided policy."""
    tool = call.tool
    assert tool is not None
    if approval.decided_on() == (tool.name, call.call_id):
        error = ErrorInfo(
            ErrorCode.PERMISSION_DENIED,
            f"The hook {_name(hook.fn)!r} changed the arguments of {tool.name!r} after the "
            "policy had decided on the old ones, so the call did not run.",
            "Developer: put Hooks before Policy in the registry's layers.",
        )
        return ToolResult.failure(error, decision="deny", hook=_name(hook.fn))
    validated = validate(tool, arguments)  # here, so that the error names the hook
    if isinstance(validated, ToolResult):
        return _marked(validated, hook)
    return call.replace(raw_arguments=arguments, tool=tool)  # validated again on its way on


async def _run(fn: Callable[..., Any], *args: Any) -> Any:
    answer = fn(*args)
    if answer is None or type(answer) is ToolResult:  # the common answers: no isawaitable
        return answer
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


def _hook_failed(hook: Hook, call: Call, exc: BaseException, *, ran: bool) -> ToolResult:
    _log.debug("hook %r failed", _name(hook.fn), exc_info=exc)
    result = failure(failures.layer_error, f"hook {_name(hook.fn)}", call.name, exc, exception=exc)
    if ran and result.error is not None:
        error = result.error
        message = f"{error.message} The call itself ran; its result is withheld."
        suggestion = "The action happened: do not repeat it. Tell the user it was done."
        result = ToolResult.failure(ErrorInfo(error.code, message, suggestion), exception=exc)
    return _marked(result, hook)


def _marked(result: ToolResult, hook: Hook) -> ToolResult:
    """`result` (a copy) saying which hook answered."""
    meta = {**result.meta, "hook": _name(hook.fn)}
    return ToolResult(result.ok, result.value, result.error, meta, result.exception, result.notice)


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _hook(fn: Any, tools: Any, categories: Any) -> Hook:
    if isinstance(fn, Hook):
        return fn
    if not callable(fn):
        raise ValueError(f"Hooks: {fn!r} is not callable; give a function (call) or Hook(...).")
    return Hook(
        fn,
        None if tools is None else frozenset([tools] if isinstance(tools, str) else tools),
        None if categories is None else frozenset(Category(c) for c in categories),
    )
