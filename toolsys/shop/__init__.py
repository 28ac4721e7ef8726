"""A small online shop over SQLite: the capstone's system, with data that must not be corrupted.

`create(path)` makes and seeds the database; `invariants(shop)` lists every rule the data
breaks (none, after any sequence of tool calls); the tools live one per file in
`toolsys.shop.tools`. `order_row(conn, order_id, caller)` is the row-level access rule those
tools share (toolsys/shop/_access.py); check 12.2 builds its tools on it too.
"""

from toolsys.shop._access import order_row
from toolsys.shop.db import Shop, create
from toolsys.shop.invariants import invariants

__all__ = ["Shop", "create", "invariants", "order_row"]
