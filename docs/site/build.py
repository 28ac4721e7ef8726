"""Build the book (make site): _site/public, the executed lessons with launch links per chapter.

The lessons are copied to _site/book-src with one cell put first: links that open the same
chapter in the browser edition (JupyterLite, in the book's `lite/` folder when `make lite` ran) and
on Binder (the repository named by pyproject.toml's [project.urls] Repository). The notebooks in
the repository are never changed. Sphinx runs with warnings as errors, so a broken internal link
fails the build; tests/lite/lite_book.py then checks every link of the built pages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SOURCE = ROOT / "_site" / "book-src"
OUT = ROOT / "_site" / "public"  # what a static host serves: the book, and lite/ inside it
LITE = ROOT / "_site" / "lite"
TAG = "toolsys-launch-links"


def repository() -> str:
    """`owner/name` on GitHub, from pyproject.toml (one place for the README badge too)."""
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    return urls["Repository"].removeprefix("https://github.com/").strip("/")


def binder_url(path: str) -> str:
    return f"https://mybinder.org/v2/gh/{repository()}/HEAD?urlpath=" + quote(
        f"lab/tree/{path}", safe=""
    )


def lite_url(path: str) -> str:
    """From a book page (at the book's root) to the JupyterLite site in its lite/ folder."""
    return f"lite/lab/index.html?path={quote(path)}"


def launch_cell(path: str) -> dict:
    text = (  # raw links: Sphinx would take a relative Markdown link for a page reference
        f'<a class="toolsys-launch" href="{lite_url(path)}">Launch in the browser (JupyterLite)'
        f'</a> · <a class="toolsys-launch" href="{binder_url(path)}">Launch on Binder</a>'
        f" · source: <code>{path}</code>"
    )
    return {"cell_type": "markdown", "id": TAG, "metadata": {"tags": [TAG]}, "source": text}


def stage() -> list[str]:
    shutil.rmtree(SOURCE, ignore_errors=True)
    SOURCE.mkdir(parents=True)
    shutil.copy(HERE / "conf.py", SOURCE / "conf.py")
    chapters = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        data = json.loads(notebook.read_text())
        data["cells"].insert(0, launch_cell(f"notebooks/{notebook.name}"))
        (SOURCE / notebook.name).write_text(json.dumps(data, indent=1, ensure_ascii=False))
        chapters.append(notebook.stem)
    index = (HERE / "index.md").read_text().replace("{chapters}", "\n".join(chapters))
    (SOURCE / "index.md").write_text(index)
    return chapters


def build() -> Path:
    stage()
    shutil.rmtree(OUT, ignore_errors=True)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
               "-j", "2", str(SOURCE), str(OUT)]  # fmt: skip
    subprocess.run(command, check=True)
    if (LITE / "index.html").exists():  # make lite ran: serve it from the book's lite/ folder
        shutil.copytree(LITE, OUT / "lite")
    return OUT


if __name__ == "__main__":
    print(build())
