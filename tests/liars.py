"""Answers that claim to be right: objects whose comparisons, containment and truth always agree.

A check that asks the student's object `got == expected`, `word in got` or `len(got)` lets the
object answer for itself. These are the objects a student (or a careless library) could hand in;
every check must report them as wrong answers, not pass them and not crash on them.
"""

from __future__ import annotations

from typing import Any

# Words a check looks for to reject an answer (a traceback, pydantic's internals): a liar that
# wants to pass says it does not contain them, and contains everything else.
_GIVE_AWAY = ("Traceback", 'File "', "https://", "[type=", "input_value=", "'loc'", "'msg'")


class AlwaysEqual:
    """Equal to everything, contains everything, true, and any key or attribute is itself."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        return 1

    def __contains__(self, item: object) -> bool:
        return item not in _GIVE_AWAY

    def __iter__(self) -> Any:
        return iter(())

    def __getitem__(self, key: object) -> AlwaysEqual:
        return self

    def get(self, key: object, default: object = None) -> AlwaysEqual:
        return self

    def __repr__(self) -> str:
        return "AlwaysEqual()"


class YesStr(str):
    """A str that equals every value, contains every word and starts with anything."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__

    def __contains__(self, item: object) -> bool:
        return item not in _GIVE_AWAY

    def startswith(self, *args: Any) -> bool:
        return True

    def lower(self) -> YesStr:
        return self


class YesDict(dict):
    """A dict that equals every value and answers every key with a liar (True for 'ok')."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def get(self, key: Any, default: Any = None) -> Any:
        return True if key == "ok" else YesStr("")

    def __getitem__(self, key: Any) -> Any:
        return self.get(key)

    def __contains__(self, key: object) -> bool:
        return True


class YesList(list):
    """A list that equals every value and contains none of the items a check looks for."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def __contains__(self, item: object) -> bool:
        return False


LIARS: dict[str, Any] = {
    "always-equal": AlwaysEqual(),
    "str-subclass": YesStr("anything"),
    "dict-subclass": YesDict(),
    "list-subclass": YesList(),
}
