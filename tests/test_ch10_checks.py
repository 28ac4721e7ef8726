"""Chapter 10 checks reject the careless MCP code a student is likely to write.

Each wrong answer is the solution notebook's own answer with one change (`tests/solution_code`),
or a version written the way the peers' bugs were. The references are the package's own pieces
(`toolsys.mcp`), so passing them here also proves that the package passes its own checks.
"""

from __future__ import annotations

import ast
from typing import Any

import pytest

from tests.solution_code import answer, drop, swap, verdict
from toolsys.checks import Status

# -- 10.1 ------------------------------------------------------------------------------------

_TEXT = 'text = " ".join(part for part in (error["message"], error.get("suggestion", "")) if part)'


_FAILURE = (
    "{'content': [{'type': 'text', 'text': text}], 'isError': True, "
    "'_meta': {'toolsys/error': error}}"
)


def _every_hint_believed(tree: ast.Module) -> None:
    """`{**SPEC_DEFAULTS, **given}` -> `{**SPEC_DEFAULTS, **(annotations or {})}`: every hint
    believed, a string or a number too (a change of the syntax tree)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and [ast.unparse(v) for v in node.values] == [
            "SPEC_DEFAULTS",
            "given",
        ]:
            node.values[1] = ast.parse("annotations or {}", mode="eval").body
    ast.fix_missing_locations(tree)


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        (
            [
                swap(
                    '    error = envelope["error"]\n',
                    '    raise RuntimeError(envelope["error"]["message"])\n',
                )
            ],
            "never raise",
        ),
        (
            [swap(_FAILURE, _FAILURE.replace("'isError': True", "'isError': False"))],
            "isError, a bool: True here (the call failed)",
        ),
        ([swap(_TEXT, 'text = error["message"]')], "Raising instead"),
        ([swap(_TEXT, 'text = error["message"] + " " + error.get("suggestion", "")')], "trailing"),
        (
            [swap(_FAILURE, "{'content': [{'type': 'text', 'text': text}], 'isError': True}")],
            "_meta",
        ),
        (
            [
                swap(
                    "value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)",
                    "json.dumps(value)",
                )
            ],
            "quotes",
        ),
        (
            [
                swap(
                    "value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)",
                    "str(value)",
                )
            ],
            "JSON text",
        ),
        (
            [
                swap(
                    'return {"content": [{"type": "text", "text": text}], "isError": False}',
                    'return {"content": [{"type": "text", "text": text}]}',
                )
            ],
            # adv2: the hint spoke of json.dumps, which the answer did
            "a success says isError False too",
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
def test_a_wrong_error_mapping_is_rejected(changes: list[Any], words: str) -> None:
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
        ([drop("if trusted is not True:\n    return 'execute'")], "untrusted server"),
        ([swap("isinstance(v, bool)", "v is not None")], "Only the booleans"),
        (
            [_every_hint_believed],
            "Only the booleans",
        ),
        (
            [
                swap(
                    '"execute" if hints["openWorldHint"] else "write"',
                    '"execute" if given.get("openWorldHint") else "write"',
                )
            ],
            "fails",
        ),
        (
            [
                swap(
                    '"execute" if hints["openWorldHint"] else "write"',
                    '"execute" if hints["destructiveHint"] else "write"',
                )
            ],
            "closed world",
        ),
        ([swap("(annotations or {}).items()", "annotations.items()")], "never raise"),
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
def test_a_wrong_trust_rule_is_rejected(changes: list[Any], words: str) -> None:
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
_CHECKED_ONE_BY_ONE = """        if name in registry or names.count(name) > 1:
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
        ([swap(_LOOP, _LATE)], "last value"),
        ([swap('make_call(tool["name"])', "make_call(name)")], "server's own name"),
        (
            [swap("call_remote(remote_name, arguments)", "call_remote(remote_name, **arguments)")],
            "never raise",
        ),
        ([swap("f\"{prefix}__{tool['name']}\"", "f\"{prefix}_{tool['name']}\"")], "prefix + '__'"),
        (
            [swap("name in registry or names.count(name) > 1", "name in registry")],
            "clash with each other",
        ),
        ([drop(_CHECK)], "overwritten"),
        (
            [
                drop(_CHECK),
                swap('        registry[name] = make_call(tool["name"])\n', _ADD_ONE_BY_ONE),
            ],
            "import nothing",
        ),
        (  # every clash found, but only when its turn comes: the names before it are added
            [
                drop(_CHECK),
                swap('        registry[name] = make_call(tool["name"])\n', _CHECKED_ONE_BY_ONE),
            ],
            "import nothing",
        ),
        ([swap("    return names\n", "    return list(registry)\n")], "returns those new names"),
        (
            [
                swap(
                    _LOOP,
                    """    for name, tool in zip(names, listing, strict=True):
        def call(name=tool["name"], **arguments):
            return call_remote(name, arguments)

        registry[name] = call
""",
                )
            ],
            "called the server's 'Zoë' (the value of its own argument), not 'create_user'",
        ),
        (
            [
                swap(
                    "call_remote(remote_name, arguments)",
                    "call_remote(remote_name, arguments or None)",
                )
            ],
            "sent None as the arguments; a call without arguments sends {}",
        ),
    ],
    ids=[
        "late-binding",
        "prefixed-name-to-server",
        "arguments-spread",
        "one-underscore",
        "duplicates-in-listing",
        "overwrites",
        "half-import",
        "half-import-checked-in-turn",
        "returns-all-names",
        "default-argument-binding",
        "none-for-no-arguments",
    ],
)
def test_a_wrong_prefix_import_is_rejected(changes: list[Any], words: str) -> None:
    assert words in verdict("10.3", answer("10.3", *changes)).text()


# -- defects found by the mutants (issue 27) -------------------------------------------------


def test_a_result_that_escapes_non_ascii_text_is_rejected() -> None:
    # The text said json.dumps(v), the package sends ensure_ascii=False: now they agree.
    escaped = answer("10.1", swap("json.dumps(value, ensure_ascii=False)", "json.dumps(value)"))
    assert "Non-ASCII text stays as it is" in verdict("10.1", escaped).text()


# -- correct answers written differently pass ------------------------------------------------


def test_a_call_result_written_another_way_passes() -> None:
    import json

    def to_call_result(envelope):
        if envelope.get("ok") is True:
            value = envelope.get("value")
            shown = value if type(value) is str else json.dumps(value, ensure_ascii=False)
            return {"isError": False, "content": [{"text": shown, "type": "text"}]}
        error = dict(envelope["error"])
        words = error["message"]
        if error.get("suggestion"):
            words = f"{words} {error['suggestion']}"
        return {
            "isError": True,
            "content": [{"type": "text", "text": words}],
            "_meta": {"toolsys/error": error},
        }

    verdict("10.1", to_call_result, Status.PASSED)


def test_a_trust_rule_written_another_way_passes() -> None:
    def category_of(annotations, trusted):
        hints = annotations if trusted and isinstance(annotations, dict) else {}

        def said(name, default):
            value = hints.get(name)
            return value if value is True or value is False else default

        if trusted is not True:
            return "execute"
        if said("readOnlyHint", False):
            return "read"
        return "execute" if said("openWorldHint", True) else "write"

    verdict("10.2", category_of, Status.PASSED)


def test_an_import_written_another_way_passes() -> None:
    import functools

    def import_with_prefix(registry, listing, prefix, call_remote):
        names = [prefix + "__" + tool["name"] for tool in listing]
        seen = set(registry)
        for name in names:
            if name in seen:
                raise ValueError(f"{name} already exists; pick another prefix")
            seen.add(name)

        def forward(remote, /, **arguments):  # positional-only: a tool argument "remote" is free
            return call_remote(remote, arguments)

        registry.update(
            {
                name: functools.partial(forward, tool["name"])
                for name, tool in zip(names, listing, strict=True)
            }
        )
        return names

    verdict("10.3", import_with_prefix, Status.PASSED)


def test_a_forwarder_whose_remote_name_is_a_parameter_is_rejected() -> None:
    """`def forward(remote, **arguments)` bound with functools.partial: a tool argument called
    "remote" clashes with it (TypeError). The hand-written cases never send one; the generated
    calls do."""

    def import_with_prefix(registry, listing, prefix, call_remote):
        import functools

        names = [prefix + "__" + tool["name"] for tool in listing]
        if any(name in registry or names.count(name) > 1 for name in names):
            raise ValueError(f"one of {names} is already taken; pick another prefix")

        def forward(remote, **arguments):
            return call_remote(remote, arguments)

        for name, tool in zip(names, listing, strict=True):
            registry[name] = functools.partial(forward, tool["name"])
        return names

    result = verdict("10.3", import_with_prefix)
    assert "generated inputs" in result.message and "'remote'" in result.message


def test_a_result_that_sorts_the_value_keys_is_rejected() -> None:
    sorted_text = answer(
        "10.1",
        swap(
            "json.dumps(value, ensure_ascii=False)",
            "json.dumps(value, ensure_ascii=False, sort_keys=True)",
        ),
    )
    assert "their own order" in verdict("10.1", sorted_text).text()


def test_a_result_that_needs_a_suggestion_key_is_rejected() -> None:
    needs = answer("10.1", swap("error.get('suggestion', '')", "error['suggestion']"))
    assert "raised KeyError" in verdict("10.1", needs).text()


def test_a_result_that_writes_a_none_suggestion_is_rejected() -> None:
    # A suggestion of None is no suggestion: the text is the message alone, without "None".
    wrong = answer(
        "10.1",
        swap(
            _TEXT,
            'text = error["message"] + (" " + str(error["suggestion"]) '
            'if "suggestion" in error and error["suggestion"] != "" else "")',
        ),
    )
    assert "or None: error.get('suggestion') or ''" in verdict("10.1", wrong).text()


# -- held-out round adv3 (wrong answers nobody had written): each must fail for its real mistake


@pytest.mark.parametrize("trusted", [1, "yes"])
def test_a_truthy_trusted_that_is_not_true_is_not_trust(trusted: Any) -> None:
    truthy = answer("10.2", swap("trusted is not True", "not trusted"))
    assert "Only trusted=True trusts a server" in verdict("10.2", truthy).text()
    assert answer("10.2")({"readOnlyHint": True}, trusted) == "execute"


def test_a_category_that_writes_defaults_into_the_annotations_is_rejected() -> None:
    defaults = {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }

    def fills_in(annotations, trusted):
        if trusted is not True:
            return "execute"
        hints = annotations if annotations is not None else {}
        for name, default in defaults.items():
            if not isinstance(hints.get(name), bool):
                hints[name] = default
        if hints["readOnlyHint"]:
            return "read"
        return "execute" if hints["openWorldHint"] else "write"

    assert "Leave the server's annotations as they are" in verdict("10.2", fills_in).text()
