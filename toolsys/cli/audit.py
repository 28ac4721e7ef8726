"""`toolsys audit verify|show|stats FILE`: check, read and summarise an audit log.

    toolsys audit verify audit.jsonl   OK with the count and head (exit 0), or the first
                                       altered, reordered, inserted or missing line (exit 1);
                                       --head HASH: and the record kept earlier (all 64 hex
                                       digits) is still there; --key-file KEYS: a keyed log
    toolsys audit show audit.jsonl     one row per call (--last N, --tool NAME)
    toolsys audit stats audit.jsonl    per tool: calls, ok rate, error codes, latency, retries,
                                       approvals (--json, --plot FILE.png)

Each command reads the file one line at a time (a log larger than memory is fine) and only a
regular file (a FIFO or /dev/zero is refused). A file that is not an audit log (missing, empty,
binary, not JSON lines) is one line on stderr and exit code 2, never a traceback.
`--key-file` names a JSON file {"key id": "key", ...} kept apart from the log.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any, NoReturn

import click

from toolsys.cli._errors import fail_command

_FILE = click.Path(path_type=Path)


@click.group("audit")
def audit() -> None:
    """Verify, show and summarise an audit log written by toolsys.governance.AuditLog."""


def _refuse(command: str, message: str) -> NoReturn:
    fail_command(f"audit {command}", message)


def _records(command: str, file: Path) -> Iterator[dict[str, Any]]:
    """The file's records, one at a time; a file that is not an audit log ends the command."""
    from toolsys.governance.chain import AuditFileError, records

    try:
        yield from records(file)
    except AuditFileError as exc:
        _refuse(command, str(exc))


def _keys(file: Path | None) -> dict[str, str] | None:
    if file is None:
        return None
    try:
        keys = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        _refuse("verify", f"--key-file {file}: cannot read it as JSON ({type(exc).__name__})")
    if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
        _refuse("verify", f'--key-file {file}: give a JSON object {{"key id": "key", ...}}')
    return keys


@audit.command("verify")
@click.argument("file", type=_FILE)
@click.option(
    "--head",
    metavar="HASH",
    help="The head hash (64 hex digits) printed by an earlier verify: fail if that record is gone.",
)
@click.option(
    "--key-file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="KEYS",
    help='For a keyed log: a JSON file {"key id": "key"} kept apart from the log.',
)
def verify_command(file: Path, head: str | None, key_file: Path | None) -> None:
    """Check the hash chain of FILE: exit 0 if intact, 1 naming the first bad line."""
    from toolsys.governance.chain import AuditFileError, verify

    keys = _keys(key_file)
    try:
        result = verify(file, head=head, keys=keys)
    except (AuditFileError, ValueError) as exc:
        _refuse("verify", str(exc))
    if result.ok:
        click.echo(f"{file}: {result}")
        return
    click.echo(f"{file}: {result}", err=True)
    click.echo(
        f"{file}: the first {result.count} records are intact (head {result.head})", err=True
    )
    raise SystemExit(1)


@audit.command("show")
@click.argument("file", type=_FILE)
@click.option("--last", type=click.IntRange(min=1), help="Only the last N records.")
@click.option("--tool", "tool", metavar="NAME", help="Only the calls of this tool.")
def show_command(file: Path, last: int | None, tool: str | None) -> None:
    """Print FILE as a table: one row per call."""

    def chosen() -> Iterable[dict[str, Any]]:
        return (r for r in _records("show", file) if tool is None or r.get("tool") == tool)

    if last is not None:  # only the last N are kept
        click.echo(table(deque(chosen(), maxlen=last)))
        return
    for line in lines(chosen):  # two passes over the file: the widths, then the rows
        click.echo(line)


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
    stats = usage_stats(_records("stats", file))  # tallied as they are read
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


def table(records: Iterable[dict[str, Any]]) -> str:
    """Audit records as a text table, one row per call."""
    kept = list(records)
    return "\n".join(lines(lambda: kept))


def lines(records: Callable[[], Iterable[dict[str, Any]]]) -> Iterator[str]:
    """The table's lines, from two passes over `records()`: the widths first, then the rows
    (so a log larger than memory prints without being held)."""
    widths = [len(name) for name in COLUMNS]
    empty = True
    for row in map(_row, records()):
        empty = False
        widths = [min(max(width, len(cell)), 32) for width, cell in zip(widths, row, strict=True)]
    if empty:
        yield "no records"
        return
    for cells in chain([COLUMNS], map(_row, records())):
        yield "  ".join(
            cell[:width].ljust(width) for cell, width in zip(cells, widths, strict=True)
        ).rstrip()


def _row(record: dict[str, Any]) -> tuple[str, ...]:
    decision = str(record.get("decision") or "none")
    if record.get("approved_by"):
        decision += f" by {record['approved_by']}"
    outcome = str(record.get("outcome"))
    if record.get("replayed") is True:
        outcome += " (replay)"
    duration = record.get("duration_ms")
    return (
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


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


COMMANDS = [audit]
