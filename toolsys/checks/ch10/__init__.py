"""Checks for chapter 10, MCP: an error that stays a result, a trust rule for annotations, and an
import under a prefix. Each reference is the package's own piece (`toolsys.mcp`) on the same
inputs: `call_result` for 10.1, `category_for` for 10.2, and `import_server` itself, against a
small server built from the listing, for 10.3.

The cases are the answers a careless version gets wrong: a failure raised (a protocol error the
model never reads) or sent as a success, a suggestion dropped, a string value quoted twice;
annotations believed from an untrusted server, a missing hint read as "safe", a truthy "yes";
every imported tool calling the last one (a closure bound late), the prefixed name sent to the
server, half an import left behind after a name clash.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch10 import ex1, ex2, ex3
from toolsys.checks.ch10.ex1 import to_call_result
from toolsys.checks.ch10.ex2 import category_of
from toolsys.checks.ch10.ex3 import import_with_prefix

__all__ = ["category_of", "ex1", "ex2", "ex3", "import_with_prefix", "to_call_result"]
