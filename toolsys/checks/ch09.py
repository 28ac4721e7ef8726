"""Checks for chapter 09, composition and many tools: a conditional composite, a namespace merge
that refuses collisions, a BM25 ranking function and a deferred-export dispatcher driven by the
offline model. Each reference is the package's own piece (`toolsys.compose.when`,
`toolsys.namespaces.qualified`, `toolsys.search.BM25`, the rules of `toolsys.search.Deferred`).

The cases are what a hand-written version gets wrong: a "tool that calls tools" that reads as
READ and hides its inner calls from the layers, a merge that adds half the tools before it finds
a collision, an idf that goes to zero for common words, and TOOL_NOT_LOADED for a name that does
not exist at all.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_raises,
    expect_true,
)
from toolsys.errors import ToolError
from toolsys.execution import Call, Next
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.spec import Category, Param, ToolSpec
from toolsys.tool import Tool, tool_from_spec

# -- 9.1 -------------------------------------------------------------------------------------


def refund_or_escalate(registry: Registry) -> Tool:
    """Reference for 9.1: `when` over the registry's own tools."""
    from toolsys.compose import when

    def small(arguments: dict[str, Any]) -> bool:
        """the amount is at most 100"""
        return arguments["amount"] <= 100

    return when(
        "refund_or_escalate", small, then=registry.get("refund"), otherwise=registry.get("escalate")
    )


class _Recorder:
    """A layer that notes the name of every call it sees, inner calls of composites included."""

    stage = "received"
    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, call: Call, call_next: Next) -> ToolResult:
        self.seen.append(call.name)
        return await call_next(call)


def _shop() -> tuple[Registry, _Recorder, list[tuple[str, str, float]]]:
    recorder, ran = _Recorder(), []
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
        ToolSpec("escalate", "Hand an order to a human.", [string, number], Category.EXECUTE),
        escalate,
    )
    return registry, recorder, ran


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
    for amount, branch in ((30.0, "refund"), (100.0, "refund"), (100.5, "escalate")):
        ran.clear()
        recorder.seen.clear()
        result = registry.execute("refund_or_escalate", {"order_id": "A-7", "amount": amount})
        what = f"refund_or_escalate(order_id='A-7', amount={amount:g})"
        expect_true(
            result.ok,
            f"{what} failed: {result.error.message if result.error else result}",
            hint="Both branches take order_id and amount: pass the arguments on unchanged.",
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
    failed = registry.execute("refund_or_escalate", {"order_id": "A-0", "amount": 10.0})
    expect_equal(
        failed.error.code if failed.error else "ok",
        "ORDER_NOT_FOUND",
        what="the error code of refund_or_escalate(order_id='A-0', amount=10)",
        hint="The refund failed with ORDER_NOT_FOUND: a composite passes its child's error on. "
        + _HAND_CHAINED,
    )


# -- 9.2 -------------------------------------------------------------------------------------


def include(target: dict[str, Any], other: dict[str, Any], prefix: str) -> None:
    """Reference for 9.2: the names `Registry.include` gives, all or nothing."""
    from toolsys.namespaces import qualified

    incoming = {qualified(prefix, name): value for name, value in other.items()}
    clashes = [name for name in incoming if name in target]
    if clashes:
        raise ValueError(
            f"Cannot include under {prefix!r}: {clashes[0]!r} is already registered. "
            "Nothing was included; choose another prefix."
        )
    target.update(incoming)


def _refund() -> str:
    return "refund"


def _charge() -> str:
    return "charge"


def _search() -> str:
    return "search"


def _include(
    student: Callable[..., Any], target: dict[str, Any], other: dict[str, Any], prefix: str
) -> None:
    what = f"include({_names(target)}, {_names(other)}, {prefix!r})"
    call_student(student, target, other, prefix, what=what, returns="None, or raise ValueError")


def _names(tools: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{name!r}: {value.__name__}" for name, value in tools.items()) + "}"


def _expect_tools(got: dict[str, Any], expected: dict[str, Any], what: str, hint: str) -> None:
    expect_equal(sorted(got), sorted(expected), what=f"the names in the registry {what}", hint=hint)
    for name, value in expected.items():
        expect_true(
            got[name] is value,
            f"{name!r} in the registry {what} is not the tool that was included.",
            hint="Keep each tool as it is; only its name gets the prefix.",
        )


_BAD_PREFIXES = {
    "billing.v2": "OpenAI and Anthropic accept only letters, digits, '_' and '-' in a name.",
    "billing v2": "OpenAI and Anthropic accept only letters, digits, '_' and '-' in a name.",
    "_billing": "A prefix may not start or end with '_' (it would run into the separator).",
    "billing_": "A prefix may not start or end with '_' (it would run into the separator).",
    "": "An empty prefix is no namespace.",
}


@exercise(
    "9.2",
    title="A namespace merge that refuses collisions",
    hints=[
        "Three steps, in this order: check the prefix, compute every new name, check every new "
        "name; only then add anything.",
        "A new name is prefix + '__' + name, at most 64 characters. A prefix is letters, digits, "
        "'-' and single '_' inside: re.fullmatch(r'[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*', prefix).",
        "All or nothing: look for collisions before the first target[name] = ..., so a refused "
        "merge leaves the registry as it was.",
    ],
    reference=lambda: include,
)
def _check_include(student: Callable[..., Any]) -> None:
    target: dict[str, Any] = {"refund": _refund}
    _include(student, target, {"refund": _refund, "charge": _charge}, "billing")
    _expect_tools(
        target,
        {"refund": _refund, "billing__refund": _refund, "billing__charge": _charge},
        "after including refund and charge under 'billing'",
        "Each tool of `other` goes in as prefix + '__' + name (two underscores: OpenAI refuses "
        "dots, and one '_' could not be told apart from a name that has one).",
    )
    before = {"billing__refund": _refund, "search": _search}
    target = dict(before)
    other = {"charge": _charge, "refund": _search}
    what = f"include({_names(target)}, {_names(other)}, 'billing')"
    expect_raises(
        ValueError,
        student,
        target,
        other,
        "billing",
        what=what,
        match="billing__refund",
        hint="'billing__refund' is taken: refuse the merge with ValueError naming it.",
    )
    _expect_tools(
        target,
        before,
        "after the refused merge",
        "All or nothing: find every collision before adding the first tool.",
    )
    expect_equal(sorted(other), ["charge", "refund"], what="`other` after include")
    for prefix, why in _BAD_PREFIXES.items():
        target = {}
        expect_raises(
            ValueError,
            student,
            target,
            {"charge": _charge},
            prefix,
            what=f"include({{}}, {{'charge': _charge}}, {prefix!r})",
            hint=why,
        )
        expect_equal(target, {}, what=f"the registry after the refused prefix {prefix!r}")
    long = "b" * 30
    expect_raises(
        ValueError,
        student,
        {},
        {long: _charge},
        "a" * 33,
        what=f"including a tool named {long!r} under the prefix {'a' * 33!r}",
        hint="The full name would be 65 characters: providers accept at most 64.",
    )
    target = {}
    _include(student, target, {"charge": _charge}, "shop-eu_billing")
    _expect_tools(
        target,
        {"shop-eu_billing__charge": _charge},
        "after including charge under 'shop-eu_billing'",
        "'-' and a single '_' inside a prefix are fine.",
    )


# -- 9.3 -------------------------------------------------------------------------------------

DOCUMENTS: dict[str, list[str]] = {
    "refund_order": ["refund", "order", "customer", "card"],
    "cancel_order": ["cancel", "order"],
    "order_status": ["order", "status", "order", "carrier", "parcel", "customer"],
    "track_parcel": ["track", "parcel", "carrier", "status"],
    "weather_now": ["weather", "city", "forecast"],
    "weather_copy": ["weather", "city", "forecast"],
}


def rank(query: list[str], documents: dict[str, list[str]], k: int) -> list[tuple[str, float]]:
    """Reference for 9.3: `toolsys.search.BM25` on one field (the terms are already tokens)."""
    from toolsys.search import BM25

    index = BM25({name: {"text": " ".join(terms)} for name, terms in documents.items()})
    return [(hit.name, hit.score) for hit in index.rank(" ".join(query), k)]


_RANK_CASES: list[tuple[list[str], int, str]] = [
    (["refund", "order"], 5, "A word in many documents still counts, a little."),
    (["order"], 6, "Half of the documents have 'order': idf = ln(1 + 3.5 / 3.5), not 0."),
    (["parcel", "status"], 3, "Shorter documents score higher for the same count (b)."),
    (["order", "order", "cancel"], 5, "A word repeated in the query counts once."),
    (["weather"], 5, "Equal scores are ordered by name."),
    (["customer", "card", "order", "refund"], 2, "Return at most k results."),
    (["juggle"], 5, "A query that matches nothing gives []."),
]


_FORMULA = (
    " Check the formula: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avg_len)), "
    "k1 = 1.2, b = 0.75, summed over the distinct query terms."
)


def _pairs(got: Any, what: str) -> list[tuple[str, float]]:
    shape = "a list of (name, score) tuples"
    if type(got) is not list or not all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and type(pair[0]) is str
        and type(pair[1]) in (int, float)
        for pair in got
    ):
        raise CheckFailed(
            f"{what} should return {shape}, best first.",
            expected=Described(shape),
            got=got,
            hint="Return e.g. [('refund_order', 1.8), ('cancel_order', 0.9)].",
        )
    return [(name, float(score)) for name, score in got]


@exercise(
    "9.3",
    title="A BM25 ranking function",
    hints=[
        "For each document, sum over the distinct query terms that are in it: "
        "idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avg_len)).",
        "idf = math.log(1 + (N - df + 0.5) / (df + 0.5)), where df is the number of documents "
        "containing the term: the '1 +' keeps it positive for common words.",
        "Sort by (-score, name), drop documents with no matching term, keep the first k.",
    ],
    reference=lambda: rank,
)
def _check_rank(student: Callable[..., Any]) -> None:
    for query, k, why in _RANK_CASES:
        what = f"rank({query}, DOCUMENTS, k={k})"
        documents = copy.deepcopy(DOCUMENTS)
        got = _pairs(
            call_student(student, list(query), documents, k, what=what, returns="a ranking"), what
        )
        expected = rank(query, DOCUMENTS, k)
        expect_equal(
            [name for name, _ in got],
            [name for name, _ in expected],
            what=f"{what}: the names",
            hint=why + _FORMULA,
        )
        for (name, score), (_, right) in zip(got, expected, strict=True):
            if not math.isclose(score, right, abs_tol=1e-3):
                raise CheckFailed(
                    f"{what}: the score of {name!r} is wrong.",
                    expected=right,
                    got=score,
                    hint=why + _FORMULA,
                )
        expect_equal(documents, DOCUMENTS, what="DOCUMENTS after rank", hint="Do not change them.")


# -- 9.4 -------------------------------------------------------------------------------------

SEARCH = "search_tools"


def dispatch(
    registry: Registry, core: list[str], loaded: list[str], name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """Reference for 9.4: the rules of `toolsys.search.Deferred`, as plain envelopes."""
    from toolsys.search import Deferred

    session = Deferred(registry, core)
    session.loaded = loaded
    result = session.execute(name, arguments)
    if name == SEARCH and result.ok:
        return {"ok": True, "value": {"found": [found["name"] for found in result.value["found"]]}}
    return result.to_dict()


_TRACK = "track my package 1Z999AA10123456784"


def _catalog() -> tuple[Registry, list[str]]:
    """The 356-tool catalog, behind a layer that notes every call reaching the registry."""
    from toolsys.search import catalog_registry

    recorder = _Recorder()
    registry = catalog_registry(Registry(layers=[recorder]))
    return registry, recorder.seen


def _dispatch(
    student: Callable[..., Any],
    registry: Registry,
    core: list[str],
    loaded: list[str],
    name: str,
    arguments: dict[str, Any],
) -> dict[str, Any]:
    what = f"dispatch(registry, {core}, {loaded}, {name!r}, {arguments})"
    got = call_student(
        student, registry, core, loaded, name, arguments, what=what, returns="an envelope dict"
    )
    expect_plain(
        got,
        what=what,
        shape="an envelope: {'ok': True, 'value': ...} or {'ok': False, 'error': {...}}",
    )
    if type(got) is not dict or type(got.get("ok")) is not bool:
        raise CheckFailed(
            f"{what} should return an envelope.",
            expected=Described("{'ok': True, 'value': ...} or {'ok': False, 'error': {...}}"),
            got=got,
            hint="Return registry.execute(name, arguments).to_dict() for a tool that may run.",
        )
    return got


class _Session:
    """What the loop needs of a session (export, aexecute), over the student's dispatch."""

    def __init__(self, student: Callable[..., Any], registry: Registry, core: list[str]) -> None:
        self.student, self.registry, self.core = student, registry, core
        self.loaded: list[str] = []
        spec = ToolSpec(
            SEARCH,
            "Find more tools by keywords; the tools found can be called from the next turn on.",
            [Param("query", "string", "What you want to do, in a few words.")],
        )
        self.search = tool_from_spec(spec, lambda query: None)

    def export(self, target: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]:
        from toolsys.export import export_tools

        shown = [tool for tool in self.registry if tool.name in {*self.core, *self.loaded}]
        return export_tools([*shown, self.search], target, strict=strict)

    async def aexecute(self, name: str, arguments: Any = None, **ids: Any) -> ToolResult:
        if isinstance(arguments, str):  # the loop passes the model's JSON text as it came
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {}
        if not isinstance(arguments, dict):
            arguments = {}
        got = _dispatch(self.student, self.registry, self.core, self.loaded, name, arguments)
        if got["ok"]:
            return ToolResult.success(got.get("value"), tool=name)
        error = got.get("error") or {}
        return ToolResult.failure(
            ToolError(
                str(error.get("code", "ERROR")),
                str(error.get("message", "")),
                suggestion=str(error.get("suggestion", "")),
                retryable=error.get("retryable") is True,
            ).to_info(),
            tool=name,
        )


@exercise(
    "9.4",
    title="A deferred-export round trip",
    hints=[
        "Three cases, in this order: search_tools; a registered tool the model cannot see yet; "
        "everything else (registry.execute(name, arguments).to_dict()).",
        "search_tools: hits = registry.search(arguments['query'], arguments.get('k', 5)); append "
        "each hit's name to `loaded` unless it is in core or loaded already.",
        "Not loaded yet means: name in registry, and in neither core nor loaded. Answer "
        "TOOL_NOT_LOADED, retryable True, with a suggestion to call search_tools. An unknown "
        "name is the registry's business: UNKNOWN_TOOL.",
    ],
    reference=lambda: dispatch,
    timeout=60,
)
def _check_dispatch(student: Callable[..., Any]) -> None:
    registry, ran = _catalog()
    core, loaded = ["math_calculate"], list[str]()
    query = {"query": "refund a payment", "k": 3}
    got = _dispatch(student, registry, core, loaded, SEARCH, query)
    expected = [hit.name for hit in registry.search("refund a payment", 3)]
    expect_equal(got, {"ok": True, "value": {"found": expected}}, what="the search_tools envelope")
    expect_equal(loaded, expected, what="`loaded` after the search", hint="Append each name found.")
    _dispatch(student, registry, core, loaded, SEARCH, {"query": "calculate refund payment"})
    again = [hit.name for hit in registry.search("calculate refund payment", 5)]
    expect_equal(
        loaded,
        [*expected, *[n for n in again if n not in expected and n not in core]],
        what="`loaded` after a second search that finds some of the same tools and a core tool",
        hint="A name already in core or loaded is not appended again; the default k is 5.",
    )
    ran.clear()
    got = _dispatch(
        student, registry, core, loaded, "shipping_track_package", {"tracking_number": "1Z"}
    )
    error = got.get("error") if got.get("ok") is False else None
    expect_equal(
        [
            got.get("ok"),
            type(error) is dict and error.get("code"),
            type(error) is dict and error.get("retryable"),
        ],
        [False, "TOOL_NOT_LOADED", True],
        what="[ok, code, retryable] for a registered tool that was not loaded yet",
        hint="The name is right, only the order of steps is not: TOOL_NOT_LOADED, retryable True.",
    )
    expect_true(
        SEARCH in str(error.get("suggestion", "")) if type(error) is dict else False,
        "The TOOL_NOT_LOADED error should suggest calling search_tools.",
        hint="Say what to do next: 'Call search_tools with a few words ... first'.",
    )
    expect_equal(ran, [], what="the tools that ran for a call that was not loaded yet")
    for name, arguments in (
        ("no_such_tool", {}),
        ("math_calculate", {"expression": "2+2"}),
        (expected[0], {}),
    ):
        got = _dispatch(student, registry, core, loaded, name, arguments)
        expect_equal(
            got,
            registry.execute(name, arguments).to_dict(),
            what=f"dispatch(..., {name!r}, {arguments})",
            hint="A core tool, a loaded one and an unknown name all go to registry.execute(name, "
            "arguments).to_dict(): only the registry says UNKNOWN_TOOL.",
        )
    _round_trip(student)


def _round_trip(student: Callable[..., Any]) -> None:
    from toolsys.loop import ToolCallEvent, run_agent
    from toolsys.models import client

    registry, ran = _catalog()
    session = _Session(student, registry, ["math_calculate"])
    transcript = run_agent(client(), session, _TRACK)
    called = [event.name for event in transcript.events if isinstance(event, ToolCallEvent)]
    expect_equal(
        [called, ran],
        [[SEARCH, "shipping_track_package"], ["shipping_track_package"]],
        what=f"[the calls, the tools that ran] when the offline model is asked {_TRACK!r}",
        hint="The model searches first, then calls what it found: the search must load it.",
    )
