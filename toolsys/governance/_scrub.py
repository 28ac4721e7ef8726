"""Keeping secrets out of an audit record: by key name, by value, by the known shapes.

A value under a key that names a secret (`DEFAULT_REDACT_KEYS`) is replaced whole. How a word
names a key: one of five or more letters anywhere in it, case, `-`, `_` and spaces ignored
(`password` matches `db_password` and `newpassword`); a shorter one only as a whole word of the
key (split at `_`, `-`, spaces, dots, digits and lower-to-upper case: `pin` matches `pin`,
`card_pin`, `pinCode`, never `spinner` or `shipping`; `key` matches `api_key` and `sessionKey`,
never `monkey` or `keyword`); a word ending in `*` any word of the key that starts with it
(`session*` matches `session`, `sessionid`, `SessionToken`). `idempotency_key` is not a secret
(it names a write so that a retry can be recognised: toolsys.layers.Idempotency) and is kept.
The value taken out is then looked for in every other text of the record (an error message
that echoes the password). So is a value a text shows to be secret by its context (a URL's
password, a Bearer token). Then every text goes through `toolsys._redact.redact_secrets` (the
environment's secrets, known token shapes, `add_secret`...).

How, in two walks over the arguments (`Redactor.prepare`): the first turns them into plain JSON
data (`toolsys._sendable` for anything that is not already: a pydantic model or a dataclass
becomes an object whose keys are checked like any other), replaces what is under a secret key
and gathers the values to look for elsewhere; the second cleans every text, keys included, with
the record's cleaner, which the caller then applies to the record's other texts.

Redaction runs on every string of every record, so what repeats is remembered: the verdict on
a key, the spellings of a value, the redacted form of a short text (tool names, keys, users and
codes repeat from call to call). The memory is dropped whenever the known secrets change (the
environment, `add_secret`...: `toolsys._redact` notices both).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from toolsys._redact import MIN_SECRET_LENGTH as _MIN_SECRET
from toolsys._redact import (
    REDACTED,
    context_secrets,
    known_secrets,
    redact_secrets,
    secret_spellings,
)
from toolsys._sendable import MAX_DEPTH, SAFE_INT_BITS, integer, sendable, valid_text

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
    "pin",
    "otp",
    "auth",
    "key",
    "session*",
    "cardnumber",
    "creditcard",
)
_MIN_HIDDEN = 4  # a shorter value under a secret key is not looked for elsewhere
_MEMO_CHARS, _MEMO_SIZE = 200, 4096  # texts this short are remembered redacted, this many
_TOO_DEEP = f"<nested deeper than {MAX_DEPTH} levels>"
_NOTHING: frozenset[str] = frozenset()

Cleaner = Callable[[str], str]


class Redactor:
    """`Redactor(keys)`: `prepare(arguments)` gives them clean, and the cleaner for the rest."""

    def __init__(self, keys: Iterable[str] = DEFAULT_REDACT_KEYS) -> None:
        if isinstance(keys, str):
            raise TypeError(
                f"AuditLog(redact_keys={keys!r}): give a list of key words, "
                "e.g. redact_keys=[*DEFAULT_REDACT_KEYS, 'pin']."
            )
        self.keys = tuple(_squash(str(word)) for word in keys)
        self._anywhere = tuple(w for w in self.keys if len(w) >= _ANYWHERE and "*" not in w)
        self._words = frozenset(w for w in self.keys if len(w) < _ANYWHERE and "*" not in w)
        self._starts = tuple(w.rstrip("*") for w in self.keys if w.endswith("*") and len(w) > 1)
        self._known: object = None
        self._memo: dict[str, str] = {}
        self._shown: dict[str, frozenset[str]] = {}
        self._secret_keys: dict[str, bool] = {}
        self._spelled: dict[str, tuple[str, ...]] = {}

    def refresh(self) -> None:
        """Forget what was remembered redacted once the known secrets change."""
        state = known_secrets()
        if state is not self._known:
            self._known, self._memo, self._shown = state, {}, {}

    def prepare(self, arguments: Any) -> tuple[Any, Cleaner]:
        """`arguments` as plain JSON data with every secret taken out, and the cleaner for the
        record's other texts (which knows the values taken out of these arguments)."""
        if type(arguments) is dict:
            flat = self._remembered(arguments)
            if flat is not None:
                return flat, self.cleaner(_NOTHING)
        plain, found, changed = self.scrub(arguments)
        clean = self.cleaner(found)
        if found or changed:
            return _cleaned(plain, clean), clean
        return plain, clean  # every text is already what `clean` would make it

    def _remembered(self, arguments: dict[Any, Any]) -> dict[str, Any] | None:
        """`scrub(arguments)` for the common case, answered from what earlier records
        remembered: flat arguments (texts, numbers, booleans, None) whose keys are known not to
        name a secret and whose texts are known to hold none. A copy, as `scrub` gives (nothing
        found, nothing changed); None when any part has not been seen yet or is not that simple:
        then the full walk looks (and remembers)."""
        self.refresh()
        secret_keys, shown, memo = self._secret_keys, self._shown, self._memo
        for key, item in arguments.items():
            if type(key) is not str or secret_keys.get(key) is not False:
                return None
            for node in (key, item) if type(item) is str else (key,):
                if not node.isascii():
                    return None
                if len(node) >= _MIN_HIDDEN and (
                    len(node) > _MEMO_CHARS or shown.get(node) != _NOTHING or memo.get(node) != node
                ):
                    return None
            kind = type(item)
            if kind is str or item is None or kind is bool or (kind is float and item - item == 0):
                continue
            if kind is not int or item.bit_length() > SAFE_INT_BITS:
                return None
        return dict(arguments)

    def cleaner(self, also: AbstractSet[str]) -> Cleaner:
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

    def _spellings(self, values: AbstractSet[str]) -> list[str]:
        """Every spelling of each value (raw, JSON-escaped, percent-encoded), longest first."""
        cache = self._spelled
        found: set[str] = set()
        for value in values:
            known = cache.get(value)
            if known is None:
                if len(cache) >= _MEMO_SIZE:
                    cache.clear()
                known = cache[value] = tuple(secret_spellings((value,)))
            found.update(known)
        return sorted(found, key=len, reverse=True)

    def scrub(self, value: Any) -> tuple[Any, set[str], bool]:
        """`value` as plain JSON data with every value under a secret-named key replaced; the
        values to look for elsewhere (those taken out, and those a text shows to be secret by
        its context: the password of a URL, a Bearer token); and whether any text in it holds
        a known secret (when neither, the cleaner would change nothing)."""
        self.refresh()
        found: set[str] = set()
        changed = False
        secret_keys, shown, memo = self._secret_keys, self._shown, self._memo
        anywhere, whole, starts = self._anywhere, self._words, self._starts

        def text(node: str) -> str:
            """A text made valid, looked at for secrets shown by context and known ones."""
            nonlocal changed
            if not node.isascii():
                node = valid_text(node)
            if len(node) < _MIN_HIDDEN:
                return node
            if len(node) > _MEMO_CHARS:
                found.update(context_secrets(node))
                changed = True  # not remembered: cleaned in the second walk
                return node
            seen = shown.get(node)
            if seen is None:
                if len(shown) >= _MEMO_SIZE:
                    shown.clear()
                seen = shown[node] = frozenset(context_secrets(node))
            if seen:
                found.update(seen)
            if not changed:
                done = memo.get(node)
                if done is None:
                    if len(memo) >= _MEMO_SIZE:
                        memo.clear()
                    done = memo[node] = redact_secrets(node)
                changed = done != node
            return node

        def secret_key(key: str) -> bool:
            verdict = secret_keys.get(key)
            if verdict is None:
                if len(secret_keys) >= _MEMO_SIZE:
                    secret_keys.clear()
                squashed = _squash(key)
                parts = _words(key)
                verdict = secret_keys[key] = squashed not in _NOT_SECRET and (
                    any(word in squashed for word in anywhere)
                    or any(part in whole for part in parts)
                    or any(part.startswith(start) for part in parts for start in starts)
                )
            return verdict

        def walk(node: Any, depth: int) -> Any:
            kind = type(node)
            if kind is str:
                return text(node)
            if node is None or kind is bool:
                return node
            if kind is int:
                return integer(node)
            if kind is float and node - node == 0:  # finite: NaN and inf go to sendable
                return node
            if depth >= MAX_DEPTH:
                return _TOO_DEEP
            if kind is dict:
                out = {}
                for key, item in node.items():
                    if type(key) is not str:
                        return walk(sendable(node), depth)  # keys as JSON writes them
                    key = text(key)
                    kind = type(item)
                    if secret_key(key):
                        if kind is not str:
                            _collect(sendable(item), found)
                        elif len(item) >= _MIN_HIDDEN:
                            found.add(item)
                        out[key] = REDACTED
                    elif kind is str:
                        out[key] = text(item)
                    elif item is None or kind is bool or (kind is float and item - item == 0):
                        out[key] = item
                    else:
                        out[key] = walk(item, depth + 1)
                return out
            if kind is list or kind is tuple:
                return [walk(item, depth + 1) for item in node]
            return walk(sendable(node), depth)  # now plain data: its keys are checked too

        return walk(value, 0), found, changed


def _cleaned(node: Any, clean: Cleaner) -> Any:
    """Plain JSON data with `clean` applied to every text, keys included."""
    kind = type(node)
    if kind is str:
        return clean(node)
    if kind is dict:
        return {clean(key): _cleaned(item, clean) for key, item in node.items()}
    if kind is list:
        return [_cleaned(item, clean) for item in node]
    return node


_ANYWHERE = 5  # a word this long names a key wherever it appears in it; a shorter one, as a word
_NOT_SECRET = frozenset({"idempotencykey"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _words(key: str) -> list[str]:
    """The words of a key, lower case: `api_key`, `apiKey`, `API-KEY` give ["api", "key"]."""
    return [word.lower() for word in _WORD.findall(key)]


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
