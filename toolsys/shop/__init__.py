"""A small online shop over SQLite: the capstone's system, with data that must not be corrupted.

`create(path)` makes and seeds the database; `invariants(shop)` lists every rule the data
breaks (none, after any sequence of tool calls); the tools live one per file in
`toolsys.shop.tools`.
"""

from toolsys.shop.db import Shop, create
from toolsys.shop.invariants import invariants

__all__ = ["Shop", "create", "invariants"]
