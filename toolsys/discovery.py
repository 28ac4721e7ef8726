"""Adding a tool is adding a file: import every module of a package folder.

Each module registers its tools on a registry when it is imported, so importing the folder's
modules is all discovery needs. Kept apart from the registry because it is about modules and
import errors, not about tools.

Chapter 02 builds this by hand first: notebooks/02_registry.ipynb.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def discover(package: str | ModuleType) -> list[str]:
    """Import every module of a package folder so the tools they define register themselves.

    "Adding a tool is adding a file": drop `my_tool.py` next to the others and it is found.
    Modules whose names start with `_` are skipped. If some modules fail to import, the others
    are still imported and one error then names every failure.
    """
    module = importlib.import_module(package) if isinstance(package, str) else package
    paths = getattr(module, "__path__", None)
    if paths is None:
        raise ValueError(f"{module.__name__!r} is a module, not a package folder; pass a package.")
    imported: list[str] = []
    failed: list[str] = []
    for info in sorted(pkgutil.iter_modules(paths), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        name = f"{module.__name__}.{info.name}"
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
        else:
            imported.append(name)
    if failed:
        raise ImportError("Some tool modules failed to import:\n  " + "\n  ".join(failed))
    return imported
