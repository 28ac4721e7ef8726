"""Book and package point at each other (d2l's link, without its drift).

Each module a chapter builds by hand names that chapter's lesson in its docstring; the lesson
must exist and must use the module's public names, and every lesson is named by some module.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
LESSON = re.compile(r"notebooks/\d\d_\w+\.ipynb")
MODULES = sorted(
    p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
    for p in (ROOT / "toolsys").rglob("*.py")
    if p.name != "__init__.py" or p.parent.name == "models"
)


def _lessons_named_by(module_name: str) -> list[str]:
    name = module_name.removesuffix(".__init__")
    return LESSON.findall(importlib.import_module(name).__doc__ or "")


MAP = {m: _lessons_named_by(m) for m in MODULES}


@pytest.mark.parametrize("module", [m for m in MODULES if MAP[m]])
def test_the_lesson_a_module_names_exists_and_uses_it(module: str) -> None:
    name = module.removesuffix(".__init__")
    public = getattr(importlib.import_module(name), "__all__", None) or [name.split(".")[-1]]
    for lesson in MAP[module]:
        text = (ROOT / lesson).read_text(encoding="utf-8")
        assert any(word.lstrip("_") in text for word in public), f"{lesson} never uses {name}"


def test_every_lesson_is_named_by_a_module() -> None:
    named = {lesson for lessons in MAP.values() for lesson in lessons}
    lessons = {p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert lessons <= named, f"lessons no module points to: {sorted(lessons - named)}"
