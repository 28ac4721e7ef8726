"""`Tool`: a registered tool, ready to validate arguments and call its implementation.

What a tool is, and what it does on every call; how one is made from a function, a model or a
spec is in `toolsys.tool`, which re-exports `Tool`. A tool's cleaned JSON Schema (read-only) and
diagnostics are computed at registration; its argument model and validator on first use when
the schema could be written without them (see `toolsys._deferred`). How the validator is held
to what the schema promises is in `toolsys/_agreement.py`.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaValidator, ValidationError

from toolsys._agreement import (
    accepts_anything,
    check_json,
    could_be_nonstandard,
    has_null,
    json_text,
    literal_check,
    parse_json,
    repair,
)
from toolsys._deferred import WRITTEN, PendingModel, first_use_validator
from toolsys.injection import Injection, injected_values
from toolsys.isolate import Subprocess
from toolsys.spec import Category


@dataclass(frozen=True, eq=False)
class Tool:
    """A tool as the registry holds it. `parameters` is the JSON Schema the model sees (read-only).

    Every field is passed to the implementation, defaults included: a field's default is the
    implementation's own (read from its signature), so what a policy, an approver and the audit
    log see (`Call.values`) is exactly what the tool receives. `positional` names the fields
    passed by position (`def f(x, /)`), each with its default; `omitted` names the rare fields
    whose implementation default cannot be a JSON value: those are left out when not sent.

    Read by the robustness layers (`toolsys.layers`): `timeout` (seconds; the `Timeout` layer's
    default when None), `idempotent` (a repeat cannot double a side effect; None means True for
    READ tools, False for WRITE and EXECUTE) and `isolate` (a `Subprocess`: run each call in a
    child process whose whole process group is killed at the deadline).

    `injected` names the implementation's parameters the registry fills at call time from the
    caller's context or its provided dependencies (`toolsys.injection`); the model never sees them.

    Read by the policy (`toolsys.governance`): `roles` (who may see and call it; None means
    everyone) and `available` (`available(context) -> bool`, e.g. a feature flag).

    `examples`: inputs the tool declares as typical calls, each valid against its own schema
    (checked at registration); Anthropic's export sends them as `input_examples`.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    model: type[BaseModel]
    category: Category = Category.READ
    tags: tuple[str, ...] = ()
    diagnostics: tuple[str, ...] = ()
    source: str = "function"
    is_async: bool = False
    pass_model: bool = False
    aliases: Mapping[str, str] = field(default_factory=dict, repr=False)
    null_means_default: frozenset[str] = field(default=frozenset(), repr=False)
    positional: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    omitted: frozenset[str] = field(default=frozenset(), repr=False)
    timeout: float | None = None
    idempotent: bool = None  # type: ignore[assignment]  # None: decided by the category
    isolate: Subprocess | None = None
    injected: Mapping[str, Injection] = field(default_factory=dict, repr=False)
    roles: frozenset[str] | None = None
    available: Callable[[Mapping[str, Any]], Any] | None = field(default=None, repr=False)
    examples: tuple[Mapping[str, Any], ...] = field(default=(), repr=False)
    validator: SchemaValidator = field(init=False, repr=False)
    accepts_anything: bool = field(init=False, repr=False)
    literals: Callable[[Any], Any] | None = field(init=False, repr=False)
    """The check that a number or boolean literal was sent as its own JSON type (`_agreement`)."""
    by_keyword: bool = field(init=False, repr=False)
    """`call` passes the model's fields as keywords, as they are (the execute fast path's test)."""
    open: bool = field(init=False, repr=False)
    """No `roles` and no `available`: every caller may see and use it."""
    sync: bool = field(init=False, repr=False)
    """Runs without an event loop (not async)."""
    direct: bool = field(init=False, repr=False)
    """Plain enough for the sync fast method to validate and call it inline."""
    null_check: bool = field(init=False, repr=False)
    """Arguments with a None must go the long way (`null_means_default`) even when strict
    validation accepts them: False for a simple signature's model (`_deferred.WRITTEN`), whose
    validation refuses a null wherever `null_means_default` would apply, so the fast method
    need not look for one."""

    def __post_init__(self) -> None:
        given = self._model  # type: ignore[attr-defined]  # not `self.model`: it stays pending
        set_ = object.__setattr__
        set_(self, "validator", first_use_validator(self, given))
        set_(self, "accepts_anything", accepts_anything(self.parameters))
        set_(self, "literals", literal_check(self.parameters))
        plain = self.isolate is None and not (self.pass_model or self.positional or self.aliases)
        set_(self, "by_keyword", plain and not self.omitted)
        set_(self, "open", self.roles is None and self.available is None)
        set_(self, "sync", not self.is_async)
        direct = self.by_keyword and self.sync and self.open and not self.injected
        set_(self, "direct", direct and not self.accepts_anything and self.literals is None)
        try:
            written = isinstance(given, PendingModel) or given in WRITTEN
        except TypeError:  # not a class: never one of ours
            written = False
        set_(self, "null_check", bool(self.null_means_default) and not written)
        if self.idempotent is None:
            set_(self, "idempotent", self.category == Category.READ)
        set_(self, "_keywords", None)  # see `_call_by_keyword`: set now, later only replaced

    def _call_by_keyword(self, values: dict[str, Any]) -> Any:
        """`self.fn(**values)` for a direct tool and its validated model's `__dict__` (what the
        execute fast path calls), through `keyword_caller`, compiled for this tool on first use."""
        call = self._keywords  # type: ignore[attr-defined]
        if call is None:
            call = keyword_caller(self.fn, tuple(values))
            object.__setattr__(self, "_keywords", call)
        return call(values)

    def validate(self, arguments: Mapping[str, Any], *, coerce: bool = False) -> BaseModel:
        """Validate decoded JSON arguments; raises pydantic's ValidationError.

        Strict by default, so the validator accepts what the schema accepts, and only JSON: a
        value JSON cannot carry (bytes, a set, an object, NaN) is refused, never stringified.
        Where JSON Schema and strict Pydantic read JSON differently, JSON Schema wins: `2.0` is
        an integer, and `null` for an omittable, non-nullable argument (at any depth) means "use
        the default" (strict-mode providers must send every key, and send null for the ones
        they would have left out).
        """
        if type(arguments) is not dict:
            arguments = dict(arguments)
        if self.accepts_anything:
            check_json(arguments)
        if self.null_means_default and None in arguments.values():
            arguments = {
                key: value
                for key, value in arguments.items()
                if value is not None or key not in self.null_means_default
            }
        if self.literals is not None:
            self.literals(arguments)
        try:
            return self._validate(arguments, coerce)
        except ValidationError as exc:
            repaired = repair(arguments, exc, self.parameters)
            if repaired is None:
                raise
        return self._validate(repaired, coerce)

    def _validate(self, arguments: dict[str, Any], coerce: bool) -> BaseModel:
        if coerce:
            return self.validator.validate_python(arguments)
        try:
            return self.validator.validate_python(arguments, strict=True)
        except ValidationError:
            # JSON's strict mode also accepts ISO dates, enum values and the like as strings.
            return self.validator.validate_json(json_text(arguments), strict=True)

    def validate_json(self, text: str | bytes, *, coerce: bool = False) -> BaseModel:
        """Validate raw JSON text; raises ValidationError (json_invalid included).

        The same promise as `validate`: what JSON Schema accepts, and nothing JSON cannot say
        (pydantic would read the non-standard `NaN` and `Infinity`).
        """
        if self.null_check and has_null(text):
            data = parse_json(text)  # a null may mean "the default": `validate` decides
            if isinstance(data, dict):
                check_json(data)
                return self.validate(data, coerce=coerce)
        try:
            model = self.validator.validate_json(text, strict=not coerce)
        except ValidationError:
            data = parse_json(text)
            if not isinstance(data, dict):
                raise
            check_json(data)
            return self.validate(data, coerce=coerce)
        if could_be_nonstandard(text):
            check_json(parse_json(text))
        if self.literals is not None:
            self.literals(parse_json(text))
        return model

    def call(
        self,
        arguments: BaseModel,
        context: Mapping[str, Any] | None = None,
        dependencies: Mapping[str, Any] | None = None,
    ) -> Any:
        """Call the implementation with the validated arguments, defaults included; for an
        async or isolated tool this returns the coroutine.

        A tool that takes its model whole (`args=Model`) gets a copy of its own class, so what
        it changes on it changes nothing the layers saw. Injected parameters come from `context`
        and `dependencies` (a ToolError when missing).
        """
        fn = self.fn
        if self.injected:  # bound per call: building a new Tool would re-check the schema
            values = injected_values(self.name, self.injected, context, dependencies)
            fn = functools.partial(fn, **values)
        if self.isolate is not None:
            plain = dataclasses.replace(self, fn=fn, isolate=None, injected={})
            return self.isolate.run(plain.call, arguments)
        if self.pass_model:
            return fn(own_copy(arguments))
        values = arguments.__dict__
        if self.omitted:
            given = arguments.__pydantic_fields_set__
            values = {k: v for k, v in values.items() if k in given or k not in self.omitted}
        if self.positional:
            return self._call_positional(fn, values)
        if not self.aliases:
            return fn(**values)
        return fn(**{self.aliases[key]: value for key, value in values.items()})

    def _call_positional(self, fn: Callable[..., Any], values: dict[str, Any]) -> Any:
        names = [name for name, _ in self.positional]
        last = max((i for i, name in enumerate(names) if name in values), default=-1)
        head = [values.get(name, default) for name, default in self.positional[: last + 1]]
        rest = {self.aliases.get(k, k): v for k, v in values.items() if k not in names}
        return fn(*head, **rest)


def keyword_caller(
    fn: Callable[..., Any], names: tuple[str, ...]
) -> Callable[[dict[str, Any]], Any]:
    """`lambda values: fn(**values)` for a dict whose keys are exactly `names`, each keyword
    spelled out (`fn(a=values["a"], b=values["b"])`), as `dataclasses` writes `__init__`.

    Unpacking a dict into a call (`**values`) makes CPython 3.11 build the keywords again and
    enter the function from C, a new interpreter loop; a call with its keywords written out is a
    plain Python-to-Python call. For a small tool that is about a tenth of `execute`. Names that
    cannot be spelled as keywords (not identifiers) keep the unpacking.
    """
    if not all(name.isidentifier() and not keyword.iskeyword(name) for name in names):
        return lambda values: fn(**values)
    given = ", ".join(f"{name}=values[{name!r}]" for name in names)
    namespace: dict[str, Any] = {"fn": fn}
    code = compile(f"def call(values):\n    return fn({given})\n", "<toolsys keyword call>", "exec")
    exec(code, namespace)
    call: Callable[[dict[str, Any]], Any] = namespace["call"]
    return call


def own_copy(arguments: BaseModel) -> BaseModel:
    """The validated arguments as the tool's own object: for a model the developer wrote (which
    the tool's argument model freezes, `toolsys.tool`), a deep copy of that model's own class,
    which the tool may change without changing what the layers saw; any other model as it is
    (generated ones are frozen, and their tools are ours)."""
    own = type(arguments).__dict__.get("__toolsys_own__")
    if own is None:
        return arguments
    values = copy.deepcopy({**arguments.__dict__, **(arguments.__pydantic_extra__ or {})})
    copied: BaseModel = own.model_construct(_fields_set=set(arguments.model_fields_set), **values)
    return copied


class _ModelField:
    """`Tool.model`, kept under `_model`: a `PendingModel` is created when first read.

    A data descriptor that stores with `object.__setattr__`, so creating the model replaces a
    value and never deletes an attribute nor touches `__dict__`: either makes CPython keep that
    tool's attributes in a real dict, and every attribute read of it (the execute path makes
    about ten) then takes three times as long.
    """

    def __get__(self, tool: Tool | None, owner: type | None = None) -> Any:
        if tool is None:
            return self
        model = tool._model  # type: ignore[attr-defined]
        if isinstance(model, PendingModel):
            model = model.create()
            object.__setattr__(tool, "_model", model)
        return model

    def __set__(self, tool: Tool, model: Any) -> None:  # the dataclass __init__, or replace()
        object.__setattr__(tool, "_model", model)


Tool.model = _ModelField()  # type: ignore[assignment]
