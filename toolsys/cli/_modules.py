"""Which modules contribute subcommands. Adding a family of commands is adding a name here."""

from __future__ import annotations

import importlib
from types import ModuleType

NAMES: tuple[str, ...] = ("check", "chat")


def load() -> list[ModuleType]:
    return [importlib.import_module(f"toolsys.cli.{name}") for name in NAMES]
