"""`toolsys chat`, `toolsys replay`, `toolsys tools`, `toolsys explain`: the loop and its tools.

    toolsys chat "What is 17 times 38?"      # trace: ToolCall / Result / Answer / Steps / Status
    toolsys chat --trace run.json "..."      # the same, and the whole run saved as JSON
    toolsys chat --approve all "..."         # approve every call that needs it (ask|all|none)
    toolsys replay run.json                  # a saved run, step by step, without the model
    toolsys tools                            # name, category, first line of the description
    toolsys explain get_weather              # what the model sees for one tool

Exit codes: 0 the run completed (or was replayed); 1 it did not (max_steps, model_error); 2 bad
input (unknown tool, empty prompt, unreachable endpoint, a file that is not a saved trace),
reported in one line without a traceback.
"""

from __future__ import annotations

from pathlib import Path
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


def _governed(registry: Any) -> Any:
    """The same tools behind the default `Policy` (WRITE and EXECUTE need approval)."""
    from toolsys import Registry
    from toolsys.governance import Policy

    governed = Registry(layers=[Policy()])
    for tool in registry:
        governed.add(tool)
    return governed


def _approver(mode: str) -> Any:
    """`--approve`: ask at the terminal, approve all, or decline all (with a reason)."""
    if mode == "all":
        return lambda pending: True
    if mode == "none":
        return lambda pending: "Declined at the command line (--approve none)."

    def ask(pending: Any) -> bool | str:
        click.echo(f"{pending.tool} ({pending.category}) wants to run with {pending.arguments}")
        click.echo(f"  {pending.reason}")
        if click.confirm("Approve?", default=False):
            return True
        return str(click.prompt("Reason for declining", default="Declined by the user."))

    return ask


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
    "--trace",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Also save the run as JSON to FILE (replay it with `toolsys replay FILE`).",
)
@click.option(
    "--max-steps",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="Stop after this many model requests.",
)
@click.option(
    "--approve",
    type=click.Choice(["ask", "all", "none"]),
    default="ask",
    show_default=True,
    help="Calls that need approval (WRITE, EXECUTE): ask here, approve all, or decline all.",
)
def chat(
    prompt: str,
    model: str | None,
    only: str | None,
    imperfect: bool,
    seed: int,
    as_json: bool,
    trace: Path | None,
    max_steps: int,
    approve: str,
) -> None:
    """Run the agent loop on PROMPT with the built-in tools and print the trace."""
    from toolsys._redact import redact_secrets
    from toolsys.loop import ModelErrorEvent, run_agent

    if not prompt.strip():
        usage_error('The prompt is empty; ask something, e.g. toolsys chat "What is 17 times 38?".')
    if trace is not None and not trace.resolve().parent.is_dir():
        usage_error(
            f"--trace {trace}: the folder {trace.parent} does not exist; create it or save the "
            "trace elsewhere."
        )
    registry = _governed(_registry(only))
    transcript = run_agent(
        _client(imperfect, seed),
        registry,
        prompt,
        model=model,
        max_steps=max_steps,
        approver=_approver(approve),
    )
    if trace is not None:
        try:
            trace.write_text(transcript.to_json() + "\n", encoding="utf-8")
        except OSError as exc:
            usage_error(f"--trace {trace}: cannot write it ({exc.strerror or exc}).")
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
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def replay(file: Path) -> None:
    """Print a run saved with `toolsys chat --trace FILE`, step by step; no model is called."""
    from toolsys.transcript import Transcript

    try:
        data = file.read_bytes()
    except OSError as exc:
        usage_error(f"{file}: {exc.strerror or exc}; give the path of a saved trace.")
    try:
        transcript = Transcript.from_json(data)
    except ValueError as exc:
        usage_error(
            f"{file} is not a saved toolsys trace: {exc}. Save one with "
            '`toolsys chat --trace FILE "..."`.'
        )
    click.echo(_replay_text(transcript))


def _replay_text(transcript: Any) -> str:
    """The saved run grouped by step: the request, then each step's calls, results, answer."""
    from toolsys.transcript import ModelResponse, RunFinished, Transcript, UserMessage

    lines = [f"Replay of a saved run · model {transcript.model or '?'} · no model is called"]
    steps: dict[int, list[Any]] = {}
    step = 0
    for event in transcript.events:
        if isinstance(event, UserMessage):
            lines.append(f"{'User':<10}" + event.content.replace("\n", "\n" + " " * 10))
            continue
        if isinstance(event, RunFinished):
            continue
        step = getattr(event, "step", step)
        steps.setdefault(step, []).append(event)
    for number, events in steps.items():
        usage = next((e.usage for e in events if isinstance(e, ModelResponse) and e.usage), None)
        tokens = f" · {usage['total_tokens']} tokens" if usage and "total_tokens" in usage else ""
        lines.append(f"── step {number}{tokens}")
        lines += [line for line in str(Transcript(events=events)).splitlines()[:-2]]
    lines += str(transcript).splitlines()[-2:]
    return "\n".join(lines)


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


COMMANDS = [chat, replay, tools, explain]
