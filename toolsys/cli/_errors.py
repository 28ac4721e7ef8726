"""One way for every command to refuse bad input: one line, the command's name, exit code 2.

`usage_error` is for the checks a command makes itself; `OneLineErrors` (the `toolsys` group)
does the same for what click or the operating system refuses before or around a command: an
argument that is not valid UTF-8, an unknown option, a missing argument, a value out of range,
a path the system cannot use (too long, say). Never a traceback, never a usage screen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click


def usage_error(message: str) -> NoReturn:
    """Print `toolsys COMMAND: message` on stderr and exit 2; never a traceback."""
    context = click.get_current_context(silent=True)
    command = context.info_name if context is not None else "toolsys"
    fail_command(command, message)


def fail_command(command: str | None, message: str, code: int = 2) -> NoReturn:
    click.echo(f"toolsys {command}: {message}" if command else f"toolsys: {message}", err=True)
    sys.exit(code)


def _not_utf8(argument: str) -> bool:
    try:
        argument.encode("utf-8")
    except UnicodeEncodeError:  # Python keeps undecodable argv bytes as lone surrogates
        return True
    return False


class OneLineErrors(click.Group):
    """A command group whose every refusal is one line `toolsys COMMAND: message`, exit 2."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        arguments = list(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(arguments, prog_name, complete_var, False, **extra)
        command = arguments[0] if arguments and arguments[0] in self.commands else None
        for position, argument in enumerate(arguments, start=1):
            if _not_utf8(argument):
                fail_command(
                    command,
                    f"argument {position} is not valid UTF-8 ({os.fsencode(argument)!r}); "
                    "give it in UTF-8 (rename a file whose name is not)",
                )
        try:
            code = super().main(arguments, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            where = _command_path(exc.ctx)
            more = f"toolsys {where} --help" if where else "toolsys --help"
            fail_command(where, f"{exc.format_message()} See `{more}`.")
        except click.ClickException as exc:
            fail_command(command, exc.format_message(), exc.exit_code)
        except click.Abort:
            fail_command(command, "aborted", 1)
        except OSError as exc:  # e.g. a path too long for the system
            name = str(exc.filename or "")
            shown = f" ({name if len(name) <= 80 else name[:77] + '...'})" if name else ""
            fail_command(command, f"{exc.strerror or exc}{shown}; give another path or value")
        sys.exit(code or 0)


def _command_path(context: click.Context | None) -> str | None:
    """The subcommand's names under `toolsys` ("audit verify"), None for the group itself."""
    names = []
    while context is not None and context.parent is not None:
        names.append(context.info_name or "")
        context = context.parent
    return " ".join(reversed(names)) or None
