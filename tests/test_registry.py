"""The registry: registering in three ways, names, duplicates, lookup, filtering, discovery."""

from __future__ import annotations

import copy
import json
import pickle
import sys
import textwrap
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from toolsys import Category, Param, Registry, ToolDefinitionError, ToolSpec, discover


def add(a: float, b: float) -> float:
    """Add two numbers and return the sum.

    Args:
        a: First addend.
        b: Second addend.
    """
    return a + b


class BookRoomInput(BaseModel):
    """Book a meeting room."""

    room: Literal["A", "B"] = Field(description="Which room.")
    date: str = Field(description="Day, as YYYY-MM-DD.")


@pytest.fixture
def registry() -> Registry:
    reg = Registry()
    reg.tool(add)
    return reg


def test_decorator_returns_the_function_unchanged() -> None:
    reg = Registry()
    assert reg.tool(add) is add
    assert add(1, 2) == 3


def test_decorator_with_options_sets_name_category_and_description() -> None:
    reg = Registry()

    @reg.tool(name="plus", category=Category.EXECUTE, description="Adds.")
    def _plus(a: int, b: int) -> int:
        return a + b

    tool = reg.get("plus")
    assert (tool.name, tool.category, tool.description) == ("plus", Category.EXECUTE, "Adds.")


def test_register_spec_with_implementation_builds_schema_from_params() -> None:
    reg = Registry()
    spec = ToolSpec(
        name="search",
        description="Search the docs.",
        parameters=[
            Param("query", "string", "Search keywords."),
            Param("limit", "integer", "Max results.", required=False, default=5),
        ],
    )
    reg.register(spec, lambda query, limit: [query, limit])
    assert reg.get("search").parameters["required"] == ["query"]
    assert reg.execute("search", {"query": "x"}).value == ["x", 5]


def test_register_pydantic_model_passes_the_model_instance() -> None:
    reg = Registry()

    @reg.tool(args=BookRoomInput, category=Category.WRITE)
    def book_room(args: BookRoomInput) -> str:
        return f"{args.room} on {args.date}"

    assert reg.execute("book_room", {"room": "A", "date": "2025-01-15"}).value == "A on 2025-01-15"
    assert reg.get("book_room").category is Category.WRITE
    assert reg.get("book_room").parameters["properties"]["room"]["enum"] == ["A", "B"]


def test_spec_implementation_drift_is_rejected_at_registration() -> None:
    reg = Registry()
    spec = ToolSpec("weather", "Weather.", [Param("city", "string", "City.")])
    with pytest.raises(ToolDefinitionError, match=r"do not match .*location"):
        reg.register(spec, lambda location: location)


def test_duplicate_name_is_rejected_with_a_helpful_message(registry: Registry) -> None:
    with pytest.raises(ToolDefinitionError, match=r"'add' is already registered.*replace=True"):
        registry.tool(add)


@pytest.mark.parametrize("clash", ["ADD", "Add"])
def test_names_that_collide_after_normalisation_are_rejected(
    registry: Registry, clash: str
) -> None:
    with pytest.raises(ToolDefinitionError, match="only by case"):
        registry.register(add, name=clash)


def test_hyphen_and_underscore_names_collide() -> None:
    reg = Registry()
    reg.register(add, name="get_weather")
    with pytest.raises(ToolDefinitionError, match="'get_weather'"):
        reg.register(add, name="get-weather")


@pytest.mark.parametrize("bad", ["", "has space", "dot.name", "x" * 65, "émoji", "slash/name"])
def test_names_providers_refuse_are_rejected(bad: str) -> None:
    with pytest.raises(ToolDefinitionError, match="cannot be exported"):
        Registry().register(add, name=bad)


def test_replace_true_overrides_on_purpose(registry: Registry) -> None:
    def add2(a: float, b: float) -> float:
        """Add, twice."""
        return 2 * (a + b)

    registry.register(add2, name="add", replace=True)
    assert registry.execute("add", {"a": 1, "b": 1}).value == 4
    assert len(registry) == 1


def test_unregister_removes_and_frees_the_name(registry: Registry) -> None:
    registry.unregister("add")
    assert "add" not in registry and len(registry) == 0
    registry.tool(add)
    assert "add" in registry


def test_get_unknown_raises_keyerror_with_suggestion(registry: Registry) -> None:
    with pytest.raises(KeyError, match="Did you mean 'add'"):
        registry.get("ad")


def test_list_filters_by_category_and_prefix() -> None:
    reg = Registry()
    reg.register(add, name="db__read", category=Category.READ)
    reg.register(add, name="db__write", category=Category.WRITE)
    reg.register(add, name="dbx_read", category=Category.READ)
    reg.register(add, name="fs__read", category=Category.READ)
    reads = ["db__read", "dbx_read", "fs__read"]
    assert [t.name for t in reg.list(category=Category.READ)] == reads
    assert [t.name for t in reg.list(category="write")] == ["db__write"]
    # a prefix means what it means everywhere: the namespace `db` (db__...), not "starts with"
    assert [t.name for t in reg.list(prefix="db")] == ["db__read", "db__write"]
    assert [t.name for t in reg.list(category=Category.READ, prefix="db")] == ["db__read"]
    with pytest.raises(ToolDefinitionError, match="without the trailing '_'"):
        reg.list(prefix="db_")


def test_export_is_cached_until_the_tool_set_changes(registry: Registry) -> None:
    first = registry.export("openai")
    assert registry.export("openai") is first
    registry.register(add, name="plus")
    assert registry.export("openai") is not first
    assert [t["function"]["name"] for t in registry.export("openai")] == ["add", "plus"]


def test_export_formats(registry: Registry) -> None:
    schema = registry.get("add").parameters
    assert registry.export("openai") == [
        {
            "type": "function",
            "function": {
                "name": "add",
                "description": "Add two numbers and return the sum.",
                "parameters": schema,
            },
        }
    ]
    assert registry.export("anthropic")[0]["input_schema"] == schema
    assert registry.export("mcp")[0]["inputSchema"] == schema
    with pytest.raises(ValueError, match="Unknown export target 'gemini'"):
        registry.export("gemini")


def test_explain_shows_every_format_and_diagnostics(registry: Registry) -> None:
    text = registry.explain("add")
    for part in ("As sent to openai", "As sent to anthropic", "As sent to mcp", "strict=True"):
        assert part in text
    assert "a: number (required) - First addend." in text


def test_discover_imports_every_module_of_a_package(tmp_path, monkeypatch) -> None:
    package = tmp_path / "mytools"
    package.mkdir()
    (package / "__init__.py").write_text("from toolsys import Registry\nregistry = Registry()\n")
    for name in ("alpha", "beta"):
        (package / f"{name}.py").write_text(
            textwrap.dedent(f'''
            from mytools import registry

            @registry.tool
            def {name}(x: int) -> int:
                """Return x.

                Args:
                    x: A number.
                """
                return x
            ''')
        )
    (package / "_private.py").write_text("raise RuntimeError('never imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert discover("mytools") == ["mytools.alpha", "mytools.beta"]
        assert sys.modules["mytools"].registry.names() == ["alpha", "beta"]
    finally:
        for name in [m for m in sys.modules if m.startswith("mytools")]:
            del sys.modules[name]


def test_discover_reports_every_broken_module_and_imports_the_rest(tmp_path, monkeypatch) -> None:
    package = tmp_path / "brokentools"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "good.py").write_text("LOADED = True\n")
    (package / "bad1.py").write_text("import does_not_exist_anywhere\n")
    (package / "bad2.py").write_text("1 / 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ImportError) as info:
            discover("brokentools")
        assert "brokentools.bad1" in str(info.value) and "brokentools.bad2" in str(info.value)
        assert sys.modules["brokentools.good"].LOADED
    finally:
        for name in [m for m in sys.modules if m.startswith("brokentools")]:
            del sys.modules[name]


def test_discover_refuses_a_plain_module() -> None:
    with pytest.raises(ValueError, match="not a package"):
        discover("json.decoder")


class Connection:
    """Something with no JSON form."""


def test_unsupported_parameter_type_is_reported_at_registration() -> None:
    def query(conn: Connection, sql: str) -> None:
        """Run SQL.

        Args:
            conn: A live connection.
            sql: The statement.
        """

    with pytest.raises(ToolDefinitionError, match=r"parameter 'conn' has type .*Connection"):
        Registry().register(query)


def test_star_args_are_rejected_with_the_reason() -> None:
    def anything(*values: int) -> None:
        """Take anything."""

    with pytest.raises(ToolDefinitionError, match="only send named arguments"):
        Registry().register(anything)


def test_diagnostics_collect_what_registration_noticed() -> None:
    reg = Registry()

    def sloppy(a: int, b) -> None:  # type: ignore[no-untyped-def]
        """Do something.

        Args:
            a: Documented.
            zz: Not a parameter.
        """

    reg.register(sloppy)
    text = "\n".join(reg.diagnostics)
    assert "'b' has no type hint" in text
    assert "'b' is not documented" in text
    assert "documents 'zz'" in text
    assert reg.get("sloppy").diagnostics == tuple(reg.diagnostics)


def test_spec_may_take_a_pydantic_model_as_its_parameters() -> None:
    reg = Registry()
    spec = ToolSpec("book_room", "Book a room.", BookRoomInput, category=Category.WRITE)
    reg.register(spec, lambda args: args.room)
    assert reg.execute("book_room", {"room": "B", "date": "2025-01-01"}).value == "B"
    assert reg.get("book_room").source == "model"


def test_param_rejects_types_json_schema_does_not_have() -> None:
    with pytest.raises(ValueError, match="'str', which is not a JSON Schema type"):
        Param("q", "str", "Query.")


def test_unresolvable_type_hint_is_reported_at_registration() -> None:
    def later(x: NotDefinedAnywhere) -> None:  # type: ignore[name-defined] # noqa: F821
        """Refers to a name that does not exist."""

    with pytest.raises(ToolDefinitionError, match="cannot read the type hints"):
        Registry().register(later)


def test_args_model_rejects_unknown_arguments_like_every_other_tool() -> None:
    reg = Registry()

    @reg.tool(args=BookRoomInput)
    def book_room(args: BookRoomInput) -> bool:
        return isinstance(args, BookRoomInput)

    result = reg.execute("book_room", {"room": "A", "date": "2025-01-15", "durationMinutes": 90})
    assert result.error is not None and "durationMinutes: unknown argument" in result.error.message
    assert reg.get("book_room").parameters["additionalProperties"] is False
    assert reg.execute("book_room", {"room": "A", "date": "2025-01-15"}).value is True


def test_args_model_that_chose_its_own_extra_setting_keeps_it() -> None:
    from pydantic import ConfigDict

    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        q: str

    reg = Registry()
    reg.register(lambda args: sorted(args.model_dump()), name="open_tool", args=Open)
    assert reg.execute("open_tool", {"q": "x", "more": 1}).value == ["more", "q"]


# -- issue 9.2: what the schema promises is what execute does -------------------------------------


def _search_spec(*params: Param) -> ToolSpec:
    return ToolSpec("search", "Search.", [Param("query", "string", "Keywords."), *params])


def test_an_omitted_spec_argument_leaves_the_implementations_default_in_place() -> None:
    reg = Registry()
    reg.register(
        _search_spec(Param("limit", "integer", "Max results.", required=False)),
        lambda query, limit=2: min(limit, 2),
    )
    assert reg.execute("search", {"query": "x"}).value == 2
    assert reg.execute("search", '{"query": "x"}').value == 2
    assert reg.execute("search", {"query": "x", "limit": 1}).value == 1


def test_an_omitted_spec_argument_gets_the_declared_default() -> None:
    reg = Registry()
    reg.register(
        _search_spec(Param("limit", "integer", "Max results.", required=False, default=5)),
        lambda query, limit=2: limit,
    )
    assert reg.execute("search", {"query": "x"}).value == 5
    assert reg.get("search").parameters["properties"]["limit"]["default"] == 5


def test_a_nullable_spec_argument_without_a_declared_default_gets_its_own_default() -> None:
    reg = Registry()
    reg.register(
        _search_spec(Param("version", "string", "Version.", required=False, nullable=True)),
        lambda query, version="latest": version,
    )
    # the implementation's own default is the argument's default: never a null it would not get;
    # the schema stays the spec's, which declared none
    assert "default" not in reg.get("search").parameters["properties"]["version"]
    assert reg.execute("search", {"query": "x"}).value == "latest"
    assert reg.execute("search", {"query": "x", "version": None}).value is None


def test_an_optional_spec_parameter_with_no_default_anywhere_is_refused_at_registration() -> None:
    with pytest.raises(ToolDefinitionError, match=r"'limit' may be left out .* no default"):
        Registry().register(
            _search_spec(Param("limit", "integer", "Max.", required=False)),
            lambda query, limit: limit,
        )


SHARED: list[int] = []


def test_an_omitted_function_argument_is_passed_as_its_default_never_the_shared_object() -> None:
    reg = Registry()

    def probe(a: int, seen: list[int] = SHARED) -> bool:
        """Whether `seen` is the function's own default object (Pydantic passes a copy).

        Args:
            a: A.
            seen: Seen.
        """
        seen.append(a)
        return seen is SHARED

    reg.register(probe)
    # every argument is passed, defaults included (what the approver sees is what runs): a
    # mutable default arrives as a fresh copy, so one call's edit never reaches the next
    assert reg.execute("probe", {"a": 1}).value is False
    assert reg.execute("probe", {"a": 2}).value is False and SHARED == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("get_weather", "getWeather"),
        ("getWeather", "get_weather"),
        ("get_weather", "GetWeather"),
        ("http_request", "HTTPRequest"),
        ("get_weather", "get__weather"),
        ("list_orders_v2", "listOrdersV2"),
    ],
)
def test_names_that_differ_only_by_camel_case_collide(first: str, second: str) -> None:
    reg = Registry()
    reg.register(add, name=first)
    with pytest.raises(ToolDefinitionError) as info:
        reg.register(add, name=second)
    message = str(info.value)
    assert repr(first) in message and repr(second) in message and "camelCase" in message
    assert reg.names() == [first]


@pytest.mark.parametrize(
    ("name", "normal"),
    [
        ("getWeather", "get_weather"),
        ("HTTPRequest", "http_request"),
        ("getHTTPResponse", "get_http_response"),
        ("Get-Weather", "get_weather"),
        ("get_weather", "get_weather"),
        ("v2Api", "v2_api"),
        ("ADD", "add"),
    ],
)
def test_normalize_ignores_case_separators_and_camel_case(name: str, normal: str) -> None:
    from toolsys.tool import normalize

    assert normalize(name) == normal


def test_different_names_still_register() -> None:
    reg = Registry()
    for name in ("get_weather", "get_weathers", "set_weather", "weather_get"):
        reg.register(add, name=name)
    assert len(reg) == 4


def test_did_you_mean_finds_the_camel_case_spelling() -> None:
    from toolsys.failures import did_you_mean

    assert did_you_mean("getWeather", ["add", "get_weather"])[0] == "get_weather"


def test_positional_only_parameters_are_accepted_and_passed_by_position() -> None:
    reg = Registry()

    def scale(x: float, factor: float = 2.0, /, *, offset: float = 0.0) -> float:
        """Scale a number.

        Args:
            x: The number.
            factor: The factor.
            offset: Added at the end.
        """
        return x * factor + offset

    reg.register(scale)
    assert reg.get("scale").parameters["required"] == ["x"]
    assert reg.execute("scale", {"x": 3}).value == 6.0
    assert reg.execute("scale", {"x": 3, "factor": 3, "offset": 1}).value == 10.0
    assert reg.execute("scale", '{"x": 3, "offset": 1}').value == 7.0
    assert reg.execute("scale", {"factor": 3}).error.code == "INVALID_ARGUMENTS"


def test_a_spec_implementation_may_take_positional_only_parameters() -> None:
    reg = Registry()
    spec = _search_spec(Param("limit", "integer", "Max.", required=False, default=3))
    reg.register(spec, lambda query, limit=1, /: f"{query}:{limit}")
    assert reg.execute("search", {"query": "q"}).value == "q:3"
    assert reg.execute("search", {"query": "q", "limit": 7}).value == "q:7"


def test_a_model_defined_in_the_enclosing_function_resolves_with_future_annotations() -> None:
    # This module has `from __future__ import annotations`: `Box` below is stored as a string.
    class Box(BaseModel):
        width: int
        label: str = ""

    reg = Registry()

    @reg.tool
    def pack(box: Box, count: int = 1) -> str:
        """Pack boxes.

        Args:
            box: The box.
            count: How many.
        """
        return f"{count} x {box.width}"

    assert reg.get("pack").parameters["properties"]["box"]["properties"]["width"] == {
        "type": "integer"
    }
    assert reg.execute("pack", {"box": {"width": 3}, "count": 2}).value == "2 x 3"


def test_a_name_defined_nowhere_is_still_reported_with_future_annotations() -> None:
    def later(x: NotDefinedEither) -> None:  # type: ignore[name-defined] # noqa: F821
        """Refers to a name that does not exist."""

    with pytest.raises(ToolDefinitionError, match="NotDefinedEither"):
        Registry().register(later)


# -- exports are read-only ------------------------------------------------------------------------


def test_an_export_cannot_be_changed_through_what_export_returns(registry: Registry) -> None:
    exported = registry.export("openai")
    before = json.dumps(exported)
    parameters = exported[0]["function"]["parameters"]
    attempts = [
        lambda: parameters["properties"]["a"].__setitem__("type", "string"),
        lambda: parameters["properties"].pop("a"),
        lambda: parameters["required"].append("c"),
        lambda: exported[0]["function"].update(name="x"),
        lambda: exported.append({}),
        lambda: parameters.setdefault("x", 1),
        lambda: parameters["required"].clear(),
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="cannot be changed"):
            attempt()
    assert json.dumps(registry.export("openai")) == before
    assert registry.export("anthropic")[0]["input_schema"] == parameters
    assert registry.get("add").parameters["properties"]["a"]["type"] == "number"


def test_a_deep_copy_of_an_export_is_plain_and_changes_nothing_else(registry: Registry) -> None:
    copied = copy.deepcopy(registry.export("openai"))
    assert type(copied) is list and type(copied[0]["function"]["parameters"]) is dict
    copied[0]["function"]["parameters"]["properties"]["a"]["type"] = "string"
    assert registry.export("openai")[0]["function"]["parameters"]["properties"]["a"] == {
        "type": "number",
        "description": "First addend.",
    }
    assert registry.export("mcp")[0]["inputSchema"]["properties"]["a"]["type"] == "number"
    assert pickle.loads(pickle.dumps(registry.export("mcp"))) == registry.export("mcp")


def test_a_tools_own_schema_is_read_only_too(registry: Registry) -> None:
    with pytest.raises(TypeError):
        registry.get("add").parameters["properties"]["b"] = {}
    strict = registry.export("openai", strict=True)
    with pytest.raises(TypeError):
        strict[0]["function"]["parameters"]["required"].remove("a")


def test_the_openai_client_accepts_read_only_exports(registry: Registry) -> None:
    from toolsys import models

    client = models.client()
    reply = client.chat.completions.create(
        model=models.default_model(),
        messages=[{"role": "user", "content": "add 2 and 3"}],
        tools=registry.export("openai"),
    )
    assert reply.choices[0].message.tool_calls[0].function.name == "add"


class _Adder:
    def __call__(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: The first.
            b: The second.
        """
        return a + b


class _Unresolvable:
    def __call__(self, a: Undefined) -> int:  # type: ignore[name-defined]  # noqa: F821
        return 1


def test_a_callable_object_registers_from_its_call_method() -> None:
    registry = Registry()
    registry.register(_Adder(), name="adder")
    assert registry.execute("adder", {"a": 1, "b": 2}).value == 3
    assert registry.get("adder").description == "Add two integers."
    with pytest.raises(ToolDefinitionError, match="cannot read the type hints of _Unresolvable"):
        registry.register(_Unresolvable(), name="broken")


def test_execute_is_the_paths_own_method_and_can_still_be_replaced(registry: Registry) -> None:
    """`Registry.execute` is a slot holding the execute path's bound method (no frame of the
    registry's on every call): a subclass, `mock.patch.object` and an instance assignment
    still replace it, and the path's method follows the layers."""
    from unittest import mock

    from toolsys.execution import ExecutePath

    assert registry.execute.__func__ is ExecutePath.execute  # type: ignore[attr-defined]
    assert registry.execute("add", {"a": 1, "b": 2}, context={"user": "u"}).value == 3
    assert registry.execute("add", '{"a": 1, "b": 2}', idempotency_key="k", step=1).value == 3
    registry.use(lambda call, call_next: call_next(call), name="passthrough")
    assert registry.execute.__self__ is registry.path()  # type: ignore[attr-defined]
    assert registry.execute("add", {"a": 1, "b": 2}).value == 3

    with mock.patch.object(Registry, "execute", return_value="patched") as patched:
        assert registry.execute("add", {}) == "patched"
        assert Registry().execute("x") == "patched"
    patched.assert_called_with("x")
    assert registry.execute("add", {"a": 1, "b": 2}).value == 3

    calls: list[str] = []
    own = registry.execute

    def counting(name: str, arguments: object = None, **options: object) -> object:
        calls.append(name)
        return own(name, arguments, **options)  # type: ignore[arg-type]

    registry.execute = counting  # type: ignore[method-assign, assignment]
    registry.remove_layer("passthrough")  # a rebuilt path keeps the caller's replacement
    assert registry.execute("add", {"a": 1, "b": 2}).value == 3
    assert calls == ["add"]
    registry.execute = registry.path().execute  # type: ignore[method-assign]
    registry.use(lambda call, call_next: call_next(call), name="again")
    assert registry.execute.__self__ is registry.path()  # type: ignore[attr-defined]

    class Counting(Registry):
        seen = 0

        def execute(self, name, arguments=None, **options):  # type: ignore[no-untyped-def]
            Counting.seen += 1
            return super().execute(name, arguments, **options)

    sub = Counting()
    sub.tool(add)
    assert sub.execute("add", {"a": 1, "b": 2}, context={}).value == 3
    assert Counting.seen == 1
    assert copy.copy(registry).execute("add", {"a": 1, "b": 2}).value == 3
