"""Tool shapes the execute fast path was not tuned to, for `bench_core.py` and
`bench_instructions.py` (issue 25: execute <= 1.5x a bare pydantic validate + call on *every*
shape, not only the benchmark's own).

Each shape is a docstring-annotated tool, the arguments sent (as a dict and as JSON text) and its
bare pydantic peers: the peer model validated, then the tool called with its fields, inline, as a
hand-written tool call would:

- `place`: one nested pydantic model argument (an order with a list of items), so validation
  builds three models and the tool receives a model instance.
- `tag`: a string and a `list[int]`, both required.
- `configure`: six optional fields (int, str, bool, float, a nullable str, int), all left out:
  validation is almost nothing, so what the registry adds weighs most here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import BaseModel


class Item(BaseModel):
    sku: str
    quantity: int


class Order(BaseModel):
    customer: str
    items: list[Item]


def place(order: Order) -> int:
    """Place an order.

    Args:
        order: The customer and the items to ship.
    """
    return len(order.items)


class PlaceArgs(BaseModel):
    order: Order


def tag(text: str, ids: list[int]) -> int:
    """Tag documents.

    Args:
        text: The tag to add.
        ids: The documents to tag.
    """
    return len(ids) + len(text)


class TagArgs(BaseModel):
    text: str
    ids: list[int]


def configure(
    width: int = 80,
    title: str = "",
    verbose: bool = False,
    ratio: float = 1.0,
    label: str | None = None,
    depth: int = 3,
) -> int:
    """Configure the view.

    Args:
        width: Columns of text.
        title: The window title.
        verbose: Say more.
        ratio: The aspect ratio.
        label: A label shown under the title.
        depth: How many levels to show.
    """
    return width + depth


class ConfigureArgs(BaseModel):
    width: int = 80
    title: str = ""
    verbose: bool = False
    ratio: float = 1.0
    label: str | None = None
    depth: int = 3


Peers = tuple[Callable[[], Any], Callable[[], Any]]


def place_peers(arguments: dict[str, Any], raw: str) -> Peers:
    def with_dict() -> int:
        model = PlaceArgs.model_validate(arguments)
        return place(model.order)

    def with_json() -> int:
        model = PlaceArgs.model_validate_json(raw)
        return place(model.order)

    return with_dict, with_json


def tag_peers(arguments: dict[str, Any], raw: str) -> Peers:
    def with_dict() -> int:
        model = TagArgs.model_validate(arguments)
        return tag(model.text, model.ids)

    def with_json() -> int:
        model = TagArgs.model_validate_json(raw)
        return tag(model.text, model.ids)

    return with_dict, with_json


def configure_peers(arguments: dict[str, Any], raw: str) -> Peers:
    def with_dict() -> int:
        m = ConfigureArgs.model_validate(arguments)
        return configure(m.width, m.title, m.verbose, m.ratio, m.label, m.depth)

    def with_json() -> int:
        m = ConfigureArgs.model_validate_json(raw)
        return configure(m.width, m.title, m.verbose, m.ratio, m.label, m.depth)

    return with_dict, with_json


class Shape(NamedTuple):
    label: str
    tool: Callable[..., Any]
    arguments: dict[str, Any]
    make_peers: Callable[[dict[str, Any], str], Peers]

    @property
    def raw(self) -> str:
        return json.dumps(self.arguments)

    def peers(self) -> Peers:
        """The bare pydantic peers, zero-argument like the calls they are timed against: validate
        the dict (or the JSON text), then call the tool with every field, inline."""
        return self.make_peers(self.arguments, self.raw)


ORDER = {"customer": "ada", "items": [{"sku": "a1", "quantity": 2}, {"sku": "b2", "quantity": 1}]}
SHAPES = {
    "place": Shape(
        "place(order: Order), a nested model, two items", place, {"order": ORDER}, place_peers
    ),
    "tag": Shape(
        "tag(text: str, ids: list[int]), five ids",
        tag,
        {"text": "urgent", "ids": [3, 1, 4, 1, 5]},
        tag_peers,
    ),
    "configure": Shape(
        "configure(six optional fields), all left out", configure, {}, configure_peers
    ),
}
"""The shapes by the tool's name."""
