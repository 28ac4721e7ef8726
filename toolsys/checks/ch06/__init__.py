"""Checks for chapter 06, the agent loop: parallel calls answered in order, a result budget, a
step limit that still answers (graded over seeded runs of the imperfect model), a transcript's
numbers, and Anthropic's tool_result block.

Every check runs the student's code against the real `openai` client (scripted or offline), so
an answer that passes here speaks the protocol a real endpoint enforces.

One module per exercise (`exN.py`: its check, its cases, its reference), read top to bottom;
`_shared.py`, where present, holds what several exercises use.
"""

from toolsys.checks.ch06 import ex1, ex2, ex3, ex4, ex5
from toolsys.checks.ch06.ex1 import agent_loop
from toolsys.checks.ch06.ex3 import answer_within
from toolsys.checks.ch06.ex4 import summarize

__all__ = ["agent_loop", "answer_within", "ex1", "ex2", "ex3", "ex4", "ex5", "summarize"]
