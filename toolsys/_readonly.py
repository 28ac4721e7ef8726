"""Read-only JSON: the schemas and exports a tool hands out cannot be changed through them.

`registry.export()` is cached and every tool's `parameters` is shared by all its exports, so a
caller that edits what it was given (adds a key, pops a default) would silently change the tool,
the other formats and every later request. Copying on each call would cost a deep copy of every
schema per model request. Instead the shared values are built once as `ReadOnlyDict` and
`ReadOnlyList`: subclasses of `dict` and `list`, so `json.dumps`, `==`, `isinstance` checks and
the `openai` SDK accept them unchanged, whose mutating methods raise `TypeError`. To change one,
take a copy: `copy.deepcopy(value)` (or `copy.copy`, `pickle`) gives plain, mutable containers.
"""

from __future__ import annotations

from typing import Any, NoReturn


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(
        f"this {type(self).__name__} is shared (a tool's schema or a cached export) and cannot "
        "be changed; change a copy: copy.deepcopy(value)."
    )


class ReadOnlyDict(dict[str, Any]):
    """A `dict` that refuses to change; copies of it are plain dicts."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class ReadOnlyList(list[Any]):
    """A `list` that refuses to change; copies of it are plain lists."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """A read-only deep copy of a JSON value (dicts and lists at any depth; scalars as they are).

    Parts that are read-only already are shared, not copied: they cannot change either.
    """
    kind = type(value)
    if kind is ReadOnlyDict or kind is ReadOnlyList:
        return value
    if isinstance(value, dict):
        return ReadOnlyDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return ReadOnlyList([freeze(item) for item in value])
    return value


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a JSON value (read-only or not)."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value
