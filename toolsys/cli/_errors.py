"""One way for every command to refuse bad input: one line, the command's name, exit code 2."""

from __future__ import annotations

import sys
from typing import NoReturn

import click


def usage_error(message: str) -> NoReturn:
    """Print `toolsys COMMAND: message` on stderr and exit 2; never a traceback."""
    context = click.get_current_context(silent=True)
    command = context.info_name if context is not None else "toolsys"
    click.echo(f"toolsys {command}: {message}", err=True)
    sys.exit(2)
