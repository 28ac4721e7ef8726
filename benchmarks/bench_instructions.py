"""The ratio goals counted in CPU instructions, which a busy or shared machine does not move.

    python benchmarks/bench_instructions.py     # [--calls 20000] [--only NAME ...]; needs valgrind

Wall-clock and CPU-time ratios on a shared 2-core machine drift by ±10 % between runs minutes
apart, so a goal near its limit (issue 25: execute ≤ 1.5× a bare pydantic validate + call on
every tool shape; one pass-through layer ≤ 2.5× the unlayered path) passes or fails by chance.
Instructions retired are deterministic: each path runs in a fresh interpreter under
`valgrind --tool=callgrind`, once with no calls and once with `--calls` calls, and the difference
divided by the calls is the cost of one call, start-up excluded. Fewer instructions is not the
same as less time (a path that touches more memory runs at a lower rate), so read these beside
the timed benchmarks, not instead of them. Without valgrind it says so and exits 0. Numbers are
printed, never asserted.

The tool shapes, each against its own bare pydantic peer (validate, then call with every
field): `search` as bench_peers.py has it (every field sent, as a dict and as JSON text), `search`
with its optional fields left out, and `find`, a shape no benchmark was tuned to: a four-value
`Literal` whose default is not its first value, a bool and an int with defaults, one left out;
and, as a dict and as JSON text, the shapes of `_shapes.py`, which no change to the fast path was
measured against first: a nested model, a str and a list[int], six optional fields all left out.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _shapes import SHAPES

HERE = Path(__file__).parent

_SEARCH = """
from _peers import SearchArgs
from _search_tool import make_search
search = make_search()
"""
_FIND = '''
from typing import Literal
from pydantic import BaseModel

Mode = Literal["fast", "safe", "deep", "exact"]

def find(query: str, mode: Mode = "safe", exact: bool = False, limit: int = 10) -> list[str]:
    """Find documents.

    Args:
        query: Words to look for.
        mode: How hard to look.
        exact: Match the words exactly.
        limit: How many results at most.
    """
    return [query] * (limit // 5)

class FindArgs(BaseModel):
    query: str
    mode: Mode = "safe"
    exact: bool = False
    limit: int = 10
'''
_CALLS = {
    "search": "    return search(model.query, model.limit, model.sort)\n",
    "find": "    return find(model.query, model.mode, model.exact, model.limit)\n",
}
_SHAPES = {  # shape: (tool, arguments as Python source, JSON text or not)
    "dict": ("search", '{"query": "agents", "limit": 3, "sort": "date"}', False),
    "json": ("search", """'{"query": "agents", "limit": 3, "sort": "date"}'""", True),
    "omitted": ("search", '{"query": "agents"}', False),
    "find": ("find", '{"query": "agents", "mode": "deep", "limit": 20}', False),
    "find_json": ("find", """'{"query": "agents", "mode": "deep", "exact": true}'""", True),
}


def _setups() -> dict[str, str]:
    setup: dict[str, str] = {}
    for shape, (tool, arguments, text) in _SHAPES.items():
        source = _SEARCH if tool == "search" else _FIND
        model = "SearchArgs" if tool == "search" else "FindArgs"
        validate = "model_validate_json" if text else "model_validate"
        setup[f"pydantic_{shape}"] = (
            f"{source}args = {arguments}\ndef call():\n"
            f"    model = {model}.{validate}(args)\n{_CALLS[tool]}"
        )
        setup[f"execute_{shape}"] = (
            f"{source}from toolsys import Registry\nregistry = Registry()\n"
            f"registry.register({tool})\nargs = {arguments}\n"
            f"def call():\n    return registry.execute({tool!r}, args)\n"
        )
    for name, layers in (("unlayered", ""), ("layered", "received"), ("validated", "checked")):
        setup[name] = (  # "received", the default stage (bench_layers.passthrough is "validated")
            "from bench_layers import registry\n"
            "async def received(call, call_next):\n    return await call_next(call)\n"
            "async def checked(call, call_next):\n    return await call_next(call)\n"
            "checked.stage = 'validated'\n"
            f"floor = registry([{layers}])\nargs = {{'a': 1.5, 'b': 2.0}}\n"
            "def call():\n    return floor.execute('add', args)\n"
        )
    for shape in SHAPES:
        for text in (False, True):
            name = f"{shape}_json" if text else shape
            arguments = f"SHAPES[{shape!r}].{'raw' if text else 'arguments'}"
            source = f"from _shapes import SHAPES\nargs = {arguments}\n"
            setup[f"pydantic_{name}"] = f"{source}call = SHAPES[{shape!r}].peers()[{int(text)}]\n"
            setup[f"execute_{name}"] = (
                f"{source}from toolsys import Registry\nregistry = Registry()\n"
                f"registry.register(SHAPES[{shape!r}].tool)\n"
                f"def call():\n    return registry.execute({shape!r}, args)\n"
            )
    return setup


SETUP = _setups()
_ALL_SHAPES = (*_SHAPES, *(f"{shape}{text}" for shape in SHAPES for text in ("", "_json")))
GOALS = (
    *(
        (f"execute_{shape}", f"pydantic_{shape}", 1.5, f"execute ({shape}) vs pydantic + call")
        for shape in _ALL_SHAPES
    ),
    ("layered", "unlayered", 2.5, "one pass-through received layer vs the unlayered path"),
    ("validated", "unlayered", 2.5, "one pass-through validated layer vs the unlayered path"),
)
_COLLECTED = re.compile(r"Collected\s*:\s*([\d,]+)")


def instructions(name: str, calls: int) -> int:
    """Instructions retired by a fresh interpreter that sets `name` up, warms it, then calls it."""
    loops = f"for _ in range(1000):\n    call()\nfor _ in range({calls}):\n    call()\n"
    code = f"{SETUP[name]}\n{loops}"
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONHASHSEED": "0", "TOOLSYS_OFFLINE": "1", "PYTHONPATH": path}
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
    parser.add_argument("--only", nargs="*", help="count only these paths (and their peers)")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts (apt-get install -y valgrind)")
        return
    wanted = set(args.only or SETUP)
    wanted |= {reference for path, reference, _, _ in GOALS if path in wanted}
    cost = {name: per_call(name, args.calls) for name in SETUP if name in wanted}
    print(f"instructions per call ({args.calls} calls, PYTHONHASHSEED=0):")
    for name, count in cost.items():
        print(f"  {name:<18} {count:>9,.0f}")
    for path, reference, goal, what in GOALS:
        if path in cost and reference in cost:
            ratio = cost[path] / cost[reference]
            verdict = "met" if ratio <= goal else "not met"
            print(f"{what}: {ratio:.2f}x (goal <= {goal:g}x, {verdict} in instructions)")


if __name__ == "__main__":
    main()
