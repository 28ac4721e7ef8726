"""Chapter 10 checks reject the careless MCP code a student is likely to write.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`),
or a version written the way the peers' bugs were. The references are the package's own pieces
(`toolsys.mcp`), so passing them here also proves that the package passes its own checks.
"""

from __future__ import annotations

import pytest

from tests.solution_code import answer, verdict

# -- 10.1 ------------------------------------------------------------------------------------

_TEXT = 'text = " ".join(part for part in (error["message"], error.get("suggestion", "")) if part)'


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            [
                (
                    '    error = envelope["error"]\n',
                    '    raise RuntimeError(envelope["error"]["message"])\n',
                )
            ],
            "never raise",
        ),
        ([('"isError": True,', '"isError": False,')], "Raising instead"),
        ([(_TEXT, 'text = error["message"]')], "Raising instead"),
        ([(_TEXT, 'text = error["message"] + " " + error.get("suggestion", "")')], "trailing"),
        ([('"_meta": {"toolsys/error": error},', "")], "_meta"),
        (
            [("value if isinstance(value, str) else json.dumps(value)", "json.dumps(value)")],
            "quotes",
        ),
        ([("value if isinstance(value, str) else json.dumps(value)", "str(value)")], "JSON text"),
        (
            [
                (
                    'return {"content": [{"type": "text", "text": text}], "isError": False}',
                    'return {"content": [{"type": "text", "text": text}]}',
                )
            ],
            "JSON text",
        ),
    ],
    ids=[
        "raises-a-protocol-error",
        "failure-as-success",
        "suggestion-dropped",
        "trailing-space",
        "no-meta",
        "string-quoted",
        "python-repr",
        "no-is-error-key",
    ],
)
def test_a_wrong_error_mapping_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("10.1", answer("10.1", *changes)).text()


def test_a_result_object_that_only_looks_right_is_rejected() -> None:
    class Anything(dict):
        def __eq__(self, other: object) -> bool:
            return True

    assert "must be a dict" in verdict("10.1", lambda envelope: Anything()).text()


# -- 10.2 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([('    if not trusted:\n        return "execute"\n', "")], "untrusted server"),
        ([("if isinstance(v, bool)", "if v is not None")], "Only the booleans"),
        (
            [("{**SPEC_DEFAULTS, **given}", "{**SPEC_DEFAULTS, **(annotations or {})}")],
            "Only the booleans",
        ),
        (
            [
                (
                    '"execute" if hints["openWorldHint"] else "write"',
                    '"execute" if given.get("openWorldHint") else "write"',
                )
            ],
            "fails",
        ),
        (
            [
                (
                    '"execute" if hints["openWorldHint"] else "write"',
                    '"execute" if hints["destructiveHint"] else "write"',
                )
            ],
            "closed world",
        ),
        ([("(annotations or {}).items()", "annotations.items()")], "never raise"),
    ],
    ids=[
        "believes-untrusted",
        "none-overrides-default",
        "truthy-strings",
        "missing-open-world-is-closed",
        "destructive-decides",
        "crashes-on-none",
    ],
)
def test_a_wrong_trust_rule_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("10.2", answer("10.2", *changes)).text()


def test_codex_style_fail_open_on_missing_annotations_is_rejected() -> None:
    def fail_open(annotations: dict | None, trusted: bool) -> str:
        if not trusted:
            return "execute"
        hints = annotations or {}
        if hints.get("destructiveHint") or hints.get("openWorldHint"):
            return "execute"
        return "read" if hints.get("readOnlyHint", True) else "write"

    assert "fails open" in verdict("10.2", fail_open).text()


# -- 10.3 ------------------------------------------------------------------------------------

_LOOP = """    def make_call(remote_name):
        def call(**arguments):
            return call_remote(remote_name, arguments)

        return call

    for name, tool in zip(names, listing, strict=True):
        registry[name] = make_call(tool["name"])
"""
_LATE = """    for name, tool in zip(names, listing, strict=True):
        def call(**arguments):
            return call_remote(tool["name"], arguments)

        registry[name] = call
"""
_ADD_ONE_BY_ONE = """        if name in registry:
            raise ValueError(f"{name!r} is taken")
        registry[name] = make_call(tool["name"])
"""
_CHECK = """    for name in names:
        if name in registry or names.count(name) > 1:
            raise ValueError(
                f"Cannot import {name!r}: that name is taken. Choose another prefix; "
                "nothing was imported."
            )
"""


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([(_LOOP, _LATE)], "last value"),
        ([('make_call(tool["name"])', "make_call(name)")], "server's own name"),
        (
            [("call_remote(remote_name, arguments)", "call_remote(remote_name, **arguments)")],
            "never raise",
        ),
        ([("f\"{prefix}__{tool['name']}\"", "f\"{prefix}_{tool['name']}\"")], "prefix + '__'"),
        ([(" or names.count(name) > 1", "")], "clash with each other"),
        ([(_CHECK, "")], "overwritten"),
        (
            [(_CHECK, ""), ('        registry[name] = make_call(tool["name"])\n', _ADD_ONE_BY_ONE)],
            "import nothing",
        ),
        ([("    return names\n", "    return list(registry)\n")], "returns those new names"),
    ],
    ids=[
        "late-binding",
        "prefixed-name-to-server",
        "arguments-spread",
        "one-underscore",
        "duplicates-in-listing",
        "overwrites",
        "half-import",
        "returns-all-names",
    ],
)
def test_a_wrong_prefix_import_is_rejected(changes: list[tuple[str, str]], words: str) -> None:
    assert words in verdict("10.3", answer("10.3", *changes)).text()
