"""Search tokenisation: names split into words, case folded, stop words dropped, light stemming."""

from __future__ import annotations

import pytest

from toolsys.search import stem, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("billing_cancel_subscription", ["bill", "cancel", "subscription"]),
        ("getHTTPStatus2", ["http", "status", "2"]),
        ("send-SMS-text", ["send", "sms", "text"]),
        ("oauth2Token", ["oauth", "2", "token"]),
        ("K8sScaleDeployment", ["8", "scal", "deployment"]),
        ("v1.2 and v1.3", ["1", "2", "1", "3"]),
    ],
)
def test_names_split_at_underscores_case_changes_and_digits(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_every_form_of_a_verb_or_noun_reads_as_the_same_term() -> None:
    for forms in (
        ("cancel", "cancels", "cancelled", "cancelling"),
        ("schedule", "scheduled", "scheduling", "schedules"),
        ("invoice", "invoices", "invoiced"),
        ("company", "companies"),
        ("box", "boxes"),
    ):
        assert len({stem(form) for form in forms}) == 1, forms


def test_words_that_only_look_like_plurals_are_kept() -> None:
    assert stem("status") == "status"
    assert stem("address") == "address"
    assert stem("analysis") == "analysis"


def test_stop_words_and_single_letters_are_dropped_and_case_is_folded() -> None:
    assert tokenize("What's the WEATHER in Paris?") == ["weather", "paris"]


def test_unicode_words_are_kept_and_case_folded() -> None:
    assert tokenize("Straße Café 東京") == ["strass", "café", "東京"]


def test_anything_but_text_gives_no_terms() -> None:
    for value in (None, 42, ["cancel"], b"cancel", {"q": "x"}):
        assert tokenize(value) == []  # type: ignore[arg-type]


def test_a_huge_text_is_cut_so_its_cost_stays_bounded() -> None:
    assert len(tokenize("cancel " * 1_000_000)) < 400
