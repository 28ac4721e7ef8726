"""Measure what the audit log costs per call, against the bare registry.

    python benchmarks/bench_audit.py [--rounds 100]

Printed, all in the same run:
1. Per tool, the three of `bench_governance.py` ((a) a trivial sync tool, (b) the shop's
   `get_order`, a SQLite read, (c) a sync tool that waits 1 ms): `execute` on the bare
   registry, with one pass-through layer (the layered path's own floor), with `AuditLog` to a
   file (no fsync, the default) and with `AuditLog(fsync=True)`; the audit log's ratio to the
   bare registry and to the floor, and whether the no-fsync one meets the goal (<= 2x).
2. One record alone (built, redacted, sealed and appended; no registry): its microseconds with
   plain arguments and with a secret among them (which adds a second walk over the arguments).
3. Whether the file verifies, and how often the planted password appears in it (must be 0).

Goal (issue 13): policy + audit <= 2x the bare registry without fsync (`bench_governance.py`
prints that table). Read the trivial tool's ratio with the floor in mind: any layer moves a
sync call onto the async path, which costs more than a trivial tool; against a tool that does
real work (a query, 1 ms of I/O) the audit log is a few percent.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from bench_governance import (
    ARGS,
    GOAL,
    add,
    best_of,
    fetch,
    passthrough,
    per_registry,
    shop_registry,
    simple,
)

from toolsys.execution import Call
from toolsys.governance import AuditLog
from toolsys.governance.audit import verify
from toolsys.result import ToolResult

SECRET_ARGS = {**ARGS, "password": "hunter2-hunter2"}


def per_tool(folder: Path, rounds: int) -> None:
    from toolsys.shop.scenarios import CHLOE

    print("1. AuditLog per call, vs the bare registry and the floor (one pass-through layer)")
    print(
        f"{'tool':<22}{'bare':>11}{'1 layer':>11}{'audit':>11}{'fsync':>11}"
        f"{'audit/bare':>12}{'audit/floor':>13}{'<= 2x':>7}"
    )
    tools: list[tuple[str, Any, str, dict[str, Any], Any, int]] = [
        ("(a) trivial (add)", simple(add), "add", SECRET_ARGS, None, 20),
        ("(b) SQLite read", shop_registry(folder), "get_order", {"order_id": "ORD-1003"}, CHLOE, 3),
        ("(c) waits 1 ms", simple(fetch), "fetch", SECRET_ARGS, None, 2),
    ]
    for index, (label, make, tool, arguments, context, number) in enumerate(tools):
        log = AuditLog(folder / f"audit-{index}.jsonl")
        synced = AuditLog(folder / f"synced-{index}.jsonl", fsync=True)
        registries = {
            "bare": make([]),
            "floor": make([passthrough]),
            "audit": make([log]),
            "fsync": make([synced]),
        }
        us = per_registry(registries, tool, arguments, context, number, rounds)
        ratio = us["audit"] / us["bare"]
        cells = "".join(f"{us[key]:>9.1f}us" for key in registries)
        print(
            f"{label:<22}{cells}{ratio:>11.2f}x{us['audit'] / us['floor']:>12.2f}x"
            f"{'yes' if ratio <= GOAL else 'no':>7}"
        )


def one_record(log: AuditLog, call: Call) -> None:
    log._journal.append(log.record(call, None, ToolResult(True, 3.5), 0.000_01))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100, help="batches per row; the best kept")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="toolsys-bench-audit-") as name:
        folder = Path(name)
        per_tool(folder, args.rounds)
        log = AuditLog(folder / "records.jsonl")
        plain, secret = Call("add", ARGS), Call("add", SECRET_ARGS)
        us = best_of(
            {"plain": lambda: one_record(log, plain), "secret": lambda: one_record(log, secret)},
            20,
            args.rounds * 3,
        )
        print("\n2. One record alone (build, redact, seal, append)")
        print(f"   plain arguments {us['plain']:.1f}us, with a password {us['secret']:.1f}us")
        print("\n3. The files")
        for path in sorted(folder.glob("*.jsonl")):
            text = path.read_text()
            print(
                f"   {path.name:<18} {verify(path)}; the planted password appears "
                f"{text.count('hunter2-hunter2')} times"
            )


if __name__ == "__main__":
    main()
