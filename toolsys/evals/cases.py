"""What an eval runs: cases (a request, the tool meant for it, what should come of it) and
variants (the same tools offered in different designs).

Why this module exists: "the model used the tool" is not the question; "the user got what they
asked for" is. A `Case` therefore carries an `effect`: a predicate on what the intended tool
returned, written by whoever knows what the request meant. A `Variant` is one design of the
tool set; the same cases run against every variant, so the designs are compared on equal terms.
Variants may rename tools (`calendar_create_event` for `create_event`): `names` maps a case's
tool name to the variant's. A variant that splits one job into steps (create an event, then
invite, then set its type) maps the case's tool to all of its step tools: any of them serves the
case, and the effect is judged on what the last of them returned, so each step returns the whole
state it changed.

Chapter 05 builds this by hand first: notebooks/05_argument_design.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toolsys.execution import ToolExecutor

__all__ = ["Case", "Variant"]

Effect = Callable[[Any], bool]
"""A predicate on the value the intended tool returned: True when the request was fulfilled."""


@dataclass(frozen=True)
class Case:
    """One request, the tool that should handle it, and (optionally) what should come of it.

    `effect(value)` receives the value the intended tool returned on its last successful call
    and says whether the user got what they asked for. Without it, a successful call counts.
    """

    prompt: str
    tool: str
    effect: Effect | None = field(default=None, compare=False)
    name: str = ""

    def __post_init__(self) -> None:
        if type(self.prompt) is not str or not self.prompt.strip():
            raise ValueError(
                f"Case(prompt={self.prompt!r}): the prompt must be the user's request as "
                "non-empty text, e.g. 'Book a table for two tomorrow at 8pm'."
            )
        if type(self.tool) is not str or not self.tool.strip():
            raise ValueError(
                f"Case(tool={self.tool!r}): name the tool that should handle "
                f"{self.prompt[:40]!r}, e.g. tool='book_table'."
            )
        if self.effect is not None and not callable(self.effect):
            raise ValueError(
                f"Case(effect={self.effect!r}): pass a function value -> bool that says whether "
                "the tool's result is what the user asked for, or leave it out."
            )
        if type(self.name) is not str:
            raise ValueError(f"Case(name={self.name!r}): a short label as text, or leave it out.")

    @property
    def label(self) -> str:
        """The name, or the start of the prompt."""
        if self.name:
            return self.name
        return self.prompt if len(self.prompt) <= 40 else self.prompt[:39] + "…"


@dataclass(frozen=True)
class Variant:
    """One design of the tool set: a name, and a registry or a function that builds a fresh one.

    Give a function when the tools keep state between calls (each episode then starts clean);
    give the registry itself when they do not (faster). `names` maps a case's tool name to this
    variant's name for it, e.g. {"create_event": "calendar_create_event"}, or to the names of
    the step tools that together do its job, e.g. {"create_event": ("create", "invite")}.
    """

    name: str
    tools: ToolExecutor | Callable[[], ToolExecutor]
    names: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.name) is not str or not self.name.strip():
            raise ValueError(
                f"Variant(name={self.name!r}): give the design a short name, e.g. 'C'."
            )
        if not (_is_executor(self.tools) or callable(self.tools)):
            raise ValueError(
                f"Variant {self.name!r}: tools={self.tools!r} is neither a Registry nor a "
                "function that returns one."
            )
        names: dict[str, str | tuple[str, ...]] = {}
        for case_tool, named in dict(self.names).items():
            steps = (named,) if isinstance(named, str) else tuple(named)
            if not steps or not all(type(step) is str and step.strip() for step in steps):
                raise ValueError(
                    f"Variant {self.name!r}: names[{case_tool!r}]={named!r} is not a tool name "
                    "or a tuple of tool names, e.g. 'calendar_create_event' or "
                    "('create_event', 'invite')."
                )
            names[case_tool] = named if isinstance(named, str) else steps
        object.__setattr__(self, "names", MappingProxyType(names))

    def registry(self) -> ToolExecutor:
        """The tools for one episode: the registry, or a fresh one from the function."""
        if _is_executor(self.tools):
            return self.tools  # type: ignore[return-value]
        built = self.tools()  # type: ignore[operator]
        if not _is_executor(built):
            raise ValueError(
                f"Variant {self.name!r}: its tools function returned {type(built).__name__}, "
                "not a Registry; return the registry you built."
            )
        return built

    def tool_name(self, case_tool: str) -> str:
        """This variant's name for the tool a case names (the first step, for a split job)."""
        return self.tool_names(case_tool)[0]

    def tool_names(self, case_tool: str) -> tuple[str, ...]:
        """Every tool of this variant that serves a case naming `case_tool`: one, or its steps."""
        named = self.names.get(case_tool, case_tool)
        return (named,) if isinstance(named, str) else named


def _is_executor(value: Any) -> bool:
    return callable(getattr(value, "export", None)) and callable(getattr(value, "aexecute", None))
