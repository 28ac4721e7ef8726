"""Widgets that show the tool system at work: a trace of a run, a playground, an inspector, and
an approval panel for a run that waits on a person.

Imported only on demand (`from toolsys.widgets import TraceView`), so `import toolsys` never
loads ipywidgets. `SummaryBox`, `esc` and `text_lines` (toolsys/widgets/_render.py) are how every
widget renders; views outside this package, like the capstone's shop dashboard, use them too.
"""

from toolsys.widgets._render import SummaryBox, esc, text_lines
from toolsys.widgets.approval import ApprovalPanel
from toolsys.widgets.inspector import Inspector
from toolsys.widgets.playground import Playground
from toolsys.widgets.trace import TraceView

__all__ = [
    "ApprovalPanel",
    "Inspector",
    "Playground",
    "SummaryBox",
    "TraceView",
    "esc",
    "text_lines",
]
