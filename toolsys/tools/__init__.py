"""The built-in example tools: one file each, found by discovery.

Adding a tool is adding a file here: each module registers its functions on `registry` at
import, and `discover` imports every module of this folder. All of them are deterministic and
offline (bundled data, a fixed clock), so lessons and tests give the same output every time.
"""

from toolsys import Registry, discover

registry = Registry()
"""Every built-in tool. The CLI and the lessons use it; copy it before changing it."""

discover(__name__)
