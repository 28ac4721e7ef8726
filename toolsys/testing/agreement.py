"""`assert_schema_agrees`: the schema the model reads and the validator that judges it agree.

The commonest tool bug is a disagreement: the schema says `limit` is required while the
function gives it a default, or says "any string" where the validator wants a date. The model
is told one thing and judged by another, and a unit test that calls the function directly never
sees it. This check samples arguments from the *exported* schema with hypothesis and holds the
validator to two promises:

- every sample the schema allows is accepted (sent as JSON text, as a model sends it);
- every mutation of a sample that the schema refuses (a required field left out, a value of the
  wrong type, an extra property, a number or length out of range, a value outside an enum) is
  refused with INVALID_ARGUMENTS, and the message names the field (the model must know what
  to fix).

Schema generators follow non-recursive `$ref` only (hypothesis-jsonschema; ours in
`_strategies.py`), so `$ref`s into `$defs` are inlined first, and a recursive definition (a
tree node holding nodes) is unrolled to a fixed depth: the report names it, nothing crashes.
A JSON Schema validator judges every sample and mutation against the exported schema itself,
so a quirk of the generator can never fail a correct tool. Where toolsys reads JSON on purpose
as a strict-mode model means it (`null` for an omittable argument means "left out", 2.0 is an
integer: toolsys/_agreement.py), those readings are not counted as disagreements.

Chapter 11 uses it, and its exercises build it by hand: notebooks/11_testing.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from toolsys._lines import fit
from toolsys.errors import ErrorCode
from toolsys.execution import validate
from toolsys.export import export_tool
from toolsys.registry import Registry
from toolsys.result import ToolResult
from toolsys.testing._failure import ToolTestFailure, shown
from toolsys.testing.mutations import MUTATIONS, mutations
from toolsys.tool import Tool, tool_from_function

__all__ = [
    "MUTATIONS",
    "AgreementReport",
    "ToolAgreement",
    "assert_schema_agrees",
    "inline_refs",
    "outcome_text",
    "raise_disagreement",
    "refusal_of",
]

UNROLL = 2
"""How many times a recursive definition is expanded inside itself before it is cut off."""

_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "deprecated"})
_CHANGES = {
    "missing": "leaving out required {key!r}",
    "wrong_type": "a value of the wrong type for {key!r}",
    "extra": "an extra property {key!r}",
    "out_of_range": "a value out of range for {key!r}",
    "enum": "a value outside the allowed values of {key!r}",
}
_INSTALL = "assert_schema_agrees needs hypothesis: pip install 'toolsys[testing]'."


@dataclass
class ToolAgreement:
    """One tool's run: samples accepted, mutations refused by kind, and what was unrolled."""

    name: str
    samples: int = 0
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MUTATIONS, 0))
    recursive: tuple[str, ...] = ()

    def __str__(self) -> str:
        kinds = ", ".join(f"{kind} {count}" for kind, count in self.refused.items() if count)
        line = f"{self.name}: {self.samples} samples accepted; mutations refused: {kinds or 'none'}"
        if self.recursive:
            line += f" (recursive {', '.join(self.recursive)}: unrolled {UNROLL} levels deep)"
        return fit(line)


@dataclass
class AgreementReport:
    """What `assert_schema_agrees` checked, tool by tool (it prints as one line per tool)."""

    tools: list[ToolAgreement] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(str(tool) for tool in self.tools)


# --- the schema, made something a generator can read --------------------------------------------


def inline_refs(
    schema: dict[str, Any], *, unroll: int = UNROLL
) -> tuple[dict[str, Any], list[str]]:
    """A copy of `schema` with every local `$ref` replaced by its definition, and no `$defs`.

    A definition met inside itself is expanded `unroll` times, then replaced by a schema that
    nothing matches (an optional child is then left out, a list of children stays empty). The
    names of such recursive definitions are returned with the copy. Raises ValueError for a
    `$ref` that is not a local `#/$defs/...` (or `#/definitions/...`) name.
    """
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    recursive: list[str] = []

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list | tuple):
            return [walk(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if ref is None:
            return {
                key: walk(value, stack)
                for key, value in node.items()
                if key not in ("$defs", "definitions", "$schema")
            }
        name = ref.rsplit("/", 1)[-1] if isinstance(ref, str) else ""
        if not (isinstance(ref, str) and ref.startswith("#/") and name in defs):
            raise ValueError(
                f"cannot inline $ref {ref!r}: only local references to $defs are supported"
            )
        siblings = {key: walk(value, stack) for key, value in node.items() if key != "$ref"}
        if name in stack and name not in recursive:
            recursive.append(name)
        if stack.count(name) >= unroll:
            resolved: dict[str, Any] = {"not": {}}
        else:
            resolved = walk(defs[name], (*stack, name))
        if set(siblings) <= _ANNOTATIONS:
            return {**resolved, **siblings}
        return {"allOf": [resolved, siblings]}

    return walk(schema, ()), recursive


class _Judge:
    """The JSON Schema verdict on the exported schema, by `fastjsonschema` (nbformat's
    validator, so always installed; `jsonschema` takes seconds to import). It reads draft 7,
    so 2020-12's `prefixItems` (tuples) is rewritten as draft 7's list-form `items` first."""

    def __init__(self, schema: dict[str, Any]) -> None:
        import fastjsonschema

        self.schema = schema
        self._error = fastjsonschema.JsonSchemaValueException
        draft7 = {**_draft7(schema), "$schema": "http://json-schema.org/draft-07/schema#"}
        self._validate = fastjsonschema.compile(draft7)

    def is_valid(self, value: Any) -> bool:
        try:
            self._validate(value)
        except self._error:
            return False
        return True


def _draft7(node: Any) -> Any:
    if isinstance(node, list):
        return [_draft7(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _draft7(value) for key, value in node.items()}
    if "prefixItems" in out:
        prefix = out.pop("prefixItems")
        if "items" in out:
            out["additionalItems"] = out.pop("items")
        out["items"] = prefix
    return out


# --- judging one tool ----------------------------------------------------------------------------


class _Mismatch(Exception):
    """Raised inside the hypothesis run so it shrinks to the smallest disagreement."""


def refusal_of(tool: Tool, arguments: Any, coerce: bool) -> ToolResult | None:
    """The refusal of `arguments` sent as JSON text, or None if the validator accepts them."""
    outcome = validate(tool, json.dumps(arguments), coerce=coerce)
    return outcome if isinstance(outcome, ToolResult) else None


def outcome_text(result: ToolResult | None) -> str:
    """What the validator did, for a failure's `got:` line: "accepted", or "CODE: message"."""
    if result is None or result.error is None:
        return "accepted"
    return f"{result.error.code}: {result.error.message}"


def _judge_sample(
    tool: Tool, sample: Any, coerce: bool, judge: _Judge, seen: ToolAgreement
) -> tuple[str, Any, str, str] | None:
    """The first disagreement on this sample or its mutations: (headline, sent, got, expected)."""
    refusal = refusal_of(tool, sample, coerce)
    if refusal is not None:
        headline = f"{tool.name}: the validator refused arguments its exported schema allows"
        return (
            headline,
            sample,
            outcome_text(refusal),
            "accepted (the schema the model reads allows it)",
        )
    seen.samples += 1
    for kind, key, mutated in mutations(sample, judge.schema):
        if judge.is_valid(mutated):
            continue  # not a mutation after all: the schema allows it too
        result = refusal_of(tool, mutated, coerce)
        error = result.error if result is not None else None
        if error is None or error.code != ErrorCode.INVALID_ARGUMENTS or key not in error.message:
            change = _CHANGES[kind].format(key=key)
            verdict = "accepted it" if error is None else "did not refuse it as it should"
            headline = f"{tool.name}: the exported schema refuses {change}; the validator {verdict}"
            expected = f"INVALID_ARGUMENTS naming {key!r}"
            return headline, mutated, outcome_text(result), expected
        seen.refused[kind] += 1
    return None


def _check_tool(tool: Tool, coerce: bool, samples: int, seed: int) -> ToolAgreement:
    __tracebackhide__ = True
    try:
        from hypothesis import HealthCheck, Verbosity, assume, given, settings
        from hypothesis import seed as seeded
        from hypothesis import strategies as st
        from hypothesis.errors import HypothesisException

        from toolsys.testing._strategies import from_schema
    except ImportError:
        raise ToolTestFailure(_INSTALL) from None
    exported = dict(export_tool(tool, "openai")["function"]["parameters"])
    try:
        inlined, recursive = inline_refs(exported)
    except ValueError as exc:
        raise ToolTestFailure(f"assert_schema_agrees: {tool.name}: {exc}") from None
    seen = ToolAgreement(tool.name, recursive=tuple(recursive))
    try:
        judge = _Judge(inlined)
        strategy = from_schema(inlined)
    except Exception as exc:  # a schema no validator or generator can read (a broken pattern)
        raise ToolTestFailure(
            f"assert_schema_agrees: {tool.name}: its exported schema cannot be read "
            f"({type(exc).__name__}: {str(exc)[:200]}).\n  schema: {shown(exported)}"
        ) from None
    found: list[tuple[str, Any, str, str]] = []

    @settings(
        max_examples=samples,
        database=None,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    @seeded(seed)
    @given(st.data())
    def run(data: Any) -> None:
        sample = data.draw(strategy)
        assume(judge.is_valid(sample))  # a generator quirk never fails a correct tool
        problem = _judge_sample(tool, sample, coerce, judge, seen)
        if problem is not None:
            found.append(problem)
            raise _Mismatch

    try:
        run()
    except _Mismatch:
        pass  # reported below, outside this handler: no chained hypothesis traceback
    except HypothesisException as exc:
        raise ToolTestFailure(
            f"assert_schema_agrees: {tool.name}: could not sample its exported schema "
            f"({type(exc).__name__}: {str(exc)[:200]}).\n  schema: {shown(exported)}"
        ) from None
    if found:
        raise_disagreement(*found[-1])  # hypothesis replays the smallest disagreement last
    return seen


def raise_disagreement(headline: str, sent: Any, got: str, expected: str) -> None:
    """Raise the ToolTestFailure `assert_schema_agrees` reports (check 11.1's reference too)."""
    __tracebackhide__ = True
    raise ToolTestFailure(
        f"assert_schema_agrees: {headline}\n"
        f"  sent:     {shown(sent)}\n  got:      {got}\n  expected: {expected}"
    )


def _tools(
    target: Registry | Tool | Callable[..., Any] | Iterable[Tool],
) -> tuple[list[Tool], bool]:
    __tracebackhide__ = True
    if isinstance(target, Registry):
        return list(target), target.coerce
    if isinstance(target, Tool):
        return [target], False
    if callable(target):
        return [tool_from_function(target)], False
    if isinstance(target, Iterable) and not isinstance(target, str | bytes | dict):
        tools = list(target)
        if tools and all(isinstance(t, Tool) for t in tools):
            return tools, False
    raise TypeError(
        f"assert_schema_agrees: {type(target).__name__} is not a Registry, a Tool or a function; "
        "pass e.g. assert_schema_agrees(registry) or assert_schema_agrees(my_tool_function)."
    )


def assert_schema_agrees(
    target: Registry | Tool | Callable[..., Any] | Iterable[Tool],
    samples: int = 200,
    *,
    seed: int = 0,
) -> AgreementReport:
    """Fail (an AssertionError saying sent / got / expected) where schema and validator disagree.

    `target`: a Registry (every tool), a Tool, a function (made into a tool) or a list of Tools.
    `samples`: hypothesis examples per tool, each a valid sample plus all its mutations.
    The same `seed` samples the same arguments on every run. Returns what was checked.
    """
    __tracebackhide__ = True
    if type(samples) is not int or samples < 1:
        raise ValueError(f"assert_schema_agrees: samples={samples!r}; give a whole number >= 1.")
    tools, coerce = _tools(target)
    report = AgreementReport()
    for tool in tools:  # a loop, not a comprehension: its frame would show in the traceback
        report.tools.append(_check_tool(tool, coerce, samples, seed))
    return report
