"""toolsys.testing in-process: each helper passes on good tools and FAILS, saying sent / got /
expected, on broken ones (a check that cannot fail is a defect)."""

from __future__ import annotations

import copy
import dataclasses
import os
import socket
import sys
from typing import Literal

import pytest

from tests.schema_cases import CASES
from toolsys import Registry, ToolError
from toolsys.loop import run_agent
from toolsys.models import OfflineModel
from toolsys.testing import (
    SHIPPED,
    NetworkBlocked,
    ToolTestFailure,
    assert_calls,
    assert_schema_agrees,
    fuzz_tool,
    inline_refs,
    load_cases,
    no_network,
    script_of,
    scripted,
    selection_eval,
)
from toolsys.testing.fuzzing import PLANTED_ENV
from toolsys.tool import Tool, tool_from_function
from toolsys.tools import registry as builtin


def search(query: str, limit: int = 5) -> list[str]:
    """Search the notes.

    Args:
        query: Words to look for.
        limit: How many results, 1 to 10.
    """
    return [query][:limit]


def _drifted(change: dict) -> Tool:
    """`search` with an exported schema edited by hand: the validator still reads the function."""
    tool = tool_from_function(search)
    schema = copy.deepcopy(dict(tool.parameters))
    for key, value in change.items():
        target, _, name = key.rpartition(".")
        node = schema
        for part in filter(None, target.split(".")):
            node = node[part]
        node[name] = value
    return dataclasses.replace(tool, parameters=schema)


# --- assert_schema_agrees ------------------------------------------------------------------------


def test_every_builtin_tool_agrees_with_its_schema() -> None:
    report = assert_schema_agrees(builtin, samples=200)
    assert [tool.name for tool in report.tools] == builtin.names()
    assert all(tool.samples > 0 and tool.refused["extra"] > 0 for tool in report.tools)
    refused = {kind for tool in report.tools for kind, n in tool.refused.items() if n}
    assert refused == {"missing", "wrong_type", "extra", "out_of_range", "enum"}


@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_every_golden_signature_agrees(fn) -> None:
    assert assert_schema_agrees(fn, samples=25).tools[0].samples > 0


def test_a_required_field_the_function_defaults_is_caught() -> None:
    with pytest.raises(ToolTestFailure) as caught:
        assert_schema_agrees(_drifted({"required": ["query", "limit"]}), samples=50)
    text = str(caught.value)
    assert "refuses leaving out required 'limit'; the validator accepted it" in text
    assert "\n  sent:     {" in text and '"limit"' not in text.split("sent:")[1].split("\n")[0]
    assert "\n  got:      accepted" in text
    assert "\n  expected: INVALID_ARGUMENTS naming 'limit'" in text


def test_a_schema_type_the_validator_refuses_is_caught() -> None:
    with pytest.raises(
        ToolTestFailure,
        match=r"the validator (refused arguments its exported schema allows|accepted it)",
    ):
        assert_schema_agrees(_drifted({"properties.limit.type": "string"}), samples=50)


def test_a_wrong_type_the_validator_accepts_is_caught() -> None:
    def scale(factor: float) -> float:
        """Scale."""
        return factor

    tool = tool_from_function(scale)
    schema = copy.deepcopy(dict(tool.parameters))
    schema["properties"]["factor"]["type"] = "integer"
    with pytest.raises(ToolTestFailure, match="wrong type for 'factor'; the validator accepted"):
        assert_schema_agrees(dataclasses.replace(tool, parameters=schema), samples=50)


def test_a_limit_only_the_schema_states_is_caught() -> None:
    with pytest.raises(ToolTestFailure, match="out of range for 'limit'; the validator accepted"):
        assert_schema_agrees(_drifted({"properties.limit.maximum": 10}), samples=50)


def test_an_enum_only_the_schema_states_is_caught() -> None:
    def paint(color: str) -> str:
        """Paint."""
        return color

    tool = tool_from_function(paint)
    schema = copy.deepcopy(dict(tool.parameters))
    schema["properties"]["color"]["enum"] = ["red", "green"]
    with pytest.raises(ToolTestFailure, match="outside the allowed values of 'color'"):
        assert_schema_agrees(dataclasses.replace(tool, parameters=schema), samples=50)


def test_an_enum_value_the_validator_refuses_is_caught() -> None:
    def paint(color: Literal["red", "green"]) -> str:
        """Paint."""
        return color

    tool = tool_from_function(paint)
    schema = copy.deepcopy(dict(tool.parameters))
    schema["properties"]["color"]["enum"] = ["red", "green", "blue"]
    with pytest.raises(ToolTestFailure, match="blue"):
        assert_schema_agrees(dataclasses.replace(tool, parameters=schema), samples=50)


def test_an_extra_property_the_schema_allows_is_not_a_mutation() -> None:
    report = assert_schema_agrees(_drifted({"additionalProperties": True}), samples=20)
    assert report.tools[0].refused["extra"] == 0


def test_the_same_seed_checks_the_same_samples() -> None:
    first = str(assert_schema_agrees(builtin, samples=30, seed=3))
    assert first == str(assert_schema_agrees(builtin, samples=30, seed=3))


def test_bad_targets_and_counts_are_refused_in_one_line() -> None:
    with pytest.raises(TypeError, match="not a Registry, a Tool or a function"):
        assert_schema_agrees(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="samples=0"):
        assert_schema_agrees(builtin, samples=0)


def test_refs_are_inlined_and_recursion_is_reported_not_followed() -> None:
    recursive = next(fn for fn in CASES if fn.__name__ == "recursive_model")
    schema = tool_from_function(recursive).parameters
    inlined, names = inline_refs(dict(schema))
    assert names == ["TreeNode"]
    assert "$ref" not in str(inlined) and "$defs" not in inlined
    report = assert_schema_agrees(recursive, samples=20)
    assert "recursive TreeNode: unrolled 2 levels deep" in str(report)


def test_a_ref_that_points_outside_the_schema_is_refused() -> None:
    with pytest.raises(ValueError, match="only local references"):
        inline_refs({"properties": {"a": {"$ref": "https://example.com/a.json"}}})


# --- fuzz_tool -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", builtin.names())
def test_every_builtin_tool_survives_the_fuzzer(name: str) -> None:
    assert fuzz_tool(builtin, name, calls=1_000).calls == 1_000


PASSWORD = "hunter2 is the password"


def _leaky() -> Registry:
    registry = Registry()

    @registry.tool
    def connect(host: str) -> str:
        """Connect to a host."""
        raise ToolError("LOGIN_FAILED", f"login to {host} failed with {PASSWORD}")

    @registry.tool
    def settings(name: str) -> dict:
        """Show the settings."""
        return dict(os.environ)

    return registry


def test_a_tool_that_leaks_a_secret_fails_the_fuzzer() -> None:
    with pytest.raises(ToolTestFailure) as caught:
        fuzz_tool(_leaky(), "connect", calls=50, secrets=[PASSWORD])
    text = str(caught.value)
    assert "'connect' broke a promise" in text and "planted secret" in text
    assert "\n  sent:     " in text and "\n  expected: a ToolResult" in text


def test_a_tool_that_dumps_its_environment_fails_the_fuzzer() -> None:
    with pytest.raises(ToolTestFailure, match="planted secret"):
        fuzz_tool(_leaky(), "settings", calls=50)
    assert PLANTED_ENV not in os.environ  # the canary is removed afterwards


class _Raising(Registry):
    def execute(self, name, arguments, **options):  # type: ignore[no-untyped-def]
        if isinstance(arguments, bytes):
            raise RuntimeError("bytes were not expected")
        return super().execute(name, arguments, **options)


def test_an_executor_that_raises_fails_the_fuzzer() -> None:
    registry = _Raising()
    registry.register(search)
    with pytest.raises(ToolTestFailure, match=r"escapes: search call .*RuntimeError"):
        fuzz_tool(registry, "search", calls=200)


def test_fuzz_tool_takes_a_function_and_names_a_missing_tool() -> None:
    assert fuzz_tool(search, calls=100).calls == 100
    with pytest.raises(ValueError, match="no tool 'nope'"):
        fuzz_tool(builtin, "nope", calls=10)


# --- scripted and no_network ---------------------------------------------------------------------


def test_scripted_client_drives_the_real_loop() -> None:
    client = scripted(("get_weather", {"city": "Paris"}), "It is mild in Paris.")
    transcript = run_agent(client, builtin, "Weather in Paris?")
    assert transcript.answer == "It is mild in Paris."
    assert len(script_of(client).requests) == 2


def test_scripted_refuses_what_is_not_a_turn() -> None:
    with pytest.raises(TypeError, match="turn 1 is 42"):
        scripted("hi", 42)


def test_no_network_blocks_and_records_every_way_out() -> None:
    with no_network() as guard:
        with pytest.raises(NetworkBlocked, match=r"example.com:80"):
            socket.create_connection(("example.com", 80))
        with pytest.raises(NetworkBlocked):
            socket.getaddrinfo("example.com", 443)
        sock = socket.socket()
        with pytest.raises(NetworkBlocked, match=r"127.0.0.1:9"):
            sock.connect(("127.0.0.1", 9))
        sock.close()
    assert guard.attempts == ["example.com:80", "example.com:443", "127.0.0.1:9"]
    assert socket.getaddrinfo is not None and "blocked" not in repr(socket.create_connection)


def test_a_real_openai_client_fails_loudly_not_politely() -> None:
    import openai

    real = openai.OpenAI(api_key="sk-test", base_url="http://api.invalid/v1", max_retries=2)
    with no_network() as guard, pytest.raises(NetworkBlocked, match=r"api.invalid"):
        real.models.list()
    assert guard.attempts  # a BaseException: the SDK's retry loop did not swallow it


def test_network_blocking_is_undone_and_nests() -> None:
    original = socket.socket.connect
    with no_network(), no_network() as inner, pytest.raises(NetworkBlocked):
        socket.create_connection(("localhost", 1))
    assert socket.socket.connect is original and inner.attempts == ["localhost:1"]


# --- assert_calls --------------------------------------------------------------------------------

CALLS = [
    ("search_docs", {"query": "retry", "limit": 3}),
    ("get_weather", {"city": "Paris", "units": "metric"}),
    ("get_weather", {"city": "Rome"}),
]


@pytest.mark.parametrize(
    ("expected", "mode"),
    [
        (["search_docs", "get_weather", "get_weather"], "strict"),
        (
            [
                ("search_docs", {"query": "retry"}),
                ("get_weather", {"city": "Paris"}),
                ("get_weather", {"city": str.istitle}),
            ],
            "strict",
        ),
        ([("get_weather", {"city": "Rome"}), "get_weather", "search_docs"], "unordered"),
        ([("get_weather", {"city": "Rome"})], "subset"),
        ([{"name": "get_weather", "arguments": {"units": "metric"}}], "subset"),
        # a greedy match would give the first get_weather to the bare name and then fail
        (["get_weather", ("get_weather", {"units": "metric"}), "search_docs"], "unordered"),
    ],
)
def test_matching_trajectories_pass(expected, mode) -> None:
    assert_calls(CALLS, expected, mode=mode)


@pytest.mark.parametrize(
    ("expected", "mode", "message"),
    [
        (["get_weather", "search_docs", "get_weather"], "strict", "call 1 is search_docs"),
        (["search_docs", "get_weather"], "strict", "3 calls were made, 2 expected"),
        ([("get_weather", {"city": "Oslo"})], "subset", 'no call matched get_weather(city="Oslo")'),
        (["search_docs", "get_weather"], "unordered", "unexpected extra calls: get_weather"),
        ([("search_docs", {"limit": True})], "subset", "no call matched"),  # true is not 3
        ([("search_docs", {"limit": 3.5})], "subset", "no call matched"),
        (["calculator"], "subset", "no call matched calculator()"),
    ],
)
def test_wrong_trajectories_fail_with_what_was_made_and_expected(expected, mode, message) -> None:
    with pytest.raises(ToolTestFailure) as caught:
        assert_calls(CALLS, expected, mode=mode)
    text = str(caught.value)
    assert message in text
    assert 'got:      1. search_docs(query="retry", limit=3)' in text
    assert "expected: 1. " in text


def test_assert_calls_reads_a_transcript_and_names_the_prompt() -> None:
    client = scripted(("get_weather", {"city": "Paris"}), "ok")
    transcript = run_agent(client, builtin, "Weather in Paris?")
    assert_calls(transcript, [("get_weather", {"city": "Paris"})])
    with pytest.raises(ToolTestFailure, match="sent:     'Weather in Paris\\?'"):
        assert_calls(transcript, ["calculator"])


def test_assert_calls_refuses_an_unknown_mode_and_a_bare_string() -> None:
    with pytest.raises(ValueError, match="mode='exact'"):
        assert_calls(CALLS, [], mode="exact")
    with pytest.raises(TypeError, match="give a list"):
        assert_calls(CALLS, "get_weather")


# --- selection_eval ------------------------------------------------------------------------------


def test_the_offline_model_picks_the_right_builtin_tool_95_percent_of_the_time() -> None:
    cases = load_cases(SHIPPED)
    assert len(cases) >= 50 and {case.tool for case in cases} == set(builtin.names())
    report = selection_eval(OfflineModel().client(), builtin, SHIPPED)
    report.require(top1=0.95, arguments=0.9)
    assert report.calls_per_task <= 1.5


def test_the_selection_report_is_the_same_on_every_run() -> None:
    cases = load_cases(SHIPPED)[:12]
    first = selection_eval(OfflineModel().client(), builtin, cases)
    again = selection_eval(OfflineModel().client(), builtin, cases)
    assert first.to_json() == again.to_json() and first.sha256() == again.sha256()
    assert "ms" not in first.to_json()


def test_a_wrong_tool_choice_fails_require_naming_the_prompt() -> None:
    cases = [{"prompt": "What's the weather in Paris?", "tool": "calculator"}]
    report = selection_eval(OfflineModel().client(), builtin, cases)
    assert report.top1 == 0.0
    with pytest.raises(ToolTestFailure) as caught:
        report.require(top1=0.95)
    text = str(caught.value)
    assert 'sent:     "What\'s the weather in Paris?"' in text
    assert "got:      get_weather" in text and "expected: calculator" in text


def test_wrong_arguments_are_counted_apart_from_the_tool() -> None:
    cases = [
        {
            "prompt": "What's the weather in Paris?",
            "tool": "get_weather",
            "arguments": {"city": "Rome"},
        }
    ]
    report = selection_eval(OfflineModel().client(), builtin, cases)
    assert report.top1 == 1.0 and report.arguments == 0.0
    with pytest.raises(ToolTestFailure, match=r"arguments 0.0%"):
        report.require(top1=1.0, arguments=1.0)


def test_bad_case_files_are_refused_with_the_line(tmp_path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"prompt": "hi", "tool": "x"}\n{"prompt": "", "tool": "x"}\n')
    with pytest.raises(ValueError, match=r"cases.jsonl line 2: .* is not a case"):
        load_cases(path)
    path.write_text("{oops\n")
    with pytest.raises(ValueError, match="line 1: not JSON"):
        load_cases(path)
    with pytest.raises(ValueError, match=r"no cases file 'missing.jsonl'"):
        load_cases(tmp_path / "missing.jsonl")


def test_without_hypothesis_the_agreement_check_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # what `import hypothesis` then raises
    with pytest.raises(ToolTestFailure, match=r"pip install 'toolsys\[testing\]'"):
        assert_schema_agrees(search, samples=5)


def test_a_schema_nothing_can_read_is_reported_not_crashed() -> None:
    broken = _drifted({"properties.query.pattern": "(unclosed"})
    with pytest.raises(ToolTestFailure, match="search: its exported schema cannot be read"):
        assert_schema_agrees(broken, samples=5)


def test_no_network_blocks_the_routes_around_socket_socket() -> None:
    # socket.socket.connect was patched before, but _socket.socket is its base class: the
    # audit hook sees every route (connect, connect_ex, UDP sendto/sendmsg, every name lookup).
    import _socket

    with no_network() as guard:
        raw = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        with pytest.raises(NetworkBlocked, match=r"127.0.0.1:9"):
            raw.connect(("127.0.0.1", 9))
        with pytest.raises(NetworkBlocked):
            raw.connect_ex(("127.0.0.1", 9))
        raw.close()
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with pytest.raises(NetworkBlocked, match=r"127.0.0.1:9"):
            udp.sendto(b"x", ("127.0.0.1", 9))
        with pytest.raises(NetworkBlocked):
            udp.sendmsg([b"x"], [], 0, ("127.0.0.1", 9))
        udp.close()
        for lookup in (
            lambda: socket.gethostbyname("localhost"),
            lambda: _socket.gethostbyname("localhost"),
            lambda: socket.gethostbyname_ex("localhost"),
            lambda: socket.gethostbyaddr("127.0.0.1"),
            lambda: socket.getnameinfo(("127.0.0.1", 80), 0),
            lambda: _socket.getaddrinfo("localhost", 80),
        ):
            with pytest.raises(NetworkBlocked):
                lookup()
    assert len(guard.attempts) == 10


def test_no_network_leaves_unix_sockets_and_works_again_after(tmp_path) -> None:
    import asyncio

    with no_network():
        left, right = socket.socketpair()  # AF_UNIX: local plumbing, not the network
        left.sendall(b"ok")
        assert right.recv(2) == b"ok"
        left.close(), right.close()

        async def connect() -> None:
            await asyncio.open_connection("127.0.0.1", 9)

        with pytest.raises(NetworkBlocked):
            asyncio.run(connect())
    assert socket.gethostbyname("localhost")  # the hook stays, but lets everything through


def test_a_tool_that_leaks_a_traceback_and_paths_in_a_successful_result_fails_the_fuzzer() -> None:
    # A diagnostic tool: its *successful* result holds the traceback, which the model reads.
    import traceback

    registry = Registry()

    @registry.tool
    def diagnose(service: str) -> str:
        """Diagnose a service."""
        try:
            raise ConnectionError(f"{service} is down")
        except ConnectionError:
            return traceback.format_exc()

    with pytest.raises(ToolTestFailure) as caught:
        fuzz_tool(registry, "diagnose", calls=20)
    text = str(caught.value)
    assert "a traceback ('Traceback (most recent call last)')" in text
    assert "an absolute path '/" in text and "successful result" in text


def test_a_path_is_a_leak_wherever_the_checkout_lives_and_a_url_path_is_not() -> None:
    from toolsys.fuzz import leaks

    # A fresh clone in /tmp, this checkout wherever it is (CI's is under /check), another's home.
    for path in ("/tmp/fresh/tests/x.py", "/home/ada/x.py", f"{os.getcwd()}/tests/x.py"):
        assert leaks(f'File "{path}", line 3') == [f"an absolute path {path[:60]!r}"]
    assert leaks("GET /v1/orders/123 and https://example.com/api/v2/x") == []
