"""What registering a simple tool leaves for later: its argument model and its validator.

Registering costs what it builds. For a signature `toolsys._schema_writer` can write (most tools),
the schema the model reads is all a registration needs: listing, exporting and searching tools
read the schema, never the model. So the argument model is created the first time something reads
`Tool.model` (`PendingModel`), and its validator is built the first time a call is validated
(`first_use_validator`). A catalog of 300 tools pays for the few the model calls.

Both are built once: the first use puts the real model and the real `SchemaValidator` on the tool,
so every later call reads a plain attribute, exactly as if they had been built at registration.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel
from pydantic_core import SchemaValidator


@dataclass(frozen=True, eq=False)
class PendingModel:
    """A simple signature's argument model, not created yet: its written, read-only `schema`,
    the `create_model` `fields` (for their defaults) and how to `make` it (`toolsys.schema`
    looks in its cache first, so tools registered with the same signature share one class)."""

    schema: dict[str, Any]
    fields: dict[str, Any]
    make: Callable[[], type[BaseModel]]
    _made: list[type[BaseModel]] = field(default_factory=list, repr=False)

    def create(self) -> type[BaseModel]:
        """The model, made on the first call (by one thread) and the same one after."""
        with _CREATING:
            if not self._made:
                self._made.append(self.make())
            return self._made[0]

    def default(self, field: str) -> Any:
        """The field's declared default, as `model.model_fields[field].default` will say."""
        return self.fields[field][1].default


_CREATING = threading.RLock()


def first_use_validator(owner: Any, model: type[BaseModel] | PendingModel) -> SchemaValidator:
    """The model's validator, or, while it is not built, a stand-in that builds it on first use
    and then puts the real `SchemaValidator` in `owner.validator`, so later calls use it as is.

    The stand-in reads `owner.model`, which creates a pending model first.
    """
    if not isinstance(model, PendingModel):
        validator = model.__pydantic_validator__
        if isinstance(validator, SchemaValidator):
            return validator
    return cast(SchemaValidator, _FirstUse(owner))


class _FirstUse:
    """Stands in for a tool's validator until a call needs it (pydantic's own stand-in, which
    `defer_build` leaves on the model, would look for a rebuild on every call through it)."""

    __slots__ = ("_owner",)

    def __init__(self, owner: Any) -> None:
        self._owner = owner

    def _built(self) -> SchemaValidator:
        model = self._owner.model
        model.model_rebuild(raise_errors=False)
        validator = model.__pydantic_validator__
        if isinstance(validator, SchemaValidator):
            object.__setattr__(self._owner, "validator", validator)
        return cast(SchemaValidator, validator)

    def validate_python(self, *args: Any, **kwargs: Any) -> Any:
        return self._built().validate_python(*args, **kwargs)

    def validate_json(self, *args: Any, **kwargs: Any) -> Any:
        return self._built().validate_json(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._built(), name)


WRITTEN: weakref.WeakSet[type[BaseModel]] = weakref.WeakSet()
"""The argument models of simple signatures, their schemas written by toolsys
(`toolsys._schema_writer`): every field's type is one strict validation refuses None for unless
the schema says it may be null, so a null for a field that may be left out never passes as sent
(`Tool.null_check`)."""
