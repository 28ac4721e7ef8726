"""Lazy tools: exported from a manifest with 0 imports, loaded on first call, failing cleanly."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.compose_tools import Recorder
from tests.hostile_tools import PLANTED
from toolsys import Registry, ToolDefinitionError
from toolsys.fuzz import fuzz_tool
from toolsys.lazy import lazy_from_manifest, lazy_tool
from toolsys.spec import Category, Param

REPORTS = '''
"""A plugin module: importing it is what a lazy tool must avoid until the first call."""
IMPORTS = []
IMPORTS.append(1)


def report_sales(region: str, year: int = 2026) -> dict:
    """Sales for a region."""
    return {"region": region, "year": year, "total": 1200}


async def slow_report(region: str) -> str:
    """Async report."""
    return "async " + region
'''

PARAMETERS = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "description": "Sales region."},
        "year": {"type": "integer", "description": "Year.", "default": 2026},
    },
    "required": ["region"],
}


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], str]:
    """Write a package to tmp_path; returns a writer `(module, source) -> package name`."""
    package = f"lazy_plugin_{tmp_path.name.replace('-', '_')}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(module: str, source: str) -> str:
        (tmp_path / package / f"{module}.py").write_text(source)
        return package

    yield write
    for name in [m for m in sys.modules if m.startswith(package)]:
        del sys.modules[name]


def test_a_lazy_tool_is_exported_without_importing_anything_and_imported_on_first_call(
    plugin: Callable[[str, str], str],
) -> None:
    package = plugin("reports", REPORTS)
    reg = Registry()
    reg.lazy(
        "report_sales",
        summary="Sales totals for one region and year.",
        parameters=PARAMETERS,
        loader=f"{package}.reports:report_sales",
    )
    for target in ("openai", "anthropic", "mcp"):
        reg.export(target)
    reg.lint("openai")
    reg.explain("report_sales")
    assert not reg.execute("report_sales", {"region": 3}).ok  # refused from the manifest
    assert package not in sys.modules and f"{package}.reports" not in sys.modules

    result = reg.execute("report_sales", {"region": "north"})
    assert result.ok, result
    assert result.value == {"region": "north", "year": 2026, "total": 1200}
    module = sys.modules[f"{package}.reports"]
    reg.execute("report_sales", {"region": "south", "year": 2025})
    assert module.IMPORTS == [1]  # imported once, then reused


def test_the_exported_schema_is_the_manifests() -> None:
    tool = lazy_tool("report_sales", summary="Sales.", parameters=PARAMETERS, loader="x.y:z")
    assert tool.parameters["properties"]["region"] == {
        "type": "string",
        "description": "Sales region.",
    }
    assert tool.parameters["required"] == ["region"]
    assert tool.source == "lazy" and tool.description == "Sales."


def test_params_and_async_code_work_too(plugin: Callable[[str, str], str]) -> None:
    package = plugin("reports", REPORTS)
    reg = Registry()
    reg.lazy(
        "slow_report",
        summary="Async.",
        parameters=[Param("region", "string", "Region.")],
        loader=f"{package}.reports:slow_report",
    )
    assert asyncio.run(reg.aexecute("slow_report", {"region": "n"})).value == "async n"


def test_a_lazy_tool_passes_through_layers_before_it_is_loaded(
    plugin: Callable[[str, str], str],
) -> None:
    package = plugin("reports", REPORTS)
    recorder = Recorder()
    reg = Registry(layers=[recorder])
    reg.lazy("r", summary="S.", parameters=PARAMETERS, loader=f"{package}.reports:report_sales")
    assert reg.execute("r", {"region": "x"}).ok
    assert [name for name, *_ in recorder.seen] == ["r"]


def _failure(reg: Registry, arguments: dict[str, object] | None = None) -> dict[str, object]:
    result = reg.execute("report_sales", arguments or {"region": "north"})
    assert not result.ok and result.error is not None
    assert result.exception is not None  # the developer keeps the cause
    message = result.to_message()
    assert "Traceback" not in message and "/tmp" not in message and ".py" not in message
    assert result.error.code == "TOOL_LOAD_FAILED" and result.error.retryable is False
    assert result.error.suggestion.startswith("Answer without report_sales")
    return result.error.to_dict()


@pytest.mark.parametrize(
    ("source", "loader_attr", "said"),
    [
        (None, "report_sales", "module '{package}.missing' was not found"),
        (REPORTS, "nothing_here", "'{package}.reports' has no 'nothing_here'"),
        ("raise RuntimeError('boom at /home/alice/x.py')\n", "f", "raised RuntimeError"),
        ("import not_a_real_dependency_xyz\n", "f", "needs module 'not_a_real_dependency_xyz'"),
        ("raise SystemExit(3)\n", "f", "raised SystemExit"),
        ("f = 42\n", "f", "is a int, not a function"),
        ("def f(x: 'Undefined'): ...\n", "f", "cannot be a tool"),
    ],
)
def test_a_failing_import_is_a_clean_envelope(
    plugin: Callable[[str, str], str],
    source: str | None,
    loader_attr: str,
    said: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    package = plugin("reports", source or "")
    module = "missing" if source is None else "reports"
    reg = Registry()
    reg.lazy(
        "report_sales",
        summary="S.",
        parameters=PARAMETERS,
        loader=f"{package}.{module}:{loader_attr}",
    )
    with caplog.at_level(logging.WARNING, logger="toolsys"):
        error = _failure(reg)
    assert said.format(package=package) in str(error["message"])
    assert any("could not be loaded" in r.message for r in caplog.records)


def test_an_import_that_failed_is_tried_again_on_the_next_call(
    plugin: Callable[[str, str], str],
) -> None:
    package = plugin("reports", "raise RuntimeError('not yet')\n")
    reg = Registry()
    reg.lazy("r", summary="S.", parameters=PARAMETERS, loader=f"{package}.reports:report_sales")
    assert not reg.execute("r", {"region": "n"}).ok
    plugin("reports", REPORTS)
    assert reg.execute("r", {"region": "n"}).ok


OK_CALL = {"region": "n", "year": 1}


@pytest.mark.parametrize(
    ("parameters", "category", "arguments", "said"),
    [
        (
            {"type": "object", "properties": {"region": {"type": "string"}}},
            "read",
            {"region": "n"},
            "parameters ['region', 'year'] in the code, ['region'] in the manifest",
        ),
        (
            {**PARAMETERS, "properties": {**PARAMETERS["properties"], "year": {"type": "string"}}},
            "read",
            {"region": "n", "year": "1"},
            "the types of ['year'] differ",
        ),
        ({**PARAMETERS, "required": ["region", "year"]}, "read", OK_CALL, "required"),
        (PARAMETERS, "write", OK_CALL, "category read in the code, write in it"),
    ],
)
def test_code_that_does_not_match_its_manifest_is_refused(
    plugin: Callable[[str, str], str],
    parameters: dict[str, object],
    category: str,
    arguments: dict[str, object],
    said: str,
) -> None:
    package = plugin("reports", REPORTS)
    reg = Registry()
    manifest = {
        "summary": "S.",
        "parameters": parameters,
        "loader": f"{package}.reports:report_sales",
    }
    reg.lazy("report_sales", **manifest)
    if category == "write":
        code_tool = "from toolsys.tool import tool_from_function\n" + REPORTS
        code_tool += "report_sales = tool_from_function(report_sales)\n"
        plugin("reports", code_tool)
        reg.lazy("report_sales", category=Category.WRITE, replace=True, **manifest)
    error = _failure(reg, arguments)
    assert "does not match its manifest" in str(error["message"])
    assert said in str(error["message"])


def test_descriptions_and_defaults_may_differ_from_the_code(
    plugin: Callable[[str, str], str],
) -> None:
    package = plugin("reports", REPORTS)
    reg = Registry()
    manifest = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "description": "Other words."},
            "year": {"type": "integer", "default": 1999},
        },
        "required": ["region"],
    }
    reg.lazy("r", summary="S.", parameters=manifest, loader=f"{package}.reports:report_sales")
    assert reg.execute("r", {"region": "n"}).value["year"] == 1999  # the manifest's default


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"loader": "myapp/reports.py:report_sales"}, "is not 'module:attribute'"),
        ({"loader": "myapp.reports"}, "is not 'module:attribute'"),
        ({"loader": 3}, "is not 'module:attribute'"),
        ({"parameters": {"type": "array"}}, "must be a JSON Schema object"),
        ({"parameters": {"properties": {"x": {"anyOf": []}}}}, "more than a manifest can"),
        ({"parameters": {"properties": {"x": {"type": "date"}}}}, "more than a manifest can"),
        ({"parameters": {"properties": ["x"]}}, "must be a JSON Schema object"),
        ({"parameters": 5}, "must be a list of Param"),
        ({"name": "report.sales"}, "cannot be exported"),
    ],
)
def test_a_bad_manifest_is_refused_at_registration(options: dict[str, object], said: str) -> None:
    fields: dict[str, object] = {"summary": "S.", "loader": "myapp.reports:report_sales"}
    name = str(options.pop("name", "report_sales"))
    with pytest.raises(ToolDefinitionError, match=said):
        lazy_tool(name, **{**fields, **options})  # type: ignore[arg-type]


def test_a_manifest_entry_from_json_builds_the_same_tool() -> None:
    entry = {
        "name": "report_sales",
        "summary": "Sales.",
        "loader": "myapp.reports:report_sales",
        "parameters": PARAMETERS,
        "category": "read",
    }
    assert (
        lazy_from_manifest(entry).parameters
        == lazy_tool(
            "report_sales", summary="Sales.", parameters=PARAMETERS, loader="x.y:z"
        ).parameters
    )
    with pytest.raises(ToolDefinitionError, match="unknown keys \\['colour'\\]"):
        lazy_from_manifest({**entry, "colour": "red"})
    with pytest.raises(ToolDefinitionError, match="needs at least"):
        lazy_from_manifest({"summary": "x"})


def test_fuzzing_a_lazy_tool_that_cannot_load_never_raises_or_leaks() -> None:
    reg = Registry()
    reg.lazy("gone", summary="S.", parameters=PARAMETERS, loader="no_such_pkg_abc.mod:f")
    report = fuzz_tool(reg, "gone", calls=200, secrets=PLANTED)
    assert report.clean, report.problems[:3]


def test_fuzzing_a_lazy_tool_that_loads_never_raises_or_leaks(
    plugin: Callable[[str, str], str],
) -> None:
    package = plugin("reports", REPORTS)
    reg = Registry()
    reg.lazy("r", summary="S.", parameters=PARAMETERS, loader=f"{package}.reports:report_sales")
    report = fuzz_tool(reg, "r", calls=200, secrets=PLANTED)
    assert report.clean, report.problems[:3]
