"""Exercise 10.3, import with a prefix: the check and its reference, `import_with_prefix`.

`import_server` itself, against a small server built from the listing; the cases are tools bound
late, the prefixed name sent to the server, half an import left behind.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from toolsys.checks import (
    CheckFailed,
    Described,
    call_student,
    exercise,
    expect_equal,
    expect_plain,
    expect_raises,
)
from toolsys.checks._differential import Call, agree, calls, plain
from toolsys.checks._differential import name as _name
from toolsys.checks._plain import text


def import_with_prefix(
    registry: dict[str, Any],
    listing: list[dict[str, Any]],
    prefix: str,
    call_remote: Callable[[str, dict[str, Any]], Any],
) -> list[str]:
    """Reference for 10.3: `toolsys.mcp.import_server`, against a server made from `listing`.

    The server forwards each call to `call_remote`; the imported tools are then put in the dict
    as functions that run them through a toolsys Registry (validation and all).
    """
    from toolsys import Registry
    from toolsys._sync import run_sync
    from toolsys.mcp import import_server

    local = Registry()
    for name in registry:  # the names already taken, for import_server to see
        local.register(lambda: None, name=name, description="Already registered.")
    run_sync(import_server(local, _server(listing, call_remote), prefix=prefix))
    added = [name for name in local.names() if name not in registry]

    def runner(name: str) -> Callable[..., Any]:
        def run(**arguments: Any) -> Any:
            result = local.execute(name, arguments)
            if not result.ok:
                raise RuntimeError(str(result))
            return result.value

        return run

    for name in added:
        registry[name] = runner(name)
    return added


def _server(listing: list[dict[str, Any]], call_remote: Callable[..., Any]) -> Any:
    """A low-level `mcp` server that lists `listing` and answers each call with `call_remote`."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

    tools = [
        Tool(name=t["name"], description=t.get("description", ""), input_schema=t["inputSchema"])
        for t in listing
    ]

    async def list_tools(context: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def call_tool(context: Any, params: Any) -> CallToolResult:
        value = call_remote(params.name, dict(params.arguments or {}))
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(value))])

    return Server("listing", on_list_tools=list_tools, on_call_tool=call_tool)


def _tool(tool_name: str, /, **properties: str) -> dict[str, Any]:
    name = tool_name
    schema = {
        "type": "object",
        "properties": {key: {"type": kind} for key, kind in properties.items()},
        "required": list(properties),
    }
    return {"name": name, "description": f"The server's {name}.", "inputSchema": schema}


_FS = [_tool("read_file", path="string"), _tool("write_file", path="string", text="string")]
_IMPORT_WHY = {
    "names": "Each tool is registered as prefix + '__' + its name, in the listing's order; the "
    "function returns those new names.",
    "keep": "The tools already in the registry stay as they were.",
    "forward": "Calling an imported tool calls call_remote with the server's own name (without "
    "the prefix) and the arguments as one dict ({} when there are none), and returns what "
    "call_remote returns.",
    "late": "Every imported tool must call its own remote tool. A function defined in a loop "
    "sees the loop variable's last value when it runs: bind the name now, in a factory "
    "function make_call(remote_name) that returns the inner def call(**arguments).",
    "shadowed": "The remote name must not be a parameter of the function you register: a "
    "default argument (def call(name=tool['name'], **arguments)) is replaced by a tool argument "
    "of the same name. Bind it in a factory function, make_call(remote_name), whose inner "
    "function takes only **arguments.",
    "clash": "A name that is already registered must not be overwritten: raise ValueError "
    "naming it (suggesting another prefix).",
    "atomic": "When one name clashes, import nothing: check every name before adding any.",
    "twice": "Two tools of the listing with the same name clash with each other too.",
    "empty": "An empty listing imports nothing and returns [].",
}


def _calls() -> tuple[list[tuple[str, Any]], Callable[[str, dict[str, Any]], Any]]:
    seen: list[tuple[str, Any]] = []

    def call_remote(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append((name, arguments))
        return {"from": name, "echo": arguments}

    return seen, call_remote


def _given() -> dict[str, Any]:
    def calculator(expression: str) -> str:
        return expression

    return {"calculator": calculator}


@exercise(
    "10.3",
    title="Import with a prefix",
    hints=[
        "First compute every new name, f'{prefix}__{tool[\"name\"]}', and refuse (ValueError) "
        "if one is already in the registry or appears twice; only then add them all.",
        "Each registered function takes keyword arguments and returns "
        "call_remote(<the server's name>, arguments).",
        "Do not define `def call(**arguments): ... tool['name'] ...` directly in the loop: "
        "every function would use the last tool. Build it in a helper, make_call(remote_name), "
        "that returns the inner function (not a default argument: a tool argument of the same "
        "name would replace it).",
    ],
    reference=lambda: import_with_prefix,
    timeout=30,
)
def _check_import_with_prefix(student: Callable[..., Any]) -> None:
    registry = _given()
    calculator = registry["calculator"]
    seen, call_remote = _calls()
    what = "import_with_prefix({'calculator': ...}, [read_file, write_file], 'fs', call_remote)"
    names = call_student(
        student,
        registry,
        copy.deepcopy(_FS),
        "fs",
        call_remote,
        what=what,
        returns="the list of new names",
        hint=_IMPORT_WHY["names"],
    )
    expect_plain(names, what=what, shape="a list of names", hint=_IMPORT_WHY["names"])
    expect_equal(names, ["fs__read_file", "fs__write_file"], what=what, hint=_IMPORT_WHY["names"])
    expect_equal(
        list(registry),
        ["calculator", "fs__read_file", "fs__write_file"],
        what="the registry's names after the import",
        hint=_IMPORT_WHY["names"],
    )
    if registry["calculator"] is not calculator:
        raise CheckFailed(
            "The import replaced the registry's own 'calculator'.", hint=_IMPORT_WHY["keep"]
        )
    _expect_forwarded(registry, seen, "fs__read_file", {"path": "a.txt"}, "read_file")
    _expect_forwarded(
        registry, seen, "fs__write_file", {"path": "b.txt", "text": "hi"}, "write_file"
    )
    _expect_forwarded(registry, seen, "fs__read_file", {"path": "c.txt"}, "read_file")

    search, tabs = _tool("search", query="string"), _tool("list_tabs")
    for listing, prefix, why, name in (
        (_FS, "fs", "clash", "fs__read_file"),
        # the clash comes after a name that is free: an import that adds as it goes leaves
        # fs__list_tabs behind
        ([tabs, _FS[1]], "fs", "atomic", "fs__write_file"),
        ([search, search], "docs", "twice", "docs__search"),
        ([tabs, search, search], "docs", "atomic", "docs__search"),
    ):
        before = dict(registry)
        tools = ", ".join(t["name"] for t in listing)
        shown = f"import_with_prefix(registry, [{tools}], {prefix!r}, call_remote)"
        raised = expect_raises(
            ValueError,
            student,
            registry,
            copy.deepcopy(listing),
            prefix,
            call_remote,
            what=shown,
            hint=_IMPORT_WHY[why],
        )
        if name not in text(raised):
            raise CheckFailed(
                f"{shown} raised ValueError, but its message does not name {name!r}.",
                expected=Described(f"a message naming {name!r}"),
                got=text(raised),
                hint=_IMPORT_WHY[why],
            )
        if list(registry) != list(before) or any(registry[k] is not before[k] for k in before):
            raise CheckFailed(
                f"{shown} raised, but changed the registry first.",
                expected=list(before),
                got=list(registry),
                hint=_IMPORT_WHY["atomic"],
            )

    fresh = _given()
    mixed = [
        _tool("search", query="string"),
        _tool("calculator", expression="string"),
        _tool("create_user", name="string"),  # an argument called like a binding's default
        _tool("list_tabs"),  # a tool without arguments
    ]
    what = (
        "import_with_prefix({'calculator': ...}, [search, calculator, create_user, list_tabs], "
        "'docs', call_remote)"
    )
    got = call_student(
        student, fresh, mixed, "docs", call_remote, what=what, returns="the list of new names"
    )
    expect_equal(
        got,
        ["docs__search", "docs__calculator", "docs__create_user", "docs__list_tabs"],
        what=what,
        hint=_IMPORT_WHY["names"],
    )
    _expect_forwarded(fresh, seen, "docs__calculator", {"expression": "1+1"}, "calculator")
    _expect_forwarded(fresh, seen, "docs__create_user", {"name": "Zoë"}, "create_user")
    _expect_forwarded(fresh, seen, "docs__list_tabs", {}, "list_tabs")

    empty = _given()
    got = call_student(
        student,
        empty,
        [],
        "fs",
        call_remote,
        what="import_with_prefix(registry, [], 'fs', ...)",
        returns="the list of new names",
    )
    expect_equal(
        got, [], what="import_with_prefix(registry, [], 'fs', ...)", hint=_IMPORT_WHY["empty"]
    )
    expect_equal(
        list(empty),
        ["calculator"],
        what="the registry after importing nothing",
        hint=_IMPORT_WHY["empty"],
    )
    agree(
        _imported(student),
        _imported(by_the_text),
        _GENERATED,
        name="import_with_prefix on (the registry's names, the listing's names, the prefix) = "
        "({args}), then each call",
        errors=_names_a_clash,
        hint="New names are prefix + '__' + the tool's name, in the listing's order; one already "
        "in the registry or twice in the listing is a ValueError naming it, with the registry "
        "left exactly as it was; each imported function sends call_remote(its own tool's name, "
        "the arguments as one dict) and returns the answer.",
    )


def _expect_forwarded(
    registry: dict[str, Any],
    seen: list[tuple[str, Any]],
    name: str,
    arguments: dict[str, Any],
    remote: str,
) -> None:
    shown = f"registry[{name!r}](**{arguments!r})"
    seen.clear()
    got = call_student(
        registry[name],
        **arguments,
        what=shown,
        returns="what call_remote returned",
        hint=_IMPORT_WHY["forward"],
    )
    calls = [[n, a] for n, a in seen]
    if (
        len(calls) == 1
        and calls[0][0] != remote
        and calls[0][0] in {"read_file", "write_file", "search", "calculator"}
    ):
        raise CheckFailed(
            f"{shown} called the server's {calls[0][0]!r}, not {remote!r}.",
            expected=[[remote, arguments]],
            got=calls,
            hint=_IMPORT_WHY["late"],
        )
    if len(calls) == 1 and calls[0][0] != remote and calls[0][0] in arguments.values():
        raise CheckFailed(
            f"{shown} called the server's {calls[0][0]!r} (the value of its own argument), "
            f"not {remote!r}.",
            expected=[[remote, arguments]],
            got=calls,
            hint=_IMPORT_WHY["shadowed"],
        )
    if len(calls) == 1 and calls[0][0] == remote and not arguments and calls[0][1] is None:
        raise CheckFailed(
            f"{shown} sent None as the arguments; a call without arguments sends {{}}.",
            expected=[[remote, {}]],
            got=calls,
            hint=_IMPORT_WHY["forward"],
        )
    expect_equal(
        calls,
        [[remote, arguments]],
        what=f"the calls {shown} sent to the server",
        hint=_IMPORT_WHY["forward"],
    )
    expect_equal(got, {"from": remote, "echo": arguments}, what=shown, hint=_IMPORT_WHY["forward"])


# -- the differential inputs --------------------------------------------------------------------
#
# The reference they are compared with is the exercise text's rule, `by_the_text`: the package's
# `import_with_prefix` runs an MCP session per import (a third of a second: the 5 s guard would
# stop after a dozen inputs). tests/test_differential.py checks that the two agree. Left out,
# where the package (`toolsys.mcp.import_server`) and the text part ways: a prefix or a tool
# name providers do not take (the package refuses it, the text imports it), two names that
# differ only by letter case or '-'/'_' (a clash for the package's registry, none for the text),
# and arguments a tool's schema does not allow (the package validates them, the text forwards
# them as they are: the schemas here allow any value of the properties the calls send).


def by_the_text(
    registry: dict[str, Any],
    listing: list[dict[str, Any]],
    prefix: str,
    call_remote: Callable[[str, dict[str, Any]], Any],
) -> list[str]:
    """10.3 as its text says it: the new names, refused whole on a clash, each one forwarding."""
    names = [f"{prefix}__{tool['name']}" for tool in listing]
    for name in names:
        if name in registry or names.count(name) > 1:
            raise ValueError(f"Cannot import {name!r}: that name is taken; nothing was imported.")

    def forward(remote: str) -> Callable[..., Any]:
        return lambda **arguments: call_remote(remote, arguments)

    for name, tool in zip(names, listing, strict=True):
        registry[name] = forward(tool["name"])
    return names


# names a tool's argument may have that a binding in the answer may have too (a default
# argument `name=tool["name"]` is replaced by a tool argument called `name`)
_SHADOWS = ["name", "tool", "remote_name", "remote", "t", "n", "fn", "prefix", "spec", "listing"]


def _tool_name(rng: random.Random, size: int) -> str:
    made = _name(rng, min(size, 8))
    pick = rng.randrange(8)
    if pick == 0:
        return made.replace(made[0], made[0].upper(), 1)
    if pick == 1:
        return f"{made}-{_name(rng, 3)}"
    return made


def _import_call(rng: random.Random, size: int) -> Call:
    """A registry's names, a listing's tool names (a tool twice now and then), a prefix, and
    the calls to make of the imported tools: each with arguments of any names (ones an answer's
    own binding may use too) and plain values, in any order."""
    prefix = _tool_name(rng, 4)
    listing = [_tool_name(rng, size) for _ in range(rng.randint(0, min(4, 1 + size // 2)))]
    if listing and rng.random() < 0.1:
        listing.insert(rng.randrange(len(listing) + 1), rng.choice(listing))
    existing = ["calculator"] + [_tool_name(rng, size) for _ in range(rng.randint(0, 2))]
    if listing and rng.random() < 0.2:  # a clash, anywhere in the listing
        existing.append(f"{prefix}__{rng.choice(listing)}")
    arguments = [
        {
            rng.choice(_SHADOWS) if rng.random() < 0.3 else _name(rng, 4): plain(rng, size // 2)
            for _ in range(rng.randint(0, 3))
        }
        for _ in listing
    ]
    made = [(index, arguments[index]) for index in range(len(listing)) for _ in range(2)]
    rng.shuffle(made)
    call = Call((list(dict.fromkeys(existing)), listing, prefix, made[: rng.randint(0, 6)]))
    return call if _the_package_agrees(call) else _import_call(rng, size)


def _the_package_agrees(call: Call) -> bool:
    """Whether the input is one the package's reference reads as the text does: a prefix and
    names providers accept, and no two names that differ only by case or '-'/'_' (the registry
    refuses those, the text imports them)."""
    from toolsys.errors import ToolDefinitionError
    from toolsys.names import check_name, check_prefix, normalize

    existing, names, prefix, _ = call.args
    qualified = [f"{prefix}__{name}" for name in names]
    try:
        check_prefix(prefix)
        for name in [*existing, *qualified]:
            check_name(name)
    except ToolDefinitionError:
        return False
    every = [*existing, *dict.fromkeys(qualified)]
    return len({normalize(name) for name in every}) == len(set(every))


_GENERATED = calls(_import_call, seed=103, count=120)


def _listing_of(names: list[str], calls: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The `tools/list` answer for `names`: each schema has the properties its calls send."""
    listing = []
    for index, name in enumerate(names):
        properties: dict[str, Any] = {}
        for at, arguments in calls:
            if at == index:
                properties.update({key: {} for key in arguments})
        schema = {"type": "object", "properties": properties}
        listing.append(
            {"name": name, "description": f"The server's {name}.", "inputSchema": schema}
        )
    return listing


def _imported(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` on a registry of the given names and the listing; on success what it returned,
    the registry's names, whether the ones it had are kept, and each call's answer and what
    it sent to the server. A ValueError goes through as it is if the registry is as it was,
    else as a _HalfImport."""

    def run(existing: list[str], names: list[str], prefix: str, made: list[Any]) -> Any:
        registry = {name: _placeholder(name) for name in existing}
        before = dict(registry)
        seen: list[list[Any]] = []

        def call_remote(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            seen.append([name, arguments])
            return {"from": name, "echo": arguments}

        try:
            returned = func(registry, _listing_of(names, made), prefix, call_remote)
        except ValueError as exc:
            if list(registry) == list(before) and all(registry[k] is v for k, v in before.items()):
                raise
            raise _HalfImport(list(registry)) from exc
        answers: list[list[Any]] = []
        for index, arguments in made:
            qualified = f"{prefix}__{names[index]}"
            if not callable(registry.get(qualified)):
                answers.append([qualified, "not in the registry"])
                continue
            seen.clear()
            value = registry[qualified](**copy.deepcopy(arguments))
            answers.append([qualified, value, list(seen)])
        return {
            "returned": returned,
            "registry": list(registry),
            "kept": all(registry.get(k) is v for k, v in before.items()),
            "calls": answers,
        }

    return run


class _HalfImport(ValueError):
    """Raised by the check in place of the answer's ValueError when the answer had changed the
    registry before raising it."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"the registry's names are now {names!r}")
        self.names = names


def _placeholder(name: str) -> Callable[..., Any]:
    def tool() -> str:
        return name

    return tool


def _names_a_clash(got: BaseException, expected: BaseException, call: Call) -> str | None:
    """The ValueError names a name that clashes (one in the registry, or twice in the listing)."""
    existing, names, prefix, _ = call.args
    if isinstance(got, _HalfImport):
        return (
            f"raised ValueError, but changed the registry first (its names were {existing!r}, "
            f"now {got.names!r}): no half import"
        )
    qualified = [f"{prefix}__{name}" for name in names]
    clashing = [n for n in qualified if n in existing or qualified.count(n) > 1]
    if any(n in text(got) for n in clashing):
        return None
    return f"raised ValueError without naming the clashing {clashing[0]!r}"
