"""Tool names: what every provider accepts, what a model confuses, and what a prefix makes.

OpenAI and Anthropic accept only `^[A-Za-z0-9_-]{1,64}$` (`check_name`). Two names a model
confuses may not both be registered (`normalize`). And one rule puts a prefix on a name,
wherever a prefix is given (a namespace, `include`, a `Toolkit`, an OpenAPI document, an imported
MCP server): `qualified("billing", "refund") == "billing__refund"`.

Why `__`, not a dot or one `_`: `billing.refund` cannot be sent; a single `_` is ambiguous
(`billing_refund` could be the root tool `billing_refund`), while `__` can be split back into
namespace and tool (`split`), is what MCP clients already send (`mcp__server__tool`), and reads as
one token boundary to a tokenizer. Prefix parts may therefore not contain `__` or start or end
with `_`. The 64-character limit holds for the qualified name: a name that would be longer is
refused when the tool is registered, and never reached by calling a shorter name.

Chapter 09 builds the prefix merge by hand and compares its names with these:
notebooks/09_composition.ipynb.
"""

from __future__ import annotations

import re

from toolsys.errors import ToolDefinitionError

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SEPARATOR = "__"
_PART = r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*"
_PREFIX = re.compile(rf"^{_PART}(?:__{_PART})*$")
_QUALIFIED = re.compile(rf"^((?:{_PART}__)+)(.+)$")
_CAMEL_WORDS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[-_]+")


def check_name(name: str) -> None:
    """Reject names OpenAI and Anthropic would refuse, with the rule spelled out."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ToolDefinitionError(
            f"Tool name {name!r} cannot be exported: providers accept 1-64 characters from "
            "A-Z, a-z, 0-9, '_' and '-'. Rename it, e.g. "
            f"{re.sub(r'[^A-Za-z0-9_-]+', '_', str(name))[:64].strip('_') or 'my_tool'!r}."
        )


def normalize(name: str) -> str:
    """The form two names must not share, because a model confuses them: case, `-` or `_`, and
    camelCase word boundaries are ignored (`getWeather`, `Get-Weather` -> `get_weather`,
    `HTTPRequest` -> `http_request`)."""
    return _SEPARATORS.sub("_", _CAMEL_WORDS.sub("_", name)).lower()


def check_prefix(prefix: str) -> None:
    """Refuse a prefix that is not wire-safe or could not be split off again."""
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        hint = f" (without the trailing '_': {prefix.rstrip('_')!r})" if _trailing(prefix) else ""
        raise ToolDefinitionError(
            f"Namespace prefix {prefix!r} is not usable{hint}: use letters, digits, '-' and "
            "single '_' (no dots, no '__', not starting or ending with '_'), e.g. 'billing'; "
            f"tools are then named 'billing{SEPARATOR}refund'. Nest with '{SEPARATOR}' "
            "('shop__billing')."
        )


def _trailing(prefix: object) -> bool:
    return isinstance(prefix, str) and prefix.endswith("_") and bool(prefix.rstrip("_"))


def qualified(prefix: str, name: str) -> str:
    """The wire name of tool `name` under `prefix`: `billing__refund`, at most 64 characters."""
    check_prefix(prefix)
    full = f"{prefix}{SEPARATOR}{name}"
    if not NAME_PATTERN.match(full):
        raise ToolDefinitionError(
            f"Tool {name!r} under the prefix {prefix!r} would be named {full!r} ({len(full)} "
            "characters); providers accept 1-64 characters from A-Z, a-z, 0-9, '_' and '-'. "
            "Use a shorter prefix or tool name."
        )
    return full


def qualified_or_none(prefix: str, name: object) -> str | None:
    """`qualified(prefix, name)` for a name a caller sent (a prefix already checked): None when
    it cannot be one, so it reaches no tool, never a tool outside the prefix."""
    if not isinstance(name, str):
        return None
    full = f"{prefix}{SEPARATOR}{name}"
    return full if NAME_PATTERN.match(full) else None


def split(name: str) -> tuple[str | None, str]:
    """(namespace, short name) of a wire name: `shop__billing__refund` -> ("shop__billing",
    "refund"); a name outside any namespace -> (None, name)."""
    match = _QUALIFIED.match(name)
    if match is None:
        return None, name
    return match.group(1)[: -len(SEPARATOR)], match.group(2)


__all__ = [
    "NAME_PATTERN",
    "SEPARATOR",
    "check_name",
    "check_prefix",
    "normalize",
    "qualified",
    "qualified_or_none",
    "split",
]
