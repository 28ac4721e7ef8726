"""Attacks on the promises outside the execution core, each a function that returns what broke.

Each attack tries one kind of input an attacker controls (an untrusted MCP server's schema, an
OpenAPI path value, a report query, an audit file, concurrent refunds, a saved paused run...)
against the public API and returns a list of problems, empty when the promise held. `make fuzz`
(benchmarks/fuzz.py) runs them all with `scale=10`; tests/test_reliability.py runs each once
at `scale=1`. A bound on seconds here is a hang detector (the work takes milliseconds), not a
speed goal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

HANG_SECONDS = 10.0


def _quick(what: str, started: float, problems: list[str]) -> None:
    if time.perf_counter() - started > HANG_SECONDS:
        problems.append(f"{what} took over {HANG_SECONDS:g} s")


def mcp_patterns(scale: int) -> list[str]:
    """An untrusted MCP server's catastrophic patterns cannot stall the host."""
    from tests.mcp_servers import listing
    from toolsys import Registry
    from toolsys.mcp import import_server

    bombs = ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "^([a-z]+)*[0-9]$", "(x+x+)+y"]
    refused = [r"^(a)\1$", r"(?=a)b", r"(?<!a)b"]
    tools = [
        {
            "name": f"t{i}",
            "inputSchema": {
                "type": "object",
                "properties": {"s": {"type": "string", "pattern": pattern}},
                "required": ["s"],
            },
        }
        for i, pattern in enumerate(bombs + refused)
    ]
    problems: list[str] = []
    rng = random.Random(0)

    async def main() -> None:
        registry = Registry()
        async with await import_server(registry, listing(tools, lambda n, a: "ok")) as imported:
            if sorted(imported.skipped) != [f"t{len(bombs) + i}" for i in range(len(refused))]:
                problems.append(f"patterns RE2 cannot run were not all skipped: {imported.skipped}")
            for _ in range(scale * 20):
                name = f"t{rng.randrange(len(bombs))}"
                text = rng.choice("axy1") * rng.choice([30, 1000, 50_000]) + rng.choice("!1y")
                started = time.perf_counter()
                result = await registry.aexecute(name, {"s": text})
                _quick(f"{name} with {len(text)} characters", started, problems)
                if not result.ok and result.error.code != "INVALID_ARGUMENTS":
                    problems.append(f"{name}: {result.error.code}")

    asyncio.run(main())
    return problems


def openapi_locations(scale: int) -> list[str]:
    """A path value stays in its one segment; a header value cannot add a header."""
    import httpx2

    from toolsys import Registry
    from toolsys.openapi import tools_from_spec

    spec = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/customers/{id}/orders": {
                "get": {
                    "operationId": "orders",
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        {"name": "X-Note", "in": "header", "schema": {"type": "string"}},
                    ],
                }
            }
        },
    }
    sent: list[Any] = []
    client = httpx2.Client(
        transport=httpx2.MockTransport(lambda r: sent.append(r) or httpx2.Response(200, json=[]))
    )
    registry = Registry()
    tools_from_spec(spec, base_url="https://api.test/v1", client=client, registry=registry)
    pieces = ["", ".", "..", "/", "%2e", "%2f", "?", "#", "\\", "\r\n", "a", "\u2025", "\x00"]
    rng = random.Random(1)
    problems: list[str] = []
    for _ in range(scale * 200):
        value = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 4)))
        before = len(sent)
        result = registry.execute("orders", {"id": value, "X-Note": value})
        if len(sent) == before:
            continue  # refused as data
        segments = sent[-1].url.raw_path.split(b"?")[0].split(b"/")
        if len(segments) != 5 or segments[4] != b"orders" or segments[3] in (b"", b".", b".."):
            problems.append(f"id={value!r} sent {sent[-1].url.raw_path!r}")
        if any(c in value for c in "\r\n\x00") and result.ok:
            problems.append(f"header {value!r} was sent")
    return problems


def report_sandbox(scale: int) -> list[str]:
    """A manager's report query cannot outrun its deadline or flood the context."""
    from toolsys import ToolError
    from toolsys.shop import create
    from toolsys.shop.sandbox import MAX_RESULT_CHARS, run_readonly

    queries = [
        "SELECT printf('%.*c', 2147483647, 'x')",
        "SELECT format('%2147483647d', 1)",
        "SELECT hex(zeroblob(4000)) AS a, hex(zeroblob(4000)) AS b FROM orders, orders",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
        "SELECT " + ", ".join(f"hex(zeroblob(4000)) AS c{i}" for i in range(180)) + " FROM orders",
        "SELECT replace(hex(zeroblob(4000)), '0', hex(zeroblob(4000)))",
        "SELECT group_concat(hex(zeroblob(4000))) FROM orders, orders",
    ]
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        shop = create(Path(folder) / "shop.db")
        for sql in queries * scale:
            started = time.perf_counter()
            try:
                report = run_readonly(shop, sql, deadline_s=0.5)
            except ToolError:
                report = None
            if time.perf_counter() - started > 2.0:
                problems.append(f"{sql[:50]} ran {time.perf_counter() - started:.1f} s past 0.5 s")
            if report is not None and len(json.dumps(report)) > 2 * MAX_RESULT_CHARS:
                problems.append(f"{sql[:50]} returned {len(json.dumps(report)):,} characters")
    return problems


def hidden_personal_data(scale: int) -> list[str]:
    """The shop's after-hook hides e-mails in long values in linear time."""
    from toolsys.result import ToolResult
    from toolsys.shop.agent import hide_personal

    problems: list[str] = []
    for filler in ["a", "1", "a.", "@a", "a@", "a-", "_."] * scale:
        text = filler * (200_000 // len(filler))
        started = time.perf_counter()
        value = hide_personal(None, ToolResult.success([text, f"{text} x.y@shop.example"])).value
        if time.perf_counter() - started > 2.0:
            problems.append(f"hide_personal on {filler!r} * n took over 2 s")
        if "@shop.example" in value[1]:
            problems.append(f"an e-mail after {filler!r} * n was not hidden")
    return problems


def audit_bytes(scale: int) -> list[str]:
    """Every re-spelling of an audit line fails verify; no file that is not a file is read."""
    from toolsys import Registry
    from toolsys.governance import AuditLog
    from toolsys.governance.audit import verify
    from toolsys.governance.chain import AuditFileError

    edits: list[Callable[[bytes], bytes]] = [
        lambda b: b.replace(b"{", b'{"decision":"approved","outcome":"ok",', 1),
        lambda b: b.replace(b'","', b'", "', 1),
        lambda b: (
            json.dumps(dict(reversed(json.loads(b).items())), separators=(",", ":")).encode()
            + b"\n"
        ),
        lambda b: b.replace(b'"tool":"', b'"tool":"\\u0061', 1).replace(b"\\u0061a", b"\\u0061"),
        lambda b: b.replace(b'"attempt":1', b'"attempt":1.0'),
        lambda b: b.replace(b'"ok":true', b'"ok":true,"ok":true'),
        lambda b: b.rstrip(b"\n") + b" \n",
    ]
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        registry = Registry(layers=[AuditLog(path)])
        registry.tool(lambda x: x, name="echo", description="Echo x.")
        for n in range(3 * scale):
            registry.execute("echo", {"x": n})
        lines = path.read_bytes().splitlines(keepends=True)
        for index, edit in enumerate(edits):
            changed = list(lines)
            changed[1] = edit(changed[1])
            if changed[1] == lines[1]:
                continue
            path.write_bytes(b"".join(changed))
            if verify(path).ok:
                problems.append(f"edit {index} of line 2 verified: {changed[1][:80]!r}")
        fifo = Path(folder) / "fifo"
        os.mkfifo(fifo)
        for target in (fifo, Path("/dev/zero")):
            try:
                verify(target)
                problems.append(f"{target} was read")
            except AuditFileError:
                pass
    return problems


def audit_memory(scale: int) -> list[str]:
    """verify and the CLI read a log line by line: memory does not grow with the file."""
    from click.testing import CliRunner

    from toolsys import Registry
    from toolsys.cli import main
    from toolsys.governance import AuditLog
    from toolsys.governance.audit import verify

    problems: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        registry = Registry(layers=[AuditLog(path)])
        registry.tool(lambda x: x, name="echo", description="Echo x.")
        for n in range(2000 * scale):
            registry.execute("echo", {"x": "y" * 400, "n": n})
        size = path.stat().st_size
        for name, action in [
            ("verify", lambda: verify(path)),
            (
                "show --last 3",
                lambda: CliRunner().invoke(main, ["audit", "show", "--last", "3", str(path)]),
            ),
            ("stats", lambda: CliRunner().invoke(main, ["audit", "stats", str(path)])),
        ]:
            action()  # once first: imports are not what is measured
            tracemalloc.start()
            try:
                action()
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            if peak > size / 5:
                problems.append(f"audit {name}: {peak:,} bytes at peak for a {size:,}-byte log")
    return problems


def refund_race(scale: int) -> list[str]:
    """Concurrent refunds under the split-proof rule never pass the limit together."""
    from toolsys import Registry
    from toolsys.checks.ch12 import split_proof_rule
    from toolsys.governance import Policy
    from toolsys.shop import create, invariants
    from toolsys.shop.agent import GRANTS
    from toolsys.shop.scenarios import CHLOE
    from toolsys.shop.tools import tools

    problems: list[str] = []
    for round_ in range(scale):
        with tempfile.TemporaryDirectory() as folder:
            shop = create(Path(folder) / "shop.db")

            async def slow(call: Any, call_next: Any) -> Any:
                time.sleep(0.02)
                return await call_next(call)

            slow.stage = "validated"  # type: ignore[attr-defined]
            registry = Registry(
                layers=[Policy(rules={"refund_order": split_proof_rule(shop)}, grants=GRANTS), slow]
            )
            registry.provide(shop=shop)
            for fn, options in tools():
                registry.register(fn, **options)
            start = threading.Barrier(6)

            def refund(n: int, registry: Registry = registry, start: Any = start) -> None:
                start.wait()
                registry.execute(
                    "refund_order",
                    {
                        "order_id": "ORD-1019",
                        "amount": 10 + n,
                        "reason": "late",
                        "idempotency_key": f"r{n}",
                    },
                    context=CHLOE,
                )

            workers = [threading.Thread(target=refund, args=(n,)) for n in range(6)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            (row,) = shop.rows("SELECT COALESCE(SUM(amount_cents), 0) AS c FROM refunds")
            if row["c"] > 5000 or invariants(shop):
                problems.append(f"round {round_}: {row['c'] / 100:.2f} refunded of a 50 limit")
    return problems


def network_routes(scale: int) -> list[str]:
    """no_network() blocks every route to the network, also those around socket.socket."""
    import _socket

    from toolsys.testing import NetworkBlocked, no_network

    routes: list[tuple[str, Callable[[], Any]]] = [
        ("_socket.connect", lambda: _socket.socket().connect(("127.0.0.1", 9))),
        ("socket.connect_ex", lambda: socket.socket().connect_ex(("127.0.0.1", 9))),
        (
            "udp sendto",
            lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 9)),
        ),
        ("gethostbyname", lambda: socket.gethostbyname("localhost")),
        ("_socket.gethostbyname", lambda: _socket.gethostbyname("localhost")),
        ("gethostbyaddr", lambda: socket.gethostbyaddr("127.0.0.1")),
        ("getnameinfo", lambda: socket.getnameinfo(("127.0.0.1", 80), 0)),
        ("getaddrinfo", lambda: _socket.getaddrinfo("localhost", 80)),
        ("create_connection", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1)),
    ]
    problems: list[str] = []
    with no_network():
        for name, route in routes:
            try:
                route()
                problems.append(f"{name} went through")
            except NetworkBlocked:
                pass
            except OSError as exc:
                problems.append(f"{name} reached the network stack ({type(exc).__name__})")
    return problems


def secret_keys(scale: int) -> list[str]:
    """Secret-shaped argument keys are redacted in the audit log; innocent look-alikes kept."""
    from toolsys import Registry
    from toolsys.governance import AuditLog
    from toolsys.governance.audit import read

    secret = ["pin", "otp", "auth", "key", "session", "sessionId", "api_key", "x-auth", "PIN"]
    innocent = ["monkey", "keyword", "spinner", "author", "shipping", "keys", "hotpot"]
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        registry = Registry(layers=[AuditLog(path)])
        registry.tool(lambda payload: "ok", name="submit", description="Submit a payload.")
        values = {k: f"value-{n:04d}" for n, k in enumerate(secret + innocent)}
        registry.execute("submit", {"payload": values})
        (record,) = read(path)
        kept = record["arguments"]["payload"]
        problems += [f"{k} was not redacted" for k in secret if kept.get(k) != "[redacted]"]
        problems += [f"{k} was redacted" for k in innocent if kept.get(k) == "[redacted]"]
    return problems


def paused_run_tampering(scale: int) -> list[str]:
    """A saved paused run edited in any way is refused before anything runs."""
    from toolsys import Registry
    from toolsys.governance import Policy, arguments_hash
    from toolsys.loop import resume_agent, run_agent
    from toolsys.models import ScriptedModel, calls, text
    from toolsys.spec import Category
    from toolsys.transcript import Transcript

    ran: list[float] = []
    registry = Registry(layers=[Policy()])

    @registry.tool(category=Category.WRITE)
    def refund(order_id: str, amount: float) -> str:
        """Refund an order."""
        ran.append(amount)
        return "done"

    def forge_hash(data: dict[str, Any]) -> None:
        for pending in data["paused"]["pending"]:
            pending["hash"] = arguments_hash(pending["tool"], pending["arguments"])

    edits: list[Callable[[dict[str, Any]], None]] = [
        lambda d: None,  # only the text below
        forge_hash,
        lambda d: d["paused"].pop("signature"),
        lambda d: d["paused"]["pending"][0].update(tool="delete_everything"),
        lambda d: d["paused"]["calls"][0]["function"].update(name="refund_all"),
        lambda d: d["paused"].update(answered={"call_x": "{}"}),
    ]
    problems: list[str] = []
    for index, edit in enumerate(edits * scale):
        client = ScriptedModel(
            [calls(("refund", {"order_id": "A1", "amount": 12.5})), text("ok")]
        ).client()
        paused = run_agent(client, registry, "refund", context={"user": "ana"})
        data = json.loads(paused.to_json().replace("12.5", "9999.5"))
        edit(data)
        try:
            resume_agent(client, registry, Transcript.from_dict(data), approve=["call_0001"])
            problems.append(f"edit {index % len(edits)} was resumed")
        except ValueError:
            pass
    if ran:
        problems.append(f"refunds ran: {ran}")
    return problems


def leaks_in_results(scale: int) -> list[str]:
    """The fuzzer sees a traceback, a path or a secret in a successful result too."""
    import traceback

    from toolsys import Registry
    from toolsys.fuzz import fuzz_tool

    registry = Registry()

    @registry.tool
    def diagnose(service: str) -> str:
        """Diagnose a service."""
        try:
            raise ConnectionError(service)
        except ConnectionError:
            return traceback.format_exc()

    report = fuzz_tool(registry, "diagnose", calls=20 * scale)
    named = report.problems and "a traceback" in report.problems[0]
    return [] if report.leaks and named else [f"a leaky successful result passed: {report}"]


ESCAPES = {  # ways an isolated tool starts a process outside its own process group
    "new session": "subprocess.Popen(['sleep', '600'], start_new_session=True).pid",
    "setsid": "subprocess.Popen(['setsid', 'sleep', '600']).pid",
    "double fork": (
        "int(subprocess.run(['sh', '-c', 'setsid sleep 600 >/dev/null 2>&1 & echo $!'],"
        " capture_output=True, text=True).stdout)"
    ),
}


def isolated_escapes(scale: int) -> list[str]:
    """A process-isolated tool that starts a process in a session of its own (and, hung, ignores
    SIGTERM) leaves nothing running after a normal end or a TIMEOUT (issue 26)."""
    from toolsys import ErrorCode

    problems: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(scale):
            for how, source in ESCAPES.items():
                for hang in (False, True):
                    pids = Path(folder) / f"{round_}-{len(problems)}-{how}-{hang}"
                    registry = _escaping(source, pids, hang)
                    result = registry.execute("escape")
                    what = f"{how}, {'hung' if hang else 'normal end'}"
                    code = None if result.error is None else result.error.code
                    if code != (ErrorCode.TIMEOUT if hang else None):
                        problems.append(f"{what}: {code or result.value}")
                    if not pids.exists():
                        problems.append(f"{what}: the tool never started its process")
                        continue
                    pid = int(pids.read_text())
                    if not _gone(pid):
                        problems.append(f"{what}: pid {pid} outlived its call")
                        with contextlib.suppress(OSError):
                            os.kill(pid, 9)
    return problems


def _escaping(source: str, pids: Path, hang: bool) -> Any:
    """A registry with one isolated tool that runs `source` (one of ESCAPES)."""
    import signal
    import subprocess

    from toolsys import Category, Registry, Subprocess
    from toolsys.layers import Timeout

    # A tool that ends is given time to spare on a loaded machine (a fork, an exec, a setsid);
    # a hung one is stopped after a second, once it has surely started its process.
    registry = Registry(layers=[Timeout(seconds=1.0 if hang else 15.0)])

    @registry.tool(category=Category.EXECUTE, isolate=Subprocess(kill_grace=0.1))
    def escape() -> int:
        """Starts a process outside its process group, then returns or hangs."""
        pid = int(eval(source, {"subprocess": subprocess}))
        pids.write_text(f"{pid}\n")
        if hang:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(600)
        return pid

    return registry


def _gone(pid: int, seconds: float = 5.0) -> bool:
    """The process has ended (a zombie counts: it runs nothing)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX":
                return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


def abandoned_thread_cap(scale: int) -> list[str]:
    """Hung sync calls past a deadline leave at most `max_abandoned_threads` threads; a call
    past the cap is refused with OVERLOADED, not run (issue 26)."""
    from toolsys import ErrorCode, Registry
    from toolsys.layers import Timeout, abandoned_threads

    problems: list[str] = []
    release = threading.Event()
    before = abandoned_threads()
    cap = before + 2
    registry = Registry(layers=[Timeout(seconds=0.01, max_abandoned_threads=cap)])

    @registry.tool(idempotent=False)
    def stuck() -> str:
        """Waits until released."""
        release.wait(30)
        return "late"

    threads = threading.active_count()
    try:
        codes = [registry.execute("stuck").error for _ in range(20 * scale)]
        seen = [None if error is None else error.code for error in codes]
        expected = [ErrorCode.TIMEOUT] * 2 + [ErrorCode.OVERLOADED] * (20 * scale - 2)
        if seen != expected:
            problems.append(f"hung calls past the cap: {seen}")
        if threading.active_count() > threads + 2:
            problems.append(f"{threading.active_count() - threads} threads for a cap of 2")
    finally:
        release.set()
    end = time.monotonic() + HANG_SECONDS
    while abandoned_threads() != before and time.monotonic() < end:
        time.sleep(0.01)
    if abandoned_threads() != before:
        problems.append(f"{abandoned_threads() - before} abandoned threads never ended")
    return problems


ATTACKS: list[Callable[[int], list[str]]] = [
    mcp_patterns,
    openapi_locations,
    report_sandbox,
    hidden_personal_data,
    audit_bytes,
    audit_memory,
    refund_race,
    network_routes,
    secret_keys,
    paused_run_tampering,
    leaks_in_results,
    isolated_escapes,
    abandoned_thread_cap,
]
