"""The kernelspec every notebook we write carries: the one JupyterLab puts there when it opens it.

Why: on opening a notebook JupyterLab starts its kernel and writes that kernel's spec (and its
`language_info`) into the notebook's metadata; when either differs from what was saved, the
notebook is marked modified before the student did anything, and closing it asks to save.
ipykernel (6 and later) installs its spec as "Python 3 (ipykernel)", but nbclient, which
executes our notebooks, keeps whatever spec the file had ("Python 3" in older tools). So
`toolsys execute`, `toolsys exercises` and the tests' notebook writers all stamp this one.
`language_info` needs no stamp: nbclient writes the kernel's own. Its `version` is the Python
that executed the notebook, so on another Python a notebook still opens modified, as
JupyterLab and the classic notebook do for any notebook (jupyter/notebook#2123).
"""

from __future__ import annotations

from typing import Any

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def stamp(notebook: Any) -> None:
    """Give a notebook (an nbformat NotebookNode) the kernelspec JupyterLab would write."""
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
