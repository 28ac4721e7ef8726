"""Checks for chapter 00 (the tool-calling protocol): tool messages, parsing calls, a definition.

Each check builds real `openai` objects (the same types `client.chat.completions.create`
returns), so a solution that passes here works on a real response.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch00 import ex1, ex2, ex3
from toolsys.checks.ch00.ex1 import tool_message
from toolsys.checks.ch00.ex2 import parse_tool_calls
from toolsys.checks.ch00.ex3 import book_table_tool

__all__ = ["book_table_tool", "ex1", "ex2", "ex3", "parse_tool_calls", "tool_message"]
