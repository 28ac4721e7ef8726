"""The style guide's import rule: no private name is imported from another subpackage.

Every module of the package is parsed with `ast` (nothing is imported). A *subpackage* is a
directory under toolsys/ with an __init__.py; its private modules (a path part with a leading
underscore) are its own. The top level's private modules (toolsys/_redact.py, ...) are the
package's shared core internals, importable from anywhere in toolsys. Two things fail:

(a) a private module of another subpackage (`toolsys.checks._core` from toolsys/grading/);
(b) a private name (leading underscore, not a dunder) from any module but one's own
    (`from toolsys._redact import _known`).

A new shared helper is public API of the subpackage that owns it, or moves down to a shared
lower module; see CONTRIBUTING.md.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "toolsys"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _subpackage(module: str) -> str | None:
    """The top-level subpackage `module` belongs to (`toolsys.checks` for
    toolsys.checks.ch01._x), or None for the package's own top-level modules."""
    parts = module.split(".")
    if len(parts) >= 2 and (PACKAGE / parts[1] / "__init__.py").is_file():
        return ".".join(parts[:2])
    return None


def _is_module(module: str) -> bool:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _private_module_of_another_subpackage(target: str, importer: str) -> bool:
    parts = target.split(".")
    if parts[0] != "toolsys" or len(parts) < 3:
        return False  # toolsys._redact and friends: shared core internals
    owner = ".".join(parts[:2])
    return owner != _subpackage(importer) and any(_is_private(p) for p in parts[2:])


def _ours(module: str) -> bool:
    return module == "toolsys" or module.startswith("toolsys.")


def _resolve(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base.pop()
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _forbidden(source: str, name: str, importer: str) -> bool:
    """Whether `from source import name` in `importer` breaks the rule."""
    if _is_module(f"{source}.{name}"):  # `from toolsys.checks import _core`: a module
        return _private_module_of_another_subpackage(f"{source}.{name}", importer)
    if _private_module_of_another_subpackage(source, importer):
        return True
    return _is_private(name) and _ours(source) and source != importer


def offenders() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _private_module_of_another_subpackage(alias.name, importer):
                        found.append(f"{importer}: import {alias.name}")
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(node, importer, path.name == "__init__.py")
                for alias in node.names:
                    if _forbidden(source, alias.name, importer):
                        found.append(f"{importer}: from {source} import {alias.name}")
    return found


def test_no_private_name_is_imported_from_another_module_or_subpackage() -> None:
    found = offenders()
    assert not found, f"{len(found)} private imports:\n" + "\n".join(found)


def test_the_rule_sees_the_shapes_it_forbids() -> None:
    """The checker itself: each forbidden shape is caught, each allowed one is not."""
    assert _private_module_of_another_subpackage("toolsys.checks._core", "toolsys.grading.x")
    assert _private_module_of_another_subpackage("toolsys.compose._children", "toolsys.lazy")
    assert not _private_module_of_another_subpackage("toolsys.checks._core", "toolsys.checks")
    assert not _private_module_of_another_subpackage(
        "toolsys.checks._core", "toolsys.checks.ch01.x"
    )
    assert not _private_module_of_another_subpackage("toolsys._redact", "toolsys.governance.x")
    assert not _private_module_of_another_subpackage("toolsys.checks", "toolsys.grading.x")
    relative = ast.parse("from ..checks import _core").body[0]
    assert isinstance(relative, ast.ImportFrom)
    assert _resolve(relative, "toolsys.grading.x", is_package=False) == "toolsys.checks"
    assert _is_private("_known") and not _is_private("__version__")
