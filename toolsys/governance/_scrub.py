"""Keeping secrets out of an audit record: by key name, by value, by the known shapes.

A value under a key that names a secret (`DEFAULT_REDACT_KEYS`: any key containing one of the
words, case, `-`, `_` and spaces ignored) is replaced whole, and that same value is then looked
for in every other text of the record (an error message that echoes the password). So is a value
a text shows to be secret by its context (a URL's password, a Bearer token). Then every text
goes through `toolsys._redact.redact_secrets` (the environment's secrets, known token shapes,
`add_secret`...).

Redaction runs on every string of every record, so what repeats is remembered: the verdict on
a key, the spellings of a value, the redacted form of a short text (tool names, keys, users and
codes repeat from call to call). The memory is dropped whenever the known secrets change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolsys._redact import _MIN_SECRET_LENGTH as _MIN_SECRET
from toolsys._redact import REDACTED, _known, _spellings, context_secrets, redact_secrets

DEFAULT_REDACT_KEYS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "private_key",
    "card",
    "cvv",
    "cvc",
    "iban",
    "ssn",
)
_MIN_HIDDEN = 4  # a shorter value under a secret key is not looked for elsewhere
_MEMO_CHARS, _MEMO_SIZE = 200, 4096  # texts this short are remembered redacted, this many


class Redactor:
    """`Redactor(keys)`: `scrub(arguments)` then `cleaner(found)` for every text of a record."""

    def __init__(self, keys: Iterable[str] = DEFAULT_REDACT_KEYS) -> None:
        if isinstance(keys, str):
            raise TypeError(
                f"AuditLog(redact_keys={keys!r}): give a list of key words, "
                "e.g. redact_keys=[*DEFAULT_REDACT_KEYS, 'pin']."
            )
        self.keys = tuple(_squash(str(word)) for word in keys)
        self._known: object = None
        self._memo: dict[str, str] = {}
        self._shown: dict[str, frozenset[str]] = {}
        self._secret_keys: dict[str, bool] = {}
        self._spelled: dict[str, tuple[str, ...]] = {}

    def refresh(self) -> None:
        """Forget what was remembered redacted once the known secrets change."""
        state = _known()
        if state is not self._known:
            self._known, self._memo, self._shown = state, {}, {}

    def cleaner(self, also: set[str]) -> Callable[[str], str]:
        """A redactor for one record: its own secret values (every spelling), then every known
        secret, remembered for short texts while the known secrets stay the same (tool names,
        keys, users and codes repeat from call to call)."""
        memo = self._memo
        extra = self._spellings(also) if also else ()

        def clean(text: str) -> str:
            for spelling in extra:
                if spelling in text:
                    text = text.replace(spelling, REDACTED)
            if len(text) < _MIN_SECRET:
                return text
            if len(text) > _MEMO_CHARS:
                return redact_secrets(text)
            done = memo.get(text)
            if done is None:
                if len(memo) >= _MEMO_SIZE:
                    memo.clear()
                done = memo[text] = redact_secrets(text)
            return done

        return clean

    def _spellings(self, values: set[str]) -> list[str]:
        """Every spelling of each value (raw, JSON-escaped, percent-encoded), longest first."""
        cache = self._spelled
        found: set[str] = set()
        for value in values:
            known = cache.get(value)
            if known is None:
                if len(cache) >= _MEMO_SIZE:
                    cache.clear()
                known = cache[value] = tuple(_spellings((value,)))
            found.update(known)
        return sorted(found, key=len, reverse=True)

    def scrub(self, value: Any) -> tuple[Any, set[str]]:
        """`value` with every value under a secret-named key replaced, and the values to look
        for elsewhere: those taken out, and those a text shows to be secret by its context (the
        password of a URL, a Bearer token)."""
        self.refresh()
        found: set[str] = set()
        secret_keys, shown = self._secret_keys, self._shown

        def secret_key(key: str) -> bool:
            verdict = secret_keys.get(key)
            if verdict is None:
                if len(secret_keys) >= _MEMO_SIZE:
                    secret_keys.clear()
                squashed = _squash(key)
                verdict = secret_keys[key] = any(word in squashed for word in self.keys)
            return verdict

        def look(text: str) -> None:
            if len(text) < _MIN_HIDDEN:
                return
            if len(text) > _MEMO_CHARS:
                found.update(context_secrets(text))
                return
            seen = shown.get(text)
            if seen is None:
                if len(shown) >= _MEMO_SIZE:
                    shown.clear()
                seen = shown[text] = frozenset(context_secrets(text))
            found.update(seen)

        def walk(node: Any, depth: int) -> Any:
            if depth > 100:
                return "[too deep]"
            if isinstance(node, str):
                look(node)
                return node
            if isinstance(node, Mapping):
                out = {}
                for key, item in node.items():
                    if isinstance(key, str):
                        look(key)
                        if secret_key(key):
                            _collect(item, found)
                            out[key] = REDACTED
                            continue
                    out[key] = walk(item, depth + 1)
                return out
            if isinstance(node, list | tuple):
                return [walk(item, depth + 1) for item in node]
            return node

        return walk(value, 0), found


def _squash(word: str) -> str:
    return word.lower().replace("_", "").replace("-", "").replace(" ", "")


def _collect(node: Any, found: set[str]) -> None:
    """Every scalar inside `node`, as text, long enough to look for elsewhere."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str | int | float) and not isinstance(item, bool):
            text = str(item)
            if len(text) >= _MIN_HIDDEN:
                found.add(text)
