"""A tool function's type hints, read once at registration.

`typing.get_type_hints` compiles every string annotation (`from __future__ import annotations`)
again on every call, which made reading the hints a tenth of the cost of registering a tool.
`type_hints` compiles each text once, and asks `typing` for anything that is not plain; a name
only an enclosing function knows is looked up where the tool was defined or registered.
"""

from __future__ import annotations

import functools
import sys
import typing
from collections.abc import Callable
from types import CodeType, FrameType, FunctionType, GenericAlias, NoneType
from typing import Annotated, Any, Literal, Union

# The modules a registration passes through before it reaches `model_from_function`.
_REGISTERING = frozenset({__name__, "toolsys.schema", "toolsys.tool", "toolsys.registry"})


def _enclosing_namespace(fn: Callable[..., Any]) -> dict[str, Any]:
    """Names visible where `fn` was defined but not in its module: its closure, and the locals of
    the function that is registering it (as pydantic's `validate_call` reads its caller's frame).

    With `from __future__ import annotations`, `def tool(args: Local)` inside a function stores the
    string "Local", and the class it names lives only in that function's locals.
    """
    namespace: dict[str, Any] = {}
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in _REGISTERING:
        frame = frame.f_back
    if frame is not None and frame.f_locals is not frame.f_globals:
        namespace.update(frame.f_locals)
    code = getattr(fn, "__code__", None)
    for var, cell in zip(getattr(code, "co_freevars", ()), fn.__closure__ or (), strict=False):
        try:
            namespace[var] = cell.cell_contents
        except ValueError:  # a closure variable not assigned yet
            continue
    return namespace


def type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    hints = _plain_type_hints(fn)
    if hints is not None:
        return hints
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except NameError:
        return typing.get_type_hints(fn, localns=_enclosing_namespace(fn), include_extras=True)


def _plain_type_hints(fn: Callable[..., Any]) -> dict[str, Any] | None:
    """`typing.get_type_hints(fn, include_extras=True)` for a plain function whose annotations
    are all plain (see `_plain_hint`), or None to ask `typing`.

    `typing` compiles every string annotation (`from __future__ import annotations`) again on
    every call; here each text is compiled once, and evaluated in the function's globals as
    `typing` does. Anything `typing` would treat differently (a string nested in a generic, a
    special form, a wrapped function) is left to it.
    """
    if type(fn) is not FunctionType or hasattr(fn, "__wrapped__"):
        return None
    if getattr(fn, "__no_type_check__", False):
        return None
    hints: dict[str, Any] = {}
    for name, value in fn.__annotations__.items():
        if type(value) is str:
            try:
                value = eval(_compiled(value), fn.__globals__)  # as typing does
            except Exception:  # typing says what is wrong, or finds it in an enclosing scope
                return None
        if value is None:
            value = NoneType
        if not _plain_hint(value):
            return None
        hints[name] = value
    return hints


@functools.lru_cache(maxsize=1024)
def _compiled(text: str) -> CodeType:
    return compile(text, "<annotation>", "eval")


def _plain_hint(value: Any) -> bool:
    """A class, or a generic of classes, `Literal` or `Annotated`: `typing` returns it as is."""
    origin = typing.get_origin(value)
    if origin is None:
        return isinstance(value, type) and not isinstance(value, GenericAlias)
    if origin is Literal:
        return True
    args = typing.get_args(value)
    if origin is Annotated:
        return _plain_hint(args[0])
    if origin is Union or isinstance(origin, type):
        return all(arg is Ellipsis or _plain_hint(arg) for arg in args)
    return False
