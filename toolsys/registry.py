"""The registry: name -> tool. Register, look up, export, execute.

The agent loop needs exactly two things from it: `export(...)` to tell the model what exists and
`execute(...)` / `aexecute(...)` to run what the model asked for. `execute` never raises: every
failure (unknown tool, malformed JSON, invalid arguments, an exception inside the tool) comes back
as a `ToolResult` with an error envelope.

Chapters 01 and 02 build this by hand first: notebooks/01_dispatch.ipynb (a dispatch table),
notebooks/02_registry.ipynb (a small registry).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import pkgutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, overload

from pydantic import BaseModel
from pydantic_core import ValidationError

from toolsys import failures
from toolsys.errors import ToolDefinitionError, ToolError
from toolsys.export import LintIssue, export_tools, lint
from toolsys.pipeline import Call, Layer, chain
from toolsys.result import ToolResult
from toolsys.spec import Category, ToolSpec
from toolsys.tool import Tool, normalize, tool_from_function, tool_from_spec

Arguments = Mapping[str, Any] | str | None
_log = logging.getLogger("toolsys")


class Registry:
    """Tools by name, with schemas built once and exports cached until the tool set changes.

    `coerce=False` (the default) validates strictly, so what the validator accepts is what the
    exported schema promises; `coerce=True` also accepts e.g. "3" for an integer.
    """

    def __init__(self, *, layers: list[Layer] | None = None, coerce: bool = False) -> None:
        self._tools: dict[str, Tool] = {}
        self._normalized: dict[str, str] = {}
        self._exports: dict[tuple[str, bool], list[dict[str, Any]]] = {}
        self._layers: list[Layer] = list(layers or [])
        self._handler = chain(self._layers, self._core)
        self.coerce = coerce

    # -- registration -------------------------------------------------------------------------

    def add(self, tool: Tool, *, replace: bool = False) -> Tool:
        """Register a built `Tool`. Every other way of registering ends here."""
        key = normalize(tool.name)
        existing = self._normalized.get(key)
        if existing is not None and not replace:
            same = existing == tool.name
            raise ToolDefinitionError(
                f"A tool named {existing!r} is already registered"
                + (
                    ""
                    if same
                    else f", and {tool.name!r} differs from it only by case, '-'/'_' or "
                    f"camelCase (both read as {key!r}; a model confuses them)"
                )
                + ". Choose another name, unregister the old tool first, or pass replace=True "
                "to override it on purpose."
            )
        if existing is not None:
            del self._tools[existing]
        self._tools[tool.name] = tool
        self._normalized[key] = tool.name
        self._exports.clear()
        return tool

    def register(
        self,
        spec_or_fn: ToolSpec | Callable[..., Any],
        fn: Callable[..., Any] | None = None,
        *,
        replace: bool = False,
        **options: Any,
    ) -> Tool:
        """Register `ToolSpec` + implementation, or a function (options as for `tool`)."""
        if isinstance(spec_or_fn, ToolSpec):
            if fn is None:
                raise ToolDefinitionError(
                    f"register({spec_or_fn.name!r}): a ToolSpec needs its implementation, "
                    "e.g. registry.register(spec, search_impl)."
                )
            return self.add(tool_from_spec(spec_or_fn, fn), replace=replace)
        if fn is not None:
            raise ToolDefinitionError("register(fn): pass a ToolSpec first when giving fn.")
        return self.add(tool_from_function(spec_or_fn, **options), replace=replace)

    @overload
    def tool(self, fn: Callable[..., Any], /) -> Callable[..., Any]: ...
    @overload
    def tool(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        category: Category = Category.READ,
        tags: tuple[str, ...] = (),
        args: type[BaseModel] | None = None,
        replace: bool = False,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...

    def tool(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Decorator: `@registry.tool` or `@registry.tool(name=..., category=..., args=Model)`.

        The function is returned unchanged, so it stays callable and testable on its own.
        """

        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register(func, **options)
            return func

        return decorate(fn) if fn is not None else decorate

    def unregister(self, name: str) -> Tool:
        tool = self.get(name)
        del self._tools[tool.name]
        del self._normalized[normalize(tool.name)]
        self._exports.clear()
        return tool

    # -- lookup ---------------------------------------------------------------------------------

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            error = failures.unknown_tool(name, self.names())
            raise KeyError(f"{error.message} {error.suggestion}") from None

    def names(self) -> list[str]:
        return list(self._tools)

    def list(self, category: Category | str | None = None, prefix: str | None = None) -> list[Tool]:
        """The registered tools, optionally only one category and/or names with a prefix."""
        return [
            tool
            for tool in self._tools.values()
            if (category is None or tool.category == category)
            and (prefix is None or tool.name.startswith(prefix))
        ]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        count = f"{len(self)} tool" + ("" if len(self) == 1 else "s")
        return f"Registry({count}: {', '.join(self._tools) or 'none'})"

    @property
    def diagnostics(self) -> list[str]:
        """Everything registration noticed and could not fix: read these."""
        return [d for tool in self._tools.values() for d in tool.diagnostics]

    # -- export -------------------------------------------------------------------------------

    def export(self, target: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]:
        """All tools in a provider's format. Cached: free until the tool set changes.

        The list and everything in it are read-only, because they are shared between calls and
        with the tools themselves: `copy.deepcopy(registry.export())` gives a copy to change.
        """
        key = (target, strict)
        cached = self._exports.get(key)
        if cached is None:
            cached = export_tools(self._tools.values(), target, strict=strict)
            self._exports[key] = cached
        return cached

    def lint(self, target: str = "openai", *, strict: bool = False) -> list[LintIssue]:
        """What `target` would reject, found before any request is sent."""
        return lint(self._tools.values(), target, strict=strict)

    def explain(self, name: str) -> str:
        """Exactly what the model sees for one tool, in each format, with any diagnostics."""
        from toolsys.explain import explain

        return explain(self.get(name))

    # -- execution ------------------------------------------------------------------------------

    def use(self, layer: Layer) -> None:
        """Add an execution layer; layers run in the order added, the first is outermost."""
        self._layers.append(layer)
        self._handler = chain(self._layers, self._core)

    def execute(self, name: str, arguments: Arguments = None, **context: Any) -> ToolResult:
        """Run a tool by name. Never raises; usable inside a running event loop (Jupyter)."""
        start = time.perf_counter()
        if not self._layers:
            tool = self._tools.get(name) if type(name) is str else None
            if tool is not None and not tool.is_async:
                return self._run_sync(tool, name, arguments, start)
        return _run_coroutine(lambda: self.aexecute(name, arguments, **context))

    async def aexecute(self, name: str, arguments: Arguments = None, **context: Any) -> ToolResult:
        """Run a tool by name from async code. Never raises.

        An async tool is awaited, so several calls overlap; a sync tool runs inline, in order,
        which keeps side effects deterministic and thread-bound resources (a sqlite connection)
        safe. Make a slow tool `async` (e.g. with `asyncio.to_thread`) to let it overlap.
        """
        start = time.perf_counter()
        call = Call(name, arguments, self._lookup(name), context=context)
        try:
            result = await self._handler(call)
        except Exception as exc:  # a layer itself failed: still data, never a crash
            result = _crashed(name, exc)
        result.meta.setdefault("tool", name)
        result.meta.setdefault("attempt", call.attempt)
        result.meta["duration_ms"] = _ms(start)
        return result

    def _lookup(self, name: object) -> Tool | None:
        return self._tools.get(name) if isinstance(name, str) else None

    def _run_sync(self, tool: Tool, name: str, arguments: Arguments, start: float) -> ToolResult:
        """The same steps as `_core`, without an event loop: the common case stays cheap."""
        prepared: BaseModel | ToolResult | None = None
        if type(arguments) is dict and not tool.null_means_default and not self.coerce:
            try:  # noqa: SIM105 - fast path for a valid plain dict; suppress() costs here
                prepared = tool.validator.validate_python(arguments, strict=True)
            except ValidationError:
                pass
        if prepared is None:
            prepared = self._validate(tool, arguments)
        if isinstance(prepared, ToolResult):
            result = prepared
        else:
            try:
                value = tool.call(prepared)
            except ToolError as exc:
                result = ToolResult.failure(exc.to_info(), exception=exc)
            except (Exception, SystemExit) as exc:
                result = _crashed(name, exc)
            else:
                return ToolResult(
                    True, value, None, {"tool": name, "attempt": 1, "duration_ms": _ms(start)}
                )
        result.meta.update(tool=name, attempt=1, duration_ms=_ms(start))
        return result

    async def _core(self, call: Call) -> ToolResult:
        """Resolve, decode, validate, invoke: the innermost step every layer wraps."""
        tool = call.tool or self._lookup(call.name)
        if tool is None:
            return ToolResult.failure(failures.unknown_tool(call.name, self.names()))
        prepared = self._validate(tool, call.arguments)
        if isinstance(prepared, ToolResult):
            return prepared
        try:
            value = tool.call(prepared)
            if tool.is_async:
                value = await value
        except ToolError as exc:
            return ToolResult.failure(exc.to_info(), exception=exc)
        except (Exception, SystemExit) as exc:  # cancellation is not caught: it must propagate
            return _crashed(tool.name, exc)
        return ToolResult(True, value, None, {})

    def _validate(self, tool: Tool, arguments: Arguments) -> BaseModel | ToolResult:
        """Decoded, validated arguments, or the failure explaining why not."""
        kind = type(arguments)
        if kind is dict and not self.coerce:
            try:
                return tool.validate(arguments)
            except ValidationError as exc:
                return ToolResult.failure(failures.invalid_arguments(tool, exc), exception=exc)
        if kind is str and not self.coerce:
            try:
                return tool.validator.validate_json(arguments or "{}", strict=True)
            except ValidationError:
                pass  # the general path below finds out exactly what is wrong
        if isinstance(arguments, str | bytes | bytearray):
            text = (
                arguments.decode(errors="replace")
                if isinstance(arguments, bytes | bytearray)
                else arguments
            )
            text = text if text.strip() else "{}"  # some providers send "" for "no arguments"
            try:
                return tool.validate_json(text, coerce=self.coerce)
            except ValidationError:
                pass  # the slow path below finds out exactly what is wrong
            try:
                arguments = json.loads(text)
            except json.JSONDecodeError as exc:
                return ToolResult.failure(
                    failures.invalid_json(tool.name, text, exc), exception=exc
                )
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return ToolResult.failure(failures.not_an_object(tool, arguments))
        try:
            return tool.validate(arguments, coerce=self.coerce)
        except ValidationError as exc:
            return ToolResult.failure(failures.invalid_arguments(tool, exc), exception=exc)


def _crashed(name: str, exc: BaseException) -> ToolResult:
    """An exception the tool did not expect: data for the model, the traceback for the developer.

    The envelope is redacted; the full exception stays on `result.exception` and goes to the
    `toolsys` logger at DEBUG level (silent unless you configure logging).
    """
    _log.debug("tool %r raised", name, exc_info=exc)
    return ToolResult.failure(failures.execution_error(name, exc), exception=exc)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


def _run_coroutine(make: Callable[[], Any]) -> ToolResult:
    """Run a coroutine to completion from sync code, even when an event loop is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    box: dict[str, Any] = {}

    def worker() -> None:
        box["result"] = asyncio.run(make())

    thread = threading.Thread(target=worker, name="toolsys-execute")
    thread.start()
    thread.join()
    return box["result"]


def discover(package: str | ModuleType) -> list[str]:
    """Import every module of a package folder so the tools they define register themselves.

    "Adding a tool is adding a file": drop `my_tool.py` next to the others and it is found.
    Modules whose names start with `_` are skipped. If some modules fail to import, the others
    are still imported and one error then names every failure.
    """
    module = importlib.import_module(package) if isinstance(package, str) else package
    paths = getattr(module, "__path__", None)
    if paths is None:
        raise ValueError(f"{module.__name__!r} is a module, not a package folder; pass a package.")
    imported: list[str] = []
    failed: list[str] = []
    for info in sorted(pkgutil.iter_modules(paths), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        name = f"{module.__name__}.{info.name}"
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
        else:
            imported.append(name)
    if failed:
        raise ImportError("Some tool modules failed to import:\n  " + "\n  ".join(failed))
    return imported
