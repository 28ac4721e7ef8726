"""Exercise 11.1, an agreement test: the check and its reference, `check_agreement`.

Built from `toolsys.testing`; the case that matters is a missing-field test that skips fields with a
default, the very bug it should find.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from toolsys.checks import CheckFailed, Described, call_student, exercise, expect_raises
from toolsys.checks._differential import Call, agree, calls
from toolsys.checks._differential import text as some_text
from toolsys.checks._plain import text
from toolsys.tool import Tool, tool_from_function


def _search(query: str, limit: int = 5) -> list[str]:
    """Search the notes.

    Args:
        query: Words to look for.
        limit: How many results, 1 to 10.
    """
    return [query][:limit]


def _clock(timezone: str = "UTC") -> str:
    """The time in a time zone.

    Args:
        timezone: An IANA time zone name.
    """
    return timezone


def _edited(tool: Tool, change: Callable[[dict[str, Any]], None]) -> Tool:
    schema = copy.deepcopy(dict(tool.parameters))
    change(schema)
    return dataclasses.replace(tool, parameters=schema)


class _VagueSearch(BaseModel):
    """The validator of a hand-written tool whose refusal names no field."""

    model_config = ConfigDict(extra="forbid")
    query: str
    limit: int

    @model_validator(mode="before")
    @classmethod
    def _vague(cls, data: Any) -> Any:
        if isinstance(data, dict) and "limit" not in data:
            raise ValueError("something is missing")
        return data


class _LooseSearch(BaseModel):
    """The validator of a hand-written tool that ignores unknown arguments."""

    model_config = ConfigDict(extra="ignore")
    query: str
    limit: int = 5


def _tools() -> dict[str, Tool]:
    search = tool_from_function(_search, name="search")
    return {
        "search": search,
        "clock": tool_from_function(_clock, name="clock"),
        "limit_required": _edited(search, lambda s: s.update(required=["query", "limit"])),
        "limit_as_text": _edited(search, lambda s: s["properties"]["limit"].update(type="string")),
        "limit_required_first": _edited(search, lambda s: s.update(required=["limit", "query"])),
        "open_schema": _edited(
            dataclasses.replace(search, model=_LooseSearch),
            lambda s: s.pop("additionalProperties", None),
        ),
        "ignores_extras": dataclasses.replace(search, model=_LooseSearch),
        "vague_refusal": _edited(
            dataclasses.replace(search, model=_VagueSearch),
            lambda s: s.update(required=["query", "limit"]),
        ),
    }


def check_agreement(tool: Tool, sample: dict[str, Any]) -> None:
    """Reference for 11.1: `toolsys.testing`'s agreement verdicts on one sample."""
    from toolsys.testing.agreement import outcome_text, raise_disagreement, refusal_of
    from toolsys.testing.mutations import mutations

    refusal = refusal_of(tool, sample, False)
    if refusal is not None:
        raise_disagreement(
            f"{tool.name}: the sample was refused", sample, outcome_text(refusal), "accepted"
        )
    extras = tool.parameters.get("additionalProperties") is False
    for kind, field, mutated in mutations(sample, tool.parameters):
        if kind == "missing" or (kind == "extra" and extras):
            result = refusal_of(tool, mutated, False)
            error = result.error if result is not None else None
            if error is None or error.code != "INVALID_ARGUMENTS" or field not in error.message:
                expected = f"INVALID_ARGUMENTS naming {field!r}"
                raise_disagreement(
                    f"{tool.name}: {kind} {field!r}", mutated, outcome_text(result), expected
                )


_SAMPLE = {"query": "retry", "limit": 3}
_TOOL_NAMES = ["search", "clock", "limit_required", "limit_as_text", "limit_required_first",
               "open_schema", "ignores_extras", "vague_refusal"]  # fmt: skip


def _agreement_call(rng: random.Random, size: int) -> Call:
    """One of the check's tools and a sample its schema allows: every required field, each
    optional one now and then, values of the declared type (non-ASCII text, 0, 10, -1)."""
    name = rng.choice(_TOOL_NAMES)
    schema = _tools()[name].parameters
    required = set(schema.get("required", []))
    sample: dict[str, Any] = {}
    for field, declared in schema["properties"].items():
        if field in required or rng.random() < 0.5:
            if declared["type"] == "integer":
                sample[field] = rng.choice([0, 1, 3, 10, -1, 10**size])
            else:
                sample[field] = (
                    rng.choice(["UTC", "Europe/Paris"])
                    if field == "timezone"
                    else (some_text(rng, size))
                )
    return Call((name, sample))


_GENERATED = calls(_agreement_call, seed=111, count=120)


def _verdict(func: Callable[..., Any]) -> Callable[..., Any]:
    """Whether `func` on the named tool and the sample raised AssertionError or returned None."""
    tools = _tools()

    def run(name: str, sample: dict[str, Any]) -> str:
        try:
            returned = func(tools[name], sample)
        except AssertionError:
            return "raised AssertionError (a disagreement)"
        return "returned None (they agree)" if returned is None else f"returned {returned!r}"

    return run


_OPTIONAL_HINT = (
    "This tool's schema and validator agree, so nothing may be reported. Leave out only the "
    "fields the schema *requires* (an optional one may be omitted, so the validator is right to "
    "accept that), and for the extra property add a name the schema does not declare (e.g. "
    "'not_a_parameter'): a declared property with another value is no extra."
)


def _agrees(
    student: Callable[..., Any],
    tools: dict[str, Tool],
    name: str,
    sample: Any,
    hint: str = _OPTIONAL_HINT,
) -> None:
    what = f"check_agreement({name}, {json.dumps(sample)})"
    given = copy.deepcopy(sample)
    try:
        call_student(student, tools[name], given, what=what, returns="None")
    except CheckFailed as failed:
        raise CheckFailed(
            f"{what} failed on a tool whose schema and validator agree: {failed.message}",
            expected=Described("no AssertionError: nothing to report"),
            got=failed.got,
            hint=hint,
        ) from None
    if given != sample:
        raise CheckFailed(
            f"{what} changed the sample it was given: the caller's dict is now {given!r}.",
            expected=sample,
            got=given,
            hint="Build each case from a copy, e.g. {k: v for k, v in sample.items() if k != "
            "field} or {**sample, 'extra': 1}; sample.pop(field) or del sample[field] empties "
            "the caller's sample, and each later case then lacks the earlier fields too.",
        )


def _disagrees(
    student: Callable[..., Any],
    tools: dict[str, Tool],
    name: str,
    sample: Any,
    why: str,
    match: str | None,
    came_back: tuple[str, ...] = (),
) -> None:
    what = f"check_agreement({name}, {json.dumps(sample)}), where {why}"
    hint = (
        "Raise AssertionError (plain `assert` or `raise AssertionError(...)`) naming what was "
        "sent, what came back and the field expected."
    )
    raised = expect_raises(
        AssertionError,
        student,
        tools[name],
        copy.deepcopy(sample),
        what=what,
        match=match,
        hint=hint,
    )
    said = text(raised)
    if not said.strip():
        raise CheckFailed(
            f"{what} raised AssertionError without a message.",
            expected=Described("AssertionError('sent ...; got ...; expected ...')"),
            got=raised,
            hint=hint,
        )
    if came_back and not any(words in said for words in came_back):
        raise CheckFailed(
            f"{what} raised AssertionError, but its message does not say what came back (the "
            "validator's refusal).",
            expected=Described(f"a message naming what came back: {' or '.join(came_back)}"),
            got=said,
            hint="Say what the validator answered: its code and message, e.g. f'got "
            "{error.code}: {error.message}'.",
        )


@exercise(
    "11.1",
    title="An agreement test",
    hints=[
        "Three questions: is the sample accepted? Is each required field, left out, refused? Is "
        "an extra property refused (when the schema says additionalProperties: false)?",
        "Ask `refusal(tool, arguments)`: None means accepted; otherwise check error.code == "
        "'INVALID_ARGUMENTS' and that the field's name is in error.message.",
        "Take the required fields from tool.parameters['required'], not from the function: a "
        "field the function defaults is exactly the one the schema may wrongly require.",
    ],
    reference=lambda: check_agreement,
)
def _check_agreement(student: Callable[..., Any]) -> None:
    tools = _tools()
    _agrees(student, tools, "search", _SAMPLE)
    _agrees(student, tools, "clock", {"timezone": "UTC"})
    _agrees(student, tools, "clock", {})
    _agrees(
        student,
        tools,
        "open_schema",
        _SAMPLE,
        hint="Test an extra property only when the schema says additionalProperties: false; a "
        "schema that does not forbid extras lets the validator accept them.",
    )
    _disagrees(
        student,
        tools,
        "limit_required",
        _SAMPLE,
        "the schema requires limit but the function gives it a default",
        "limit",
    )
    _disagrees(
        student,
        tools,
        "vague_refusal",
        _SAMPLE,
        "leaving out limit is refused with a message that does not name limit",
        "limit",
        ("something is missing",),
    )
    _disagrees(
        student,
        tools,
        "ignores_extras",
        _SAMPLE,
        "the schema forbids extra properties but the validator ignores them",
        None,
    )
    _disagrees(
        student,
        tools,
        "limit_required_first",
        _SAMPLE,
        "the schema requires limit (listed first) but the function gives it a default",
        "limit",
    )
    _disagrees(
        student,
        tools,
        "limit_as_text",
        {"query": "q", "limit": "3"},
        "the schema says limit is a string but the validator wants an integer",
        None,
        ("INVALID_ARGUMENTS",),
    )
    agree(
        _verdict(student),
        _verdict(check_agreement),
        _GENERATED,
        name="check_agreement(the tool {args})",
        wrong="{problem}",
        compare=lambda got, expected, what: (
            None if got == expected else f"{got}, but the reference {expected}"
        ),
        hint="Raise AssertionError only when the validator refuses the sample, or accepts it "
        "without a required field, or with an undeclared property when additionalProperties "
        "is false (or refuses those without INVALID_ARGUMENTS naming the field).",
    )
