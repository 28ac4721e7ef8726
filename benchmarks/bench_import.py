"""How long `import toolsys` takes beyond pydantic, in fresh interpreters.

    python benchmarks/bench_import.py [--runs 15] [--detail]

Each run is a new Python process that first imports pydantic's public API and builds and uses
one model (what any pydantic program pays), then imports toolsys, timing both (wall clock and
CPU); the script prints the medians. `--detail` also lists the modules toolsys brings in that
cost the most (`python -X importtime`, self time). Goal (issue 18): toolsys adds <= 50 ms.
Printed, never asserted: tests must not depend on the speed of a shared machine; the test that
keeps heavy libraries out of `import toolsys` is tests/test_import_light.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass

_PYDANTIC = """
from pydantic import BaseModel, Field, TypeAdapter, ValidationError, create_model
class One(BaseModel):
    x: int
One.model_validate({"x": 1})
"""
_PROBE = f"""
import json, sys, time
start, start_cpu = time.perf_counter(), time.process_time()
{_PYDANTIC}
middle, middle_cpu = time.perf_counter(), time.process_time()
sys.stderr.write("-- toolsys --\\n")
import toolsys
end, end_cpu = time.perf_counter(), time.process_time()
print(json.dumps([middle - start, end - middle, middle_cpu - start_cpu, end_cpu - middle_cpu]))
"""


@dataclass(frozen=True)
class ImportTimes:
    """Median milliseconds: pydantic + one model, then toolsys beyond that; wall and CPU."""

    pydantic: float
    toolsys: float
    pydantic_cpu: float
    toolsys_cpu: float

    def __str__(self) -> str:
        return (
            f"pydantic + one model {self.pydantic:.1f} ms (CPU {self.pydantic_cpu:.1f}); "
            f"import toolsys beyond that {self.toolsys:.1f} ms (CPU {self.toolsys_cpu:.1f})"
        )


def _run(*flags: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, *flags, "-c", _PROBE]
    return subprocess.run(command, capture_output=True, text=True, check=True)


def import_ms(runs: int = 15) -> ImportTimes:
    """Import times measured in `runs` fresh processes (medians)."""
    samples = [json.loads(_run().stdout) for _ in range(runs)]
    return ImportTimes(*(statistics.median(column) * 1000 for column in zip(*samples, strict=True)))


def heaviest(count: int = 12) -> list[tuple[float, str]]:
    """The modules `import toolsys` adds with the largest self time (ms), from one run."""
    log = _run("-X", "importtime").stderr.split("-- toolsys --\n", 1)[1]
    found = []
    for line in log.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            self_us, _cumulative, name = line.removeprefix("import time:").split("|")
            found.append((int(self_us) / 1000, name.strip()))
    return sorted(found, reverse=True)[:count]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh processes (default 15)")
    parser.add_argument("--detail", action="store_true", help="list the heaviest modules")
    options = parser.parse_args(argv)
    print(f"import: {import_ms(options.runs)}")
    print(f"(medians of {options.runs} fresh processes; goal: toolsys adds <= 50 ms)")
    if options.detail:
        print("heaviest modules imported by `import toolsys` (self time, one run):")
        for ms, name in heaviest():
            print(f"  {ms:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
