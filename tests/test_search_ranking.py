"""Registry.search: BM25 as the formula says, deterministic, fresh after every change, and
never raising on whatever query it gets."""

from __future__ import annotations

import math

import pytest

from toolsys import Param, Registry, ToolSpec
from toolsys.search import BM25, Hit, ToolIndex


def _spec(name: str, description: str, *params: Param) -> ToolSpec:
    return ToolSpec(name, description, list(params))


def _impl(**_: object) -> str:
    return "ok"


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    registry.register(
        _spec("cancel_subscription", "Cancel a customer's plan.", Param("id", "string", "Plan.")),
        _impl,
    )
    registry.register(_spec("send_email", "Send an email message to people."), _impl)
    registry.register(
        _spec(
            "list_orders",
            "List orders.",
            Param("status", "string", "Only orders that are cancelled or paid."),
        ),
        _impl,
    )
    return registry


def test_search_returns_hits_with_names_and_scores_best_first(registry: Registry) -> None:
    hits = registry.search("cancel my subscription", k=5)
    assert [hit.name for hit in hits] == ["cancel_subscription", "list_orders"]
    assert all(isinstance(hit, Hit) and hit.score > 0 for hit in hits)
    assert hits[0].score > hits[1].score


def test_a_word_in_the_name_weighs_more_than_the_same_word_in_a_parameter_description(
    registry: Registry,
) -> None:
    scores = dict(registry.search("cancelled"))
    assert scores["cancel_subscription"] > scores["list_orders"]


def test_the_score_is_the_bm25_formula_on_one_field() -> None:
    index = BM25({"a": {"text": "red apple"}, "b": {"text": "green pear pear"}}, k1=1.2, b=0.75)
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    norm = 1.2 * (1 - 0.75 + 0.75 * 3 / 2.5)
    assert index.rank("pear") == [Hit("b", round(idf * 2 * 2.2 / (2 + norm), 4))]


def test_equal_scores_are_ordered_by_name_whatever_the_registration_order() -> None:
    orders = (["b_tool", "a_tool", "c_tool"], ["c_tool", "b_tool", "a_tool"])
    for order in orders:
        registry = Registry()
        for name in order:
            registry.register(_spec(name, "Refund a payment."), _impl)
        assert [hit.name for hit in registry.search("refund")] == ["a_tool", "b_tool", "c_tool"]


def test_the_same_query_gives_the_same_ranking_every_time(registry: Registry) -> None:
    first = registry.search("send a message about orders", k=3)
    assert all(registry.search("send a message about orders", k=3) == first for _ in range(5))


def test_k_limits_the_hits(registry: Registry) -> None:
    assert len(registry.search("cancel orders email", k=1)) == 1


def test_a_tool_registered_after_a_search_is_found_by_the_next_one(registry: Registry) -> None:
    assert registry.search("weather") == []
    registry.register(_spec("get_weather", "Current weather for a city."), _impl)
    assert [hit.name for hit in registry.search("weather")] == ["get_weather"]


def test_an_unregistered_tool_is_no_longer_found(registry: Registry) -> None:
    assert registry.search("email")[0].name == "send_email"
    registry.unregister("send_email")
    assert registry.search("email") == []


def test_a_replaced_tool_is_searched_by_its_new_description(registry: Registry) -> None:
    assert registry.search("people")[0].name == "send_email"
    registry.register(_spec("send_email", "Send a fax."), _impl, replace=True)
    assert registry.search("people") == []
    assert registry.search("fax")[0].name == "send_email"


def test_the_index_is_reused_while_the_tools_do_not_change(registry: Registry) -> None:
    from toolsys.search.index import index_for

    assert index_for(registry) is index_for(registry)


def test_an_empty_registry_finds_nothing() -> None:
    assert Registry().search("anything") == []
    assert ToolIndex([]).search("anything") == []


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "the of and",
        "?!*",
        "東京 天気",
        "\x00\ud800",
        "x" * 1_000_000,
        "cancel " * 100_000,
    ],
)
def test_hostile_text_queries_give_a_list_never_an_exception(
    registry: Registry, query: str
) -> None:
    hits = registry.search(query)
    assert isinstance(hits, list) and all(isinstance(hit, Hit) for hit in hits)


@pytest.mark.parametrize("query", [None, 42, 3.5, {"q": "cancel"}, b"cancel", object(), [1, 2]])
def test_a_query_that_is_not_text_finds_nothing(registry: Registry, query: object) -> None:
    assert registry.search(query) == []


def test_a_list_of_words_from_a_model_is_read_as_one_query(registry: Registry) -> None:
    assert registry.search(["cancel", "subscription"])[0].name == "cancel_subscription"


@pytest.mark.parametrize("k", [0, -1, 2.5, "5", True, None])
def test_a_bad_k_is_refused_with_a_message_saying_what_to_pass(
    registry: Registry, k: object
) -> None:
    with pytest.raises(ValueError, match=r"k=.*integer >= 1"):
        registry.search("cancel", k=k)  # type: ignore[arg-type]


def test_import_toolsys_does_not_import_search() -> None:
    import subprocess
    import sys

    code = "import sys, toolsys; print(any(m.startswith('toolsys.search') for m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"
