"""`make test-site`: every link of the built book leads somewhere, and each chapter can be
launched in the browser and on Binder (the repository of pyproject.toml's [project.urls]).

Internal links (pages, anchors, static files, the lite/ site when `make lite` ran) must resolve
to a file of the build and, for `#anchor`, to an element with that id; external links are only
the Binder and repository ones (this machine reaches no other host), checked by their form.
"""

from __future__ import annotations

import html.parser
import re
import tomllib
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "_site" / "public"
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        for key in ("href", "src"):
            if found.get(key):
                self.links.append(found[key] or "")


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(errors="replace"))
    return parser


_IDS: dict[Path, set[str]] = {}


def _ids(page: Path) -> set[str]:
    if page not in _IDS:
        _IDS[page] = _parse(page).ids
    return _IDS[page]


PAGES = sorted(p for p in BOOK.glob("*.html")) if BOOK.exists() else []


def test_the_book_was_built() -> None:
    assert {p.stem for p in PAGES} >= {*CHAPTERS, "index", "search"}, "run make site"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_internal_link_resolves(page: Path) -> None:
    broken = []
    for link in _parse(page).links:
        parts = urlsplit(link)
        if parts.scheme in ("http", "https", "mailto", "data", "javascript") or link.startswith(
            "//"
        ):
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if parts.path.startswith("lite/") and not (BOOK / "lite").exists():
            continue  # the browser edition is copied in only when make lite ran
        missing = not target.exists()
        if missing or (
            parts.fragment and target.suffix == ".html" and parts.fragment not in _ids(target)
        ):
            broken.append(link)
    assert not broken, f"{page.name}: {broken}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_chapter_launches_in_the_browser_and_on_binder(chapter: str) -> None:
    links = _parse(BOOK / f"{chapter}.html").links
    path = f"notebooks/{chapter}.ipynb"
    assert f"lite/lab/index.html?path={path}" in links
    owner_name = REPOSITORY.removeprefix("https://github.com/")
    encoded = f"lab/tree/{path}".replace("/", "%2F")
    binder = f"https://mybinder.org/v2/gh/{owner_name}/HEAD?urlpath={encoded}"
    assert binder in links


def test_the_book_has_a_search_box() -> None:
    assert (BOOK / "searchindex.js").exists()
    assert re.search(r'<form[^>]+action="search.html"', (BOOK / "index.html").read_text())


def test_the_readme_badge_points_at_the_same_repository() -> None:
    readme = (ROOT / "README.md").read_text()
    owner_name = REPOSITORY.removeprefix("https://github.com/")
    assert f"https://mybinder.org/v2/gh/{owner_name}/HEAD?urlpath=" in readme
