"""`toolsys audit verify|show|stats FILE`: check, read and summarise an audit log.

    toolsys audit verify audit.jsonl   OK with the count (exit 0), or the first altered,
                                       reordered, inserted or missing line (exit 1);
                                       --head HASH: and the record kept earlier is still there
    toolsys audit show audit.jsonl     one row per call (--last N, --tool NAME)
    toolsys audit stats audit.jsonl    per tool: calls, ok rate, error codes, latency, retries,
                                       approvals (--json, --plot FILE.png)

A file that is not an audit log (missing, empty, binary, not JSON lines) is one line on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import click

from toolsys.cli._errors import _fail

_FILE = click.Path(path_type=Path)


@click.group("audit")
def audit() -> None:
    """Verify, show and summarise an audit log written by toolsys.governance.AuditLog."""


def _refuse(command: str, message: str) -> NoReturn:
    _fail(f"audit {command}", message)


def _records(command: str, file: Path) -> list[dict[str, Any]]:
    from toolsys.governance._chain import AuditFileError, read

    try:
        return read(file)
    except AuditFileError as exc:
        _refuse(command, str(exc))


@audit.command("verify")
@click.argument("file", type=_FILE)
@click.option(
    "--head",
    metavar="HASH",
    help="A head hash printed by an earlier verify: fail if that record is gone.",
)
def verify_command(file: Path, head: str | None) -> None:
    """Check the hash chain of FILE: exit 0 if intact, 1 naming the first bad line."""
    from toolsys.governance._chain import AuditFileError, verify

    try:
        result = verify(file, head=head)
    except AuditFileError as exc:
        _refuse("verify", str(exc))
    if result.ok:
        click.echo(f"{file}: {result}")
        return
    click.echo(f"{file}: {result}", err=True)
    click.echo(
        f"{file}: the first {result.count} records are intact (head {result.head[:16]})", err=True
    )
    raise SystemExit(1)


@audit.command("show")
@click.argument("file", type=_FILE)
@click.option("--last", type=click.IntRange(min=1), help="Only the last N records.")
@click.option("--tool", "tool", metavar="NAME", help="Only the calls of this tool.")
def show_command(file: Path, last: int | None, tool: str | None) -> None:
    """Print FILE as a table: one row per call."""
    records = _records("show", file)
    if tool is not None:
        records = [r for r in records if r.get("tool") == tool]
    if last is not None:
        records = records[-last:]
    click.echo(table(records))


@audit.command("stats")
@click.argument("file", type=_FILE)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE.png",
    help="Also save a chart of calls per tool by outcome.",
)
def stats_command(file: Path, as_json: bool, plot: Path | None) -> None:
    """Per tool: calls, ok rate, error codes by frequency, median/p95 ms, retries, approvals."""
    from toolsys.metrics import plot_usage, usage_stats

    if plot is not None and not plot.resolve().parent.is_dir():
        _refuse("stats", f"--plot {plot}: the folder {plot.parent} does not exist")
    stats = usage_stats(_records("stats", file))
    click.echo(json.dumps(stats.to_dicts(), indent=2) if as_json else str(stats))
    if plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        figure = plot_usage(stats)
        try:
            figure.savefig(plot)
        except (OSError, ValueError) as exc:
            _refuse("stats", f"--plot {plot}: cannot save it ({exc})")


COLUMNS = ("seq", "time", "user", "tool", "category", "decision", "outcome", "ms", "try")


def table(records: list[dict[str, Any]]) -> str:
    """Audit records as a text table, one row per call."""
    if not records:
        return "no records"
    rows = [COLUMNS]
    for record in records:
        decision = str(record.get("decision") or "none")
        if record.get("approved_by"):
            decision += f" by {record['approved_by']}"
        outcome = str(record.get("outcome"))
        if record.get("replayed") is True:
            outcome += " (replay)"
        duration = record.get("duration_ms")
        rows.append(
            (
                str(record.get("seq")),
                str(record.get("ts") or "")[11:23],
                _cell(record.get("user")),
                _cell(record.get("tool")),
                _cell(record.get("category")),
                decision,
                outcome,
                f"{duration:.1f}" if isinstance(duration, int | float) else "-",
                str(record.get("attempt", "-")),
            )
        )
    widths = [min(max(len(row[i]) for row in rows), 32) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(
            cell[:width].ljust(width) for cell, width in zip(row, widths, strict=True)
        ).rstrip()
        for row in rows
    )


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


COMMANDS = [audit]
