"""The declarative way to describe a tool: a name, a description and a list of parameters.

`ToolSpec` + `Param` are the smallest "one source of truth": a schema generator turns them into
JSON Schema, and the same spec builds the validator, so the two cannot drift apart.

Chapter 03 builds this by hand first: notebooks/03_schemas.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")


class Category(StrEnum):
    """What a tool may do to the world; later layers decide permissions from it."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"


@dataclass(frozen=True)
class Param:
    """One parameter of a declarative spec.

    `required=False` means the model may leave it out: the implementation then receives
    `default`, or, when none is declared (`default=None`), is called without the argument and
    uses its own default. `nullable=True` means the model may send `null`. The two are
    different questions.
    """

    name: str
    type: str
    description: str = ""
    required: bool = True
    enum: Sequence[Any] | None = None
    default: Any = None
    items: str | None = None
    nullable: bool = False
    minimum: float | None = None
    maximum: float | None = None

    def __post_init__(self) -> None:
        if self.type not in JSON_TYPES:
            raise ValueError(
                f"Param {self.name!r} has type {self.type!r}, which is not a JSON Schema type; "
                f"use one of: {', '.join(JSON_TYPES)}."
            )
        if self.items is not None and self.items not in JSON_TYPES:
            raise ValueError(
                f"Param {self.name!r} has items={self.items!r}; "
                f"use one of: {', '.join(JSON_TYPES)}."
            )


@dataclass(frozen=True)
class ToolSpec:
    """A tool described as data: `parameters` is a list of `Param` or a Pydantic model class."""

    name: str
    description: str
    parameters: Sequence[Param] | type[BaseModel] = ()
    category: Category = Category.READ
    tags: tuple[str, ...] = field(default=())
