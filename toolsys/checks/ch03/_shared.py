"""How the chapter 03 checks compare a student's schema with the one `toolsys` gives.

Equivalent spellings are made equal first (no `required` is `required: []`), and the hint that
applies is picked by the key where the two schemas differ.
"""

from __future__ import annotations

from typing import Any

from toolsys.checks import CheckFailed, Described, expect_plain
from toolsys.checks._plain import difference


def _normal(schema: Any) -> Any:
    """Equivalent spellings made equal: no `required` = `required: []`, `items: {}` = no items.

    Only called on plain data (exact dicts and lists), so nothing here asks a student's object.
    """
    if type(schema) is list:
        return [_normal(item) for item in schema]
    if type(schema) is not dict:
        return schema
    out = {key: _normal(value) for key, value in schema.items()}
    if out.get("required") == []:
        del out["required"]
    if out.get("items") == {}:
        del out["items"]
    return out


def compare_schema(
    got: Any, expected: Any, what: str, hint: str, by_key: dict[str, str] | None = None
) -> None:
    """Fail unless `got` is the schema toolsys gives; the hint follows where they differ."""
    expect_plain(got, what=what, shape="a dict (a JSON Schema) of plain JSON values", hint=hint)
    if type(got) is not dict:
        raise CheckFailed(
            f"{what} should return a dict.",
            expected=Described("a dict (a JSON Schema)"),
            got=got,
            hint=hint,
        )
    problem = difference(_normal(got), _normal(expected), "the result")
    if problem is not None:
        keyed = [h for key, h in (by_key or {}).items() if repr(key) in problem]
        raise CheckFailed(
            f"{what} differs from toolsys: {problem}.",
            expected=expected,
            got=got,
            hint=keyed[0] if keyed else hint,
        )
