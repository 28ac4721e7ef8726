"""The `toolsys` command line: one click group, one module per family of subcommands.

`chat` holds the agent-loop commands (chat, tools, explain), `notebooks` the ones that run
notebooks (check, exercises, execute), `autograder` the Gradescope bundle, `audit` the audit-log
group (verify, show, stats), `mcp` the MCP server (mcp serve). Adding a family is adding a
module with a `COMMANDS` list and naming it below. Every refusal is one line and exit code 2
(see `_errors`).
"""

from __future__ import annotations

import click

from toolsys.cli import audit, autograder, chat, mcp, notebooks
from toolsys.cli._errors import OneLineErrors


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolsys")
def main() -> None:
    """toolsys: engineer an LLM agent's tool system (offline by default)."""


for _family in (notebooks, autograder, chat, audit, mcp):
    for _command in _family.COMMANDS:
        main.add_command(_command)
