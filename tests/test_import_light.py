"""`import toolsys` stays light: the heavy front-end libraries load only when used.

How long the import takes is measured, not asserted (a shared machine's speed is no test):
`python benchmarks/bench_import.py` prints it beyond pydantic (issue 18 wants <= 50 ms).
"""

from __future__ import annotations

import json
import subprocess
import sys

# Front ends and their clients; what only tests and graders need; the sqlite-backed stores.
HEAVY = (
    "openai",
    "httpx2",
    "ipywidgets",
    "matplotlib",
    "mcp",
    "nbclient",
    "IPython",
    "jsonschema",
    "hypothesis",
    "sqlite3",
    "toolsys.stores",
)
# What the async path needs (about 20 ms to import); the sync fast path runs without it.
ASYNC = ("asyncio", "toolsys._sync", "concurrent.futures", "ssl")
# The libraries benchmarks/bench_peers.py compares with: never a dependency of the package.
PEERS = ("smolagents", "langchain_core", "agents", "pydantic_ai")


def _loaded_after(imports: str, names: tuple[str, ...]) -> list[str]:
    """Which of `names` (or their submodules) are in sys.modules after `imports`, in a fresh
    interpreter."""
    code = (
        f"import sys, json; {imports}; names = {names!r}; "
        "print(json.dumps(sorted({n for n in names for m in sys.modules "
        "if m == n or m.startswith(n + '.')})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_import_toolsys_does_not_import_heavy_libraries() -> None:
    assert _loaded_after("import toolsys", HEAVY) == []


def test_import_toolsys_and_an_unlayered_call_do_not_import_asyncio() -> None:
    call = (
        "import toolsys; r = toolsys.Registry(); "
        "r.register(lambda a, b: a + b, name='add'); "
        "assert r.execute('add', {'a': 1, 'b': 2}).value == 3; "
        "assert r.execute('add', '{\"a\": 1}').error.code == 'INVALID_ARGUMENTS'"
    )
    assert _loaded_after(call, ASYNC) == []


def test_a_layered_call_imports_asyncio_when_it_first_needs_it() -> None:
    call = (
        "import toolsys; r = toolsys.Registry(layers=[lambda c, n: n(c)]); "
        "r.register(lambda a, b: a + b, name='add'); "
        "assert r.execute('add', {'a': 1, 'b': 2}).value == 3"
    )
    assert "asyncio" in _loaded_after(call, ASYNC)


def test_import_toolsys_does_not_import_the_benchmark_peers() -> None:
    assert _loaded_after("import toolsys", PEERS) == []


def test_the_import_probe_sees_a_planted_heavy_module() -> None:
    # The guards above are only worth something if the probe notices a module that did load.
    assert _loaded_after("import toolsys, sqlite3", HEAVY) == ["sqlite3"]


def test_the_import_probe_counts_submodules_but_not_longer_names() -> None:
    assert _loaded_after("import email.mime.text", ("email", "emai", "email.mime")) == [
        "email",
        "email.mime",
    ]


def test_core_modules_never_import_higher_layers() -> None:
    code = (
        "import sys, json, toolsys; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('toolsys'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    for higher in (
        "toolsys.loop",
        "toolsys.models",
        "toolsys.widgets",
        "toolsys.checks",
        "toolsys.cli",
        "toolsys.tools",
    ):
        assert higher not in loaded
