"""Chapter 02 checks reject the careless solutions a student is likely to write."""

from __future__ import annotations

import difflib
from typing import Any

from toolsys import checks
from toolsys.checks import ch02


def _rejected(exercise_id: str, student: Any) -> checks.CheckResult:
    result = checks.check(exercise_id, student)
    assert not result.passed, f"a wrong answer passed {exercise_id}"
    return result


class _Base:
    def __init__(self) -> None:
        self._tools: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        return self._tools[name]

    def names(self) -> list[str]:
        return list(self._tools)


# -- 2.1 -----------------------------------------------------------------------------------------


def test_a_registry_that_overwrites_silently_is_rejected() -> None:
    class Careless(_Base):
        def register(self, name, fn):
            self._tools[name] = fn

    assert "returned normally" in _rejected("2.1", Careless).message


def test_a_registry_blind_to_near_duplicates_is_rejected() -> None:
    class Careless(_Base):
        def register(self, name, fn):
            if name in self._tools:
                raise ValueError(f"{name!r} is already registered; choose another name")
            self._tools[name] = fn

    assert "'Get-Weather'" in _rejected("2.1", Careless).message


def test_a_registry_with_a_vague_message_is_rejected() -> None:
    class Careless(_Base):
        def register(self, name, fn):
            if any(
                n.lower().replace("-", "_") == name.lower().replace("-", "_") for n in self._tools
            ):
                raise ValueError("duplicate")
            self._tools[name] = fn

    assert "name both tools" in _rejected("2.1", Careless).message


def test_a_registry_that_stores_before_checking_is_rejected() -> None:
    class Careless(_Base):
        def register(self, name, fn):
            taken = [
                n
                for n in self._tools
                if n.lower().replace("-", "_") == name.lower().replace("-", "_")
            ]
            self._tools[name] = fn
            if taken:
                raise ValueError(f"{name!r} collides with {taken[0]!r}; choose another name")

    assert "changed before raising" in _rejected("2.1", Careless).message


# -- 2.2 -----------------------------------------------------------------------------------------


def test_a_case_sensitive_category_filter_is_rejected() -> None:
    def careless(registry, category=None, tag=None):
        return [
            t.name
            for t in registry.list()
            if (category is None or t.category == category) and (tag is None or tag in t.tags)
        ]

    assert "'WRITE'" in _rejected("2.2", careless).message


def test_a_filter_that_ignores_tags_is_rejected() -> None:
    def careless(registry, category=None, tag=None):
        return ch02.list_by_category(registry, category)

    assert "tag='orders'" in _rejected("2.2", careless).message


def test_a_filter_that_sorts_names_is_rejected() -> None:
    def careless(registry, category=None, tag=None):
        return sorted(ch02.list_by_category(registry, category, tag))

    _rejected("2.2", careless)


def test_a_filter_returning_tools_is_rejected() -> None:
    def careless(registry, category=None, tag=None):
        names = ch02.list_by_category(registry, category, tag)
        return [registry.get(n) for n in names]

    assert "names (str)" in _rejected("2.2", careless).message


def test_a_filter_that_returns_nothing_for_an_unknown_category_is_rejected() -> None:
    def careless(registry, category=None, tag=None):
        try:
            return ch02.list_by_category(registry, category, tag)
        except ValueError:
            return []

    assert "should raise ValueError" in _rejected("2.2", careless).message


# -- 2.3 -----------------------------------------------------------------------------------------


def test_execute_that_raises_key_error_is_rejected() -> None:
    def careless(tools, name, arguments):
        return {"ok": True, "value": tools[name](**arguments)}

    assert "raised" in _rejected("2.3", careless).message


def _unknown(name: str, tools: dict, close: list[str], suggestion: str) -> dict:
    return {
        "ok": False,
        "error": {
            "code": "UNKNOWN_TOOL",
            "message": f"Unknown tool {name!r}.",
            "suggestion": suggestion,
            "details": {"did_you_mean": close},
        },
    }


def test_execute_that_suggests_every_tool_is_rejected() -> None:
    def careless(tools, name, arguments):
        if name in tools:
            return {"ok": True, "value": tools[name](**arguments)}
        return _unknown(name, tools, list(tools), "Use one of: " + ", ".join(tools))

    _rejected("2.3", careless)


def test_execute_without_normalising_names_is_rejected() -> None:
    def careless(tools, name, arguments):
        if name in tools:
            return {"ok": True, "value": tools[name](**arguments)}
        close = difflib.get_close_matches(name, list(tools), n=3, cutoff=0.8)
        hint = f"Did you mean {close[0]!r}? " if close else ""
        return _unknown(name, tools, close, hint + "Tools: " + ", ".join(tools))

    assert "best first" in _rejected("2.3", careless).message


def test_execute_with_a_vague_error_is_rejected() -> None:
    def careless(tools, name, arguments):
        if name in tools:
            return {"ok": True, "value": tools[name](**arguments)}
        return {"ok": False, "error": {"code": "UNKNOWN_TOOL", "message": "no such tool"}}

    assert "quote the unknown name" in _rejected("2.3", careless).message
