"""The `toolsys` command line: one click group, one module per subcommand family."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolsys")
def main() -> None:
    """toolsys: engineer an LLM agent's tool system (offline by default)."""


def _add_commands() -> None:
    # Each subcommand module exposes COMMANDS, a list of click commands.
    from toolsys.cli import _modules

    for module in _modules.load():
        for command in module.COMMANDS:
            main.add_command(command)


_add_commands()
