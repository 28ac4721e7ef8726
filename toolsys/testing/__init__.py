"""Testing tools: the helpers toolsys uses on itself, for anyone who writes tools.

    from toolsys.testing import assert_calls, assert_schema_agrees, fuzz_tool, scripted

    def test_schema_and_validator_agree():
        assert_schema_agrees(registry)                      # hypothesis samples + mutations

    def test_never_raises_never_leaks():
        fuzz_tool(registry, "get_weather", calls=2_000)     # seeded hostile calls

    def test_weather_trajectory(scripted):                  # pytest fixture: network blocked
        client = scripted(("get_weather", {"city": "Paris"}), "It is 18 °C.")
        transcript = run_agent(client, registry, "Weather in Paris?")
        assert_calls(transcript, [("get_weather", {"city": "Paris"})])

    report = selection_eval(models.client(), registry, "cases.jsonl")   # top-1, arguments, calls

Each helper fails with one AssertionError saying what was sent, what came back and what was
expected, and pytest shows it without our frames (`__tracebackhide__`). The pytest plugin
(`toolsys.testing.plugin`, loaded automatically once toolsys is installed) adds two opt-in
fixtures, `scripted` and `no_network`. `assert_schema_agrees` needs hypothesis (`pip install
'toolsys[testing]'`); the rest needs nothing more than toolsys.

Chapter 11 uses each of them, and its exercises build them by hand: notebooks/11_testing.ipynb.
"""

from toolsys.testing._failure import ToolTestFailure
from toolsys.testing.agreement import AgreementReport, assert_schema_agrees, inline_refs
from toolsys.testing.fuzzing import FuzzReport, fuzz_tool
from toolsys.testing.network import NetworkBlocked, no_network
from toolsys.testing.scripted import script_of, scripted
from toolsys.testing.selection import (
    SHIPPED,
    SelectionCase,
    SelectionReport,
    load_cases,
    selection_eval,
)
from toolsys.testing.trajectory import assert_calls

__all__ = [
    "SHIPPED",
    "AgreementReport",
    "FuzzReport",
    "NetworkBlocked",
    "SelectionCase",
    "SelectionReport",
    "ToolTestFailure",
    "assert_calls",
    "assert_schema_agrees",
    "fuzz_tool",
    "inline_refs",
    "load_cases",
    "no_network",
    "script_of",
    "scripted",
    "selection_eval",
]
