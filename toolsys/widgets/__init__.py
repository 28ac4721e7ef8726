"""Widgets that show the tool system at work: a trace of a run, a playground, an inspector, and
an approval panel for a run that waits on a person.

Imported only on demand (`from toolsys.widgets import TraceView`), so `import toolsys` never
loads ipywidgets.
"""

from toolsys.widgets.approval import ApprovalPanel
from toolsys.widgets.inspector import Inspector
from toolsys.widgets.playground import Playground
from toolsys.widgets.trace import TraceView

__all__ = ["ApprovalPanel", "Inspector", "Playground", "TraceView"]
