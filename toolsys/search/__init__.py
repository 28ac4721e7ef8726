"""Many tools: offline search over a registry, deferred export, and a catalog to measure on.

- `registry.search(query, k)`: BM25 over names, descriptions and parameters (`bm25`, `index`).
- `registry.deferred(core=...)`: a session that shows core tools + `search_tools` and loads what
  the model finds (`deferred`); `registry.export(target, deferred=True)` is its first request.
- `catalog_registry()` / `catalog_queries()`: 300+ realistic tool definitions and labelled
  user queries (`catalog`), for benchmarks/bench_search.py and the chapter.

Pure Python: importing it adds no dependency (`import toolsys` does not import it at all).

Lesson: `notebooks/09_composition.ipynb` measures the full listing of the catalog, builds BM25
by hand and compares it with `search` on every labelled query, and runs deferred export with
the offline model.
"""

from toolsys.search.bm25 import BM25, Hit, recall_at, stem, tokenize
from toolsys.search.catalog import catalog_queries, catalog_registry, catalog_specs
from toolsys.search.deferred import SEARCH_TOOL, Deferred
from toolsys.search.index import ToolIndex, keyword_overlap, search

__all__ = [
    "BM25",
    "SEARCH_TOOL",
    "Deferred",
    "Hit",
    "ToolIndex",
    "catalog_queries",
    "catalog_registry",
    "catalog_specs",
    "keyword_overlap",
    "recall_at",
    "search",
    "stem",
    "tokenize",
]
