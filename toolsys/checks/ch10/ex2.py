"""Exercise 10.2, trust decides what a hint is worth: the check and its reference, `category_of`.

`toolsys.mcp.category_for`; the cases are annotations believed from an untrusted server, a missing
hint read as 'safe', and a truthy 'yes'.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import call_student, exercise, expect_equal
from toolsys.checks._differential import Call, agree, calls


def category_of(annotations: dict[str, Any] | None, trusted: bool) -> str:
    """Reference for 10.2: `toolsys.mcp.category_for`, as the category's name."""
    from toolsys.mcp import category_for

    imported = category_for(annotations, "trusted" if trusted is True else "untrusted")
    return str.__str__(imported.category)


_TRUST_WHY = {
    "untrusted": "An untrusted server's hints are claims, not facts (the spec says never to "
    "decide on them): every one of its tools is 'execute', whatever it says.",
    "not-bool": "Only trusted=True trusts a server: a truthy 1 or 'yes' is not a yes, and trust "
    "fails closed like a hint does. Test `trusted is True` (not `if trusted:`).",
    "read": "A trusted server that says readOnlyHint: true is believed: 'read'.",
    "nothing": "A tool that says nothing gets the spec's defaults: readOnlyHint false and "
    "openWorldHint true, so 'execute'. Reading a missing hint as 'safe' is how a client fails "
    "open.",
    "closed": "readOnlyHint false and openWorldHint false: it changes only its own closed world, "
    "'write'.",
    "world": "openWorldHint true (or missing) on a tool that is not read-only: 'execute'.",
    "truthy": "Only the booleans true and false count: a hint of 'true', 1 or null takes the "
    "spec's default. Test `value is True`, or isinstance(value, bool).",
    "read-wins": "readOnlyHint: true makes a tool 'read' whatever the other hints say.",
    "destructive": "destructiveHint does not decide the category here: a tool that is not "
    "read-only is 'execute' when its world is open (the default).",
}
# annotations, trusted, expected, why
_TRUST_CASES: list[tuple[dict[str, Any] | None, Any, str, str]] = [
    ({"readOnlyHint": True, "destructiveHint": False}, False, "execute", "untrusted"),
    ({"readOnlyHint": True}, True, "read", "read"),
    (None, True, "execute", "nothing"),
    ({}, True, "execute", "nothing"),
    ({"readOnlyHint": False, "openWorldHint": False}, True, "write", "closed"),
    ({"openWorldHint": False}, True, "write", "closed"),
    ({"readOnlyHint": False, "openWorldHint": True}, True, "execute", "world"),
    ({"readOnlyHint": False}, True, "execute", "world"),
    ({"readOnlyHint": "true"}, True, "execute", "truthy"),
    ({"readOnlyHint": 1, "openWorldHint": False}, True, "write", "truthy"),
    ({"readOnlyHint": None, "openWorldHint": False}, True, "write", "truthy"),
    ({"readOnlyHint": False, "openWorldHint": 0}, True, "execute", "truthy"),
    (
        {"readOnlyHint": True, "destructiveHint": True, "openWorldHint": True},
        True,
        "read",
        "read-wins",
    ),
    ({"destructiveHint": False}, True, "execute", "destructive"),
    (None, False, "execute", "untrusted"),
    ({"readOnlyHint": False, "openWorldHint": False}, False, "execute", "untrusted"),
    ({"readOnlyHint": True}, 1, "execute", "not-bool"),
    ({"readOnlyHint": False, "openWorldHint": False}, "yes", "execute", "not-bool"),
]


_HINT_VALUES: list[object] = [True, False, True, False, "true", 1, 0, None, "false"]
_HINT_NAMES = ["readOnlyHint", "openWorldHint", "destructiveHint", "idempotentHint"]


def _category_call(rng: random.Random, size: int) -> Call:
    """Annotations (None, empty, or some of the four hints, each a real bool or not) and a
    trust that is True, or another value (False, 1, "yes", None)."""
    annotations: dict[str, object] | None = None
    if rng.random() < 0.85:
        annotations = {
            name: rng.choice(_HINT_VALUES) for name in rng.sample(_HINT_NAMES, rng.randint(0, 4))
        }
        if rng.random() < 0.2:
            annotations["title"] = "Lire un fichier"
    return Call((annotations, rng.choice([True, True, True, False, 1, "yes", None])))


_GENERATED = calls(_category_call, seed=102, count=150)


@exercise(
    "10.2",
    title="Trust decides what a hint is worth",
    hints=[
        "Start with trust: an untrusted server's tools are 'execute', before you read any hint.",
        "For a trusted server, start from SPEC_DEFAULTS and let a hint replace a default only "
        "when it is a real bool: isinstance(value, bool).",
        "Then: readOnlyHint -> 'read'; otherwise openWorldHint -> 'execute'; otherwise 'write'.",
    ],
    reference=lambda: category_of,
)
def _check_category_of(student: Callable[..., Any]) -> None:
    for hints, trusted, expected, why in _TRUST_CASES:
        what = f"category_of({json.dumps(hints)}, trusted={trusted!r})"
        given = copy.deepcopy(hints)
        got = call_student(
            student,
            given,
            trusted,
            what=what,
            returns="'read', 'write' or 'execute'",
            hint=_TRUST_WHY[why],
        )
        expect_equal(got, expected, what=what, hint=_TRUST_WHY[why])
        expect_equal(
            given,
            hints,
            what=f"the annotations after {what}",
            hint="Leave the server's annotations as they are (they are the caller's): read the "
            "defaults into a dict of your own, {**SPEC_DEFAULTS, **hints}, never into theirs.",
        )
    agree(
        student,
        category_of,
        _GENERATED,
        name="category_of",
        hint="trusted is not True: 'execute'. Else each hint that is a real bool is believed, "
        "any other from SPEC_DEFAULTS; readOnlyHint: 'read', else openWorldHint: 'execute', "
        "else 'write'.",
    )
