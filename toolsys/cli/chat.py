"""`toolsys chat`, `toolsys tools`, `toolsys explain`: the agent loop and the built-in tools.

    toolsys chat "What is 17 times 38?"      # trace: ToolCall / Result / Answer / Steps / Status
    toolsys tools                            # name, category, first line of the description
    toolsys explain get_weather              # what the model sees for one tool

Exit codes: 0 the run completed; 1 it did not (max_steps, model_error); 2 bad input (unknown
tool, empty prompt, unreachable endpoint), reported in one line without a traceback.
"""

from __future__ import annotations

from typing import Any

import click

from toolsys.cli._errors import usage_error


def _tool(registry: Any, name: str) -> Any:
    """The tool `name`, or exit 2 with the registry's own "did you mean" message."""
    try:
        return registry.get(name)
    except KeyError as exc:
        usage_error(exc.args[0])


def _registry(only: str | None) -> Any:
    """The built-in tools, or just the ones named in `--tools a,b`."""
    from toolsys import Registry
    from toolsys.tools import registry

    if only is None:
        return registry
    names = [n.strip() for n in only.split(",") if n.strip()]
    if not names:
        usage_error(f"--tools {only!r} names no tool; give names such as calculator,get_weather.")
    chosen = Registry()
    for name in names:
        chosen.add(_tool(registry, name))
    return chosen


def _client(imperfect: bool, seed: int) -> Any:
    from toolsys import models

    if imperfect:
        return models.OfflineModel(imperfect=True, seed=seed).client()
    return models.client()


@click.command()
@click.argument("prompt")
@click.option("--model", help="Model name (default: TOOLSYS_MODEL, or the offline model).")
@click.option("--tools", "only", metavar="A,B", help="Offer only these built-in tools.")
@click.option("--imperfect", is_flag=True, help="Offline model makes realistic mistakes.")
@click.option("--seed", default=0, show_default=True, help="Seed for --imperfect.")
@click.option("--json", "as_json", is_flag=True, help="Print the transcript as JSON.")
@click.option(
    "--max-steps",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="Stop after this many model requests.",
)
def chat(
    prompt: str,
    model: str | None,
    only: str | None,
    imperfect: bool,
    seed: int,
    as_json: bool,
    max_steps: int,
) -> None:
    """Run the agent loop on PROMPT with the built-in tools and print the trace."""
    from toolsys._redact import redact_secrets
    from toolsys.loop import ModelErrorEvent, run_agent

    if not prompt.strip():
        usage_error('The prompt is empty; ask something, e.g. toolsys chat "What is 17 times 38?".')
    registry = _registry(only)
    transcript = run_agent(
        _client(imperfect, seed), registry, prompt, model=model, max_steps=max_steps
    )
    errors = [e for e in transcript.events if isinstance(e, ModelErrorEvent)]
    if errors and errors[0].error_type in ("APIConnectionError", "APITimeoutError"):
        usage_error(
            f"No reachable model endpoint: {redact_secrets(errors[0].message)} Check "
            "OPENAI_BASE_URL, or unset OPENAI_API_KEY to use the offline teaching model."
        )
    # Both views are redacted and strict JSON / valid UTF-8 (Transcript's rendering does it).
    click.echo(transcript.to_json() if as_json else str(transcript))
    raise SystemExit(0 if transcript.status == "completed" else 1)


@click.command()
def tools() -> None:
    """List the built-in tools: name, category and what each one does."""
    from toolsys.tools import registry

    listed = registry.list()
    width = max(len(t.name) for t in listed)
    for tool in listed:
        first = (tool.description or "").strip().splitlines()[0]
        click.echo(f"{tool.name:<{width}}  {tool.category.value:<7}  {first}")


@click.command()
@click.argument("name")
def explain(name: str) -> None:
    """Show exactly what the model sees for the built-in tool NAME."""
    from toolsys.tools import registry

    _tool(registry, name)
    click.echo(registry.explain(name))


COMMANDS = [chat, tools, explain]
