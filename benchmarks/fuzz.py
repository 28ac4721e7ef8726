"""The long fuzz run: every promise of the tool layer, tried on hostile input.

    make fuzz                                  # or: python benchmarks/fuzz.py --calls 10000

Sends `--calls` seeded calls to every built-in tool and to every tool of three hostile registries
(tools that raise every kind of exception, return what JSON cannot hold, or leak planted secrets;
sync and async; with and without layers), then drives the agent loop through the real `openai`
client with random scripted turns, drives `execute`/`aexecute`/`run_agent` through long seeded
sequences of sync, async, offloaded, abandoned, process-isolated (children in sessions of their
own, SIGTERM ignored) calls, interrupts and hung calls past the thread cap, from every kind of
thread (tests/sync_stress.py: each call must come back right, and nothing may be left behind),
grades the classes of hostile student submissions (tests/test_grading_adversarial.py: faked
passes, stolen keys, runaway processes, formula injection, another section's files, thread and
memory hogs...; tests/test_grading_gradescope.py: a submission that attacks Gradescope's
results.json), and runs the attacks on the promises outside the execution core
(tests/attacks.py: an untrusted MCP server's regex bombs, OpenAPI dot segments and header breaks,
report queries that outrun their deadline, audit lines re-spelled or files that are not files,
concurrent refunds, network routes around the guard, secret-shaped keys, edited paused runs,
leaks in successful results, isolated tools' escaped children, hung calls past the thread cap).
Prints one line of figures and exits 1 if any fault count is not zero:

    calls=… escapes=… unsendable=… leaks=… loop_runs=… loop_crashes=… stress_calls=…
    stress_wrong=… stress_left=… grading_faults=… attacks=… attack_failures=… seconds=…

A run that hangs is stopped after `--hang-seconds` with every thread's traceback (exit 1).

The test suite (tests/test_reliability.py) runs a smaller share of the same calls on every
`make test`; this script is the long run for before a release.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hostile_tools import PLANTED, hostile_registries
from sync_stress import StressReport, stress

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.attacks import ATTACKS
from toolsys.fuzz import FuzzReport, fuzz_tool
from toolsys.loop import run_agent
from toolsys.models import ScriptedModel
from toolsys.models.scripted import calls, text
from toolsys.tools import registry as builtin


def fuzz_registries(count: int, seed: int) -> FuzzReport:
    total = FuzzReport()
    for registry in [builtin, *hostile_registries()]:
        for name in registry.names():
            total.add(fuzz_tool(registry, name, calls=count, seed=seed, secrets=PLANTED))
    return total


def fuzz_loop(runs: int, seed: int) -> tuple[int, list[str]]:
    """Random scripted turns (unknown tools, broken JSON, failing tools) through the loop."""
    rng = random.Random(seed)
    (registry, *_) = hostile_registries()
    names = [*registry.names(), "missing_tool", ""]
    crashes: list[str] = []
    for run in range(runs):
        turns: list[Any] = []
        for _ in range(rng.randrange(1, 4)):
            specs = [
                (rng.choice(names), rng.choice(['{"x": 1}', "{", "", "null", '{"kind": "nan"}']))
                for _ in range(rng.randrange(1, 4))
            ]
            turns.append(calls(*specs))
        turns.append(text("done"))
        try:
            transcript = run_agent(ScriptedModel(turns).client(), registry, "go", max_steps=5)
            str(transcript)
            transcript.to_json()
        except Exception as exc:
            crashes.append(f"run {run}: {type(exc).__name__}: {exc}"[:300])
    return runs, crashes


def stress_sync(rounds: int, seed: int) -> StressReport:
    """Seeded sequences of calls from every place, in runs of 200 (each ends by checking that
    nothing is left behind)."""
    total = StressReport()
    for run in range(max(1, -(-rounds // 200))):
        with tempfile.TemporaryDirectory() as folder:
            report = stress(min(200, rounds - 200 * run), seed + run, Path(folder))
        total.calls += report.calls
        total.wrong += report.wrong
        total.left += report.left
    return total


def grading_faults() -> tuple[int, list[str]]:
    """Run the adversarial grading tests; each failing test is one grading fault."""
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0"]
    command += ["tests/test_grading_adversarial.py", "tests/test_grading_gradescope.py"]
    command += ["-o", "addopts=-p no:cacheprovider"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED")]
    if run.returncode not in (0, 1) and not failed:
        failed = [f"the grading tests did not run: exit {run.returncode}"]
    return len(failed), failed


def attacks(scale: int) -> tuple[int, list[str]]:
    """Every attack of tests/attacks.py; each problem it returns (or raises) is one failure."""
    failures: list[str] = []
    for attack in ATTACKS:
        try:
            failures += [f"{attack.__name__}: {problem}" for problem in attack(scale)]
        except Exception as exc:
            failures.append(f"{attack.__name__} raised {type(exc).__name__}: {exc}"[:300])
    return len(ATTACKS), failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10_000, help="calls per tool")
    parser.add_argument("--loop-runs", type=int, default=300, help="agent-loop runs")
    parser.add_argument("--stress-rounds", type=int, default=1000, help="sync stress calls")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--attack-scale", type=int, default=10, help="rounds of each attack")
    parser.add_argument("--hang-seconds", type=int, default=3600, help="watchdog")
    options = parser.parse_args()
    os.environ.setdefault("TOOLSYS_OFFLINE", "1")
    faulthandler.dump_traceback_later(options.hang_seconds, exit=True)
    started = time.perf_counter()
    report = fuzz_registries(options.calls, options.seed)
    runs, crashes = fuzz_loop(options.loop_runs, options.seed)
    stressed = stress_sync(options.stress_rounds, options.seed)
    faults, graded = grading_faults()
    tried, failed = attacks(options.attack_scale)
    seconds = time.perf_counter() - started
    print(
        f"{report} loop_runs={runs} loop_crashes={len(crashes)} {stressed} "
        f"grading_faults={faults} attacks={tried} attack_failures={len(failed)} "
        f"seconds={seconds:.0f}"
    )
    problems = [*report.problems[:10], *crashes[:10], *stressed.wrong[:10], *stressed.left[:10]]
    for problem in [*problems, *graded[:10], *failed[:10]]:
        print("  " + problem)
    clean = report.clean and not crashes and stressed.clean
    return 0 if clean and not faults and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
