"""The ratio goals counted in CPU instructions, which a busy or shared machine does not move.

    python benchmarks/bench_instructions.py        # [--calls 20000]; needs valgrind

Wall-clock and CPU-time ratios on a shared 2-core machine drift by ±10 % between runs minutes
apart, so a goal near its limit (issue 9: layered execute ≤ 3× unlayered; issue 18: execute
≤ 1.5× a bare pydantic validate + call) passes or fails by chance. Instructions retired are
deterministic: each path runs in a fresh interpreter under `valgrind --tool=callgrind`, once with
no calls and once with `--calls` calls, and the difference divided by the calls is the cost of
one call, start-up excluded. Fewer instructions is not the same as less time (a path that
touches more memory runs at a lower rate), so read these beside the timed benchmarks, not
instead of them. Without valgrind it says so and exits 0. Numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent

SETUP = {
    "pydantic": """
from _peers import SearchArgs
from _search_tool import make_search
search = make_search()
args = {"query": "agents", "limit": 3, "sort": "date"}
def call():
    model = SearchArgs.model_validate(args)
    return search(model.query, model.limit, model.sort)
""",
    "execute": """
from _search_tool import make_search
from toolsys import Registry
registry = Registry()
registry.register(make_search())
args = {"query": "agents", "limit": 3, "sort": "date"}
def call():
    return registry.execute("search", args)
""",
    "unlayered": """
from bench_layers import registry
bare = registry([])
args = {"a": 1.5, "b": 2.0}
def call():
    return bare.execute("add", args)
""",
    "layered": """
from bench_layers import passthrough, registry
floor = registry([passthrough])
args = {"a": 1.5, "b": 2.0}
def call():
    return floor.execute("add", args)
""",
}
GOALS = (
    ("execute", "pydantic", 1.5, "issue 18: execute(dict) vs pydantic validate + call"),
    ("layered", "unlayered", 3.0, "issue 9: one pass-through layer vs the unlayered path"),
)
_COLLECTED = re.compile(r"Collected\s*:\s*([\d,]+)")


def instructions(name: str, calls: int) -> int:
    """Instructions retired by a fresh interpreter that sets `name` up, warms it, then calls it."""
    loops = f"for _ in range(1000):\n    call()\nfor _ in range({calls}):\n    call()\n"
    code = f"{SETUP[name]}\n{loops}"
    env = {**os.environ, "PYTHONHASHSEED": "0", "TOOLSYS_OFFLINE": "1", "PYTHONPATH": str(HERE)}
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*command, sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{name}: valgrind failed:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_call(name: str, calls: int) -> float:
    return (instructions(name, calls) - instructions(name, 0)) / calls


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000, help="calls per measured run")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts (apt-get install -y valgrind)")
        return
    cost = {name: per_call(name, args.calls) for name in SETUP}
    print(f"instructions per call ({args.calls} calls, PYTHONHASHSEED=0):")
    for name, count in cost.items():
        print(f"  {name:<10} {count:>9,.0f}")
    for path, reference, goal, what in GOALS:
        ratio = cost[path] / cost[reference]
        verdict = "met" if ratio <= goal else "not met"
        print(f"{what}: {ratio:.2f}x (goal <= {goal:g}x, {verdict} in instructions)")


if __name__ == "__main__":
    main()
