"""Keep secrets, stack traces and machine paths out of anything a model will read.

A tool's exception message can contain an API key from the environment, a traceback, or
`/home/alice/...`. The model gains nothing from them and a log of the conversation leaks them.

What counts as a secret:
- the value of an environment variable whose *name* says so (`SECRET_WORDS` anywhere in it, or
  ending in one of `SECRET_ENDINGS`: `MYSQL_PWD`, `GH_PAT`, but not `SSH_AUTH_SOCK` or
  `DESKTOP_SESSION`), at least 4 characters long and not a bare number or true/false;
- the value of *any* environment variable that looks generated: 16+ characters of letters and
  digits (and `-_+/=`), no dots, colons or spaces, switching often between lower case, upper
  case and digits (`3f2a9c1d8e7b6a5f`, not `gpt-4o-mini-2024-07-18` or `x86_64-linux-gnu`);
- for each of those, also its percent-encoded and JSON/Python-escaped spellings, and its first
  8+ characters where a cut left them (before the end of the text, "...", "…" or a quote; for a
  generated-looking value, anywhere);
- text of a known shape, in no variable at all: OpenAI/Anthropic `sk-...`, GitHub `ghp_`/`gho_`/
  `github_pat_`, AWS `AKIA...`, Slack `xox?-`, Google `AIza...`, Stripe, GitLab and Hugging Face
  keys, JWTs, `Bearer <token>`, `Authorization: ...`, `password=...`, the password in
  `scheme://user:password@host`, PEM private keys;
- what you add: `add_secret(value)`, `add_secret_name(word)`, `add_secret_pattern(regex)`.

Redaction works on text *values* (a string in a result, a message, a key in `details`), before
they are cut short or encoded as JSON: a secret containing `"` or `\\` is found before JSON
escapes it, and one that a length limit would cut is removed whole. The environment is scanned
again only when it changed (one dict comparison per call, not one scan; one per error envelope,
`redactor()`).

Chapter 04 builds this by hand first: notebooks/04_errors.ipynb; it also says what redaction
cannot promise.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote, quote_plus

__all__ = [
    "REDACTED",
    "add_secret",
    "add_secret_name",
    "add_secret_pattern",
    "context_secrets",
    "redact",
    "redact_secrets",
    "secret_values",
]

SECRET_WORDS = (
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "PRIVATE",
    "COOKIE",
    "DATABASE_URL",
    "CONNECTION_STRING",
)
SECRET_ENDINGS = ("PASS", "PWD", "AUTH", "DSN", "PAT", "CREDS", "SIG")  # as the name's last part
REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 4
_MIN_CUT_LENGTH = 8  # this much of the start of a secret, cut off, is still redacted
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})  # the shell's working directories
_NOT_SECRET_VALUES = frozenset({"true", "false", "yes", "no", "none", "null", "on", "off"})
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_+/=-]{16,}")
_MIN_SWITCH_RATE = 0.25  # random tokens switch class (a/A/0) at about half their characters

_TRACEBACK_START = "Traceback (most recent call last):"
_TRACEBACK = re.compile(re.escape(_TRACEBACK_START) + ".*", re.DOTALL)
_POSIX_PATH = re.compile(r"(?<![\w.~/-])/(?:[^\s/'\"()\[\]{},;:<>|]+/)+[^\s/'\"()\[\]{},;:<>|]*")
_WINDOWS_PATH = re.compile(r"\b[A-Za-z]:\\(?:[^\s\\'\"<>|]+\\)+[^\s\\'\"<>|]*")

# How a secret gets escaped on its way into text: JSON (ASCII or not) and Python's repr.
_ESCAPES = (
    lambda text: json.dumps(text)[1:-1],
    lambda text: json.dumps(text, ensure_ascii=False)[1:-1],
    lambda text: text.encode("unicode_escape").decode("ascii"),
)
_CUT = re.compile(r"\Z|\.\.\.|…|['\"]")  # where a cut (or a quoted excerpt) ends
_GH = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")

# (triggers, pattern). A pattern runs only when one of its triggers is in the lower-cased text:
# a substring test is far cheaper than a regular expression scan. A match becomes its `keep`
# group (what says what was there: "Bearer ") + [redacted]; a `secret` group is a value known
# only by its context, which `context_secrets` reports so it can be found elsewhere alone.
_SHAPES: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("private key-----",),
        re.compile(
            r"(?P<keep>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?P<secret>.*?)"
            r"(?=-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
    ),
    (("sk-",), re.compile(r"\bsk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{8,}")),
    (("k_live_", "k_test_"), re.compile(r"\b[spr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    (_GH, re.compile(r"\bgh[pousr]_[A-Za-z0-9]{8,}")),
    (("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{8,}")),
    (("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_-]{8,}")),
    (("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    (("akia", "asia"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{6,}")),
    (("aiza",), re.compile(r"\bAIza[0-9A-Za-z_-]{8,}")),
    (("eyj",), re.compile(r"\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,2}")),  # a JWT
    (  # the start of a token of a known shape that a cut left behind
        ("sk-", *_GH, "github_pat_", "glpat-", "hf_", "akia", "asia", "xox", "aiza"),
        re.compile(
            r"(?:\bsk-|\bgh[pousr]_|\bgithub_pat_|\bglpat-|\bhf_|\bAKIA|\bASIA|\bxox[abposr]-|"
            r"\bAIza)[A-Za-z0-9_-]{4,}(?=\Z|\.\.\.|…|['\"])"
        ),
    ),
    (
        ("bearer",),
        re.compile(
            r"(?i)\b(?P<keep>bearer\s+)(?P<secret>(?:(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{8,}"
            r"|[A-Za-z0-9._~+/-]{20,})=*)"
        ),
    ),
    (
        ("authorization",),
        re.compile(
            r"(?i)\b(?P<keep>authorization[\"']?\s*[:=]\s*[\"']?(?:(?:basic|bearer|token)\s+)?)"
            r"(?!(?:basic|bearer|token)\b)(?P<secret>[^\s,;\"'<>\[]{6,})"
        ),
    ),
    (
        ("apikey", "api_key", "api-key", "token", "secret", "passw"),
        re.compile(
            r"(?i)\b(?P<keep>(?:api[_-]?key|access[_-]?token|refresh[_-]?token|auth[_-]?token|"
            r"client[_-]?secret|password|passwd|secret)[\"']?\s*(?:=|:\s*[\"']))"
            r"(?P<secret>[^\s\"'&,;<>\[][^\s\"'&,;<>]*)"
        ),
    ),
    (  # scheme://user:password@host (also scheme:/user:... as a Path writes a URL)
        (":/",),
        re.compile(r"(?P<keep>:/+[^\s/:@\"'<>]*:)(?P<secret>[^\s/@\"'<>\[][^\s/@\"'<>]*)(?=@)"),
    ),
]
_MIN_CONTEXT_SECRET = 6  # a shorter value seen in context is not looked for elsewhere
# Any shape's trigger, in one search: most texts hold none, and then no shape is tried.


def _one_of(words: list[str]) -> str:
    """A pattern matching any of `words`, as a tree of shared starts (`a(?:iza|kia)`, not
    `aiza|akia`): the regex engine then tries one branch per character, not one per word."""
    if "" in words:
        rest = [word for word in words if word]
        return f"(?:{_one_of(rest)})?" if rest else ""
    by_start: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        by_start.setdefault(word[0], []).append(word[1:])
    branches = [re.escape(start) + _one_of(ends) for start, ends in by_start.items()]
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"


_ANY_TRIGGER = re.compile(_one_of([t for ts, _ in _SHAPES for t in ts]))

_added_values: dict[str, None] = {}
_added_words: dict[str, None] = {}
_added_patterns: list[re.Pattern[str]] = []
_generation = 0  # bumped by every add_*: the cached scan is then stale
_cache: tuple[dict[object, object] | None, int, tuple[str, ...], tuple[str, ...]] = (
    None,
    -1,
    (),
    (),
)


def add_secret(value: str) -> None:
    """Redact this exact text (and its encoded spellings) from every message from now on."""
    global _generation
    if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
        raise ValueError(
            f"add_secret({value!r}): a secret is a str of at least {MIN_SECRET_LENGTH} "
            "characters; a shorter one would redact ordinary text everywhere."
        )
    _added_values[value] = None
    _generation += 1


def add_secret_name(word: str) -> None:
    """Treat environment variables whose name contains `word` (any case) as secret."""
    global _generation
    if not isinstance(word, str) or not word.strip():
        raise ValueError(f"add_secret_name({word!r}): give a word such as 'LICENSE'.")
    _added_words[word.strip().upper()] = None
    _generation += 1


def add_secret_pattern(pattern: str | re.Pattern[str]) -> None:
    """Redact every match of this regular expression, e.g. r"acme-[0-9a-f]{32}"."""
    global _generation
    compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
    if not isinstance(compiled, re.Pattern) or compiled.search("") is not None:
        raise ValueError(
            f"add_secret_pattern({pattern!r}): the pattern matches empty text, so it would "
            "redact between every two characters; make it match at least one character."
        )
    _added_patterns.append(compiled)
    _generation += 1


def secret_values() -> list[str]:
    """Every secret value known now (environment and `add_secret`), longest first."""
    return list(known_secrets()[2])


def redact(text: str) -> str:
    """Remove tracebacks, secrets and absolute paths outside the working directory."""
    _, _, values, spellings = known_secrets()
    return _redact(values, spellings, text)


def redactor() -> Callable[[str], str]:
    """`redact` for the texts of one envelope (a message, a suggestion, every key and string of
    its details): the secrets known now, the environment compared once for all of them."""
    _, _, values, spellings = known_secrets()
    return partial(_redact, values, spellings)


def _redact(values: tuple[str, ...], spellings: tuple[str, ...], text: str) -> str:
    # Each pattern is tried only when its literal part is in the text: it cannot match otherwise.
    if _TRACEBACK_START in text:
        text = _TRACEBACK.sub("(traceback removed)", text)
    text = _secrets(values, spellings, text)
    if "/" in text:
        text = _POSIX_PATH.sub(_shorten_path, text)
    if ":\\" in text:
        text = _WINDOWS_PATH.sub(_shorten_path, text)
    return text


def redact_secrets(text: str, also: Iterable[str] = ()) -> str:
    """Only the secrets: for successful results, whose paths may be the point.

    `also`: more secret values for this call, e.g. the `context_secrets` of a whole transcript.
    """
    _, _, values, spellings = known_secrets()
    if also:
        values = tuple(sorted({*values, *also}, key=len, reverse=True))
        spellings = tuple(secret_spellings(values))
    return _secrets(values, spellings, text)


def _secrets(values: tuple[str, ...], spellings: tuple[str, ...], text: str) -> str:
    for spelling in spellings:
        if spelling in text:
            text = text.replace(spelling, REDACTED)
    for value in values:
        text = _partial_secret(text, value)
    lower = text.lower()
    if _ANY_TRIGGER.search(lower) is not None:
        for triggers, pattern in _SHAPES:
            if any(trigger in lower for trigger in triggers):
                text = pattern.sub(_keep, text)
    for pattern in _added_patterns:
        text = pattern.sub(REDACTED, text)
    return text


def context_secrets(text: str) -> set[str]:
    """Values that `text` shows to be secret only by their context: the password of a URL,
    the token after "Bearer ", the value of password=..., the lines of a private key.

    Redacting a whole transcript with them (`redact_secrets(text, also=...)`) also catches the
    value where it appears alone, e.g. when a model copied the password out of the URL.
    """
    found: set[str] = set()
    lower = text.lower()
    for triggers, pattern in _SHAPES:
        if "secret" not in pattern.groupindex or not any(t in lower for t in triggers):
            continue
        for match in pattern.finditer(text):
            for value in (match["secret"], *match["secret"].splitlines()):
                value = value.strip()
                if len(value) >= _MIN_CONTEXT_SECRET and REDACTED not in value:
                    found.add(value)
    return found


def _is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says that its value is secret."""
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES:
        return False
    if any(word in upper for word in (*SECRET_WORDS, *_added_words)):
        return True
    return re.split(r"[^A-Z0-9]+", upper.rstrip("_"))[-1] in SECRET_ENDINGS


def _looks_generated(value: str) -> bool:
    """Whether a value looks like a generated token (hex, base64, an API key), not a word."""
    if not _TOKEN_CHARS.fullmatch(value) or value.startswith("/"):
        return False
    chars = [c for c in value if c.isalnum()]
    digits = sum(c.isdigit() for c in chars)
    if len(chars) < 14 or digits < 1 or len(chars) - digits < 2:
        return False
    switches = sum(_kind(a) != _kind(b) for a, b in pairwise(chars))
    return switches / (len(chars) - 1) >= _MIN_SWITCH_RATE


def _environment_secrets(environ: Mapping[str, str]) -> set[str]:
    """The values in `environ` that are secret by name or by shape."""
    found = set()
    for name, value in environ.items():
        by_name = (
            _is_secret_name(name)
            and len(value) >= MIN_SECRET_LENGTH
            and value.strip().lower() not in _NOT_SECRET_VALUES
            and not (value.isdigit() and len(value) < 8)
        )
        if by_name or _looks_generated(value):
            found.add(value)
    return found


def secret_spellings(values: Iterable[str]) -> list[str]:
    """Each value as written raw, percent-encoded, and escaped once or twice (JSON, Python
    repr), as in a JSON string inside JSON arguments; longest first."""
    found: set[str] = set()
    for value in values:
        escaped = {value, *(escape(value) for escape in _ESCAPES)}
        found |= escaped | {escape(text) for text in escaped for escape in _ESCAPES}
        found |= {quote(value, safe=""), quote(value), quote_plus(value)}
    return sorted(found, key=len, reverse=True)


def _keep(match: re.Match[str]) -> str:
    return (match.groupdict().get("keep") or "") + REDACTED


def _kind(char: str) -> int:
    return 0 if char.isdigit() else 1 if char.isupper() else 2


def _environ_snapshot() -> dict[object, object]:
    data = getattr(os.environ, "_data", None)  # CPython keeps the raw dict here: cheap to compare
    if isinstance(data, dict):
        return data
    return dict(os.environ.items())


def known_secrets() -> tuple[dict[object, object] | None, int, tuple[str, ...], tuple[str, ...]]:
    """(environment snapshot, generation, secret values, their spellings), recomputed on change."""
    global _cache
    cache = _cache
    current = _environ_snapshot()
    if cache[1] == _generation and cache[0] == current:
        return cache
    values = _environment_secrets(os.environ) | set(_added_values)
    ordered = tuple(sorted(values, key=len, reverse=True))
    _cache = (dict(current), _generation, ordered, tuple(secret_spellings(ordered)))
    return _cache


def _partial_secret(text: str, secret: str) -> str:
    """Redact the start of `secret` (8+ characters, not a plain word) that a cut left behind.

    Behind a cut means before the end of the text, "...", "…" or a quote (an excerpt). A
    secret that looks generated is random enough that its start is redacted anywhere.
    """
    if len(secret) <= _MIN_CUT_LENGTH:
        return text
    head = secret[:_MIN_CUT_LENGTH]
    at = text.find(head)
    anywhere = at != -1 and _looks_generated(secret)
    while at != -1:
        end = at + _MIN_CUT_LENGTH
        while end < len(text) and end - at < len(secret) and text[end] == secret[end - at]:
            end += 1
        if (anywhere or _CUT.match(text, end)) and not text[at:end].isalpha():
            text = text[:at] + REDACTED + text[end:]
            end = at + len(REDACTED)
        at = text.find(head, end)
    return text


def _shorten_path(match: re.Match[str]) -> str:
    text = match.group(0)
    try:
        return str(Path(text).relative_to(Path.cwd()))
    except (ValueError, OSError):  # outside the working directory, or no working directory
        name = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        return f"<path>/{name}" if name else "<path>"
